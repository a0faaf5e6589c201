// The set of workload specs a run can choose from: every spec file of a
// directory, and the --workload selector over them.
#ifndef TRNBENCH_WORKLOADS_LOADING_SPEC_CATALOG_H_
#define TRNBENCH_WORKLOADS_LOADING_SPEC_CATALOG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/memory_limits.h"
#include "workloads/spec/spec.h"

namespace trn {

// Loads every *.json file directly in `dir` (not subdirectories; names that
// start with '.' are skipped as editor or backup files), sorted by workload
// name. Every bad file is reported, one per line, not only the first; two
// files with the same workload name are an error naming both. NotFound when
// `dir` does not exist; InvalidArgument when it holds no spec file.
absl::StatusOr<std::vector<WorkloadSpec>> LoadSpecDir(
    const std::string& dir, const MemoryLimits& limits);

// `selector` is "all", a workload name, a family, a glob of either
// ('rmsnorm_*'), or a comma-separated list of those. The result keeps the
// order of `all` and holds each spec once. A term that matches nothing is
// an InvalidArgument error naming the close names ("did you mean"), else
// listing the names and families there are.
// `specs` without those `exclude` (the same kinds of terms as a selector)
// matches. A term that matches none of `specs` is an error, like a
// selector's: a typo must not leave the workload in.
absl::StatusOr<std::vector<WorkloadSpec>> ExcludeWorkloads(
    std::vector<WorkloadSpec> specs, std::string_view exclude);

absl::StatusOr<std::vector<WorkloadSpec>> SelectWorkloads(
    const std::vector<WorkloadSpec>& all, std::string_view selector);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_LOADING_SPEC_CATALOG_H_
