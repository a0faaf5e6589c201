// `trnbench list`: the workloads and families a --specs-dir holds.
#include <ostream>

#include "reports/workload_list.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {"device", "profiles_dir", "specs_dir"};

int RunList(const Options& o, std::ostream& out, std::ostream& err) {
  auto profile = LoadProfile(o);
  if (!profile.ok()) return Fail(err, profile.status());
  auto specs = LoadAllSpecs(o, *profile);
  if (!specs.ok()) return Fail(err, specs.status());
  out << RenderWorkloadList(*specs);
  return kExitOk;
}

}  // namespace

const CommandInfo kListCommand = {"list", RunList, kFlags};

}  // namespace trn
