// One kernel on the hardware units: an instruction stream per compute
// engine, scheduled as neuronx-cc schedules it (each engine issues, of its
// instructions whose dependencies are met, the first in program order:
// the compiler's scheduler reorders instructions subject only to their
// dependency edges, NKI's "How to use the NKI scheduling APIs", and the
// iterations of an affine_range "could be parallelized/pipelined on
// different compute engines", nki.language.affine_range), priced by the
// published per-instruction rules, and the
// DMA unit: descriptors queued on the engine that serves each partition,
// data moving as fluid flows shared through the HBM arbiter, and a fixed
// completion latency that is pipelined (it does not hold the engine).
#ifndef TRNBENCH_DEVICE_MODEL_KERNEL_SIM_H_
#define TRNBENCH_DEVICE_MODEL_KERNEL_SIM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/instruction_cost.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "support/counter_rng.h"

namespace trn {

// std::allocator whose construct() without arguments default-initializes:
// a vector of plain numbers resized with it leaves them unset, for arrays
// KernelSim's constructor then writes in full (zeroing each first was a
// pass over it, ~4 Ir an entry under callgrind; issue 42, create42).
template <typename T>
struct NoFillAllocator : std::allocator<T> {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = NoFillAllocator<U>;
  };
  NoFillAllocator() = default;
  template <typename U>
  NoFillAllocator(const NoFillAllocator<U>&) noexcept {}  // NOLINT
  template <typename U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <typename T>
using UnfilledVector = std::vector<T, NoFillAllocator<T>>;

// One DMA engine's share of a transfer.
struct DmaPiece {
  int32_t engine = 0;
  int64_t bytes = 0;
  double work = 0;  // bytes plus descriptor overhead, over transpose speed
};

// How a run is computed; every choice gives the same events and metrics to
// the bit (tests/harness/dma_grouping_equivalence_test.cc holds them to
// it). The defaults are the fast ones; all false is the model as defined.
struct SimOptions {
  // Alike DMA shares on adjacent engines computed once, as a group
  // (dma_groups.h), rather than each share on its own.
  bool group_shares = true;
  // Dependencies that another dependency of the same instruction implies
  // left out of the event loop (KernelSim::TimingEdges).
  bool skip_implied_edges = true;
  // Compute instructions that one completion makes ready at one time
  // handled as one queue event, in turn (kernel_sim.cc, kReadyRun).
  bool batch_ready = true;
  // A matmul that another's streaming makes ready while its engine is busy
  // with others waiting joins the engine's ready queue at once, not
  // through a kReady event, which would only have done that in the same
  // instant (kernel_sim.cc, release_accumulation).
  bool ready_in_place = true;
  // Threads the constructor's passes over a long kernel may use, and the
  // fewest instructions it gives one (chunks.h; tests set it low). The
  // simulator built is the same for any value.
  int threads = 1;
  size_t min_chunk = 16384;
};

// A kernel prepared for repeated simulation: everything that does not vary
// between runs is computed once.
class KernelSim {
 public:
  // `kernel`, `profile` and `policy` must outlive the simulator. Once
  // built it reads none of the kernel's instructions (they may be
  // released, Program::ReleaseInstructions); a listener may, through
  // BusySpan::kernel.
  KernelSim(const Kernel& kernel, const DeviceProfile& profile,
            const BandwidthPolicy& policy, SimOptions options = {});

  // Simulates the kernel starting at `t0_us`, drawing DMA latencies from
  // `rng` (one per transfer, in program order); delivers its events to
  // `out` and returns the time its last instruction completes (t0_us for an
  // empty kernel).
  double Run(CounterRng& rng, double t0_us, int32_t dispatch,
             SimListener& out) const;

  // Compute instruction `i`'s issue interval and latency (zero for DMA).
  const InstructionTiming& Timing(size_t i) const {
    static constexpr InstructionTiming kNoTiming{};
    return hot_[i].unit == kDmaUnit ? kNoTiming : timings_[shape_of_[i]];
  }
  // The dependency edges the event loop handles (the kernel's, less those
  // it leaves out).
  size_t TimingEdgeCount() const { return rdeps_.size(); }
  // Instructions whose completion may make several compute instructions
  // ready as one event (SimOptions::batch_ready).
  size_t FanOutCount() const { return fan_out_count_; }
  // DMA instruction `i`'s shares, one per engine it uses.
  std::vector<DmaPiece> Pieces(size_t i) const;

 private:
  // Run's body, for a listener (SimListener) or a sink that makes the same
  // calls without the virtual dispatch (kernel_sim.cc).
  template <typename Sink>
  double RunWith(CounterRng& rng, double t0_us, int32_t dispatch,
                 Sink& out) const;

  // Per dependency edge of the kernel: whether it can decide when its
  // instruction starts (edges another edge implies cannot; see the
  // definition). Needs hot_ and timings_; `dep_begin` has instruction i's
  // dependencies at [dep_begin[i], dep_begin[i + 1]) of kernel.deps, and
  // `span` is about the longest edge (in instructions of program order).
  // `chunks` (ChunkBounds) splits the work over threads.
  std::vector<char> TimingEdges(const Kernel& kernel,
                                const DeviceProfile& profile,
                                const UnfilledVector<uint32_t>& dep_begin,
                                size_t span,
                                const std::vector<size_t>& chunks) const;

  const Kernel* kernel_;
  const DeviceProfile* profile_;
  const BandwidthPolicy* policy_;
  // What the event loop reads of each instruction, 8 bytes apiece rather
  // than the 64 of an Instruction, so a run streams far less memory.
  static constexpr uint8_t kDmaUnit = 0xff;
  struct Hot {
    uint32_t deps;  // how many it waits for
    uint8_t unit;   // compute: its engine; DMA: kDmaUnit
    // compute: priced as a matmul (PSUM accumulation). Once built, without
    // an unsplit matmul: only those that release matmuls when streamed.
    bool matmul;
    // compute: an instruction of its own engine reads its result, so the
    // engine drains its pipeline for it (its whole latency is active).
    bool drain;
    // kUnsplit: a matmul that may complete before it has streamed (its
    // latency below its issue interval): its edges to matmuls are marked
    // done per run as they are released (RunScratch::edge_done), and its
    // dependents keep their order. Every other instruction's are split once
    // (rdeps_mid_).
    // kFanOut: its completion may make several compute instructions ready
    // at once, whose kReady events are then one (kernel_sim.cc, resolve).
    // Either sends its completion out of the event loop's common path.
    uint8_t special;
  };
  // No member initializers: the constructor writes every field of each,
  // and resizing then costs nothing (NoFillAllocator).
  UnfilledVector<Hot> hot_;
  // DMA instructions without dependencies, in program order: ready at once.
  std::vector<uint32_t> initial_dma_;
  // Compute instructions without dependencies, in program order.
  std::vector<uint32_t> initial_compute_;
  // The distinct issue intervals and latencies of the compute
  // instructions; a tiled kernel has a handful (16 bytes per instruction
  // took 8 MB at 100k tiles).
  std::vector<InstructionTiming> timings_;
  std::vector<uint32_t> rdeps_begin_;
  UnfilledVector<uint32_t> rdeps_;
  // Per instruction i (not unsplit): its dependents at [rdeps_begin_[i],
  // rdeps_mid_[i]) are the matmuls a matmul i releases when it has
  // streamed, which it always does before it completes; those at
  // [rdeps_mid_[i], rdeps_begin_[i + 1]) wait for its completion. Each
  // part keeps the dependents' order, so each pushes in the same order.
  // Worked out once here rather than checked per edge and run.
  std::vector<uint32_t> rdeps_mid_;
  // Some matmul's latency is below its issue interval (kUnsplit), and
  // whether the kernel has any matmul (TimingEdges looks for implied
  // edges between matmuls only where there are some, all split).
  bool any_unsplit_ = false;
  bool any_matmul_ = false;
  // Transfers of one shape split the same way, and a kernel has few shapes
  // (every load of a tile loop is alike): each DMA instruction names its
  // shape, whose pieces are stored once. Storing pieces per instruction
  // took ~90 MB at 100k tiles.
  // Per instruction: DMA, its shape; compute, its timing in timings_.
  UnfilledVector<uint32_t> shape_of_;
  // Per instruction, DMA: which of the run's latency draws is its own (its
  // rank among the transfers in program order); compute: unused.
  UnfilledVector<uint32_t> dma_draw_;
  uint32_t dma_count_ = 0;
  // Per instruction: a DMA's queue (model 12). A DMA statement of the
  // program (one opcode, tensor and source line, however many times its
  // loop runs it) is one instruction of the engine that triggers it, and
  // a transfer goes to that engine's queue (NKI DMA overview), so each
  // statement is taken as its own queue.
  UnfilledVector<uint32_t> queue_of_;
  std::vector<uint32_t> shape_begin_;  // CSR over shapes into pieces_
  std::vector<DmaPiece> pieces_;
  // Per piece: how many pieces from it on are alike shares (same bytes and
  // work) on adjacent engines, so start together as one group; 1 when not
  // grouping.
  std::vector<uint32_t> run_;
  // Per piece: HBM bytes per unit of its work (descriptor overhead is
  // engine time, not HBM traffic), for the bandwidth policy.
  std::vector<double> hbm_weight_;
  bool group_shares_;
  // Every delay the event loop adds is >= 0 (dependency hand-off, issue
  // intervals and latencies), as in every profile loaded or overridden:
  // then handling an event never pushes one earlier than itself, which
  // handling adjacent events as one (kernel_sim.cc, AfterIssue) needs.
  bool forward_ = false;
  // SimOptions::ready_in_place, where forward_ makes it exact.
  bool ready_in_place_ = false;
  size_t fan_out_count_ = 0;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_KERNEL_SIM_H_
