// `trnbench profile`: the device summary, roofline and findings of the
// selected workloads (docs/profile.md).
#ifndef TRNBENCH_TOOLS_TRNBENCH_PROFILE_COMMAND_H_
#define TRNBENCH_TOOLS_TRNBENCH_PROFILE_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "harness/runner.h"
#include "workloads/spec.h"

namespace trn {

struct ProfileCommandOptions {
  std::string format = "table";  // table or json
  std::string output;            // also write the JSON here, if set
  std::string trnbench_version;
};

// Profiles `specs` (already selected, ordered and shape-expanded) on
// `profile` (with any --set applied); returns the exit code.
int RunProfileCommand(const std::vector<WorkloadSpec>& specs,
                      const DeviceProfile& profile, const RunOptions& run,
                      const ProfileCommandOptions& options, std::ostream& out,
                      std::ostream& err);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_PROFILE_COMMAND_H_
