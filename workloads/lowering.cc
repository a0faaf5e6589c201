#include "workloads/lowering.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "workloads/aten_ops.h"
#include "workloads/compiler/compiler.h"
#include "workloads/nki_loops.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

using Deps = std::vector<uint32_t>;

// A tensor seen as [rows, free]: every dim but the last goes to rows, which
// map onto SBUF partitions.
struct Layout {
  int64_t rows = 1;
  int64_t free = 1;
};

Layout LayoutOf(const TensorDecl& t) {
  Layout l;
  if (t.shape.empty()) return l;
  l.free = t.shape.back();
  for (size_t i = 0; i + 1 < t.shape.size(); ++i) l.rows *= t.shape[i];
  return l;
}

// What a DMA transfer moves: `partitions` SBUF partitions (at most the
// profile's; an HBM copy's rows count as partitions), `runs` contiguous
// HBM runs (descriptors) of `bytes` in all; `whole_rows` when those runs
// are whole rows of the tensor, so one follows another in HBM.
struct DmaShape {
  int64_t partitions = 1;
  int64_t runs = 1;
  int64_t bytes = 0;
  bool whole_rows = false;
  bool transpose = false;
  bool indirect = false;
  bool hbm_to_hbm = false;
};

// How a compute instruction is priced (device_model/instruction_cost.h).
struct ComputeCost {
  CostRule rule = CostRule::kStream;
  int64_t work = 0;  // N of the rule
  int64_t aux = 0;   // stationary columns / transposed free size
  bool psum_operand = false;
  bool narrow_dtype = false;
};

bool IsNarrow(DType t) { return t == DType::kBf16 || t == DType::kFp16; }

class KernelBuilder {
 public:
  KernelBuilder(Kernel& k, const DeviceProfile& profile)
      : k_(k), partitions_(profile.memory.partitions) {}

  // Room for `n` more instructions: growing by doubling would hold up to
  // twice the program (and both copies while it moves) at 100k tiles.
  void Reserve(size_t n) { k_.instrs.reserve(k_.instrs.size() + n); }

  // One DMA instruction; the DMA unit splits it over its engines by
  // partition, as the NKI DMA guide describes.
  uint32_t Dma(const std::string& opcode, const std::string& label,
               const DmaShape& shape, const Deps& deps, int line = 0,
               int iteration = -1) {
    Instruction in;
    in.kind = InstrKind::kDma;
    in.partitions = static_cast<int32_t>(
        std::clamp<int64_t>(shape.partitions, 1, partitions_));
    in.aux = std::max<int64_t>(shape.runs, 1);
    in.work = shape.bytes;
    in.transpose = shape.transpose;
    in.indirect = shape.indirect;
    in.hbm_to_hbm = shape.hbm_to_hbm;
    // A gather's rows come through an index, a transpose writes columns and
    // an HBM copy's rows are dealt as rows, not as a block per engine.
    in.contiguous_rows = shape.whole_rows && !shape.transpose &&
                         !shape.indirect && !shape.hbm_to_hbm;
    in.opcode = k_.Intern(opcode);
    in.label = k_.Intern(label);
    in.source_line = line;
    in.iteration = iteration;
    return k_.Add(in, deps);
  }

  uint32_t Compute(Engine engine, const std::string& opcode,
                   const std::string& label, DType dtype, int64_t partitions,
                   const ComputeCost& cost, const Deps& deps, int64_t flops,
                   int line = 0, int iteration = -1) {
    Instruction in;
    in.kind = InstrKind::kCompute;
    in.engine = engine;
    in.dtype = dtype;
    in.rule = cost.rule;
    in.work = cost.work;
    in.aux = cost.aux;
    in.psum_operand = cost.psum_operand;
    in.narrow_dtype = cost.narrow_dtype;
    in.partitions = static_cast<int32_t>(partitions);
    in.flops = flops;
    in.opcode = k_.Intern(opcode);
    in.label = k_.Intern(label);
    in.source_line = line;
    in.iteration = iteration;
    return k_.Add(in, deps);
  }

  size_t size() const { return k_.instrs.size(); }

 private:
  Kernel& k_;
  int64_t partitions_;
};

absl::Status CheckSize(const WorkloadSpec& spec, size_t n) {
  if (static_cast<int64_t>(n) > kMaxInstructions) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.file, ": the program lowers to more than ",
                     kMaxInstructions, " instructions; use a smaller shape"));
  }
  return absl::OkStatus();
}

// Lowers torch ops into one kernel. Tensors in `resident` are already on
// chip (produced earlier in the same kernel), so they are neither loaded
// nor stored: that is what a compiled graph saves over eager execution.
// `earlier` counts the instructions of the program's earlier dispatches:
// the limit is on the program, not on each of its kernels.
absl::Status LowerTorchOps(const WorkloadSpec& spec,
                           const std::vector<const TorchOp*>& ops,
                           const DeviceProfile& profile, size_t earlier,
                           Kernel& kernel) {
  KernelBuilder b(kernel, profile);
  const int64_t pmax = profile.memory.partitions;
  std::map<std::string, int> uses;  // reads left inside this kernel
  std::map<std::string, bool> produced_here;
  for (const TorchOp* op : ops) {
    for (const auto& in : op->inputs) ++uses[in];
    produced_here[op->output] = true;
  }
  // Rows tile over partitions; every tile runs the whole chain.
  int64_t rows = 1;
  for (const TorchOp* op : ops) {
    rows = std::max(rows, LayoutOf(*spec.FindTensor(op->output)).rows);
  }
  const int64_t tiles = (rows + pmax - 1) / pmax;
  // At least one instruction per op and tile: refuse a huge shape up front
  // instead of building 20 million instructions first.
  TRN_RETURN_IF_ERROR(CheckSize(
      spec,
      earlier + static_cast<size_t>(tiles * static_cast<int64_t>(ops.size()))));
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t tile_rows = std::min(pmax, rows - t * pmax);
    std::map<std::string, Deps> ready;  // tensor -> instructions making it
    for (const TorchOp* op : ops) {
      const AtenOpInfo* info = FindAtenOp(op->op);
      if (info == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            spec.file, ": ", op->json_path, ": unknown op ", op->op));
      }
      const TensorDecl& out = *spec.FindTensor(op->output);
      // `as`: the tensor whose tile holds the data (a view's input).
      auto store_if_last = [&](const Deps& after, const TensorDecl& as) {
        if (uses[op->output] > 0) return;
        const Layout o = LayoutOf(as);
        const int64_t r = std::min(tile_rows, o.rows);
        b.Dma("dma_store", op->output,
              DmaShape{r, r, r * o.free * DTypeBytes(as.dtype),
                       /*whole_rows=*/true},
              after);
      };
      if (info->rule == ShapeRule::kView) {
        // A view moves no data: on chip it is the tile it views, and a
        // view of a tensor in HBM is read where it is.
        --uses[op->inputs[0]];
        auto it = ready.find(op->inputs[0]);
        if (it != ready.end()) {
          ready[op->output] = it->second;
          store_if_last(it->second, *spec.FindTensor(op->inputs[0]));
        }
        continue;
      }
      const bool matmul =
          info->rule == ShapeRule::kMatmul || info->rule == ShapeRule::kLinear;
      Deps deps;
      for (size_t k = 0; k < op->inputs.size(); ++k) {
        const std::string& name = op->inputs[k];
        // An embedding's table is not loaded: its rows are gathered below.
        if (info->rule == ShapeRule::kEmbedding && k == 0) continue;
        auto it = ready.find(name);
        if (it == ready.end()) {
          const TensorDecl& td = *spec.FindTensor(name);
          Layout l = LayoutOf(td);
          const int64_t r = std::min(tile_rows, l.rows);
          DmaShape shape{r, r, r * l.free * DTypeBytes(td.dtype),
                         /*whole_rows=*/true};
          if (matmul && k == 1) {
            // The right operand is read whole for each batch the tile's
            // rows cover (a 2-d weight: once), its contraction dim on
            // partitions.
            const int64_t batches =
                td.shape.size() <= 2
                    ? 1
                    : std::max<int64_t>(1,
                                        l.rows / td.shape[td.shape.size() - 2]);
            const int64_t mat_rows = l.rows / batches;
            const int64_t m = std::max<int64_t>(
                1, LayoutOf(out).rows / std::max<int64_t>(1, batches));
            const int64_t covered =
                std::min<int64_t>(batches, (tile_rows + m - 1) / m);
            shape = DmaShape{std::min(mat_rows, pmax), covered * mat_rows,
                             covered * mat_rows * l.free * DTypeBytes(td.dtype),
                             /*whole_rows=*/true};
          }
          it = ready.emplace(name, Deps{b.Dma("dma_load", name, shape, {})})
                   .first;
        }
        deps.insert(deps.end(), it->second.begin(), it->second.end());
      }
      if (info->rule == ShapeRule::kEmbedding) {
        // Each output row is a table row, gathered through its index by
        // an indirect DMA (the DMA guide's indirect access).
        const Layout o = LayoutOf(out);
        const TensorDecl& table = *spec.FindTensor(op->inputs[0]);
        const int64_t r = std::min(tile_rows, o.rows);
        DmaShape gather{r, r, r * o.free * DTypeBytes(table.dtype)};
        gather.indirect = true;
        const uint32_t g = b.Dma("dma_gather", op->output, gather, deps);
        ready[op->output] = {g};
        for (const auto& name : op->inputs) --uses[name];
        store_if_last({g}, out);
        TRN_RETURN_IF_ERROR(CheckSize(spec, earlier + b.size()));
        continue;
      }
      const TensorDecl& first = *spec.FindTensor(op->inputs.front());
      Layout in_l = LayoutOf(first);
      int64_t work = in_l.free;
      int64_t matmul_flops = 0;
      int64_t stationary = tile_rows;
      if (matmul) {
        // TensorE streams the moving operand once per 128-deep slice of
        // the contraction, for each batch (each its own right operand)
        // among the tile's rows.
        const TensorDecl& rhs = *spec.FindTensor(op->inputs[1]);
        const int64_t k_dim = first.shape.back();
        const int64_t n_dim = out.shape.back();
        const int64_t m =
            first.shape.size() >= 2 ? first.shape[first.shape.size() - 2] : 1;
        const int64_t batched =
            info->rule == ShapeRule::kMatmul && rhs.shape.size() > 2
                ? std::max<int64_t>(1, (tile_rows + m - 1) / m)
                : 1;
        stationary = std::max<int64_t>(1, tile_rows / batched);
        work = batched * n_dim * ((k_dim + pmax - 1) / pmax);
        matmul_flops = 2 * k_dim * tile_rows * n_dim;
        if (info->rule == ShapeRule::kLinear) in_l.free = n_dim;
      }
      uint32_t last = 0;
      for (const AtenStep& s : StepsFor(*info, op->inputs.size())) {
        const bool pe = s.cost == CostRule::kMatmul;
        // After the matmul, the bias add streams the [rows, n] result.
        int64_t w =
            s.work == WorkBasis::kFree ? (pe || !matmul ? work : in_l.free) : 1;
        // About one operation per element, except the PE array's 2*K*M*N.
        const int64_t flops = pe ? matmul_flops : tile_rows * w;
        ComputeCost cost;
        cost.rule = s.cost;
        cost.work = w;
        cost.aux = pe ? stationary : tile_rows;  // a matmul's stationary cols
        cost.narrow_dtype = IsNarrow(first.dtype);
        last = b.Compute(s.engine, std::string(s.opcode), op->output,
                         first.dtype, tile_rows, cost, deps, flops);
        deps = {last};
      }
      ready[op->output] = {last};
      for (const auto& name : op->inputs) --uses[name];
      store_if_last({last}, out);
      TRN_RETURN_IF_ERROR(CheckSize(spec, earlier + b.size()));
    }
  }
  return absl::OkStatus();
}

std::vector<HostCopy> HostCopiesFor(const WorkloadSpec& spec,
                                    const std::vector<const TorchOp*>& ops) {
  std::vector<HostCopy> copies;
  for (const TorchOp* op : ops) {
    for (const auto& name : op->inputs) {
      const TensorDecl& t = *spec.FindTensor(name);
      if (t.placement != Placement::kHost) continue;
      int64_t n = 1;
      for (int64_t d : t.shape) n *= d;
      bool seen = false;
      for (const auto& c : copies) seen = seen || c.tensor == name;
      if (!seen) copies.push_back({name, n * DTypeBytes(t.dtype)});
    }
  }
  return copies;
}

absl::StatusOr<Program> LowerTorch(const WorkloadSpec& spec,
                                   const DeviceProfile& profile) {
  Program p;
  p.name = spec.name;
  p.mode = spec.mode;
  if (spec.mode == ExecMode::kCompiled) {
    std::vector<const TorchOp*> ops;
    for (const auto& op : spec.ops) ops.push_back(&op);
    Dispatch d;
    d.name = "Torch-Compiled Region";
    d.host_copies = HostCopiesFor(spec, ops);
    d.kernel.name = spec.name;
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, 0, d.kernel));
    p.dispatches.push_back(std::move(d));
    return p;
  }
  size_t earlier = 0;
  for (const auto& op : spec.ops) {
    // A view is no dispatch: it is metadata of a tensor in HBM.
    const AtenOpInfo* info = FindAtenOp(op.op);
    if (info != nullptr && info->rule == ShapeRule::kView) continue;
    std::vector<const TorchOp*> ops = {&op};
    Dispatch d;
    d.name = op.op;
    d.host_copies = HostCopiesFor(spec, ops);
    d.kernel.name = op.op;
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, earlier, d.kernel));
    earlier += d.kernel.instrs.size();
    p.dispatches.push_back(std::move(d));
  }
  return p;
}

// The prefetch stage of a multi-buffered body: its loads and everything
// they depend on. The rest of the body is the compute stage.
std::vector<char> PrefetchStage(const NkiLoop& loop,
                                const std::vector<std::vector<size_t>>& preds) {
  std::vector<char> in(loop.body.size(), 0);
  std::vector<size_t> todo;
  for (size_t i = 0; i < loop.body.size(); ++i) {
    // A load into a tile held to fewer buffers than the loop's depth
    // (one_buffer, tile_buffers) waits for the readers of an iteration whose
    // compute stage comes later in program order: it is not issued ahead.
    const int64_t fixed = loop.body[i].FixedBuffers();
    if (loop.body[i].op == "load" && (fixed == 0 || fixed >= loop.buffers)) {
      todo.push_back(i);
    }
  }
  while (!todo.empty()) {
    const size_t i = todo.back();
    todo.pop_back();
    if (in[i]) continue;
    in[i] = 1;
    for (size_t p : preds[i]) todo.push_back(p);
  }
  return in;
}

// One run of a block loop, slot by slot: what made each slot (its
// iteration's instructions) and the instructions that have read it by slot
// so far, which a later run waits for before it refills that slot.
struct BlockSlots {
  std::vector<Deps> made;
  std::vector<Deps> readers;
  // A block of blocks: the slots of each slot, filled by the loop without
  // an id in it (null when the slot is one tile).
  std::vector<std::shared_ptr<BlockSlots>> sub;
  // A block whose last slots the compiler stage spilled: its decision, and
  // per slot the DMA that saved it (unset: in SBUF).
  const SpillDecision* spill = nullptr;
  std::vector<std::optional<uint32_t>> saves;
};

// A tile as lowered: the instructions that make it, and what its readers
// need to know of it (a matmul's contraction depth and input dtype).
struct LoweredTile {
  Deps deps;
  int64_t partitions = 0;  // 0: not a tile (a nested loop's id)
  int64_t free = 0;
  DType dtype = DType::kFp32;
  bool psum = false;
  std::shared_ptr<BlockSlots> slots;  // a block's id: its slots
  // A reduction's: the id of the op or block loop whose instructions made
  // it, whose buffers its readers hold too.
  std::string made_by;
};

// One use of the buffer of a tile held to a fixed number of buffers
// (one_buffer, tile_buffers): the instructions that wrote it and those that
// have read it so far, the block's slots when the tile is a block, and the
// run of the loop around the op that made it (NkiLowering::Loop's count).
struct FixedUse {
  Deps writer;
  Deps readers;
  std::shared_ptr<BlockSlots> slots;
  int64_t run = 0;
};

// The descriptors of a load or store of `block` of `t`: one contiguous HBM
// run per row, or several when a dim after the first is cut (the row is
// then made of strided segments), on min(rows, partitions) partitions.
DmaShape DmaShapeOf(const TensorDecl& t, const std::vector<int64_t>& block) {
  DmaShape s;
  // Leading unit dims dropped by an integer index: the rows are the next
  // dim's (LeadingUnitDims).
  const size_t lead = LeadingUnitDims(block);
  const int64_t rows = block.empty() ? 1 : block[lead];
  int64_t row_bytes = DTypeBytes(t.dtype);
  for (size_t d = lead + 1; d < block.size(); ++d) row_bytes *= block[d];
  // The innermost cut dim k: every dim after it is whole, so each segment
  // is block[k] * (the dims after k) elements, and a row has
  // prod(block[lead+1..k-1]) of them.
  int64_t segments = 1;
  s.whole_rows = true;
  for (size_t k = block.size(); k-- > lead + 1;) {
    if (block[k] != t.shape[k]) {
      for (size_t d = lead + 1; d < k; ++d) segments *= block[d];
      s.whole_rows = false;
      break;
    }
  }
  s.partitions = rows;
  s.runs = rows * segments;
  s.bytes = rows * row_bytes;
  return s;
}

// One iteration of a loop while it is being lowered.
struct Iteration {
  int64_t index = 0;
  int64_t tile = 0;  // extent along the loop's dim in this iteration
  Deps gate;         // what its ops with no producer in the body wait for
  Deps all;          // its instructions (nested loops: their completion)
  std::map<std::string, LoweredTile> made;
  LoweredTile result;           // shape of the tile the loop's id stands for
  Iteration* prev = nullptr;    // for tiles carried from it
  const Deps* entry = nullptr;  // what the loop was entered with
  // How many iterations apart two share buffers; 0 when none do (a block).
  int64_t copies = 0;
  // A block's iteration: whether its slots are kept (want_slots); the run
  // before's slot this iteration refills, when the block refills slot by
  // slot; and the slots of the loop without an id that fills it.
  bool keeps_slots = false;
  const BlockSlots* refill = nullptr;
  std::shared_ptr<BlockSlots> sub;
  // A multi-buffered loop's iteration: the one whose buffers it reuses
  // (i - buffers; null for the first iterations of a run, which follow
  // the coarse rule through `gate`), whether its tiles' readers are
  // tracked, and, per tile id of this iteration, the instructions that
  // have read it so far.
  Iteration* reuse = nullptr;
  bool track_readers = false;
  std::map<std::string, Deps> readers;
  // Spilled tiles of this iteration: the DMA that saved each to HBM.
  std::map<std::string, uint32_t> spill_saves;
  // The run of its loop it belongs to (NkiLowering::Loop's count), and, per
  // id of a tile of it held to a fixed number of buffers, that tile's use.
  int64_t run = 0;
  std::map<std::string, std::shared_ptr<FixedUse>> fixed;
};

struct LoweredLoop {
  Deps done;  // waiting for these waits for the whole loop
  std::shared_ptr<BlockSlots> slots;  // when asked for (want_slots)
  // The shape (not the deps) of the tile its id stands for: a block's
  // element or the accumulator, so that a matmul reading a block of bf16
  // tiles runs at the bf16 rate.
  LoweredTile tile;
  // Its results (NkiLoop::results): each id's tile as the last iteration
  // made it.
  std::vector<std::pair<std::string, LoweredTile>> results;
};

// Whether some op of the nest reads a block by slot ("block[k]").
bool HasSlotInputs(const std::vector<NkiLoop>& loops) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      for (const auto& vars : op.input_slots) {
        if (!vars.empty()) return true;
      }
      for (const auto& vars : op.carry_slots) {
        if (!vars.empty()) return true;
      }
      if (HasSlotInputs(op.loop)) return true;
    }
  }
  return false;
}

// Lowers an NKI loop nest. Iterations are emitted in program order, which
// is also each engine's and each DMA queue's order, so for a multi-buffered
// loop the order is what a software-pipelining compiler produces: the
// loads of iteration i + B - 1 are issued before the compute of iteration i.
class NkiLowering {
 public:
  NkiLowering(const WorkloadSpec& spec, const DeviceProfile& profile,
              Kernel& kernel)
      : spec_(spec),
        partitions_(profile.memory.partitions),
        builder_(kernel, profile) {
    for (const NkiOp* op : BlocksReadBySlot(spec.kernel->loops)) {
      by_slot_.insert(op);
    }
    any_slots_ = HasSlotInputs(spec.kernel->loops);
    for (const SpillDecision& s : spec.compiled.spills) {
      if (s.slots > 0) {
        slot_spill_[s.json_path] = &s;
        continue;
      }
      spill_after_[s.json_path] = &s;
      reload_before_[s.reload_before].push_back(&s);
    }
  }

  // `tiles`: how the loop holds its tiles (TilesOf). `refill`, if given,
  // is the earlier run of this block whose slots it refills: iteration i
  // also waits for the readers of its slot i. `want_slots` asks for each
  // iteration's instructions in the result. `result_wait`, if given, is
  // what the op that makes the loop's result waits for besides its own
  // dependencies, in every iteration (a one_buffer loop's previous
  // readers: only the op that writes the tile waits for them).
  // `result_out`: the tile of the op in the loop's result position is read
  // by the body around it (the loop's id stands for it).
  absl::StatusOr<LoweredLoop> Loop(const NkiLoop& loop, const Deps& entry,
                                   const LoopTiles& tiles,
                                   const BlockSlots* refill = nullptr,
                                   bool want_slots = false,
                                   const Deps* result_wait = nullptr,
                                   bool result_out = false) {
    const bool keep_all = tiles.keep_all;
    const bool rotates = tiles.rotates;
    const int64_t run_id = ++runs_;
    chain_.push_back(&loop);
    keep_all_.push_back(keep_all);
    result_index_.push_back(LoopResultIndex(loop));
    result_wait_.push_back(result_wait);
    result_out_.push_back(result_out);
    const size_t pos = chain_.size() - 1;
    if (pos == 0) {
      // At least one instruction per op and iteration: refuse a huge nest
      // up front instead of building millions of instructions first.
      const int64_t floor = MinInstructions(pos);
      chain_.pop_back();
      TRN_RETURN_IF_ERROR(
          CheckSize(spec_, builder_.size() + static_cast<size_t>(floor)));
      builder_.Reserve(static_cast<size_t>(floor));
      chain_.push_back(&loop);
    }
    const TensorDecl& tensor = *spec_.FindTensor(loop.tensor);
    const int outer = EnclosingSameDim(chain_, pos);
    const int64_t extent = outer >= 0
                               ? frames_[static_cast<size_t>(outer)]->tile
                               : tensor.shape[static_cast<size_t>(loop.dim)];
    const int64_t step = loop.TileSize();
    const int64_t trips = (extent + step - 1) / step;
    // Each iteration emits at least one instruction per body op: refuse a
    // 2^40-iteration loop before allocating its iterations (that was a
    // bad_alloc abort), also when it is nested.
    TRN_RETURN_IF_ERROR(CheckSize(
        spec_,
        builder_.size() + static_cast<size_t>(trips) * loop.body.size()));
    const auto preds = BodyPreds(loop);
    const std::vector<size_t> order = BodyOrder(preds);
    std::vector<char> prefetch = PrefetchStage(loop, preds);
    const bool has_prefetch =
        std::find(prefetch.begin(), prefetch.end(), 1) != prefetch.end();
    const bool has_compute =
        std::find(prefetch.begin(), prefetch.end(), 0) != prefetch.end();
    // Buffer rotation: with B tile sets, iteration i reuses the buffers of
    // iteration i - B and so waits for it to finish. A sequential range
    // (model 8) orders only what its iterations carry from one to the next,
    // as NKI's sequential_range does: the tiles in `carry` (each op that
    // reads one waits for the previous iteration's) and a state its id
    // names (updated in place, its updates kept in order by the engines,
    // which take the iterations in program order). What nothing carries
    // is free to overlap, as in an affine loop.
    // Iterations that each fill their own slot of a block never reuse one
    // another's buffers.
    const int64_t distance =
        keep_all ? std::max<int64_t>(trips, 1) : loop.buffers;
    // A no_reorder loop, or one nested in it, keeps the source's order: no
    // prefetch stage is issued ahead of the iteration before.
    bool no_reorder = false;
    for (const NkiLoop* l : chain_) no_reorder = no_reorder || l->no_reorder;
    const bool pipelined = !keep_all && !no_reorder && loop.buffers >= 2 &&
                           trips >= 2 && has_prefetch && has_compute;
    // The iterations still read: iteration i waits for i - distance and
    // reads i - 1, so older ones are dropped as lowering moves on (all of
    // them at once took 30 MB at 100k tiles, more than the program). A
    // deque keeps the addresses of those it holds.
    std::deque<Iteration> live;
    int64_t first_live = 0;  // the index of live.front()
    auto at = [&](int64_t i) -> Iteration& {
      return live[static_cast<size_t>(i - first_live)];
    };
    auto begin = [&](int64_t i) {
      Iteration& it = live.emplace_back();
      it.index = i;
      it.tile = std::min(step, extent - i * step);
      it.entry = &entry;
      it.run = run_id;
      it.copies = keep_all ? 0 : loop.buffers;
      // With one buffer an iteration waits for the whole one before, as
      // the seed profile of exp_tiled shows its engines taking turns and
      // its DMA never overlapping compute; with more, each tile's buffer
      // is free once that tile's readers are done (the tile framework
      // tracks each tile, not whole iterations).
      it.track_readers = !keep_all && loop.buffers >= 2;
      if (i >= distance) {
        it.gate = at(i - distance).all;
        if (it.track_readers) {
          it.reuse = &at(i - distance);
        }
      } else {
        it.gate = entry;
        // Its buffers rotate over every run of the loop: the first
        // iterations of this run reuse those of the last runs.
        const std::vector<Deps>& last = rotation_[&loop];
        const int64_t back = distance - i;
        if (rotates && static_cast<int64_t>(last.size()) >= back) {
          const Deps& d = last[last.size() - static_cast<size_t>(back)];
          it.gate.insert(it.gate.end(), d.begin(), d.end());
        }
      }
      it.keeps_slots = want_slots;
      if (refill != nullptr &&
          i < static_cast<int64_t>(refill->readers.size())) {
        const Deps& g = refill->readers[static_cast<size_t>(i)];
        it.gate.insert(it.gate.end(), g.begin(), g.end());
        it.refill = refill->sub[static_cast<size_t>(i)].get();
      }
      it.prev = i > 0 ? &at(i - 1) : nullptr;
    };
    // An iteration is read by the ones `distance` and 1 after it; after
    // that it only costs memory. The last `distance` are the loop's result.
    // Iterations are released in order, the oldest first.
    auto release = [&](int64_t i) {
      if (i < 0 || i >= trips - distance || i != first_live) return;
      live.pop_front();
      ++first_live;
    };
    auto run = [&](int64_t i, int stage) -> absl::Status {
      frames_.push_back(&at(i));
      for (size_t idx : order) {
        if (stage >= 0 && prefetch[idx] != (stage == 0)) continue;
        TRN_RETURN_IF_ERROR(Emit(loop, at(i), idx));
      }
      frames_.pop_back();
      return absl::OkStatus();
    };
    if (!pipelined) {
      for (int64_t i = 0; i < trips; ++i) {
        begin(i);
        TRN_RETURN_IF_ERROR(run(i, -1));
        release(i - distance - 1);
      }
    } else {
      const int64_t ahead = loop.buffers - 1;
      for (int64_t s = 0; s < trips + ahead; ++s) {
        if (s < trips) {
          begin(s);
          TRN_RETURN_IF_ERROR(run(s, 0));
        }
        if (s >= ahead) TRN_RETURN_IF_ERROR(run(s - ahead, 1));
        release(s - ahead - distance - 1);
      }
    }
    // The last `distance` iterations finish only after every earlier one.
    LoweredLoop out;
    for (int64_t i = std::max<int64_t>(0, trips - distance); i < trips; ++i) {
      const Deps& a = at(i).all;
      out.done.insert(out.done.end(), a.begin(), a.end());
    }
    if (trips > 0) {
      out.tile = live.back().result;
      for (const std::string& id : loop.results) {
        auto m = live.back().made.find(id);
        if (m != live.back().made.end()) {
          out.results.emplace_back(id, m->second);
        }
      }
    }
    if (want_slots) {
      // A block keeps every iteration (its distance is its trips), so none
      // has been released.
      out.slots = std::make_shared<BlockSlots>();
      for (Iteration& it : live) {
        out.slots->made.push_back(it.all);
        out.slots->sub.push_back(std::move(it.sub));
      }
      out.slots->readers.resize(live.size());
    }
    if (rotates) {
      std::vector<Deps>& last = rotation_[&loop];
      for (int64_t i = std::max<int64_t>(0, trips - distance); i < trips; ++i) {
        last.push_back(at(i).all);
      }
      if (static_cast<int64_t>(last.size()) > distance) {
        last.erase(last.begin(),
                   last.end() - static_cast<std::ptrdiff_t>(distance));
      }
    }
    chain_.pop_back();
    keep_all_.pop_back();
    result_index_.pop_back();
    result_wait_.pop_back();
    result_out_.pop_back();
    return out;
  }

 private:
  // A lower bound on the instructions of chain_[pos] and the loops nested
  // in it, from their largest extents; saturates past the limit.
  int64_t MinInstructions(size_t pos) {
    const NkiLoop& loop = *chain_[pos];
    const int64_t extent = LoopExtents(spec_, chain_, pos).back();
    const int64_t trips = (extent + loop.TileSize() - 1) / loop.TileSize();
    int64_t per_trip = 0;
    for (const NkiOp& op : loop.body) {
      int64_t n = 1;
      if (!op.loop.empty()) {
        chain_.push_back(&op.loop.front());
        n = MinInstructions(chain_.size() - 1);
        chain_.pop_back();
      }
      per_trip = std::min(per_trip + n, kMaxInstructions + 1);
    }
    if (per_trip > 0 && trips > (kMaxInstructions + 1) / per_trip) {
      return kMaxInstructions + 1;
    }
    return trips * per_trip;
  }

  // The published cost rule of a compute op and the N it is applied to:
  // reductions and statistics by their input, elementwise ops by their
  // tile, TensorE by its moving (or transposed) tile.
  ComputeCost CostOf(const NkiOp& op, int64_t tile_p, int64_t tile_f,
                     DType dtype) const {
    ComputeCost c;
    c.work = tile_f;
    const LoweredTile* in0 = nullptr;
    bool narrow = IsNarrow(dtype);
    for (const auto& id : op.inputs) {
      const LoweredTile* t = Find(id);
      if (t == nullptr || t->partitions == 0) continue;
      if (in0 == nullptr) in0 = t;
      c.psum_operand = c.psum_operand || t->psum;
      narrow = narrow && IsNarrow(t->dtype);
    }
    c.narrow_dtype = narrow;
    int64_t in_f = in0 != nullptr ? in0->free : tile_f;
    int64_t in_p = in0 != nullptr ? in0->partitions : tile_f;
    // An input read by a slice (`x[:, j*512:(j+1)*512]`) costs the slice.
    if (!op.slices.empty() && !op.slices.front().empty()) {
      in_p = op.slices.front()[0];
      in_f = op.slices.front()[1];
    }
    const std::string& k = op.op;
    if (k == "tensor_tensor" || k == "tensor_tensor_scan" || k == "select") {
      c.rule = CostRule::kStream2;
    } else if (k == "tensor_reduce" || k == "bn_stats") {
      c.rule = CostRule::kStream;
      c.work = in_f;
    } else if (k == "bn_aggr") {
      c.rule = CostRule::kBnAggr;
      c.work = in_f;
    } else if (k == "reciprocal") {
      c.rule = CostRule::kReciprocal;
    } else if (k == "iota" || k == "affine_select") {
      c.rule = CostRule::kIndexGen;
    } else if (k == "activation") {
      c.rule = op.accumulate ? CostRule::kAccumulate : CostRule::kActivation;
    } else if (k == "tensor_scalar" && op.accumulate) {
      c.rule = CostRule::kAccumulate;
    } else if (k == "matmul") {
      c.rule = CostRule::kMatmul;
      c.aux = tile_p;  // stationary columns: the output's partitions
    } else if (k == "transpose") {
      if (*op.engine == Engine::kTensor) {
        // The input's partitions become the output's free axis.
        c.rule = CostRule::kTransposePe;
        c.work = in_p;
        c.aux = in_f;
      } else {
        c.work = in_f;
      }
    }
    return c;
  }

  // The instructions the compiler inserts before a matmul whose first
  // input x is [M, K] (nl.matmul with transpose_x=False, which the NKI
  // reference says lowers to nc_matmul(transpose(x), y)): a PE-array
  // transpose of x into PSUM, [K, M], and the copy of that tile to SBUF
  // on the engine the compiler stage chose. The transpose waits for x and
  // for whatever the matmul waits for besides its other inputs (its
  // buffers, `after`); the matmul then waits for the copy. Returns the
  // contraction depth, K.
  absl::StatusOr<int64_t> InsertTranspose(const NkiOp& op, const LoweredTile* x,
                                          Deps& deps, size_t first_end,
                                          size_t inputs_end, int iter) {
    if (x == nullptr || x->partitions == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec_.file, ": ", op.json_path,
                       "/insert_transpose: the first input must be a tile"));
    }
    if (x->partitions > partitions_ || x->free > partitions_) {
      return absl::InvalidArgumentError(absl::StrCat(
          spec_.file, ": ", op.json_path, "/insert_transpose: x is [",
          x->partitions, ", ", x->free, "]; nl.matmul transposes an x of at ",
          "most [", partitions_, ", ", partitions_, "]"));
    }
    Deps t_deps(deps.begin(),
                deps.begin() + static_cast<std::ptrdiff_t>(first_end));
    t_deps.insert(t_deps.end(),
                  deps.begin() + static_cast<std::ptrdiff_t>(inputs_end),
                  deps.end());
    const std::string id = op.id.empty() ? op.op : op.id;
    ComputeCost t;
    t.rule = CostRule::kTransposePe;
    t.work = x->partitions;  // the input's partitions become the free axis
    t.aux = x->free;
    t.narrow_dtype = IsNarrow(x->dtype);
    const uint32_t transpose =
        builder_.Compute(Engine::kTensor, "transpose", id + ".transpose",
                         x->dtype, x->free, t, t_deps, 0, op.source_line, iter);
    ComputeCost c;
    c.work = x->partitions;  // [K, M]: M elements per partition
    c.psum_operand = true;
    c.narrow_dtype = t.narrow_dtype;
    const uint32_t copy =
        builder_.Compute(op.transpose_copy_engine.value_or(Engine::kVector),
                         "tensor_copy", id + ".transpose_copy", x->dtype,
                         x->free, c, {transpose}, 0, op.source_line, iter);
    deps.push_back(copy);
    return x->free;
  }

  // The tile `id` of the nearest body around that made it, and the
  // iteration that made it; {nullptr, nullptr} if none did.
  std::pair<const LoweredTile*, Iteration*> FindWithFrame(
      const std::string& id) const {
    for (size_t f = frames_.size(); f-- > 0;) {
      auto it = frames_[f]->made.find(id);
      if (it != frames_[f]->made.end()) return {&it->second, frames_[f]};
    }
    return {nullptr, nullptr};
  }

  const LoweredTile* Find(const std::string& id) const {
    return FindWithFrame(id).first;
  }

  // An op's free size in this iteration: a tile whose free size is the
  // step of an enclosing loop over a free dim (dim >= 1) follows that
  // loop's tile, so on its partial last tile (a dim that the step does not
  // divide) it is costed at the real size, as the loads and stores of that
  // iteration already move (model 8). The innermost such loop decides.
  int64_t PartialFree(int64_t free) const {
    for (size_t f = chain_.size(); f-- > 0;) {
      const NkiLoop& l = *chain_[f];
      if (l.dim < 1 || l.step <= 0 || l.step != free) continue;
      return std::min(free, frames_[f]->tile);
    }
    return free;
  }

  // The last s.slots slots (in fill order, through a block of blocks) of a
  // block run: each saved to HBM once the iteration that filled it is done.
  // A later run refills the slot after the save and after this run's reads
  // of it (through reloads), as it refills a slot kept in SBUF.
  void SpillSlots(const SpillDecision& s, BlockSlots& block, const NkiOp& op,
                  Iteration& it) {
    std::vector<std::pair<BlockSlots*, size_t>> leaves;
    auto walk = [&](auto&& self, BlockSlots& level) -> void {
      level.spill = &s;
      for (size_t j = 0; j < level.made.size(); ++j) {
        if (j < level.sub.size() && level.sub[j] != nullptr) {
          self(self, *level.sub[j]);
        } else {
          leaves.emplace_back(&level, j);
        }
      }
    };
    walk(walk, block);
    const size_t from =
        leaves.size() - std::min(leaves.size(), static_cast<size_t>(s.slots));
    for (size_t k = from; k < leaves.size(); ++k) {
      auto [level, j] = leaves[k];
      const uint32_t save =
          builder_.Dma("dma_spill_save", s.id, SlotShape(s), level->made[j],
                       op.source_line, static_cast<int>(it.index));
      it.all.push_back(save);
      level->saves.resize(level->made.size());
      level->saves[j] = save;
      level->readers.resize(level->made.size());
      level->readers[j] = {save};
    }
  }

  // One slot of a spilled block as it moves.
  static DmaShape SlotShape(const SpillDecision& s) {
    return DmaShape{s.partitions, s.partitions, s.partitions * s.bytes,
                    /*whole_rows=*/true};
  }

  // A spilled tile as it moves: `s.bytes` per partition on s.partitions
  // partitions, one contiguous run per partition.
  static DmaShape SpillShape(const SpillDecision& s) {
    return DmaShape{s.partitions, s.partitions, s.partitions * s.bytes,
                    /*whole_rows=*/true};
  }

  // The slot a slot index picks in the iterations being lowered: "k" the
  // index of k's iteration, "kb*4+ki" that sum; nullopt when a variable is
  // not a loop around (the validator refuses it).
  std::optional<size_t> SlotOf(const std::string& text) const {
    int64_t slot = 0;
    const std::vector<SlotTerm> terms = ParseSlotIndex(text);
    if (terms.empty()) return std::nullopt;
    for (const SlotTerm& t : terms) {
      const int at = FindLoopVar(chain_, t.var);
      if (at < 0) return std::nullopt;
      slot += t.scale * frames_[static_cast<size_t>(at)]->index;
    }
    return static_cast<size_t>(slot);
  }

  // Whether an op of the loop's own body defines `id`.
  static bool DefinesId(const NkiLoop& loop, const std::string& id) {
    return std::any_of(loop.body.begin(), loop.body.end(),
                       [&](const NkiOp& op) { return op.id == id; });
  }

  absl::Status Emit(const NkiLoop& loop, Iteration& it, size_t idx) {
    const NkiOp& op = loop.body[idx];
    // The spilled tiles this op is the first reader of come back from HBM
    // first: its reads of them wait for the reload, the reload for the
    // save.
    if (auto r = reload_before_.find(op.json_path); r != reload_before_.end()) {
      for (const SpillDecision* s : r->second) {
        auto save = it.spill_saves.find(s->id);
        auto tile = it.made.find(s->id);
        if (save == it.spill_saves.end() || tile == it.made.end()) continue;
        tile->second.deps = {builder_.Dma(
            "dma_spill_reload", s->id, SpillShape(*s), {save->second},
            op.source_line, static_cast<int>(it.index))};
        it.all.push_back(tile->second.deps.front());
      }
    }
    if (op.op == "reduction") return EmitReduction(op, it, idx);
    Deps deps;
    bool local = false;
    // Slots this op reads one by one: it becomes one of their readers.
    std::vector<std::pair<BlockSlots*, size_t>> slot_reads;
    // The tiles it reads, by the iteration that made them.
    std::vector<std::pair<Iteration*, const std::string*>> tile_reads;
    // The reload buffers of spilled slots it reads: it is their reader.
    std::vector<std::shared_ptr<Deps>> reload_readers;
    auto need = [&](const std::string& id,
                    const std::vector<std::string>& slot_vars = {}) {
      const LoweredTile* t = nullptr;
      auto m = it.made.find(id);
      if (m != it.made.end()) {
        local = true;
        t = &m->second;
        tile_reads.emplace_back(&it, &id);
      } else {
        Iteration* frame = nullptr;
        std::tie(t, frame) = FindWithFrame(id);
        if (t != nullptr) tile_reads.emplace_back(frame, &id);
      }
      if (t == nullptr) return;
      // A reduction's reader also holds the tiles of what made it: that
      // op's next iteration in the same buffers writes both outputs.
      if (!t->made_by.empty()) {
        tile_reads.emplace_back(tile_reads.back().first, &t->made_by);
      }
      // One level of the block per slot variable, as deep as the
      // block goes. The validator matches each variable's trips to its
      // level's; a run with fewer (a partial tile) reads the level whole.
      const Deps* d = &t->deps;
      std::pair<BlockSlots*, size_t> reader{nullptr, 0};
      BlockSlots* level = t->slots.get();
      for (const std::string& var : slot_vars) {
        const std::optional<size_t> slot = SlotOf(var);
        if (level == nullptr || !slot) break;
        const size_t j = *slot;
        if (j >= level->made.size()) break;
        d = &level->made[j];
        reader = {level, j};
        level = level->sub[j].get();
      }
      BlockSlots* leaf = reader.first;
      if (leaf != nullptr && reader.second < leaf->saves.size() &&
          leaf->saves[reader.second].has_value()) {
        // A spilled slot comes back from HBM for this read, into one of
        // the block's reload buffers: after its save, and after the
        // readers of the reload that used the same buffer before.
        std::deque<std::shared_ptr<Deps>>& pool = reload_pool_[leaf->spill];
        Deps wait = {*leaf->saves[reader.second]};
        if (static_cast<int>(pool.size()) >= kSpillReloadBuffers) {
          wait.insert(wait.end(), pool.front()->begin(), pool.front()->end());
          pool.pop_front();
        }
        const uint32_t reload = builder_.Dma(
            "dma_spill_reload", leaf->spill->id, SlotShape(*leaf->spill), wait,
            op.source_line, static_cast<int>(it.index));
        it.all.push_back(reload);
        pool.push_back(std::make_shared<Deps>());
        reload_readers.push_back(pool.back());
        deps.push_back(reload);
        // Still a reader of the slot: a later run refills it after this
        // read, as it does a slot kept in SBUF, so the spill does not let
        // the loads of every later run race ahead of the reads.
        slot_reads.push_back(reader);
        return;
      }
      deps.insert(deps.end(), d->begin(), d->end());
      if (reader.first != nullptr) slot_reads.push_back(reader);
    };
    static const std::vector<std::string> kWhole;
    // Where the first input's producers end and the other inputs' do: an
    // inserted transpose of the first input waits for all but the others.
    size_t first_end = 0;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      need(op.inputs[k],
           k < op.input_slots.size() ? op.input_slots[k] : kWhole);
      if (k == 0) first_end = deps.size();
    }
    const size_t inputs_end = deps.size();
    for (const auto& id : op.after) need(id);
    if (!op.mask.empty()) need(op.mask);
    if (!op.indirect.empty()) need(op.indirect);
    // A carried tile is the previous iteration's, of the loop whose body
    // makes it (this op's, or one around it); the first iteration reads
    // what the loop was entered with, which the op names in its inputs.
    for (size_t k = 0; k < op.carry.size(); ++k) {
      const std::string& id = op.carry[k];
      Iteration* prev = nullptr;
      for (size_t f = chain_.size(); f-- > 0;) {
        if (DefinesId(*chain_[f], id)) {
          prev = frames_[f]->prev;
          break;
        }
      }
      if (prev == nullptr) continue;
      auto m = prev->made.find(id);
      if (m == prev->made.end()) continue;
      tile_reads.emplace_back(prev, &id);
      if (!m->second.made_by.empty()) {
        tile_reads.emplace_back(prev, &m->second.made_by);
      }
      const Deps* d = &m->second.deps;
      BlockSlots* level = m->second.slots.get();
      std::pair<BlockSlots*, size_t> reader{nullptr, 0};
      if (k < op.carry_slots.size()) {
        for (const std::string& var : op.carry_slots[k]) {
          const std::optional<size_t> slot = SlotOf(var);
          if (level == nullptr || !slot || *slot >= level->made.size()) break;
          d = &level->made[*slot];
          reader = {level, *slot};
          level = level->sub[*slot].get();
        }
      }
      deps.insert(deps.end(), d->begin(), d->end());
      if (reader.first != nullptr) slot_reads.push_back(reader);
    }
    // An op with no producer in its own body starts the iteration, so it is
    // the one that waits for the iteration's buffers. A nested loop whose
    // tiles are its own (RotatesOwnBuffers) waits for its own instead.
    const LoopTiles tiles =
        op.op == "loop" ? TilesOf(op, keep_all_.back()) : LoopTiles{};
    // A block that is only ever read slot by slot refills each slot once
    // that slot's readers in the run `copies` before are done, not once
    // that whole iteration is: it waits for what the loop around it was
    // entered with instead of the iteration's buffers.
    const bool refill_by_slot = op.op == "loop" && !op.id.empty() &&
                                tiles.keep_all && it.copies > 0 &&
                                by_slot_.count(&op) != 0;
    // A loop without an id that fills a slot of such a block is one level
    // of it: it keeps its slots for the readers and refills slot by slot
    // with it.
    const bool fills_slot = op.op == "loop" && op.id.empty() &&
                            tiles.keep_all && it.keeps_slots &&
                            static_cast<int>(idx) == result_index_.back();
    const BlockSlots* refill = fills_slot ? it.refill : nullptr;
    if (refill_by_slot) {
      const std::deque<std::shared_ptr<BlockSlots>>& runs = block_runs_[&op];
      if (static_cast<int64_t>(runs.size()) >= it.copies) {
        refill = runs[runs.size() - static_cast<size_t>(it.copies)].get();
      }
      deps.insert(deps.end(), it.entry->begin(), it.entry->end());
    } else if (it.reuse != nullptr) {
      // The op's own tile reuses the buffer of the same tile `copies`
      // iterations before: it waits for that tile's readers (or, unread,
      // its writer), not for that whole iteration.
      if (!op.id.empty() && !tiles.rotates) {
        auto r = it.reuse->readers.find(op.id);
        if (r != it.reuse->readers.end()) {
          deps.insert(deps.end(), r->second.begin(), r->second.end());
        } else if (auto w = it.reuse->made.find(op.id);
                   w != it.reuse->made.end()) {
          deps.insert(deps.end(), w->second.deps.begin(), w->second.deps.end());
        }
      }
      if (!local && !tiles.rotates) {
        deps.insert(deps.end(), it.entry->begin(), it.entry->end());
      }
    } else if (!local && !tiles.rotates) {
      deps.insert(deps.end(), it.gate.begin(), it.gate.end());
    }
    // The result op of a loop whose tile is one buffer waits for that
    // buffer's previous readers; a loop in the result position passes the
    // wait on to its own result op.
    const Deps* inherited = static_cast<int>(idx) == result_index_.back()
                                ? result_wait_.back()
                                : nullptr;
    Deps wait;
    if (op.FixedBuffers() > 0) {
      WaitForPreviousReaders(op, it, wait);
      WaitForPreviousUse(op, it, idx, wait);
    }
    if (inherited != nullptr) {
      wait.insert(wait.end(), inherited->begin(), inherited->end());
    }
    if (op.op != "loop") deps.insert(deps.end(), wait.begin(), wait.end());
    const int iter = static_cast<int>(it.index);
    LoweredTile made;
    if (op.op == "loop") {
      // Only a kernel that reads some block by slot needs a block's slots
      // (a copy of each iteration's instructions).
      const bool want_slots =
          any_slots_ && ((!op.id.empty() && tiles.keep_all) || fills_slot);
      // Its result is read out here when its id names it, or when it is in
      // this loop's result position and this loop's result is read out.
      const bool result_out =
          !op.id.empty() ||
          (static_cast<int>(idx) == result_index_.back() && result_out_.back());
      TRN_ASSIGN_OR_RETURN(
          LoweredLoop nested,
          Loop(op.loop.front(), deps, tiles, refill, want_slots,
               wait.empty() ? nullptr : &wait, result_out));
      made = std::move(nested.tile);
      made.deps = std::move(nested.done);
      // Its results are read in this body under their own ids.
      for (auto& [id, tile] : nested.results) it.made[id] = std::move(tile);
      if (fills_slot) {
        it.sub = std::move(nested.slots);
      } else {
        made.slots = std::move(nested.slots);
      }
      if (auto sp = slot_spill_.find(op.json_path);
          sp != slot_spill_.end() && made.slots != nullptr) {
        SpillSlots(*sp->second, *made.slots, op, it);
      }
      if (refill_by_slot) {
        std::deque<std::shared_ptr<BlockSlots>>& runs = block_runs_[&op];
        runs.push_back(made.slots);
        while (static_cast<int64_t>(runs.size()) > it.copies) runs.pop_front();
      }
    } else if (op.op == "load" || op.op == "store" || op.op == "hbm_copy") {
      const TensorDecl& t = *spec_.FindTensor(op.tensor);
      const std::vector<std::string> index =
          EffectiveIndex(op, loop, t.shape.size());
      std::vector<int64_t> block = t.shape;
      for (size_t d = 0; d < block.size(); ++d) {
        if (const auto range = ParseConstRange(index[d])) {
          block[d] = range->second - range->first;
          continue;
        }
        const int at = FindLoopVar(chain_, index[d]);
        if (at < 0) continue;
        block[d] = IndexesOneElement(spec_, chain_, static_cast<size_t>(at),
                                     t.shape[d])
                       ? 1
                       : frames_[static_cast<size_t>(at)]->tile;
      }
      const std::string& label =
          op.op == "store" ? op.inputs.front() : op.tensor;
      DmaShape shape = DmaShapeOf(t, block);
      shape.transpose = op.transpose;
      shape.indirect = !op.indirect.empty();
      shape.hbm_to_hbm = op.op == "hbm_copy";
      made.deps = {builder_.Dma(absl::StrCat("dma_", op.op), label, shape, deps,
                                op.source_line, iter)};
      const NkiTile tile =
          FoldBlock(block, op.dtype.value_or(t.dtype), partitions_);
      made.partitions = op.tile.empty() ? tile.partitions : op.tile[0];
      made.free = op.tile.empty() ? tile.free : op.tile[1];
      made.dtype = tile.dtype;
    } else {
      // One rule for tile shapes, shared with the validator's SBUF check.
      const NkiTile tile =
          ResolveNkiTileInChain(spec_, chain_, op, partitions_);
      const int64_t tile_p = op.tile.empty() && loop.WalksPartitionTiles()
                                 ? it.tile
                                 : tile.partitions;
      const int64_t tile_f = PartialFree(tile.free);
      DType cost_dtype = tile.dtype;
      int64_t flops = IsDataMovementOnly(op) ? 0 : tile_p * tile_f;
      ComputeCost cost = CostOf(op, tile_p, tile_f, tile.dtype);
      if (op.op == "matmul") {
        // The PE array runs at the rate of its inputs' dtype (PSUM
        // accumulates in fp32 whatever they are), and contracts over the
        // stationary input's partitions.
        const LoweredTile* stationary = Find(op.inputs.front());
        int64_t depth = partitions_;
        if (stationary != nullptr && stationary->partitions > 0) {
          cost_dtype = stationary->dtype;
          depth = std::min<int64_t>(partitions_, stationary->partitions);
        }
        if (op.insert_transpose) {
          TRN_ASSIGN_OR_RETURN(depth,
                               InsertTranspose(op, stationary, deps, first_end,
                                               inputs_end, iter));
        }
        flops = 2 * depth * tile_p * tile_f;
      }
      std::string opcode = op.op;
      if (!op.func.empty()) absl::StrAppend(&opcode, ".", op.func);
      made.deps = {builder_.Compute(
          *op.engine, opcode, op.id.empty() ? op.op : op.id, cost_dtype, tile_p,
          cost, deps, flops, op.source_line, iter)};
      made.partitions = tile_p;
      made.free = tile_f;
      made.dtype = tile.dtype;
      made.psum = op.buffer == "psum";
    }
    for (const auto& [frame, id] : tile_reads) {
      if (auto f = frame->fixed.find(*id); f != frame->fixed.end()) {
        Deps& r = f->second->readers;
        r.insert(r.end(), made.deps.begin(), made.deps.end());
      }
      if (!frame->track_readers) continue;
      Deps& r = frame->readers[*id];
      r.insert(r.end(), made.deps.begin(), made.deps.end());
    }
    for (const auto& [slots, j] : slot_reads) {
      Deps& r = slots->readers[j];
      r.insert(r.end(), made.deps.begin(), made.deps.end());
    }
    for (const std::shared_ptr<Deps>& r : reload_readers) {
      r->insert(r->end(), made.deps.begin(), made.deps.end());
    }
    it.all.insert(it.all.end(), made.deps.begin(), made.deps.end());
    if (auto s = spill_after_.find(op.json_path); s != spill_after_.end()) {
      const uint32_t save =
          builder_.Dma("dma_spill_save", op.id, SpillShape(*s->second),
                       made.deps, op.source_line, iter);
      it.spill_saves[op.id] = save;
      it.all.push_back(save);
    }
    if (static_cast<int>(idx) == result_index_.back()) {
      it.result.partitions = made.partitions;  // the shape, not the deps
      it.result.free = made.free;
      it.result.dtype = made.dtype;
      it.result.psum = made.psum;
    }
    if (op.FixedBuffers() > 0 && !op.id.empty()) {
      auto use = std::make_shared<FixedUse>();
      use->writer = made.deps;
      use->slots = made.slots;
      use->run = it.run;
      it.fixed[op.id] = use;
      std::deque<std::shared_ptr<FixedUse>>& uses = fixed_uses_[&op];
      uses.push_back(std::move(use));
      while (static_cast<int64_t>(uses.size()) > op.FixedBuffers()) {
        uses.pop_front();
      }
    }
    if (!op.id.empty()) it.made[op.id] = std::move(made);
    return CheckSize(spec_, builder_.size());
  }

  // A tile held to n buffers across the iterations (one_buffer: 1,
  // tile_buffers: n): its write waits for the readers of it (whole or by
  // slot) of iteration i - n, whose buffer it reuses, or, unread, for its
  // writer. Readers are tracked when the loop keeps two or more iterations
  // in flight; with one, each iteration already waits for the whole one
  // before. With n at least the loop's depth the tile rotates as every
  // other (Iteration::reuse), so nothing is added.
  static void WaitForPreviousReaders(const NkiOp& op, const Iteration& it,
                                     Deps& deps) {
    if (!it.track_readers || op.FixedBuffers() >= it.copies) return;
    const Iteration* back = it.prev;
    for (int64_t k = 1; back != nullptr && k < op.FixedBuffers(); ++k) {
      back = back->prev;
    }
    if (back == nullptr) return;
    const Iteration& p = *back;
    auto w = p.made.find(op.id);
    if (auto r = p.readers.find(op.id); r != p.readers.end()) {
      deps.insert(deps.end(), r->second.begin(), r->second.end());
    } else if (w != p.made.end()) {
      deps.insert(deps.end(), w->second.deps.begin(), w->second.deps.end());
    }
    if (w == p.made.end() || w->second.slots == nullptr) return;
    for (const Deps& r : w->second.slots->readers) {
      deps.insert(deps.end(), r.begin(), r.end());
    }
  }

  // The same tile's buffers rotate over every run of the loop: use k of it
  // (counting its uses over the whole kernel, in order, across the
  // iterations of the loops around) is the buffer of use k - n, as NKI's
  // mod_alloc places logical tile k on physical tile k mod n. Its write
  // waits for the readers of use k - n (whole or by slot), or, unread, for
  // its writer, when that use was in an earlier run of the loop, which
  // nothing else orders it after once the loops around keep several
  // iterations in flight; and in a block, whose iterations are otherwise
  // never ordered, also within the run. Within a run of another loop,
  // Iteration::reuse, the whole previous iteration (depth 1) and
  // WaitForPreviousReaders already order it. Not for the op in the loop's
  // result position when the body around reads that tile (through the
  // loop's id): its readers there are not this op's.
  void WaitForPreviousUse(const NkiOp& op, const Iteration& it, size_t idx,
                          Deps& deps) const {
    if (static_cast<int>(idx) == result_index_.back() && result_out_.back()) {
      return;
    }
    auto h = fixed_uses_.find(&op);
    if (h == fixed_uses_.end()) return;
    const std::deque<std::shared_ptr<FixedUse>>& uses = h->second;
    const int64_t n = op.FixedBuffers();
    if (static_cast<int64_t>(uses.size()) < n) return;
    const FixedUse& u = *uses[uses.size() - static_cast<size_t>(n)];
    if (u.run == it.run && !keep_all_.back()) return;
    const Deps& d = u.readers.empty() ? u.writer : u.readers;
    deps.insert(deps.end(), d.begin(), d.end());
    if (u.slots == nullptr) return;
    for (const Deps& r : u.slots->readers) {
      deps.insert(deps.end(), r.begin(), r.end());
    }
  }

  // A reduction (the second output of an accumulate op, or the block of
  // them a block loop made) is no instruction: it stands for what the op
  // or the loop's iterations made, with the same dependencies and slots,
  // in its own [partitions, 1] shape.
  absl::Status EmitReduction(const NkiOp& op, Iteration& it, size_t idx) {
    const LoweredTile* of = Find(op.inputs.front());
    if (of == nullptr) return absl::OkStatus();  // a loop that never ran
    LoweredTile made;
    made.deps = of->deps;
    made.slots = of->slots;
    made.made_by = op.inputs.front();
    const NkiTile tile = ResolveNkiTileInChain(spec_, chain_, op, partitions_);
    made.partitions = tile.partitions;
    made.free = tile.free;
    made.dtype = tile.dtype;
    if (static_cast<int>(idx) == result_index_.back()) {
      it.result.partitions = made.partitions;
      it.result.free = made.free;
      it.result.dtype = made.dtype;
    }
    it.made[op.id] = std::move(made);
    return absl::OkStatus();
  }

  const WorkloadSpec& spec_;
  const int64_t partitions_;
  KernelBuilder builder_;
  LoopChain chain_;
  std::vector<bool> keep_all_;  // parallel to chain_
  // For each loop that rotates its own buffers, the `all` of its last
  // iterations so far, over every run of it.
  std::map<const NkiLoop*, std::vector<Deps>> rotation_;
  // The block loops only ever read slot by slot (BlocksReadBySlot), and
  // for each the slots of its last runs, over every run of the loop
  // around it, oldest first.
  std::set<const NkiOp*> by_slot_;
  bool any_slots_ = false;  // some input anywhere reads a slot
  std::map<const NkiOp*, std::deque<std::shared_ptr<BlockSlots>>> block_runs_;
  std::vector<int> result_index_;         // parallel to chain_
  std::vector<const Deps*> result_wait_;  // parallel to chain_ (Loop)
  std::vector<bool> result_out_;          // parallel to chain_ (Loop)
  // Loop's runs so far: each run's number (Iteration::run).
  int64_t runs_ = 0;
  // For each op held to a fixed number n of buffers, its last n uses over
  // the kernel, oldest first (WaitForPreviousUse).
  std::map<const NkiOp*, std::deque<std::shared_ptr<FixedUse>>> fixed_uses_;
  std::vector<Iteration*> frames_;  // parallel to chain_
  // The compiler stage's spills, by the op that writes the tile and by the
  // op it is reloaded for.
  std::map<std::string, const SpillDecision*> spill_after_;
  std::map<std::string, std::vector<const SpillDecision*>> reload_before_;
  // Blocks whose last slots are spilled, by their loop op, and per block
  // the readers of its reloads still holding one of its reload buffers.
  std::map<std::string, const SpillDecision*> slot_spill_;
  std::map<const SpillDecision*, std::deque<std::shared_ptr<Deps>>>
      reload_pool_;
};

absl::StatusOr<Program> LowerNki(const WorkloadSpec& spec,
                                 const DeviceProfile& profile) {
  Program p;
  p.name = spec.name;
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = spec.name;
  d.kernel.name = spec.name;
  d.kernel.source_file = spec.kernel->source_file;
  NkiLowering lowering(spec, profile, d.kernel);
  // Kernel loops run one after the other.
  Deps previous;
  for (const NkiLoop& loop : spec.kernel->loops) {
    TRN_ASSIGN_OR_RETURN(LoweredLoop l,
                         lowering.Loop(loop, previous, LoopTiles{}));
    if (!l.done.empty()) previous = std::move(l.done);
  }
  p.dispatches.push_back(std::move(d));
  return p;
}

}  // namespace

absl::StatusOr<Program> Lower(const WorkloadSpec& spec,
                              const DeviceProfile& profile) {
  if (spec.mode == ExecMode::kNki) {
    if (!spec.kernel.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.file, ": /kernel: an nki spec needs a kernel"));
    }
    // Lowering reads the compiler stage's decisions; a spec built in code
    // and only validated is compiled here, for this device.
    if (!spec.compiled.done) {
      WorkloadSpec compiled = spec;
      TRN_RETURN_IF_ERROR(CompileSpec(compiled, profile.memory));
      return LowerNki(compiled, profile);
    }
    return LowerNki(spec, profile);
  }
  return LowerTorch(spec, profile);
}

}  // namespace trn
