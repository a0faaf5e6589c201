#include "tools/trnbench/options.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/runner/runner.h"
#include "support/message_text.h"
#include "support/name_match.h"
#include "support/status_macros.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"

namespace trn {
namespace {

// How a flag's value is read. Lists may be given many times; every other
// flag once.
enum class Kind { kText, kPath, kInt, kUint, kDouble, kBool, kList };

struct FlagDef {
  std::string_view name;  // canonical: report_dir
  Kind kind;
  // What the value must be, said in every refusal: "--repeat=0: expected
  // an integer from 1 to 1000000".
  std::string expected;
  std::function<absl::Status(Options&, const std::string& value)> set;
};

absl::Status Expected(std::string_view flag, std::string_view value,
                      const std::string& expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      Dashed(flag), "=", EscapeControl(value), ": expected ", expected));
}

// Decimal digits only: "0x10", " 5", "+5" and "1e3" are refused, not read
// as 16, 5, 5 or 1000.
bool ParseDecimal(const std::string& text, uint64_t max, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (v > max) return false;
  out = v;
  return true;
}

FlagDef IntFlag(std::string_view name, int64_t lo, int64_t hi,
                int64_t Options::*field, std::string expected = "") {
  if (expected.empty()) {
    expected = absl::StrCat("an integer from ", lo, " to ", hi);
  }
  return {name, Kind::kInt, expected,
          [=](Options& o, const std::string& v) -> absl::Status {
            uint64_t n = 0;
            if (!ParseDecimal(v, static_cast<uint64_t>(hi), n) ||
                static_cast<int64_t>(n) < lo) {
              return Expected(name, v, expected);
            }
            o.*field = static_cast<int64_t>(n);
            return absl::OkStatus();
          }};
}

// A level or fraction: `ok` says which values are allowed.
FlagDef DoubleFlag(std::string_view name, std::string expected,
                   double Options::*field, bool (*ok)(double)) {
  return {name, Kind::kDouble, expected,
          [=](Options& o, const std::string& v) -> absl::Status {
            double d = 0;
            if (!absl::SimpleAtod(v, &d) || !std::isfinite(d) || !ok(d) ||
                v.empty() || v.front() == ' ' || v.back() == ' ') {
              return Expected(name, v, expected);
            }
            o.*field = d;
            return absl::OkStatus();
          }};
}

FlagDef BoolFlag(std::string_view name, bool Options::*field) {
  static const std::string kExpected =
      "true or false (or the flag alone for true)";
  return {name, Kind::kBool, kExpected,
          [=](Options& o, const std::string& v) -> absl::Status {
            if (v != "true" && v != "false")
              return Expected(name, v, kExpected);
            o.*field = v == "true";
            return absl::OkStatus();
          }};
}

// A file or folder name: never empty, since an empty value is what an unset
// CI variable gives (`--baseline=$BASELINE`), and silently running without
// a baseline would pass a gate that should have run.
FlagDef PathFlag(std::string_view name, std::string expected,
                 std::string Options::*field) {
  return {name, Kind::kPath, expected,
          [=](Options& o, const std::string& v) -> absl::Status {
            if (v.empty()) {
              return absl::InvalidArgumentError(
                  absl::StrCat(Dashed(name), "=: expected ", expected,
                               ", not an empty value (is a variable unset?)"));
            }
            o.*field = v;
            return absl::OkStatus();
          }};
}

bool Level(double d) { return d > 0.0 && d < 1.0; }
bool Fraction(double d) { return d >= 0.0 && d < 1.0; }

absl::StatusOr<std::pair<std::string, double>> ParseSet(const std::string& kv) {
  auto eq = kv.find('=');
  double value = 0;
  if (eq == std::string::npos || eq == 0 ||
      !absl::SimpleAtod(kv.substr(eq + 1), &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--set ", EscapeControl(kv),
                     ": expected KEY=VALUE with a number, such as "
                     "--set dma_latency_us=4.1"));
  }
  return std::pair{kv.substr(0, eq), value};
}

const std::vector<FlagDef>& Flags() {
  static const std::vector<FlagDef> flags = {
      {"workload", Kind::kText, "a workload name, family name or all",
       [](Options& o, const std::string& v) {
         o.workload = v;
         return absl::OkStatus();
       }},
      {"spec", Kind::kList, "a spec file",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v.empty())
           return absl::InvalidArgumentError("--spec needs a file name");
         o.specs.push_back(v);
         return absl::OkStatus();
       }},
      {"kernel", Kind::kList, "FILE.py::FUNCTION",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v.find("::") == std::string::npos || v.rfind("::") == 0 ||
             v.rfind("::") + 2 == v.size()) {
           return Expected("kernel", v, "FILE.py::FUNCTION");
         }
         o.kernels.push_back(v);
         return absl::OkStatus();
       }},
      {"torch", Kind::kList, "FILE.py::FUNCTION",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v.find("::") == std::string::npos || v.rfind("::") == 0 ||
             v.rfind("::") + 2 == v.size()) {
           return Expected("torch", v, "FILE.py::FUNCTION");
         }
         o.torch.push_back(v);
         return absl::OkStatus();
       }},
      {"mode", Kind::kText, "eager, compiled or all",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v != "eager" && v != "compiled" && v != "all") {
           return Expected("mode", v, "eager, compiled or all");
         }
         o.torch_mode = v;
         return absl::OkStatus();
       }},
      {"args", Kind::kText,
       "the kernel's or function's arguments, name=DIMSxDIMS:dtype or "
       "name=NUMBER, comma-separated",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v.empty()) return Expected("args", v, "name=DIMSxDIMS:dtype,...");
         o.kernel_args = v;
         return absl::OkStatus();
       }},
      {"kwarg", Kind::kList, "NAME=VALUE, a keyword argument of the kernel",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v.find('=') == std::string::npos || v.front() == '=') {
           return Expected("kwarg", v, "NAME=VALUE");
         }
         o.kwargs.push_back(v);
         return absl::OkStatus();
       }},
      {"pair", Kind::kList,
       "OLD=NEW, a workload of the first file and its new version in the "
       "second",
       [](Options& o, const std::string& v) -> absl::Status {
         const size_t eq = v.find('=');
         if (eq == std::string::npos || eq == 0 || eq + 1 == v.size() ||
             v.find('=', eq + 1) != std::string::npos) {
           return Expected("pair", v, "OLD=NEW");
         }
         o.pairs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
         return absl::OkStatus();
       }},
      PathFlag("emit_spec", "a file name", &Options::emit_spec),
      {"shape", Kind::kList, "TENSOR[,TENSOR...]=DIMS[,DIMS...]",
       [](Options& o, const std::string& v) -> absl::Status {
         auto shape = ParseShapeOverride(v);
         if (!shape.ok()) return FromFlag("--shape", shape.status());
         o.shapes.push_back(*std::move(shape));
         return absl::OkStatus();
       }},
      {"set", Kind::kList, "KEY=VALUE",
       [](Options& o, const std::string& v) -> absl::Status {
         TRN_ASSIGN_OR_RETURN(auto kv, ParseSet(v));
         o.sets.push_back(std::move(kv));
         return absl::OkStatus();
       }},
      IntFlag("repeat", 1, kMaxRepeat, &Options::repeat),
      IntFlag("warmup", 0, kMaxRepeat, &Options::warmup),
      IntFlag("wait", 0, kMaxRepeat, &Options::wait),
      IntFlag("jobs", 1, 1024, &Options::jobs),
      {"seed", Kind::kUint, "an integer from 0 to 18446744073709551615",
       [](Options& o, const std::string& v) -> absl::Status {
         uint64_t n = 0;
         if (!ParseDecimal(v, std::numeric_limits<uint64_t>::max(), n)) {
           return Expected("seed", v,
                           "an integer from 0 to 18446744073709551615");
         }
         o.seed = n;
         return absl::OkStatus();
       }},
      // Empty is let through: the profile loader answers with the list of
      // profiles, which is the most useful reply.
      {"device", Kind::kText, "a device profile name",
       [](Options& o, const std::string& v) {
         o.device = v;
         return absl::OkStatus();
       }},
      {"format", Kind::kText, "table, json, gbench-json or markdown",
       [](Options& o, const std::string& v) {
         o.format = v;
         return absl::OkStatus();
       }},
      DoubleFlag("confidence", "a level strictly between 0 and 1, such as 0.95",
                 &Options::confidence, Level),
      DoubleFlag("threshold", "a fraction in [0, 1), such as 0.02",
                 &Options::threshold, Fraction),
      DoubleFlag("alpha", "a level strictly between 0 and 1, such as 0.05",
                 &Options::alpha, Level),
      {"exclude", Kind::kText,
       "workload names, families or globs, comma-separated",
       [](Options& o, const std::string& v) {
         o.exclude = v;
         return absl::OkStatus();
       }},
      PathFlag("output", "a file name", &Options::output),
      PathFlag("report_dir", "a folder name", &Options::report_dir),
      PathFlag("trace", "a file name", &Options::trace),
      IntFlag("trace_repeat", 0, kMaxRepeat - 1, &Options::trace_repeat,
              "a recorded run, 0-based (the one --trace writes; default 0)"),
      PathFlag("junit", "a file name", &Options::junit),
      PathFlag("summary", "a file name", &Options::summary),
      {"color", Kind::kText, "auto, always or never",
       [](Options& o, const std::string& v) -> absl::Status {
         if (v != "auto" && v != "always" && v != "never") {
           return Expected("color", v, "auto, always or never");
         }
         o.color = v;
         return absl::OkStatus();
       }},
      {"gbench_metrics", Kind::kText,
       "time metrics, comma-separated (such as vector_busy_us,dma_busy_us), "
       "or all",
       [](Options& o, const std::string& v) -> absl::Status {
         o.gbench_metrics = absl::StrSplit(v, ',', absl::SkipEmpty());
         if (o.gbench_metrics.empty()) {
           return absl::InvalidArgumentError(
               "--gbench-metrics=: expected time metrics, comma-separated, "
               "or all");
         }
         return absl::OkStatus();
       }},
      PathFlag("specs_dir", "a folder of workload specs", &Options::specs_dir),
      PathFlag("profiles_dir", "a folder of device profiles",
               &Options::profiles_dir),
      PathFlag("baseline", "a baseline folder or file", &Options::baseline),
      PathFlag("db", "an SQLite file or a postgresql:// URL", &Options::db),
      PathFlag("shard", "K/N, shard K of N, such as 2/4", &Options::shard),
      PathFlag("run_id", "a run id", &Options::run_id),
      PathFlag("night", "a date YYYY-MM-DD", &Options::night),
      PathFlag("commit", "a commit", &Options::commit),
      PathFlag("branch", "a branch name", &Options::branch),
      PathFlag("ci_run", "a CI run id", &Options::ci_run),
      IntFlag("nights", 1, 100000, &Options::nights),
      DoubleFlag("fdr", "a level strictly between 0 and 1, such as 0.05",
                 &Options::fdr, Level),
      BoolFlag("allow_missing", &Options::allow_missing),
      BoolFlag("allow_unchecked", &Options::allow_unchecked),
      BoolFlag("fresh_seeds", &Options::fresh_seeds),
      {"from", Kind::kText,
       "kineto, neuron-bench, neuron-profile, nki-benchmark, gbench or "
       "hyperfine",
       [](Options& o, const std::string& v) {
         o.from = v;
         return absl::OkStatus();
       }},
      {"span", Kind::kText, "the name of a record_function span",
       [](Options& o, const std::string& v) {
         o.span = v;
         return absl::OkStatus();
       }},
      {"device_categories", Kind::kText,
       "trace event categories, comma-separated, such as kernel,gpu_memcpy",
       [](Options& o, const std::string& v) {
         o.device_categories = v;
         return absl::OkStatus();
       }},
      PathFlag("measured", "a measured results file (trnbench import --output)",
               &Options::measured),
      PathFlag("known_gaps", "a file of figure keys, one per line",
               &Options::known_gaps),
      PathFlag("sources", "a folder of the upstream NKI kernels (nki-samples)",
               &Options::sources),
      PathFlag("training",
               "the training kernels' folder (NKIBench measurements)",
               &Options::training),
  };
  return flags;
}

std::vector<std::string> FlagNames() {
  std::vector<std::string> out = {"save_baseline", "help", "version"};
  for (const FlagDef& f : Flags()) out.emplace_back(f.name);
  return out;
}

const FlagDef* FindFlag(std::string_view name) {
  for (const FlagDef& f : Flags()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

bool Options::Given(std::string_view flag) const {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

std::string Dashed(std::string_view flag) {
  std::string out(flag);
  std::replace(out.begin(), out.end(), '_', '-');
  return "--" + out;
}

bool IsFlagName(std::string_view name) {
  // save_baseline takes an optional value, so ParseOptions reads it apart
  // from the table.
  return FindFlag(name) != nullptr || name == "save_baseline";
}

absl::StatusOr<Options> ParseOptions(int argc, const char* const* argv) {
  Options o;
  auto note_given = [&o](const std::string& name) -> absl::Status {
    const FlagDef* def = FindFlag(name);
    const bool list = def != nullptr && def->kind == Kind::kList;
    if (!list && o.Given(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Dashed(name), " is given twice; expected it once"));
    }
    o.given.push_back(name);
    return absl::OkStatus();
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || (arg == "help" && i == 1)) {
      o.help = true;
      continue;
    }
    if (arg == "--version") {
      o.version = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      if (o.command.empty() && o.positional.empty() && IsCommandName(arg)) {
        o.command = arg;
        continue;
      }
      if (CommandTakesPositional(o.command)) {
        o.positional.push_back(arg);
        continue;
      }
      // A first word that is almost a command is a typo of one.
      std::vector<std::string> commands;
      if (o.command.empty() && o.positional.empty()) {
        commands = absl::StrSplit(CommandNameList(), ", ");
      }
      const std::string hint = DidYouMean(arg, commands);
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", EscapeControl(arg), "'",
          hint.empty() ? absl::StrCat("; expected a flag or one of the "
                                      "commands ",
                                      CommandNameList())
                       : hint));
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    std::replace(name.begin(), name.end(), '-', '_');
    if (name == "save_baseline") {
      // The folder is optional: the next word is taken only if it is not a
      // flag (and not a command word).
      TRN_RETURN_IF_ERROR(note_given(name));
      o.save_baseline = true;
      if (has_value) {
        if (value.empty()) {
          return absl::InvalidArgumentError("--save-baseline= needs a folder");
        }
        o.save_baseline_dir = value;
      } else if (i + 1 < argc && !absl::StartsWith(argv[i + 1], "--")) {
        o.save_baseline_dir = argv[++i];
      }
      continue;
    }
    const FlagDef* def = FindFlag(name);
    if (def == nullptr) {
      std::vector<std::string> dashed;
      for (const std::string& f : FlagNames()) dashed.push_back(Dashed(f));
      const std::string hint = DidYouMean(Dashed(name), dashed);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", EscapeControl(Dashed(name)),
                       hint.empty() ? "; see trnbench --help" : hint));
    }
    TRN_RETURN_IF_ERROR(note_given(name));
    if (!has_value && def->kind == Kind::kBool) {
      value = "true";
      has_value = true;
    }
    if (!has_value) {
      if (i + 1 >= argc || absl::StartsWith(argv[i + 1], "--")) {
        return absl::InvalidArgumentError(
            absl::StrCat(Dashed(name), " needs a value: ", def->expected));
      }
      value = argv[++i];
    }
    TRN_RETURN_IF_ERROR(def->set(o, value));
  }
  return o;
}

}  // namespace trn
