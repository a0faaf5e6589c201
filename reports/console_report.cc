#include "reports/console_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/serial_dependence.h"
#include "reports/measurement_text.h"
#include "reports/number_format.h"
#include "reports/profile_report.h"
#include "reports/report_tables.h"
#include "reports/terminal.h"

namespace trn {
namespace {

std::string Heading(const std::string& text, const ConsoleStyle& style) {
  std::string lines = WrapText(text, style.width);
  lines.pop_back();  // the colour ends before the line break
  return Colorize(lines, Color::kBold, style.color) + "\n";
}

}  // namespace

std::string RenderConsoleReport(const RunResult& run,
                                const ConsoleStyle& style) {
  const std::string level = FormatLevel(run.confidence);
  std::string out;
  if (run.measured()) {
    out = WrapText(
        absl::StrFormat("trnbench %s \xC2\xB7 %s \xC2\xB7 %s "
                        "intervals",
                        run.trnbench_version, MeasurementLine(run), level),
        style.width);
  } else {
    out = WrapText(
        absl::StrFormat("trnbench %s \xC2\xB7 device %s \xC2\xB7 seed %d "
                        "\xC2\xB7 wait %d / warmup %d / repeat %d \xC2\xB7 %s "
                        "intervals",
                        run.trnbench_version, run.device, run.seed,
                        run.schedule.wait, run.schedule.warmup,
                        run.schedule.repeat, level),
        style.width);
  }
  if (!run.device_calibrated) {
    out += WrapText(UncalibratedWarning(run.device), style.width);
  }
  if (run.measured()) {
    // Every metric of every measured workload: which ones a tool gives
    // varies (steps of a trace, per-iteration latencies, a summary's
    // percentiles).
    for (const WorkloadResult& w : run.workloads) {
      absl::StrAppend(
          &out, "\n",
          Heading(absl::StrCat(w.name, " \xC2\xB7 ", w.description,
                               " (median, ", level, " interval of the median)"),
                  style));
      out += RenderTextTable(MeasuredMetricsTable(w, run.confidence), style);
    }
  }
  const std::vector<WorkloadGroup> families =
      run.measured() ? std::vector<WorkloadGroup>{} : GroupByFamily(run);
  for (const WorkloadGroup& family : families) {
    const std::string& name = family.front()->family;
    absl::StrAppend(
        &out, "\n",
        Heading(
            absl::StrCat(name, " \xC2\xB7 device time per iteration (median, ",
                         level, " interval of the median)"),
            style));
    out += RenderTextTable(FamilySummaryTable(family, run.confidence, nullptr),
                           style);
    if (const std::string note = SpeedupExplanation(family); !note.empty()) {
      out += WrapText(note, style.width, "  ");
    }
    if (const std::string note = RankExplanation(family, run.confidence);
        !note.empty()) {
      out += WrapText(note, style.width, "  ");
    }
    const ReportTable nki = NkiBenchmarkTable(family, run.confidence);
    if (!nki.rows.empty()) {
      absl::StrAppend(
          &out, "\n",
          Heading(absl::StrCat(name,
                               " \xC2\xB7 NKI benchmark figures (like "
                               "nki.benchmark)"),
                  style));
      out += RenderTextTable(nki, style);
    }
    for (const WorkloadResult* w : family) {
      for (const MetricResult& m : w->metrics) {
        if (!IsGatedMetric(m.name)) continue;  // the tables' metrics
        for (const std::string& note :
             stats::DiagnosticNotes(m.summary.series)) {
          out +=
              WrapText(absl::StrCat("note: ", w->name, " ", m.name, " ", note),
                       style.width, "  ");
        }
      }
    }
  }
  for (const WorkloadResult& w : run.workloads) {
    if (run.measured() && w.ops.empty()) continue;
    const std::string caption =
        run.measured() ? "per-op averages per step, sorted by self device time "
                         "(recomputed from the trace's events)"
                       : OpTableCaption(w);
    absl::StrAppend(
        &out, "\n",
        Heading(absl::StrCat(w.name, " \xC2\xB7 ", caption), style));
    out += RenderTextTable(OpTable(w), style);
  }
  return out;
}

}  // namespace trn
