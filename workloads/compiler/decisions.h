// What the compiler stage decided for an NKI kernel: plain data that
// lowering reads (through the spec's loops and ops, which the stage fills
// in) and `trnbench profile` prints. One record per loop, per compute op,
// and the allocator's peaks (docs/architecture.md, "The compiler stage").
#ifndef TRNBENCH_WORKLOADS_COMPILER_DECISIONS_H_
#define TRNBENCH_WORKLOADS_COMPILER_DECISIONS_H_

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
// exceeds SBUF: saved by DMA after its writer, reloaded by DMA before the
// first op that reads it after that point (neuron-profile's spill save and
// reload traffic).
struct SpillDecision {
  std::string json_path;  // the op that writes the tile
  std::string id;
  std::string reload_before;  // JSON pointer of the op it is reloaded for
  int64_t partitions = 0;
  int64_t bytes = 0;  // per partition, one copy
  int64_t runs = 0;   // times the body runs (each saves and reloads once)
  std::string why;
  // Bytes saved (and as many reloaded) over the kernel.
  int64_t TotalBytes() const { return partitions * bytes * runs; }
};

struct CompilerDecisions {
  std::vector<LoopDecision> loops;  // pre-order, file order
  std::vector<EngineDecision> engines;
  std::vector<SpillDecision> spills;  // in the order they were chosen
  MemoryPeak sbuf;                    // bytes per partition
  MemoryPeak psum;                    // banks
  int64_t psum_bank_bytes = 0;
  bool done = false;  // CompileSpec ran on this spec
};

const char* DecidedByName(DecidedBy by);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_DECISIONS_H_
