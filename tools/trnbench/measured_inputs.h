// What `validate --measured` and `calibrate` share: the measured results
// files they read and the spec of each measured workload.
#ifndef TRNBENCH_TOOLS_TRNBENCH_MEASURED_INPUTS_H_
#define TRNBENCH_TOOLS_TRNBENCH_MEASURED_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "harness/gate/baseline_store.h"
#include "tools/trnbench/options.h"
#include "workloads/spec/spec.h"

namespace trn {

struct MeasuredInputs {
  std::vector<Baseline> measured;  // every workload of every file
  // The spec of each measured workload, in the same order.
  std::vector<WorkloadSpec> specs;
};

// Reads `files` (each a results or baseline file of source "measured") and
// finds each workload's spec: a --spec of its name (or the only --spec
// given), else the --specs-dir spec of its name.
absl::StatusOr<MeasuredInputs> LoadMeasuredInputs(
    const std::vector<std::string>& files, const Options& options,
    const DeviceProfile& profile);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_MEASURED_INPUTS_H_
