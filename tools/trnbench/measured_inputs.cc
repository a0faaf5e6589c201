#include "tools/trnbench/measured_inputs.h"

#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "workloads/loading/spec_parser.h"

namespace trn {

absl::StatusOr<MeasuredInputs> LoadMeasuredInputs(
    const std::vector<std::string>& files, const Options& options,
    const DeviceProfile& profile) {
  MeasuredInputs in;
  for (const std::string& f : files) {
    TRN_ASSIGN_OR_RETURN(std::vector<Baseline> loaded,
                         LoadBaselineOrResults(f, options.confidence));
    for (Baseline& b : loaded) {
      if (!b.measured()) {
        return absl::InvalidArgumentError(absl::StrCat(
            f,
            ": /source: expected a measured results file (written by "
            "trnbench import --output FILE); this one holds the model's "
            "figures"));
      }
      in.measured.push_back(std::move(b));
    }
  }
  std::vector<WorkloadSpec> given;
  for (const std::string& path : options.specs) {
    TRN_ASSIGN_OR_RETURN(WorkloadSpec s, LoadSpecFile(path, profile.memory));
    given.push_back(std::move(s));
  }
  std::vector<WorkloadSpec> catalog;
  bool catalog_loaded = false;
  for (const Baseline& m : in.measured) {
    const WorkloadSpec* spec = nullptr;
    for (const WorkloadSpec& s : given) {
      if (s.name == m.workload) spec = &s;
    }
    if (spec == nullptr && given.size() == 1) spec = &given[0];
    if (spec == nullptr) {
      if (!catalog_loaded) {
        TRN_ASSIGN_OR_RETURN(catalog, LoadAllSpecs(options, profile));
        catalog_loaded = true;
      }
      for (const WorkloadSpec& s : catalog) {
        if (s.name == m.workload) spec = &s;
      }
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          m.file, ": workload ", m.workload,
          ": expected a spec of that name in --specs-dir (import with "
          "--workload NAME, or give --spec FILE)"));
    }
    in.specs.push_back(*spec);
    // Shipped specs are named relative to the source tree, as in results.
    const std::string root = SourceDir() + "/";
    std::string& file = in.specs.back().file;
    if (file.rfind(root, 0) == 0) file = file.substr(root.size());
  }
  return in;
}

}  // namespace trn
