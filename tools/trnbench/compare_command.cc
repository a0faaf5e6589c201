// `trnbench compare OLD NEW`: two saved results or baselines, offline.
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "harness/baseline_store.h"
#include "harness/comparison.h"
#include "reports/comparison_report.h"
#include "reports/json_results.h"
#include "reports/terminal.h"
#include "support/output_transaction.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/report_outputs.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {
    "format",        "confidence",      "threshold", "alpha",
    "allow_missing", "allow_unchecked", "output",    "junit"};

int RunCompare(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.positional.size() != 2) {
    return Fail(err, absl::InvalidArgumentError(
                         "compare needs two files: trnbench compare OLD.json "
                         "NEW.json"));
  }
  if (auto s = CheckFormat(o, /*allow_gbench=*/false, "compare"); !s.ok()) {
    return Fail(err, s);
  }
  const ReportOutputOptions report_options = ReportOutputOptionsFrom(o);
  // Every output planned and checked before anything is read
  // (support/output_transaction.h): neither may overwrite an input.
  OutputTransaction outputs;
  outputs.AddInput("compare", o.positional[0]);
  outputs.AddInput("compare", o.positional[1]);
  if (!o.output.empty()) outputs.PlanFile("--output", o.output);
  PlanReportOutputs(report_options, outputs);
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  auto old_side = LoadBaselineOrResults(o.positional[0], o.confidence);
  if (!old_side.ok()) return Fail(err, old_side.status());
  auto new_side = LoadBaselineOrResults(o.positional[1], o.confidence);
  if (!new_side.ok()) return Fail(err, new_side.status());
  auto c = CompareFiles(*old_side, *new_side, CompareOptionsFrom(o));
  if (!c.ok()) return Fail(err, c.status());
  const std::string json_text = ComparisonToJson(*c).dump(2) + "\n";
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
  if (o.format == "json") {
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
