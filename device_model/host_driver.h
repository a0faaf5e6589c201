// How the host drives the device in each execution mode: the framework and
// runtime lanes, host-to-device copies, the fixed cost of a hardware
// execution, and when each kernel starts. One driver per mode, chosen by
// MakeHostDriver.
#ifndef TRNBENCH_DEVICE_MODEL_HOST_DRIVER_H_
#define TRNBENCH_DEVICE_MODEL_HOST_DRIVER_H_

#include <cstdint>
#include <memory>

#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "support/counter_rng.h"

namespace trn {

// Runs dispatch `d`'s kernel from `t0_us` and returns when it completes.
class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  virtual double RunKernel(size_t d, double t0_us, CounterRng& rng,
                           SimListener& out) const = 0;
};

class HostDriver {
 public:
  virtual ~HostDriver() = default;
  // Drives every dispatch of `program`, drawing host costs from `rng` in a
  // fixed order, and delivers host spans to `out`.
  virtual void Run(const Program& program, const DeviceProfile& profile,
                   const KernelRunner& kernels, CounterRng& rng,
                   SimListener& out) const = 0;
};

std::unique_ptr<HostDriver> MakeHostDriver(ExecMode mode);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_HOST_DRIVER_H_
