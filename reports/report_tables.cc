#include "reports/report_tables.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "device_model/metrics.h"
#include "harness/runner/measured_metrics.h"
#include "harness/runner/summary_json.h"
#include "reports/number_format.h"

namespace trn {
namespace {

constexpr char kDash[] = "\xE2\x80\x94";  // an em dash: nothing to show

TableCell Text(std::string s) { return {TableCell::Kind::kText, std::move(s)}; }
TableCell Name(std::string s) { return {TableCell::Kind::kName, std::move(s)}; }
TableCell VerdictCell(Verdict v) {
  return {TableCell::Kind::kVerdict, std::string(VerdictName(v)), v};
}

// A metric's unit as the enum; an unknown symbol (a newer file) is shown
// as a plain number.
Unit MetricUnit(const MetricResult& m) {
  return UnitFromSymbol(m.unit).value_or(Unit::kCount);
}

// One statistic of a summary, named by its key in the summary field table
// and formatted by the field's unit.
std::string Stat(const stats::Summary& s, std::string_view key, Unit unit) {
  const SummaryField* f = FindSummaryField(key);
  if (f == nullptr) return kNotAvailable;
  const double v = f->get(s);
  switch (f->unit) {
    case SummaryUnit::kMetric:
      return FormatQuantity(v, unit);
    case SummaryUnit::kFraction:
      return FormatPercent(v);
    case SummaryUnit::kCount:
      return FormatQuantity(v, Unit::kCount);
  }
  return kNotAvailable;
}

std::string Label(std::string_view key) {
  const SummaryField* f = FindSummaryField(key);
  return f == nullptr ? std::string(key) : std::string(f->label);
}

std::string MedianInterval(const stats::Summary& s, Unit unit) {
  return FormatInterval(s.median_ci,
                        [unit](double x) { return FormatQuantity(x, unit); });
}

std::string Outliers(const stats::OutlierCounts& o) {
  const int64_t severe = o.low_severe + o.high_severe;
  if (o.total() == 0) return "0";
  return severe > 0 ? absl::StrFormat("%d (%d severe)", o.total(), severe)
                    : absl::StrFormat("%d", o.total());
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

// True when another variant's speed-up is measured against `w`.
bool IsReferenceOfAnother(const WorkloadGroup& family,
                          const WorkloadResult& w) {
  return std::any_of(family.begin(), family.end(),
                     [&](const WorkloadResult* o) {
                       return o != &w && o->speedup.baseline == w.name;
                     });
}

void AlignAll(ReportTable& t, std::initializer_list<size_t> left) {
  t.right_align.assign(t.header.size(), true);
  for (size_t c : left) t.right_align[c] = false;
}

}  // namespace

std::vector<WorkloadGroup> GroupByFamily(const RunResult& run) {
  std::vector<std::string> families;
  std::vector<WorkloadGroup> out;
  for (const WorkloadResult& w : run.workloads) {
    auto it = std::find(families.begin(), families.end(), w.family);
    if (it == families.end()) {
      families.push_back(w.family);
      out.emplace_back();
      it = families.end() - 1;
    }
    out[static_cast<size_t>(it - families.begin())].push_back(&w);
  }
  // A --kwarg sweep is read as a ranking (what autotuning on hardware
  // gives): its points fastest first, by median device time.
  for (WorkloadGroup& g : out) {
    const bool sweep = std::all_of(g.begin(), g.end(), [](const auto* w) {
      return w->sweep_point && w->Find("device_time_us") != nullptr;
    });
    if (!sweep) continue;
    std::stable_sort(g.begin(), g.end(), [](const auto* a, const auto* b) {
      return a->Find("device_time_us")->summary.median <
             b->Find("device_time_us")->summary.median;
    });
  }
  return out;
}

std::string RankText(const SweepRank& r) {
  if (r.position == 0) return std::string(kDash);
  std::string text = absl::StrCat(r.position, "/", r.of);
  if (r.fastest) absl::StrAppend(&text, " fastest");
  if (r.tied_with_previous) {
    absl::StrAppend(&text, " (tie with ", r.position - 1, ")");
  }
  return text;
}

std::string RankExplanation(const WorkloadGroup& family, double confidence) {
  const SweepRank* any = nullptr;
  for (const WorkloadResult* w : family) {
    if (w->rank.position > 0) any = &w->rank;
  }
  if (any == nullptr) return "";
  return absl::StrFormat(
      "rank = the sweep's points by median %s, fastest first; \"tie with "
      "K\": its %s interval of the median overlaps rank K's, so the run does "
      "not separate them",
      any->metric, FormatLevel(confidence));
}

ReportTable FamilySummaryTable(const WorkloadGroup& family, double confidence,
                               const ComparisonReport* comparison) {
  ReportTable t;
  t.header = {"workload", "mode", Label("median"),
              absl::StrCat(FormatLevel(confidence), " interval")};
  if (comparison != nullptr) {
    for (const char* h : {"change", "change interval", "verdict"}) {
      t.header.push_back(h);
    }
  }
  for (const char* key : {"p01", "p99", "cv"}) t.header.push_back(Label(key));
  for (const char* h : {"outliers", "speed-up", "speed-up interval"}) {
    t.header.push_back(h);
  }
  // A `--kwarg` sweep's points are ranked by median device time (the
  // runner's ComputeSweepRanks); other families have no rank column.
  const bool ranked =
      std::any_of(family.begin(), family.end(),
                  [](const WorkloadResult* w) { return w->rank.position > 0; });
  if (ranked) t.header.push_back("rank");
  AlignAll(t, {0, 1});
  if (comparison != nullptr) t.right_align[6] = false;
  if (ranked) t.right_align.back() = false;
  for (const WorkloadResult* w : family) {
    const MetricResult* m = w->Find("device_time_us");
    if (m == nullptr) continue;
    const stats::Summary& s = m->summary;
    const Unit unit = MetricUnit(*m);
    std::vector<TableCell> row = {Name(w->name), Text(w->mode),
                                  Text(Stat(s, "median", unit)),
                                  Text(MedianInterval(s, unit))};
    if (comparison != nullptr) {
      const MetricComparison* c =
          FindComparison(comparison, w->name, "device_time_us");
      if (c == nullptr) {
        row.insert(row.end(), {Text(kDash), Text(kDash), Text("not compared")});
      } else {
        row.push_back(Text(FormatSignedPercent(c->change)));
        row.push_back(
            Text(FormatInterval(c->change_interval, FormatSignedPercent)));
        row.push_back(VerdictCell(c->verdict));
      }
    }
    for (const char* key : {"p01", "p99", "cv"}) {
      row.push_back(Text(Stat(s, key, unit)));
    }
    row.push_back(Text(Outliers(s.outliers)));
    // A speed-up compares variants of one size only; a variant nothing is
    // compared with shows none.
    if (!w->speedup.baseline.empty()) {
      row.push_back(Text(FormatRatio(w->speedup.ratio)));
      row.push_back(Text(FormatInterval(w->speedup.interval, FormatRatio)));
    } else if (IsReferenceOfAnother(family, *w)) {
      row.push_back(Text(FormatRatio(1.0)));
      row.push_back(Text("(reference)"));
    } else {
      row.push_back(Text(kDash));
      row.push_back(Text(""));
    }
    if (ranked) row.push_back(Text(RankText(w->rank)));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string SpeedupExplanation(const WorkloadGroup& family) {
  std::vector<std::string> references;
  const Speedup* any = nullptr;
  for (const WorkloadResult* w : family) {
    if (w->speedup.baseline.empty()) continue;
    any = &w->speedup;
    if (std::find(references.begin(), references.end(), w->speedup.baseline) ==
        references.end()) {
      references.push_back(w->speedup.baseline);
    }
  }
  if (any == nullptr) return "";
  return absl::StrFormat(
      "speed-up = median device time of %s / median of the variant%s; "
      "percentile bootstrap, %d resamples, seed %d",
      absl::StrJoin(references, " or "),
      references.size() > 1 ? " of the same size" : "", any->resamples,
      any->bootstrap_seed);
}

ReportTable NkiBenchmarkTable(const WorkloadGroup& family, double confidence) {
  ReportTable t;
  t.header = {"workload",
              "NCL p1",
              "NCL p50",
              "NCL p99",
              "L p1",
              "L p50",
              "L p99",
              "throughput",
              absl::StrCat(FormatLevel(confidence), " interval")};
  AlignAll(t, {0});
  for (const WorkloadResult* w : family) {
    const MetricResult* ncl = w->Find("ncl_us");
    const MetricResult* lat = w->Find("latency_us");
    const MetricResult* thr = w->Find("throughput_per_s");
    if (ncl == nullptr || lat == nullptr || thr == nullptr) continue;
    std::vector<TableCell> row = {Name(w->name)};
    for (const MetricResult* m : {ncl, lat}) {
      for (const char* key : {"p01", "p50", "p99"}) {
        row.push_back(Text(Stat(m->summary, key, MetricUnit(*m))));
      }
    }
    row.push_back(Text(Stat(thr->summary, "median", MetricUnit(*thr))));
    row.push_back(Text(MedianInterval(thr->summary, MetricUnit(*thr))));
    t.rows.push_back(std::move(row));
  }
  return t;
}

ReportTable ComparisonTable(std::span<const MetricComparison* const> rows,
                            double confidence) {
  ReportTable t;
  t.header = {"workload",
              "metric",
              "verdict",
              "change",
              absl::StrCat(FormatLevel(confidence), " interval"),
              "baseline",
              "current",
              "p rank",
              "p t(log)",
              "p adjusted (Holm)"};
  AlignAll(t, {0, 1, 2});
  for (const MetricComparison* c : rows) {
    const MetricInfo* info = FindAnyMetric(c->metric);
    const Unit unit = info == nullptr ? Unit::kCount : info->unit;
    t.rows.push_back(
        {Name(c->workload), Name(c->metric), VerdictCell(c->verdict),
         Text(FormatSignedPercent(c->change)),
         Text(FormatInterval(c->change_interval, FormatSignedPercent)),
         Text(FormatQuantity(c->baseline_median, unit)),
         Text(FormatQuantity(c->current_median, unit)),
         Text(FormatPValue(c->p_rank)), Text(FormatPValue(c->p_t)),
         Text(FormatPValue(c->p_adjusted))});
  }
  return t;
}

ReportTable AllMetricsTable(const WorkloadGroup& family, double confidence) {
  ReportTable t;
  t.header = {
      "workload",      "metric",
      Label("median"), absl::StrCat(FormatLevel(confidence), " interval"),
      Label("p01"),    Label("p50"),
      Label("p99"),    Label("cv")};
  AlignAll(t, {0, 1});
  for (const WorkloadResult* w : family) {
    for (const MetricResult& m : w->metrics) {
      const Unit unit = MetricUnit(m);
      std::vector<TableCell> row = {Name(w->name), Name(m.name),
                                    Text(Stat(m.summary, "median", unit)),
                                    Text(MedianInterval(m.summary, unit))};
      for (const char* key : {"p01", "p50", "p99", "cv"}) {
        row.push_back(Text(Stat(m.summary, key, unit)));
      }
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

ReportTable MeasuredMetricsTable(const WorkloadResult& w, double confidence) {
  ReportTable t;
  t.header = {
      "metric",        Label("n"),
      Label("median"), absl::StrCat(FormatLevel(confidence), " interval"),
      Label("p01"),    Label("p50"),
      Label("p99"),    Label("cv"),
      "outliers"};
  AlignAll(t, {0});
  for (const MetricResult& m : w.metrics) {
    const Unit unit = MetricUnit(m);
    const stats::Summary& s = m.summary;
    const bool summary_only = m.samples.empty();
    std::vector<TableCell> row = {Name(m.name),
                                  Text(summary_only ? "-" : Stat(s, "n", unit)),
                                  Text(Stat(s, "median", unit)),
                                  Text(summary_only ? "none: percentiles only"
                                                    : MedianInterval(s, unit))};
    for (const char* key : {"p01", "p50", "p99", "cv"}) {
      row.push_back(Text(Stat(s, key, unit)));
    }
    row.push_back(Text(summary_only ? "-" : Outliers(s.outliers)));
    t.rows.push_back(std::move(row));
  }
  return t;
}

ReportTable OpTable(const WorkloadResult& w) {
  ReportTable t;
  t.header = {"Name", "Self CPU", "Self device", "Device total", "# of Calls"};
  AlignAll(t, {0});
  for (const OpResult& op : w.ops) {
    t.rows.push_back(
        {Name(op.name),
         Text(FormatQuantity(op.self_cpu_us, Unit::kMicroseconds)),
         Text(FormatQuantity(op.self_device_us, Unit::kMicroseconds)),
         Text(FormatQuantity(op.device_total_us, Unit::kMicroseconds)),
         Text(FormatQuantity(op.calls, Unit::kCount))});
  }
  return t;
}

std::string OpTableCaption(const WorkloadResult& w) {
  return absl::StrFormat(
      "per-op averages per iteration, sorted by self device time (%s, %s "
      "per run)",
      CountOf(w.dispatches, "hardware execution"),
      CountOf(w.instructions, "instruction"));
}

std::vector<const MetricComparison*> NotableComparisons(
    const ComparisonReport& report) {
  std::vector<const MetricComparison*> out;
  for (const auto& row : report.rows) {
    if (row.verdict != Verdict::kUnchanged) out.push_back(&row);
  }
  return out;
}

std::vector<std::string> CollapsedNotes(const ComparisonReport& report) {
  // Hashed lookups: a merged suite can compare 100k workloads, and a scan
  // of the lists per row took minutes.
  std::unordered_set<std::string_view> workloads;  // every compared workload
  std::vector<std::string> notes;                  // each note once, in order
  std::unordered_map<std::string_view, size_t> note_index;
  std::vector<std::vector<std::string>> who;  // per note, in order
  std::vector<std::unordered_set<std::string_view>> who_set;
  for (const auto& row : report.rows) {
    workloads.insert(row.workload);
    for (const auto& n : row.notes) {
      // The paired analysis is said once, where the method is described.
      if (n.rfind("paired", 0) == 0) continue;
      auto [it, added] = note_index.try_emplace(n, notes.size());
      if (added) {
        notes.push_back(n);
        who.emplace_back();
        who_set.emplace_back();
      }
      const size_t i = it->second;
      if (who_set[i].insert(row.workload).second) {
        who[i].push_back(row.workload);
      }
    }
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < notes.size(); ++i) {
    const auto& names = who[i];
    if (names.size() == 1) {
      out.push_back(absl::StrCat(names[0], ": ", notes[i]));
    } else if (names.size() == workloads.size()) {
      out.push_back(absl::StrCat("all ", names.size(),
                                 " compared workloads: ", notes[i]));
    } else {
      out.push_back(absl::StrCat(notes[i], " (", names.size(), " workloads: ",
                                 absl::StrJoin(names, ", "), ")"));
    }
  }
  return out;
}

std::string RegressionCount(const ComparisonReport& report) {
  int64_t regressions = 0;
  for (const auto& row : report.rows) {
    regressions += row.verdict == Verdict::kRegression;
  }
  const int64_t unchecked = report.Unchecked();
  return absl::StrCat(
      regressions > 0 ? CountOf(regressions, "regression") : "No regression",
      " in ", CountOf(report.comparisons, "comparison"),
      unchecked > 0 ? absl::StrCat(", ", CountOf(unchecked, "metric"),
                                   " not checked (--allow-unchecked)")
                    : "");
}

}  // namespace trn
