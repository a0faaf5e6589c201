// The in-memory form of a workload spec file (docs/spec-format.md).
#ifndef TRNBENCH_WORKLOADS_SPEC_SPEC_H_
#define TRNBENCH_WORKLOADS_SPEC_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/exec_mode.h"
#include "workloads/spec/compiler_decisions.h"
#include "workloads/spec/kernel_provenance.h"
#include "workloads/spec/published_figure.h"

namespace trn {

inline constexpr int kSpecSchemaVersion = 1;

enum class Placement : uint8_t { kHost, kDevice };

struct TensorDecl {
  std::string name;
  std::vector<int64_t> shape;  // empty: a 0-d scalar
  DType dtype = DType::kFp32;
  Placement placement = Placement::kDevice;
};

// One ATen-level op of an eager, fused_op or compiled spec.
struct TorchOp {
  std::string op;                   // e.g. "aten::mul"
  std::vector<std::string> inputs;  // declared tensor names
  std::string output;               // declared tensor name
  std::string json_path;            // e.g. "/ops/2", for messages
};

// nl.affine_range, nl.sequential_range (and a Python range), nl.static_range
// (unrolled; costed as affine).
enum class LoopRange : uint8_t { kAffine, kSequential, kStatic };

// A load or store index entry that takes the whole dim (Python's `:`).
inline constexpr char kWholeDim[] = ":";

struct NkiLoop;

// One statement of an NKI tile-loop body.
struct NkiOp {
  std::string id;  // tile it defines; empty for a store
  std::string op;  // load, store, iota, activation, ...
  // Compute ops only. The spec's engine when `engine_stated`; otherwise the
  // compiler stage's placement (workloads/compiler/), unset before it ran.
  std::optional<Engine> engine;
  bool engine_stated = false;
  // `"engine": "auto"`: the compiler selects by engine workload even where
  // the ISA names a default engine (nl.* arithmetic such as `acc += x`).
  bool engine_auto = false;
  std::string func;  // activation function, e.g. "exp"
  // tensor_scalar's arithmetic operators, op0 then op1 ("alu", optional):
  // empty when the spec does not state them (then any engine the ISA
  // reference lists for tensor_scalar, by workload).
  std::vector<std::string> alu;
  std::vector<std::string> inputs;  // tile ids read
  std::string tensor;               // load source; store/hbm_copy target
  std::string from;                 // hbm_copy: the tensor copied from
  std::string mask;                 // tile id of the mask, or empty
  // load/store: rows past the tensor's end are masked by an affine
  // predicate of the indices that the compiler evaluates (no tile).
  bool affine_mask = false;
  std::vector<int64_t> tile;       // [partitions, free]; empty: loop tile
  std::optional<DType> dtype;      // tile dtype; default: loop tensor's
  std::string buffer = "sbuf";     // "sbuf" or "psum"
  std::vector<std::string> after;  // extra ordering dependencies (ids)
  // Ids read as the previous iteration made them (a tile carried from one
  // iteration to the next, such as an accumulator): a tile of this body, or
  // of a body around it, whose loop's previous iteration is then meant.
  std::vector<std::string> carry;
  // Parallel to `carry` (or empty): the slot of a carried block, as
  // `input_slots` (a carry written "block[v]").
  std::vector<std::vector<std::string>> carry_slots;
  // Parallel to `inputs` (or empty): for an input written "block[v]" or
  // "block[v][w]", the loop variables that pick one slot of the block, one
  // per level of its nested block loops; empty for a whole tile.
  std::vector<std::vector<std::string>> input_slots;
  // Parallel to `inputs` (or empty): the [partitions, free] part of each
  // input the op reads (`x[:, j*512:(j+1)*512]`), or empty for the whole.
  std::vector<std::vector<int64_t>> slices;
  // Parallel to `inputs` (or empty): the partitions a one-partition input
  // is broadcast to before the op reads it (`x.broadcast_to((P, n))`), or
  // 0 for none. The compiler stage inserts the TensorE matmul that does it
  // (workloads/compiler/broadcasts.h).
  std::vector<int64_t> broadcasts;
  // An op the compiler stage inserted (a broadcast's matmul or its row of
  // ones), removed and made again whenever the spec is compiled.
  bool compiler_inserted = false;
  // A block the compiler stage moved into a loop of the body it was in,
  // from this index of that body (workloads/compiler/rematerialization.h):
  // put back whenever the spec is compiled again. -1: not moved.
  int64_t sunk_from_index = -1;
  bool transpose = false;   // load: a DMA transpose
  std::string indirect;     // load: id of the index tile of a gather
  bool accumulate = false;  // activation / tensor_scalar: also reduce
  // matmul: inputs[0] is [M, K] (nl.matmul with transpose_x=False); the
  // compiler inserts a TensorE transpose into PSUM and a copy to SBUF.
  bool insert_transpose = false;
  // matmul: writes its own PSUM tile (`qk[i] = nisa.nc_matmul(...)`)
  // rather than accumulating into one (`res += nl.matmul(...)`), so a loop
  // whose result it is keeps a block of PSUM tiles, not an accumulator.
  bool overwrite = false;
  // The tile (for a loop with an id, what its id stands for) is one buffer
  // that every iteration of the loop around the op overwrites: an NKI
  // tensor allocated outside that loop without a block dimension (the
  // NKI block dimension migration guide). Counted once whatever the
  // loop's depth; each iteration's write waits for the previous one's
  // readers of it.
  bool one_buffer = false;
  // The tile has this many physical buffers (2 or more), used in rotation
  // by the iterations of the loop around the op: an NKI tensor whose
  // buffer dimension the kernel indexes `i % n` (`qk_sbuf[:, i % 2, ...]`)
  // or whose tiles `mod_alloc` places on n physical tiles. Counted n times
  // whatever the loop's depth; iteration i's write waits for iteration
  // i - n's readers of it. 0: not stated (the loop's depth decides).
  int64_t tile_buffers = 0;
  // The physical buffers the tile is held to across the iterations of the
  // loop around it: 1 for one_buffer, tile_buffers when stated, else 0.
  int64_t FixedBuffers() const { return one_buffer ? 1 : tile_buffers; }
  // The engine the compiler stage chose for that copy (unset otherwise).
  std::optional<Engine> transpose_copy_engine;
  // load/store/hbm_copy: the block of `tensor` moved, one entry per dim: the
  // var of an enclosing loop (that loop's current tile along the dim) or
  // kWholeDim. Empty: the op's own loop var for dim 0 and whole other dims.
  std::vector<std::string> index;
  // op "loop": the nested loop, exactly one element (a vector because
  // NkiLoop is incomplete here and specs are copied by value).
  std::vector<NkiLoop> loop;
  int source_line = 0;  // kernel source line it comes from
  std::string json_path;
};

// A loop over dim `dim` of `tensor`: over dim 0 in tiles of
// `tile_partitions` rows (the remaining dims flattened into the free axis),
// over another dim in steps of `step` elements. A loop over dim 0 may give
// `step` instead: it then walks blocks of that many rows, which may be
// taller than the partitions (a kernel's BLOCK_K of K), and its ops are
// tiled by the loops nested in it. Nested in a loop over the same tensor
// dim, a loop walks that loop's current tile rather than the dim.
struct NkiLoop {
  std::string var;
  LoopRange range = LoopRange::kAffine;
  std::string tensor;
  int dim = 0;
  int64_t tile_partitions = 128;  // dim 0, unless `step` is given
  int64_t step = 0;               // dim >= 1, or row blocks of dim 0
  // Iterations in flight (tile buffers in rotation): the spec's number when
  // `buffers_stated`, otherwise the compiler stage's depth, decided again at
  // every shape and device (CompileSpec).
  int buffers = 1;
  bool buffers_stated = false;
  // The scheduler may not reorder the loop's ops (NKI's no_reorder
  // directive): it and every loop nested in it issue their ops in body
  // order, iteration after iteration, with no software-pipelined prefetch.
  bool no_reorder = false;
  // Ids of this body's ops that the body around the loop reads after it
  // (a loop with more than one result): each stands for the tile the
  // loop's last iteration made. Nested loops only.
  std::vector<std::string> results;
  std::vector<NkiOp> body;
  std::string json_path;

  int64_t TileSize() const { return step > 0 ? step : tile_partitions; }
  // Whether the loop's iterations are partition tiles, which give the ops
  // of its body their default tile; otherwise ops name their block.
  bool WalksPartitionTiles() const { return dim == 0 && step == 0; }
};

struct NkiKernel {
  std::string source_file;  // e.g. "exp.py", for source-line args
  std::vector<NkiLoop> loops;
};

struct WorkloadSpec {
  int schema_version = kSpecSchemaVersion;
  std::string name;
  std::string family;
  std::string description;
  ExecMode mode = ExecMode::kEager;
  std::vector<TensorDecl> tensors;
  std::vector<TorchOp> ops;         // torch modes
  std::optional<NkiKernel> kernel;  // nki mode
  // The regression gate's noise threshold for this workload (a fraction);
  // unset: the command line's --threshold.
  std::optional<double> noise_threshold;
  // Measurements of this workload on hardware, for the validation suite
  // (docs/validation.md); empty for most specs.
  std::vector<PublishedFigure> published;
  // The NKI source a traced spec was made from (NKI front end).
  std::optional<KernelSource> kernel_source;
  // A validation spec's upstream kernel, for `validate --sources`.
  std::optional<KernelReference> traced_from;
  // What the compiler stage decided for an nki spec at its current shape
  // and device (empty before CompileSpec ran, and for torch modes).
  CompilerDecisions compiled;
  std::string file;          // where it was read from
  std::string content_hash;  // FNV-1a 64 of the file bytes, hex

  const TensorDecl* FindTensor(const std::string& tensor_name) const {
    for (const auto& t : tensors) {
      if (t.name == tensor_name) return &t;
    }
    return nullptr;
  }
};

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_SPEC_H_
