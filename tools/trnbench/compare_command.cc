// `trnbench compare OLD NEW`: two saved results or baselines, offline; OLD
// may be a folder of baselines.
#include <filesystem>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/statistics.h"
#include "nlohmann/json.hpp"
#include "reports/comparison_report.h"
#include "reports/json_results.h"
#include "reports/number_format.h"
#include "reports/terminal.h"
#include "support/output_transaction.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/output_format.h"
#include "tools/trnbench/report_outputs.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {
    "format",          "confidence", "threshold", "alpha",   "allow_missing",
    "allow_unchecked", "output",     "junit",     "summary", "pair"};

const Baseline* FindWorkload(const std::vector<Baseline>& side,
                             const std::string& name) {
  for (const Baseline& b : side) {
    if (b.workload == name) return &b;
  }
  return nullptr;
}

// `compare OLD NEW --pair A=B ...`: two versions of one kernel under
// different names, A in OLD and B in NEW. Reports the model's speed-up of
// each pair (old median / new median of device time, with the family
// table's bootstrap interval); no gate verdict, since the two are
// different workloads by design.
int RunPairs(const Options& o, std::ostream& out, std::ostream& err) {
  // A flag a command does not use is refused, never ignored.
  for (const auto& [flag, given] :
       {std::pair<const char*, bool>{"--output", !o.output.empty()},
        {"--junit", !o.junit.empty()},
        {"--summary", !o.summary.empty()}}) {
    if (given) {
      return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                           flag,
                           ": compare --pair prints the speed-ups on "
                           "stdout only (--format json for the JSON); "
                           "expected no ",
                           flag, " with --pair")));
    }
  }
  const absl::StatusOr<OutputFormat> format =
      FormatFor(o, kReportFormats, "compare");
  if (!format.ok()) return Fail(err, format.status());
  auto old_side = LoadBaselineOrResults(o.positional[0], o.confidence);
  if (!old_side.ok()) return Fail(err, old_side.status());
  auto new_side = LoadBaselineOrResults(o.positional[1], o.confidence);
  if (!new_side.ok()) return Fail(err, new_side.status());
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::string text = absl::StrFormat(
      "speed-up = median device time of OLD / median of NEW; percentile "
      "bootstrap, %d resamples, seed %d, %s interval\n",
      stats::kDefaultBootstrapResamples, stats::kDefaultBootstrapSeed,
      FormatLevel(o.confidence));
  for (const auto& [old_name, new_name] : o.pairs) {
    const Baseline* a = FindWorkload(*old_side, old_name);
    const Baseline* b = FindWorkload(*new_side, new_name);
    if (a == nullptr || b == nullptr) {
      return Fail(err,
                  absl::InvalidArgumentError(absl::StrCat(
                      "--pair ", old_name, "=", new_name, ": ",
                      a == nullptr ? o.positional[0] : o.positional[1],
                      " has no workload ", a == nullptr ? old_name : new_name,
                      "; expected a workload of that file")));
    }
    auto s = VersionSpeedup(*a, *b, "device_time_us", o.confidence);
    if (!s.ok()) return Fail(err, s.status());
    nlohmann::ordered_json row = {{"old", old_name}, {"new", new_name}};
    row.update(SpeedupToJson(*s));
    rows.push_back(std::move(row));
    absl::StrAppend(&text, old_name, " -> ", new_name, ": ",
                    FormatRatio(s->ratio), " ",
                    FormatInterval(s->interval, FormatRatio), "\n");
  }
  if (*format == OutputFormat::kJson) {
    nlohmann::ordered_json j = {
        {"schema", "trnbench.speedups"}, {"schema_version", 1},
        {"confidence", o.confidence},    {"old_file", o.positional[0]},
        {"new_file", o.positional[1]},   {"pairs", std::move(rows)}};
    out << j.dump(2) << "\n";
  } else {
    out << text;
  }
  return kExitOk;
}

int RunCompare(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.positional.size() != 2) {
    return Fail(err, absl::InvalidArgumentError(
                         "compare needs two files: trnbench compare OLD.json "
                         "NEW.json (OLD may be a baseline folder)"));
  }
  if (!o.pairs.empty()) return RunPairs(o, out, err);
  const absl::StatusOr<OutputFormat> format =
      FormatFor(o, kReportFormats, "compare");
  if (!format.ok()) return Fail(err, format.status());
  const ReportOutputOptions report_options = ReportOutputOptionsFrom(o);
  const std::string& old_path = o.positional[0];
  const std::string& new_path = o.positional[1];
  // OLD may be a baseline folder (baselines/trn1): the baselines of NEW's
  // workloads, one verdict with Holm over the whole file; this is how the
  // merged file of a sharded run is gated as one suite (docs/ci.md).
  std::error_code ec;
  const bool old_is_folder = std::filesystem::is_directory(old_path, ec);
  absl::StatusOr<std::vector<Baseline>> new_side;
  std::vector<std::string> names;
  if (old_is_folder) {
    new_side = LoadBaselineOrResults(new_path, o.confidence);
    if (!new_side.ok()) return Fail(err, new_side.status());
    for (const Baseline& b : *new_side) names.push_back(b.workload);
  }
  // Every output planned and checked before anything is written
  // (support/output_transaction.h): none may overwrite an input.
  OutputTransaction outputs;
  if (old_is_folder) {
    for (const std::string& name : names) {
      outputs.AddInput("compare", BaselinePath(old_path, name));
    }
  } else {
    outputs.AddInput("compare", old_path);
  }
  outputs.AddInput("compare", new_path);
  if (!o.output.empty()) outputs.PlanFile("--output", o.output);
  PlanReportOutputs(report_options, outputs);
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  auto old_side =
      old_is_folder ? LoadBaselinesFor(old_path, names, o.confidence, "compare")
                    : LoadBaselineOrResults(old_path, o.confidence);
  if (!old_side.ok()) return Fail(err, old_side.status());
  if (!old_is_folder) {
    new_side = LoadBaselineOrResults(new_path, o.confidence);
    if (!new_side.ok()) return Fail(err, new_side.status());
  }
  CompareOptions compare = CompareOptionsFrom(o);
  if (old_is_folder) {
    compare.old_side_is_baseline_set = true;
    compare.source = old_path;
    auto listed = BaselineFolderWorkloads(old_path);
    if (!listed.ok()) return Fail(err, listed.status());
    compare.baseline_set_workloads = *std::move(listed);
  }
  auto c = CompareFiles(*old_side, *new_side, compare);
  if (!c.ok()) return Fail(err, c.status());
  // Built only when printed or written: at 100k workloads its tree alone
  // took ~250 MB.
  const std::string json_text =
      *format == OutputFormat::kJson || !o.output.empty()
          ? ComparisonJsonText(*c)
          : std::string();
  // As for a run: every file is staged before the first is put in place.
  if (!o.output.empty()) {
    if (auto s = outputs.StageFile(o.output, json_text); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (auto s =
          StageReportOutputs(PrepareJunitOutput(report_options, *c), outputs);
      !s.ok()) {
    return Fail(err, s);
  }
  if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
  if (*format == OutputFormat::kJson) {
    out << json_text;
  } else {
    out << RenderComparisonReport(*c, ConsoleStyleFor(out));
  }
  return c->AnyRegression() ? kExitRegression : kExitOk;
}

}  // namespace

const CommandInfo kCompareCommand = {"compare", RunCompare, kFlags,
                                     /*takes_positional=*/true};

}  // namespace trn
