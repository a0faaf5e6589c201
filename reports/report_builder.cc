#include "reports/report_builder.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "harness/comparison.h"
#include "harness/serial_dependence.h"
#include "reports/console_report.h"
#include "reports/measurement_text.h"
#include "reports/svg_plot.h"

namespace trn {
namespace {

std::string Pct(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return absl::StrFormat("%.2f%%", fraction * 100.0);
}

std::string SignedPct(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return absl::StrFormat("%+.2f%%", fraction * 100.0);
}

std::string Ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  return absl::StrFormat("%.2fx", r);
}

std::string PValue(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 1e-4) return "<0.0001";
  return absl::StrFormat("%.4f", p);
}

template <typename F>
std::string IntervalText(double low, double high, F fmt) {
  if (!std::isfinite(low) || !std::isfinite(high)) return "n/a";
  return absl::StrCat("[", fmt(low), ", ", fmt(high), "]");
}

std::string UnitOf(const std::string& metric) {
  const MetricInfo* info = FindMetric(metric);
  return info == nullptr ? "" : std::string(info->unit);
}

std::string Outliers(const stats::OutlierCounts& o) {
  const int64_t severe = o.low_severe + o.high_severe;
  if (o.total() == 0) return "0";
  return severe > 0 ? absl::StrFormat("%d (%d severe)", o.total(), severe)
                    : absl::StrFormat("%d", o.total());
}

Text VerdictText(Verdict v) {
  std::string name(VerdictName(v));
  return v == Verdict::kRegression ? StrongText(name) : PlainText(name);
}

std::vector<std::string> Families(const RunResult& run) {
  std::vector<std::string> out;
  for (const auto& w : run.workloads) {
    if (std::find(out.begin(), out.end(), w.family) == out.end()) {
      out.push_back(w.family);
    }
  }
  return out;
}

const MetricComparison* FindComparison(const ComparisonReport* c,
                                       const std::string& workload,
                                       const std::string& metric) {
  if (c == nullptr) return nullptr;
  for (const auto& row : c->rows) {
    if (row.workload == workload && row.metric == metric) return &row;
  }
  return nullptr;
}

const Baseline* FindBaseline(const std::vector<Baseline>* baselines,
                             const std::string& workload) {
  if (baselines == nullptr) return nullptr;
  for (const auto& b : *baselines) {
    if (b.workload == workload) return &b;
  }
  return nullptr;
}

std::string Level(double confidence) {
  return absl::StrFormat("%.0f%%", confidence * 100);
}

DocBlock SummaryTable(const ReportInputs& in,
                      const std::vector<const WorkloadResult*>& ws) {
  const std::string level = Level(in.run->confidence);
  DocTable t;
  t.header = {"workload",
              "mode",
              "median",
              level + " interval",
              "p1",
              "p50",
              "p99",
              "CV",
              "outliers",
              "speed-up",
              level + " interval"};
  if (in.comparison != nullptr) {
    for (const char* h : {"change", "change interval", "verdict"}) {
      t.header.push_back(h);
    }
  }
  t.right_align.assign(t.header.size(), true);
  t.right_align[0] = t.right_align[1] = false;
  if (in.comparison != nullptr) t.right_align.back() = false;
  for (const WorkloadResult* w : ws) {
    const MetricResult* m = w->Find("device_time_us");
    if (m == nullptr) continue;
    const stats::Summary& s = m->summary;
    std::vector<Text> row = {
        CodeText(w->name),
        PlainText(w->mode),
        PlainText(FormatMicros(s.median)),
        PlainText(
            IntervalText(s.median_ci.low, s.median_ci.high, FormatMicros)),
        PlainText(FormatMicros(s.p01)),
        PlainText(FormatMicros(s.p50)),
        PlainText(FormatMicros(s.p99)),
        PlainText(Pct(s.cv)),
        PlainText(Outliers(s.outliers)),
        PlainText(w->speedup.baseline.empty() ? "1.00x"
                                              : Ratio(w->speedup.ratio)),
        PlainText(w->speedup.baseline.empty()
                      ? "(reference)"
                      : IntervalText(w->speedup.interval.low,
                                     w->speedup.interval.high, Ratio)),
    };
    if (in.comparison != nullptr) {
      const MetricComparison* c =
          FindComparison(in.comparison, w->name, "device_time_us");
      if (c == nullptr) {
        row.insert(row.end(),
                   {PlainText("\xE2\x80\x94"), PlainText("\xE2\x80\x94"),
                    PlainText("not compared")});
      } else {
        row.push_back(PlainText(SignedPct(c->change)));
        row.push_back(PlainText(IntervalText(
            c->change_interval.low, c->change_interval.high, SignedPct)));
        row.push_back(VerdictText(c->verdict));
      }
    }
    t.rows.push_back(std::move(row));
  }
  return Table(std::move(t));
}

DocBlock NkiTable(const ReportInputs& in,
                  const std::vector<const WorkloadResult*>& ws) {
  DocTable t;
  t.header = {"workload",
              "NCL p1",
              "NCL p50",
              "NCL p99",
              "L p1",
              "L p50",
              "L p99",
              "throughput (median)",
              Level(in.run->confidence) + " interval"};
  t.right_align.assign(t.header.size(), true);
  t.right_align[0] = false;
  for (const WorkloadResult* w : ws) {
    const MetricResult* ncl = w->Find("ncl_us");
    const MetricResult* lat = w->Find("latency_us");
    const MetricResult* thr = w->Find("throughput_per_s");
    if (ncl == nullptr || lat == nullptr || thr == nullptr) continue;
    t.rows.push_back(
        {CodeText(w->name), PlainText(FormatMicros(ncl->summary.p01)),
         PlainText(FormatMicros(ncl->summary.p50)),
         PlainText(FormatMicros(ncl->summary.p99)),
         PlainText(FormatMicros(lat->summary.p01)),
         PlainText(FormatMicros(lat->summary.p50)),
         PlainText(FormatMicros(lat->summary.p99)),
         PlainText(absl::StrFormat("%.1f /s", thr->summary.median)),
         PlainText(IntervalText(
             thr->summary.median_ci.low, thr->summary.median_ci.high,
             [](double x) { return absl::StrFormat("%.1f", x); }))});
  }
  return Table(std::move(t));
}

std::vector<DocBlock> ComparisonBlocks(
    const ReportInputs& in, const std::vector<const WorkloadResult*>& ws) {
  std::vector<const MetricComparison*> rows;
  for (const auto& c : in.comparison->rows) {
    for (const WorkloadResult* w : ws) {
      if (c.workload == w->name) rows.push_back(&c);
    }
  }
  if (rows.empty()) return {};
  const std::string level = Level(in.comparison->confidence);
  DocTable t;
  t.header = {"workload", "metric",   "baseline",
              "current",  "change",   level + " interval",
              "p rank",   "p t(log)", "p adjusted (Holm)",
              "verdict"};
  t.right_align.assign(t.header.size(), true);
  t.right_align[0] = t.right_align[1] = t.right_align.back() = false;
  std::vector<Text> reasons;
  for (const MetricComparison* c : rows) {
    const std::string unit = UnitOf(c->metric);
    t.rows.push_back(
        {CodeText(c->workload), CodeText(c->metric),
         PlainText(FormatMetricValue(c->baseline_median, unit)),
         PlainText(FormatMetricValue(c->current_median, unit)),
         PlainText(SignedPct(c->change)),
         PlainText(IntervalText(c->change_interval.low, c->change_interval.high,
                                SignedPct)),
         PlainText(PValue(c->p_rank)), PlainText(PValue(c->p_t)),
         PlainText(PValue(c->p_adjusted)), VerdictText(c->verdict)});
    if (c->verdict != Verdict::kUnchanged) {
      reasons.push_back(CodeText(c->workload) + PlainText(" ") +
                        CodeText(c->metric) + PlainText(": ") +
                        VerdictText(c->verdict) +
                        PlainText(absl::StrCat(" \xE2\x80\x94 ", c->reason)));
    }
  }
  std::vector<DocBlock> out = {
      Heading(3, PlainText("Comparison with the baseline")), Table(t)};
  if (!reasons.empty()) out.push_back(List(std::move(reasons)));
  return out;
}

DocFigure PlotFigure(const ReportInputs& in, const std::string& family,
                     const std::string& metric,
                     const std::vector<const WorkloadResult*>& ws) {
  DistributionPlot p;
  p.metric = metric;
  p.unit = UnitOf(metric);
  p.title = absl::StrCat(family, " \xC2\xB7 ", metric);
  p.with_baseline = in.comparison != nullptr && in.baselines != nullptr &&
                    !in.baselines->empty();
  if (p.with_baseline) p.baseline_label = in.comparison->baseline_source;
  if (p.baseline_label.empty()) p.baseline_label = "baseline";
  for (const WorkloadResult* w : ws) {
    PlotRow row;
    row.label = w->name;
    if (const MetricResult* m = w->Find(metric)) {
      row.current = m->samples;
      if (p.unit.empty()) p.unit = m->unit;
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
                                 const std::vector<const WorkloadResult*>& ws) {
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

DocBlock AllMetricsBlock(const ReportInputs& in,
                         const std::vector<const WorkloadResult*>& ws) {
  const std::string level = Level(in.run->confidence);
  DocTable t;
  t.header = {"workload", "metric", "median", level + " interval",
              "p1",       "p50",    "p99",    "CV"};
  t.right_align.assign(t.header.size(), true);
  t.right_align[0] = t.right_align[1] = false;
  for (const WorkloadResult* w : ws) {
    for (const MetricResult& m : w->metrics) {
      const stats::Summary& s = m.summary;
      auto fmt = [&](double x) { return FormatMetricValue(x, m.unit); };
      t.rows.push_back(
          {CodeText(w->name), CodeText(m.name), PlainText(fmt(s.median)),
           PlainText(IntervalText(s.median_ci.low, s.median_ci.high, fmt)),
           PlainText(fmt(s.p01)), PlainText(fmt(s.p50)), PlainText(fmt(s.p99)),
           PlainText(Pct(s.cv))});
    }
  }
  return Details(PlainText("Every metric of every variant"),
                 {Table(std::move(t))});
}

std::vector<DocBlock> OpBlocks(const std::vector<const WorkloadResult*>& ws) {
  std::vector<DocBlock> out = {Heading(3, PlainText("Per-op tables"))};
  for (const WorkloadResult* w : ws) {
    out.push_back(Paragraph(
        CodeText(w->name) +
        PlainText(absl::StrFormat(
            " \xC2\xB7 per-op averages per iteration, sorted by self device "
            "time (%d hardware execution%s, %d instructions per run)",
            w->dispatches, w->dispatches == 1 ? "" : "s", w->instructions))));
    DocTable t;
    t.header = {"Name", "Self CPU", "Self device", "Device total",
                "# of Calls"};
    t.right_align = {false, true, true, true, true};
    for (const OpResult& op : w->ops) {
      t.rows.push_back({CodeText(op.name),
                        PlainText(FormatMicros(op.self_cpu_us)),
                        PlainText(FormatMicros(op.self_device_us)),
                        PlainText(FormatMicros(op.device_total_us)),
                        PlainText(absl::StrFormat("%g", op.calls))});
    }
    out.push_back(Table(std::move(t)));
  }
  return out;
}

std::vector<DocBlock> VerdictBlocks(const ComparisonReport& c) {
  int64_t regressions = 0;
  std::vector<Text> items;
  std::vector<std::string> notes;
  for (const auto& row : c.rows) {
    regressions += row.verdict == Verdict::kRegression;
    if (row.verdict != Verdict::kUnchanged) {
      items.push_back(CodeText(row.workload) + PlainText(" ") +
                      CodeText(row.metric) + PlainText(": ") +
                      VerdictText(row.verdict) +
                      PlainText(absl::StrCat(" \xE2\x80\x94 ", row.reason)));
    }
    for (const auto& n : row.notes) {
      if (n.rfind("paired", 0) == 0) continue;
      std::string line = absl::StrCat(row.workload, ": ", n);
      if (std::find(notes.begin(), notes.end(), line) == notes.end()) {
        notes.push_back(std::move(line));
      }
    }
  }
  Text head = regressions > 0
                  ? StrongText(absl::StrFormat("%d regression%s", regressions,
                                               regressions == 1 ? "" : "s"))
                  : StrongText("No regression");
  head = head +
         PlainText(absl::StrFormat(" in %d comparisons with ", c.comparisons)) +
         CodeText(c.baseline_source.empty() ? "baseline" : c.baseline_source) +
         PlainText(absl::StrFormat(
             " \xC2\xB7 noise threshold %s \xC2\xB7 false-alarm "
             "rate %.2f (Holm) \xC2\xB7 %.0f%% intervals",
             ThresholdText(c), c.alpha, c.confidence * 100));
  std::vector<DocBlock> out = {Heading(2, PlainText("Verdict")),
                               Paragraph(std::move(head))};
  if (!items.empty()) out.push_back(List(std::move(items)));
  if (!notes.empty()) {
    std::vector<Text> ns;
    for (auto& n : notes) ns.push_back(PlainText(n));
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

std::string FormatMetricValue(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "n/a";
  if (unit == "us") return FormatMicros(value);
  if (unit == "fraction") return Pct(value);
  if (unit == "B") {
    const double a = std::fabs(value);
    if (a >= 1e9) return absl::StrFormat("%.2f GB", value / 1e9);
    if (a >= 1e6) return absl::StrFormat("%.2f MB", value / 1e6);
    if (a >= 1e3) return absl::StrFormat("%.2f kB", value / 1e3);
    return absl::StrFormat("%.0f B", value);
  }
  if (unit == "1/s") return absl::StrFormat("%.1f /s", value);
  if (unit.empty()) return absl::StrFormat("%.4g", value);
  return absl::StrFormat("%.2f %s", value, unit);
}

ReportDoc BuildReport(const ReportInputs& in) {
  const RunResult& run = *in.run;
  ReportDoc doc;
  doc.title = "trnbench report";
  if (run.measured()) {
    doc.blocks.push_back(Paragraph(PlainText(absl::StrFormat(
        "trnbench %s \xC2\xB7 %s \xC2\xB7 %s intervals", run.trnbench_version,
        MeasurementLine(run), Level(run.confidence)))));
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
            run.schedule.repeat, Level(run.confidence)))));
    doc.blocks.push_back(Paragraph(PlainText(
        "Figures come from the NeuronCore timing model. Intervals of a median "
        "are distribution-free (order statistics); speed-ups are ratios of "
        "median device times with percentile-bootstrap intervals; outliers "
        "(Tukey fences) are counted, never dropped. The raw samples are in "
        "results.json and samples.csv.")));
  }
  if (in.comparison != nullptr) {
    for (auto& b : VerdictBlocks(*in.comparison)) {
      doc.blocks.push_back(std::move(b));
    }
  }
  for (const std::string& family : Families(run)) {
    std::vector<const WorkloadResult*> ws;
    bool any_nki = false;
    for (const auto& w : run.workloads) {
      if (w.family != family) continue;
      ws.push_back(&w);
      any_nki = any_nki || w.mode == "nki";
    }
    doc.blocks.push_back(Heading(2, PlainText("Family ") + CodeText(family)));
    Text intro = PlainText(absl::StrFormat(
        "Device time per iteration: median with its %s interval, "
        "percentiles, coefficient of variation and Tukey outliers.",
        Level(run.confidence)));
    for (const WorkloadResult* w : ws) {
      if (w->speedup.baseline.empty()) continue;
      intro = intro + PlainText(" Speed-up = median device time of ") +
              CodeText(w->speedup.baseline) +
              PlainText(absl::StrFormat(
                  " / median of the variant (percentile bootstrap, %d "
                  "resamples, seed %d).",
                  w->speedup.resamples, w->speedup.bootstrap_seed));
      break;
    }
    if (in.comparison != nullptr) {
      intro = intro + PlainText(
                          " Change = current / baseline median - 1, with "
                          "its interval and the gate's verdict.");
    }
    doc.blocks.push_back(Paragraph(std::move(intro)));
    doc.blocks.push_back(SummaryTable(in, ws));
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
    if (!series_notes.empty())
      doc.blocks.push_back(List(std::move(series_notes)));
    if (any_nki) {
      doc.blocks.push_back(
          Heading(3, PlainText("NKI benchmark figures (like nki.benchmark)")));
      doc.blocks.push_back(NkiTable(in, ws));
    }
    if (in.comparison != nullptr) {
      for (auto& b : ComparisonBlocks(in, ws)) {
        doc.blocks.push_back(std::move(b));
      }
    }
    for (auto& b : PlotBlocks(in, family, ws)) {
      doc.blocks.push_back(std::move(b));
    }
    doc.blocks.push_back(AllMetricsBlock(in, ws));
    for (auto& b : OpBlocks(ws)) doc.blocks.push_back(std::move(b));
  }
  return doc;
}

}  // namespace trn
