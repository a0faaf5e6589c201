// Every flag of the trnbench program, parsed once into one struct. Commands
// read the struct and never the raw arguments.
#ifndef TRNBENCH_TOOLS_TRNBENCH_OPTIONS_H_
#define TRNBENCH_TOOLS_TRNBENCH_OPTIONS_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/loading/shape_override.h"

namespace trn {

struct Options {
  // The command word ("" runs workloads) and the words after it.
  std::string command;
  std::vector<std::string> positional;
  bool help = false;
  bool version = false;

  // Selection.
  std::string workload;
  std::string exclude;  // --exclude: terms like --workload's, taken out
  std::vector<std::string> specs;
  // NKI kernel source (docs/nki-source.md): FILE.py::FUNCTION, traced into
  // specs that join `specs` (tools/trnbench/kernel_source.h).
  std::vector<std::string> kernels;
  std::string kernel_args;          // --args name=DIMSxDIMS:dtype,...
  std::vector<std::string> kwargs;  // --kwarg NAME=VALUE
  // --pair OLD=NEW (compare): two versions of one kernel, by workload name.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string emit_spec;  // --emit-spec FILE
  // PyTorch functions (docs/torch-source.md): FILE.py::FUNCTION, traced into
  // an eager and a compiled spec each (tools/trnbench/torch_source.h), with
  // --args; --mode picks the variants.
  std::vector<std::string> torch;
  std::string torch_mode = "all";  // --mode eager|compiled|all
  std::vector<ShapeOverride> shapes;
  // Set by --kernel's tracing (kernel_source.h): --shape traces a traced
  // kernel again at each point rather than reshaping its spec.
  RemakeAtPoint remake_at_point;
  std::string specs_dir;     // empty: the shipped workloads/specs
  std::string profiles_dir;  // empty: the shipped device_model/profiles
  std::string device = "trn1";
  std::vector<std::pair<std::string, double>> sets;

  // Schedule and statistics.
  int64_t repeat = 100;
  int64_t warmup = 1;
  int64_t wait = 0;
  uint64_t seed = 1;
  double confidence = 0.95;
  // Runs simulated at once (harness/runner/runner.h); 0 when not given:
  // the machine's cores.
  int64_t jobs = 0;

  // Outputs.
  std::string format = "table";
  std::string output;
  std::string report_dir;
  std::string trace;
  int64_t trace_repeat = 0;
  std::string junit;
  std::string summary;  // --summary: the compact markdown of what changed
  std::string color = "auto";               // --color auto|always|never
  std::vector<std::string> gbench_metrics;  // --gbench-metrics: more metrics

  // Baselines and the gate.
  std::string baseline;
  bool save_baseline = false;
  std::string save_baseline_dir;  // empty: baselines/<device>
  double threshold = 0.02;
  double alpha = 0.05;
  bool allow_missing = false;
  bool allow_unchecked = false;
  bool fresh_seeds = false;

  // Measurements (docs/import.md).
  std::string from;  // import: the files' format; empty: detected
  std::string span;  // import: Kineto span of one iteration
  std::string device_categories = "kernel,gpu_memcpy,gpu_memset";
  std::string measured;  // validate: a measured results file
  // validate: figures the model is known to miss (docs/validation.md).
  std::string known_gaps;
  // validate: the upstream kernels' folder; each figure whose spec names
  // its kernel ("traced_from") is also predicted from the traced source.
  std::string sources;
  // validate: the folder of the training kernels' measurements and source
  // (NKIBench); default ../shared/fixtures/measured/nkibench of the source
  // tree (docs/validation.md, "Training figures").
  std::string training;
  // The run history and sharded runs (docs/history.md).
  std::string db;     // an SQLite file or a postgresql:// URL
  std::string shard;  // K/N
  std::string run_id;
  std::string night;  // YYYY-MM-DD
  std::string commit;
  std::string branch;
  std::string ci_run;
  int64_t nights = 0;  // the last N nights; 0: all
  double fdr = 0.05;

  // The flags given, by their canonical name (report_dir), in order.
  std::vector<std::string> given;

  bool Given(std::string_view flag) const;
};

// Parses the arguments. Every flag is checked here: unknown flags, missing
// or empty values, integers that are not decimal digits, values out of
// range, and single-value flags given twice are refused with one line that
// names the flag as typed and what was expected.
absl::StatusOr<Options> ParseOptions(int argc, const char* const* argv);

// A flag's spelling on the command line: report_dir -> --report-dir.
std::string Dashed(std::string_view flag);

// Whether `name` (canonical: report_dir) is one of the program's flags.
bool IsFlagName(std::string_view name);

// The --help text.
std::string_view UsageText();
// `trnbench COMMAND --help`: the command's usage lines and the entries of
// the flags it takes, cut from UsageText().
std::string CommandUsageText(std::string_view command,
                             const std::vector<std::string_view>& flags);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_OPTIONS_H_
