// The compiler stage's on-chip allocator: SBUF and PSUM by liveness. A tile
// holds its bytes from the op that writes it to the last op that reads it;
// the iterations in flight of a loop (its depth, NkiLoop::buffers) each hold
// a copy of its body's tiles, except a tile held to a fixed number of
// buffers (one_buffer, tile_buffers), which is that number over the whole
// kernel; PSUM is taken in whole banks. A block's slots are logical
// tiles: one read slot by slot into another block by its last reader
// frees them as that block fills. The peak over the kernel is what must
// fit (docs/spec-format.md, "Allocation by liveness").
#ifndef TRNBENCH_WORKLOADS_COMPILER_ALLOCATION_H_
#define TRNBENCH_WORKLOADS_COMPILER_ALLOCATION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "device_model/memory_limits.h"
#include "workloads/spec/compiler_decisions.h"
#include "workloads/spec/spec.h"

namespace trn {

struct Allocation {
  MemoryPeak sbuf;  // bytes per partition
  MemoryPeak psum;  // banks
  int64_t psum_bank_bytes = 0;
  // The tile the spill heuristic would spill next to lower the SBUF peak
  // (docs/spec-format.md, "Spilling"); unset when none can be.
  std::optional<SpillDecision> spill;
  // Per spilled block (its loop's JSON pointer): the reads of its slots
  // over the kernel, of which the spilled slots' share are reloads.
  std::map<std::string, int64_t> slot_reads;
  bool Fits() const {
    return sbuf.used <= sbuf.limit && psum.used <= psum.limit;
  }
};

// The peaks of a validated nki spec with the depths its loops have now
// (NkiLoop::buffers) and the tiles in `spills` spilled (not in SBUF
// between their writer and the op they are reloaded for).
// `hoists`: loads kept in SBUF over a run of the loop they are hoisted
// out of (hoisting.h): their tiles are live over that loop's whole body,
// not from the load to its readers.
Allocation Allocate(const WorkloadSpec& spec, const MemoryLimits& limits,
                    const std::vector<SpillDecision>& spills = {},
                    const std::vector<HoistDecision>& hoists = {});

// InvalidArgument naming the point of the first peak that does not fit and
// the tiles live there; OK when `a` fits.
absl::Status RefusalOf(const WorkloadSpec& spec, const Allocation& a);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_ALLOCATION_H_
