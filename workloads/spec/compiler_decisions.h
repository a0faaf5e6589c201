// What the compiler stage decided for an NKI kernel: plain data that
// lowering reads (through the spec's loops and ops, which the stage fills
// in) and `trnbench profile` prints. One record per loop, per compute op,
// and the allocator's peaks (docs/architecture.md, "The compiler stage").
#ifndef TRNBENCH_WORKLOADS_SPEC_COMPILER_DECISIONS_H_
#define TRNBENCH_WORKLOADS_SPEC_COMPILER_DECISIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "device_model/engine.h"

namespace trn {

// Who made a decision: the spec (its source stated it) or the compiler.
enum class DecidedBy : uint8_t { kSpec, kCompiler };

// How many iterations of a loop are in flight (its tile buffers in
// rotation), and why.
struct LoopDecision {
  std::string json_path;  // the loop's JSON pointer
  std::string var;
  int64_t trips = 0;  // iterations of one run (its largest extent)
  int depth = 1;
  DecidedBy by = DecidedBy::kCompiler;
  std::string why;
};

// The engine an op runs on, and who chose it.
struct EngineDecision {
  std::string json_path;
  std::string id;  // the op's id, or its kind when it has none
  std::string op;
  int line = 0;
  Engine engine = Engine::kVector;
  DecidedBy by = DecidedBy::kCompiler;
  std::string why;
};

// A tile alive at the allocator's peak: its bytes per partition times the
// iterations in flight that hold a copy of it.
struct LiveTile {
  std::string id;
  int64_t bytes = 0;  // one copy, per partition
  int64_t copies = 1;
};

// The peak of one on-chip memory over the kernel: where, and what is live.
struct MemoryPeak {
  int64_t used = 0;   // bytes per partition (SBUF) or banks (PSUM)
  int64_t limit = 0;  // the same unit
  std::string at;     // JSON pointer of the op where the peak is
  std::vector<LiveTile> live;
};

// A tile the compiler spills to HBM because the live set at some point
// exceeds SBUF (neuron-profile's spill save and reload traffic). Either a
// whole tile, saved by DMA after its writer and reloaded by DMA before the
// first op that reads it after that point; or (`slots` > 0) the last
// `slots` slots of a block read slot by slot, each saved after the
// iteration that fills it and reloaded before every read of it, into one of
// kSpillReloadBuffers buffers.
struct SpillDecision {
  std::string json_path;  // the op that writes the tile (a block: its loop)
  std::string id;
  std::string reload_before;  // JSON pointer of the op it is reloaded for
  int64_t partitions = 0;
  int64_t bytes = 0;  // per partition, one copy (a block: one slot)
  int64_t runs = 0;   // times the body runs (each saves and reloads once)
  // A block's: the slots spilled of each run, of `block_slots`, and the
  // reads of spilled slots over the kernel (each one reload).
  int64_t slots = 0;
  int64_t block_slots = 0;
  int64_t reloads = 0;
  std::string why;
  // Bytes saved and reloaded over the kernel.
  int64_t SaveBytes() const {
    return partitions * bytes * runs * (slots > 0 ? slots : 1);
  }
  int64_t ReloadBytes() const {
    return partitions * bytes * (slots > 0 ? reloads : runs);
  }
};

// The buffers a spilled block's reloads rotate over: a reload waits for the
// readers of the reload this many before it. Reloads are the loads of the
// innermost loop that reads the slots, so they are pipelined as the depth
// rule pipelines an innermost loop's loads, which wait on DMA latency:
// kMaxPipelineDepth in flight (compiler.h; CompileSpec asserts the two
// agree). Two, as NKI's multi_buffer default, left the reloads
// latency-bound: the TensorE of the fp32 block-free matmul idle 65% of the
// time it read spilled slots.
inline constexpr int kSpillReloadBuffers = 8;

// A load the compiler hoists out of a loop whose variable its address does
// not use (neuronx-cc unrolls the loops, and a load of the same HBM block
// of an input nothing writes is made once): issued in the first iteration
// of each run of `loop_path` and kept in SBUF over the run, one tile per
// iteration of the loops inside it that its address does use (`copies`).
// Only where the kernel fits with it (docs/spec-format.md, "Loop-invariant
// loads").
struct HoistDecision {
  std::string json_path;  // the load
  std::string id;
  std::string loop_path;  // the loop it is hoisted out of
  std::string var;        // that loop's variable
  int64_t copies = 1;     // tiles kept over the run
  // The variables of the loops inside it that its address uses: one tile
  // per combination of their iterations.
  std::vector<std::string> key_vars;
  int64_t bytes = 0;  // per partition, one tile
  std::string why;
};

// A block of tiles, each an unmodified copy of an input (its loops hold
// only loads of tensors nothing writes), that the compiler does not keep
// across a loop after it that reads it: its loads move into that loop and
// run in each of its iterations, so the block is loaded again from the
// input (rematerialized) instead of held, or spilled and reloaded
// (docs/spec-format.md, "Rematerialized input blocks").
struct RematDecision {
  std::string json_path;  // the block's loop op, where the source has it
  std::string id;
  std::string loop_path;   // the loop it now runs in
  std::string var;         // that loop's variable
  int64_t bytes = 0;       // per partition, the whole block
  int64_t loads = 0;       // times the block is loaded over the kernel
  int64_t kept_loads = 0;  // times it was, kept across the loop
  std::string why;
};

struct CompilerDecisions {
  std::vector<LoopDecision> loops;  // pre-order, file order
  std::vector<EngineDecision> engines;
  std::vector<SpillDecision> spills;  // in the order they were chosen
  std::vector<HoistDecision> hoists;  // file order
  std::vector<RematDecision> remats;  // in the order they were made
  MemoryPeak sbuf;                    // bytes per partition
  MemoryPeak psum;                    // banks
  int64_t psum_bank_bytes = 0;
  bool done = false;  // CompileSpec ran on this spec
};

const char* DecidedByName(DecidedBy by);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_COMPILER_DECISIONS_H_
