// The timing model: a program's kernels on the hardware units
// (kernel_sim.h), driven by the host driver of its execution mode
// (host_driver.h), delivering typed events to a listener (sim_events.h).
#ifndef TRNBENCH_DEVICE_MODEL_SIMULATOR_H_
#define TRNBENCH_DEVICE_MODEL_SIMULATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/host_driver.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "device_model/timeline.h"

namespace trn {

class Simulator {
 public:
  // `program` and `profile` must outlive the simulator. `options` choose
  // how runs are computed, never what they give (SimOptions).
  static absl::StatusOr<Simulator> Create(const Program& program,
                                          const DeviceProfile& profile,
                                          SimOptions options = {});

  // One run, keyed by (seed, program name, repeat index): the same key
  // always gives the same events, so any repeat can be replayed alone.
  void Run(uint64_t seed, uint64_t repeat_index, SimListener& out) const;
  // The same run recorded as a timeline (traces, `profile`).
  Timeline Run(uint64_t seed, uint64_t repeat_index) const;

  const KernelSim& kernel(size_t dispatch) const { return *kernels_[dispatch]; }

 private:
  Simulator(const Program& program, const DeviceProfile& profile);

  const Program* program_;
  const DeviceProfile* profile_;
  uint64_t stream_;
  std::unique_ptr<BandwidthPolicy> policy_;
  std::unique_ptr<HostDriver> driver_;
  std::vector<std::unique_ptr<KernelSim>> kernels_;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_SIMULATOR_H_
