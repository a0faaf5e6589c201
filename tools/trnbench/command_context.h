// What several commands share: finding and loading the device profile and
// the specs, and turning options into the libraries' option structs.
#ifndef TRNBENCH_TOOLS_TRNBENCH_COMMAND_CONTEXT_H_
#define TRNBENCH_TOOLS_TRNBENCH_COMMAND_CONTEXT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/runner/runner.h"
#include "tools/trnbench/options.h"
#include "tools/trnbench/report_outputs.h"
#include "workloads/spec/spec.h"

namespace trn {

// The source tree the program was built from: shipped specs, profiles and
// the default baseline folder live there.
std::string SourceDir();

// The profile named by --device in --profiles-dir, with every --set
// applied (a what-if profile's hash says it is not the file on disk).
absl::StatusOr<DeviceProfile> LoadProfile(const Options& options);

// The folder of device profiles: --profiles-dir, or the shipped one.
std::string ProfilesDir(const Options& o);

// The specs chosen by --workload (or `default_selector` when neither
// --workload nor --spec is given; empty: one of them is required) and
// --spec, in family order, expanded by --shape, and checked against the
// run-size limits.
absl::StatusOr<std::vector<WorkloadSpec>> LoadSelectedSpecs(
    const Options& options, const DeviceProfile& profile,
    const std::string& default_selector);

// Every specs of --specs-dir, in family order (for `list`).
absl::StatusOr<std::vector<WorkloadSpec>> LoadAllSpecs(
    const Options& options, const DeviceProfile& profile);

// --baseline DIR loads <workload>.json for each workload that has one;
// --baseline FILE loads that file (a baseline or a results file).
absl::StatusOr<std::vector<Baseline>> LoadBaselinesFor(
    const std::string& where, const std::vector<WorkloadSpec>& specs,
    double confidence);
// The same for workloads known by name (imported measurements, the other
// side of a compare); `label` names where `where` came from in messages.
absl::StatusOr<std::vector<Baseline>> LoadBaselinesFor(
    const std::string& where, const std::vector<std::string>& workloads,
    double confidence, absl::string_view label = "--baseline");

// The file of the profile --device names in --profiles-dir.
std::string ProfilePath(const Options& options);

RunOptions RunOptionsFrom(const Options& options,
                          const std::vector<Baseline>& baselines);
CompareOptions CompareOptionsFrom(const Options& options);
ReportOutputOptions ReportOutputOptionsFrom(const Options& options);

// Prints the uncalibrated-profile warning when it applies.
void WarnIfUncalibrated(const DeviceProfile& profile, std::ostream& err);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_COMMAND_CONTEXT_H_
