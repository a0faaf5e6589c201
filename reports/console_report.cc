#include "reports/console_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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
  std::string out = WrapText(
      absl::StrFormat("trnbench %s \xC2\xB7 device %s \xC2\xB7 seed %d "
                      "\xC2\xB7 wait %d / warmup %d / repeat %d \xC2\xB7 %s "
                      "intervals",
                      run.trnbench_version, run.device, run.seed,
                      run.schedule.wait, run.schedule.warmup,
                      run.schedule.repeat, level),
      style.width);
  if (!run.device_calibrated) {
    out += WrapText(UncalibratedWarning(run.device), style.width);
  }
  const std::vector<WorkloadGroup> families = GroupByFamily(run);
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
  }
  for (const WorkloadResult& w : run.workloads) {
    absl::StrAppend(
        &out, "\n",
        Heading(absl::StrCat(w.name, " \xC2\xB7 ", OpTableCaption(w)), style));
    out += RenderTextTable(OpTable(w), style);
  }
  return out;
}

}  // namespace trn
