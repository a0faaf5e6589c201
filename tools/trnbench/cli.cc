#include "tools/trnbench/cli.h"

#include <algorithm>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/runner/results.h"
#include "harness/runner/runner.h"
#include "reports/terminal.h"
#include "support/ordered_parallel.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/kernel_source.h"
#include "tools/trnbench/options.h"
#include "tools/trnbench/torch_source.h"

namespace trn {
namespace {

// A flag that a command does not use is refused, not ignored: `profile
// --report-dir out` writing nothing would otherwise look like success.
absl::Status CheckFlagsFitCommand(const Options& o, const CommandInfo& c) {
  if (c.flags.empty()) return absl::OkStatus();
  for (const std::string& name : o.given) {
    // --color is the program's, not a command's.
    if (name == "color" ||
        std::find(c.flags.begin(), c.flags.end(), name) != c.flags.end()) {
      continue;
    }
    std::string list;
    for (std::string_view t : c.flags) {
      absl::StrAppend(&list, list.empty() ? "" : ", ", Dashed(t));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(Dashed(name), ": trnbench ", std::string(c.name),
                     " does not use this flag; it takes ", list));
  }
  return absl::OkStatus();
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out,
           std::ostream& err) {
  auto options = ParseOptions(argc, argv);
  if (!options.ok()) return Fail(err, options.status());
  SetColorChoice(options->color == "always"  ? ColorChoice::kAlways
                 : options->color == "never" ? ColorChoice::kNever
                                             : ColorChoice::kAuto);
  if (options->help) {
    const CommandInfo* c = FindCommand(options->command);
    if (c == nullptr || c->name.empty()) {
      out << UsageText();
    } else if (c->name == "gate") {
      // gate takes every run flag; its help shows the ones a gate uses.
      out << CommandUsageText("gate", {"baseline",
                                       "workload",
                                       "exclude",
                                       "spec",
                                       "torch",
                                       "args",
                                       "mode",
                                       "repeat",
                                       "warmup",
                                       "seed",
                                       "device",
                                       "set",
                                       "threshold",
                                       "alpha",
                                       "allow_missing",
                                       "allow_unchecked",
                                       "fresh_seeds",
                                       "shard",
                                       "db",
                                       "output",
                                       "summary",
                                       "report_dir",
                                       "junit",
                                       "format",
                                       "confidence",
                                       "color"});
    } else {
      out << CommandUsageText(c->name, {c->flags.begin(), c->flags.end()});
    }
    return kExitOk;
  }
  if (options->version) {
    out << "trnbench " << TRNBENCH_VERSION << " (timing model " << kModelVersion
        << ", results schema " << kResultsSchemaVersion << ")\n";
    return kExitOk;
  }
  const CommandInfo* command = FindCommand(options->command);
  if (command == nullptr) {
    return Fail(err, absl::InternalError(absl::StrCat(
                         "no command registered as '", options->command, "'")));
  }
  if (auto s = CheckFlagsFitCommand(*options, *command); !s.ok()) {
    return Fail(err, s);
  }
  // Every command that runs workloads runs them on --jobs threads (the
  // machine's cores unless given); no output depends on it.
  SetDefaultJobs(options->Given("jobs") ? static_cast<int>(options->jobs)
                                        : HardwareJobs());
  TracedKernels kernels;  // --kernel: traced into specs (kernel_source.h)
  if (auto s = kernels.Trace(*options); !s.ok()) return Fail(err, s);
  TracedTorch functions;  // --torch: traced into specs (torch_source.h)
  if (auto s = functions.Trace(*options); !s.ok()) return Fail(err, s);
  const int code = command->run(*options, out, err);
  if (code == kExitOk || code == kExitRegression) {
    if (auto s = kernels.WriteEmitted(*options); !s.ok()) return Fail(err, s);
    if (auto s = functions.WriteEmitted(*options); !s.ok()) {
      return Fail(err, s);
    }
  }
  return code;
}

}  // namespace trn
