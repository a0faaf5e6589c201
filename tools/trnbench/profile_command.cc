#include "tools/trnbench/profile_command.h"

#include <ostream>

#include "support/atomic_file.h"
#include "tools/trnbench/cli.h"
#include "harness/profile_analysis.h"
#include "reports/profile_report.h"

namespace trn {

int RunProfileCommand(const std::vector<WorkloadSpec>& specs,
                      const DeviceProfile& profile, const RunOptions& run,
                      const ProfileCommandOptions& options, std::ostream& out,
                      std::ostream& err) {
  ProfileReport report;
  report.trnbench_version = options.trnbench_version;
  report.device = profile.name;
  report.device_description = profile.description;
  report.device_hash = profile.content_hash;
  report.device_calibrated = profile.calibrated;
  report.peaks = ComputePeaks(profile);
  report.seed = run.seed;
  report.schedule = run.schedule;
  report.confidence = run.confidence;
  for (const WorkloadSpec& spec : specs) {
    auto p = ProfileWorkload(spec, profile, run);
    if (!p.ok()) {
      err << "trnbench: error: " << p.status().message() << "\n";
      return kExitBadInput;
    }
    report.workloads.push_back(*std::move(p));
  }
  const std::string json = ProfileToJsonText(report);
  if (!options.output.empty()) {
    if (auto s = WriteFileAtomic(options.output, json); !s.ok()) {
      err << "trnbench: error: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  out << (options.format == "json" ? json : RenderProfileText(report));
  return kExitOk;
}

}  // namespace trn
