#include "reports/report_builder.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/serial_dependence.h"
#include "reports/forest_plot.h"
#include "reports/measurement_text.h"
#include "reports/number_format.h"
#include "reports/report_tables.h"
#include "reports/svg_plot.h"

namespace trn {
namespace {

Text VerdictText(Verdict v) {
  std::string name(VerdictName(v));
  return v == Verdict::kRegression ? StrongText(name) : PlainText(name);
}

// A table of report_tables.h as a document table: names as code, a
// regression in bold.
DocBlock TableBlock(const ReportTable& table) {
  DocTable t;
  t.header = table.header;
  t.right_align = table.right_align;
  for (const auto& row : table.rows) {
    std::vector<Text> cells;
    for (const TableCell& cell : row) {
      switch (cell.kind) {
        case TableCell::Kind::kText:
          cells.push_back(PlainText(cell.text));
          break;
        case TableCell::Kind::kName:
          cells.push_back(CodeText(cell.text));
          break;
        case TableCell::Kind::kVerdict:
          cells.push_back(VerdictText(cell.verdict));
          break;
      }
    }
    t.rows.push_back(std::move(cells));
  }
  return Table(std::move(t));
}

const Baseline* FindBaseline(const std::vector<Baseline>* baselines,
                             const std::string& workload) {
  if (baselines == nullptr) return nullptr;
  for (const auto& b : *baselines) {
    if (b.workload == workload) return &b;
  }
  return nullptr;
}

Text ComparisonLine(const MetricComparison& c) {
  Text name = CodeText(c.workload);
  if (c.metric != "*") name = name + PlainText(" ") + CodeText(c.metric);
  return name + PlainText(": ") + VerdictText(c.verdict) +
         PlainText(absl::StrCat(" \xE2\x80\x94 ", c.reason));
}

std::vector<DocBlock> ComparisonBlocks(const ReportInputs& in,
                                       const WorkloadGroup& ws) {
  std::vector<const MetricComparison*> rows;
  for (const auto& c : in.comparison->rows) {
    for (const WorkloadResult* w : ws) {
      if (c.workload == w->name) rows.push_back(&c);
    }
  }
  if (rows.empty()) return {};
  std::vector<Text> reasons;
  for (const MetricComparison* c : rows) {
    if (c->verdict != Verdict::kUnchanged) {
      reasons.push_back(ComparisonLine(*c));
    }
  }
  std::vector<DocBlock> out = {
      Heading(3, PlainText("Comparison with the baseline")),
      TableBlock(ComparisonTable(rows, in.comparison->confidence))};
  if (!reasons.empty()) out.push_back(List(std::move(reasons)));
  return out;
}

DocFigure PlotFigure(const ReportInputs& in, const std::string& family,
                     const std::string& metric, const WorkloadGroup& ws) {
  DistributionPlot p;
  p.metric = metric;
  if (const MetricInfo* info = FindMetric(metric)) p.unit = info->unit;
  p.title = absl::StrCat(family, " \xC2\xB7 ", metric);
  p.with_baseline = in.comparison != nullptr && in.baselines != nullptr &&
                    !in.baselines->empty();
  if (p.with_baseline) p.baseline_label = in.comparison->baseline_source;
  if (p.baseline_label.empty()) p.baseline_label = "baseline";
  bool unit_known = FindMetric(metric) != nullptr;
  for (const WorkloadResult* w : ws) {
    PlotRow row;
    row.label = w->name;
    if (const MetricResult* m = w->Find(metric)) {
      row.current = m->samples;
      if (!unit_known) {
        p.unit = UnitFromSymbol(m->unit).value_or(Unit::kCount);
        unit_known = true;
      }
    }
    if (p.with_baseline) {
      if (const Baseline* b = FindBaseline(in.baselines, w->name)) {
        if (const MetricResult* bm = b->Find(metric))
          row.baseline = bm->samples;
      }
    }
    p.rows.push_back(std::move(row));
  }
  DocFigure f;
  f.file = PlotFileName(family, metric);
  f.caption =
      absl::StrCat(family, " \xC2\xB7 ", metric, ": distribution per variant",
                   p.with_baseline ? ", baseline beside current" : "");
  f.svg = RenderDistributionSvg(p);
  return f;
}

std::vector<DocBlock> PlotBlocks(const ReportInputs& in,
                                 const std::string& family,
                                 const WorkloadGroup& ws) {
  // Every metric any variant reports, in the model's metric order.
  std::vector<std::string> metrics;
  for (const MetricInfo& info : AllMetrics()) {
    for (const WorkloadResult* w : ws) {
      if (w->Find(info.name) != nullptr) {
        metrics.emplace_back(info.name);
        break;
      }
    }
  }
  // Metrics outside the model's list (from a newer model) still get a plot.
  for (const WorkloadResult* w : ws) {
    for (const auto& m : w->metrics) {
      if (std::find(metrics.begin(), metrics.end(), m.name) == metrics.end()) {
        metrics.push_back(m.name);
      }
    }
  }
  const auto& gated = DefaultGateMetrics();
  std::vector<DocBlock> shown = {Heading(3, PlainText("Distributions"))};
  std::vector<DocBlock> folded;
  for (const auto& metric : metrics) {
    DocBlock fig = Figure(PlotFigure(in, family, metric, ws));
    if (std::find(gated.begin(), gated.end(), metric) != gated.end()) {
      shown.push_back(std::move(fig));
    } else {
      folded.push_back(std::move(fig));
    }
  }
  if (!folded.empty()) {
    const size_t n = folded.size();
    shown.push_back(
        Details(PlainText(absl::StrCat("Distributions of the other ", n,
                                       " metric", n == 1 ? "" : "s")),
                std::move(folded)));
  }
  return shown;
}

std::vector<DocBlock> OpBlocks(const WorkloadGroup& ws) {
  std::vector<DocBlock> out = {Heading(3, PlainText("Per-op tables"))};
  for (const WorkloadResult* w : ws) {
    out.push_back(
        Paragraph(CodeText(w->name) +
                  PlainText(absl::StrCat(" \xC2\xB7 ", OpTableCaption(*w)))));
    out.push_back(TableBlock(OpTable(*w)));
  }
  return out;
}

std::vector<DocBlock> VerdictBlocks(const ComparisonReport& c) {
  std::vector<Text> items;
  for (const MetricComparison* row : NotableComparisons(c)) {
    items.push_back(ComparisonLine(*row));
  }
  Text head =
      StrongText(RegressionCount(c)) + PlainText(" with ") +
      CodeText(c.baseline_source.empty() ? "baseline" : c.baseline_source) +
      PlainText(absl::StrFormat(
          " \xC2\xB7 noise threshold %s \xC2\xB7 false-alarm rate "
          "%.2f (Holm) \xC2\xB7 %s intervals",
          ThresholdText(c), c.alpha, FormatLevel(c.confidence)));
  DocFigure forest;
  forest.file = kForestPlotFile;
  forest.caption =
      "Every comparison: change of the median with its interval against the "
      "noise threshold, coloured by verdict";
  forest.svg = RenderForestSvg(c);
  std::vector<DocBlock> out = {Heading(2, PlainText("Verdict")),
                               Paragraph(std::move(head)),
                               Figure(std::move(forest))};
  if (!items.empty()) out.push_back(List(std::move(items)));
  const std::vector<std::string> notes = CollapsedNotes(c);
  if (!notes.empty()) {
    std::vector<Text> ns;
    for (const auto& n : notes) ns.push_back(PlainText(n));
    out.push_back(Paragraph(PlainText("Notes:")));
    out.push_back(List(std::move(ns)));
  }
  return out;
}

}  // namespace

std::string PlotFileName(const std::string& family, const std::string& metric) {
  std::string name = absl::StrCat(family, "-", metric);
  for (char& c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) c = '_';
  }
  if (name.front() == '.') name.front() = '_';  // no hidden files
  return absl::StrCat("plots/", name, ".svg");
}

ReportDoc BuildReport(const ReportInputs& in) {
  const RunResult& run = *in.run;
  const std::string level = FormatLevel(run.confidence);
  ReportDoc doc;
  doc.title = "trnbench report";
  if (run.measured()) {
    doc.blocks.push_back(Paragraph(PlainText(
        absl::StrFormat("trnbench %s \xC2\xB7 %s \xC2\xB7 %s intervals",
                        run.trnbench_version, MeasurementLine(run), level))));
    doc.blocks.push_back(Paragraph(PlainText(MeasurementNote(run))));
  } else {
    doc.blocks.push_back(Paragraph(
        PlainText(absl::StrFormat("trnbench %s \xC2\xB7 timing model %s "
                                  "\xC2\xB7 device ",
                                  run.trnbench_version, run.model_version)) +
        CodeText(run.device) +
        PlainText(absl::StrFormat(
            " (profile %s) \xC2\xB7 seed %d \xC2\xB7 wait %d / warmup %d / "
            "repeat %d \xC2\xB7 %s intervals",
            run.device_hash, run.seed, run.schedule.wait, run.schedule.warmup,
            run.schedule.repeat, level))));
    doc.blocks.push_back(Paragraph(PlainText(
        "Figures come from the NeuronCore timing model. Intervals of a median "
        "are distribution-free (order statistics); speed-ups are ratios of "
        "median device times of variants of the same size, with "
        "percentile-bootstrap intervals; outliers (Tukey fences) are counted, "
        "never dropped. The raw samples are in results.json and "
        "samples.csv.")));
  }
  if (in.comparison != nullptr) {
    for (auto& b : VerdictBlocks(*in.comparison)) {
      doc.blocks.push_back(std::move(b));
    }
  }
  for (const WorkloadGroup& ws : GroupByFamily(run)) {
    const std::string& family = ws.front()->family;
    doc.blocks.push_back(Heading(2, PlainText("Family ") + CodeText(family)));
    Text intro = PlainText(absl::StrFormat(
        "Device time per iteration: median with its %s interval, "
        "percentiles, coefficient of variation and Tukey outliers.",
        level));
    if (const std::string s = SpeedupExplanation(ws); !s.empty()) {
      intro = intro + PlainText(absl::StrCat(" ", s, "."));
    }
    if (const std::string s = RankExplanation(ws, run.confidence); !s.empty()) {
      intro = intro + PlainText(absl::StrCat(" ", s, "."));
    }
    if (in.comparison != nullptr) {
      intro = intro + PlainText(
                          " Change = current / baseline median - 1, with "
                          "its interval and the gate's verdict.");
    }
    doc.blocks.push_back(Paragraph(std::move(intro)));
    doc.blocks.push_back(
        TableBlock(FamilySummaryTable(ws, run.confidence, in.comparison)));
    std::vector<Text> series_notes;
    for (const WorkloadResult* w : ws) {
      for (const auto& m : w->metrics) {
        if (!IsGatedMetric(m.name)) continue;  // the tables' metrics
        for (const auto& n : stats::DiagnosticNotes(m.summary.series)) {
          series_notes.push_back(CodeText(w->name) +
                                 PlainText(absl::StrCat(" ", m.name, " ", n)));
        }
      }
    }
    if (!series_notes.empty()) {
      doc.blocks.push_back(List(std::move(series_notes)));
    }
    const ReportTable nki = NkiBenchmarkTable(ws, run.confidence);
    if (!nki.rows.empty()) {
      doc.blocks.push_back(
          Heading(3, PlainText("NKI benchmark figures (like nki.benchmark)")));
      doc.blocks.push_back(TableBlock(nki));
    }
    if (in.comparison != nullptr) {
      for (auto& b : ComparisonBlocks(in, ws)) {
        doc.blocks.push_back(std::move(b));
      }
    }
    for (auto& b : PlotBlocks(in, family, ws)) {
      doc.blocks.push_back(std::move(b));
    }
    doc.blocks.push_back(
        Details(PlainText("Every metric of every variant"),
                {TableBlock(AllMetricsTable(ws, run.confidence))}));
    for (auto& b : OpBlocks(ws)) doc.blocks.push_back(std::move(b));
  }
  return doc;
}

}  // namespace trn
