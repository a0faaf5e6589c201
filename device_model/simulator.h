// The event-driven timing model. Engines run in-order instruction streams
// and wait on explicit dependencies; DMA queues share the HBM bandwidth as a
// fluid; the host lanes run ahead of the device asynchronously.
#ifndef TRNBENCH_DEVICE_MODEL_SIMULATOR_H_
#define TRNBENCH_DEVICE_MODEL_SIMULATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "support/counter_rng.h"
#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "device_model/timeline.h"

namespace trn {

// One kernel prepared for repeated simulation: the costs that do not vary
// between runs are computed once.
class KernelSim {
 public:
  KernelSim(const Kernel& kernel, const DeviceProfile& profile);

  // Simulates the kernel starting at `t0_us`, drawing DMA latencies from
  // `rng`; appends its events to `timeline` and returns the time its last
  // instruction ends (t0_us for an empty kernel).
  double Run(CounterRng& rng, double t0_us, int32_t dispatch,
             Timeline& timeline) const;

  // Compute duration of instruction `i` (0 for DMA).
  double ComputeDurationUs(size_t i) const { return compute_dur_[i]; }
  // Peak bytes per microsecond of DMA instruction `i` on its queue.
  double DmaCapBytesPerUs(size_t i) const { return dma_cap_[i]; }

 private:
  const Kernel* kernel_;
  const DeviceProfile* profile_;
  int num_lanes_;
  std::vector<int> lane_of_;
  std::vector<uint32_t> rdeps_begin_;
  std::vector<uint32_t> rdeps_;
  std::vector<std::vector<uint32_t>> lane_instrs_;
  std::vector<double> compute_dur_;
  std::vector<double> dma_cap_;
};

class Simulator {
 public:
  // `program` and `profile` must outlive the simulator.
  static absl::StatusOr<Simulator> Create(const Program& program,
                                          const DeviceProfile& profile);

  // One run, keyed by (seed, program name, repeat index): the same key
  // always gives the same timeline, so any repeat can be replayed alone.
  Timeline Run(uint64_t seed, uint64_t repeat_index) const;

 private:
  Simulator(const Program& program, const DeviceProfile& profile);

  const Program* program_;
  const DeviceProfile* profile_;
  uint64_t stream_;
  std::vector<std::unique_ptr<KernelSim>> kernels_;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_SIMULATOR_H_
