#include "reports/csv_report.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reports/text_escape.h"

namespace trn {
namespace {

constexpr char kEol[] = "\r\n";  // RFC 4180 records end with CRLF

std::string Num(double x) { return ShortestDouble(x); }
std::string Percent(double fraction) {
  return std::isfinite(fraction) ? ShortestDouble(fraction * 100) : "";
}

void AppendRow(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  out += kEol;
}

}  // namespace

std::string SummaryCsv(const RunResult& run,
                       const ComparisonReport* comparison) {
  std::string out;
  AppendRow(out, {"workload",
                  "family",
                  "mode",
                  "metric",
                  "unit",
                  "lower_is_better",
                  "n",
                  "mean",
                  "median",
                  "median_ci_low",
                  "median_ci_high",
                  "median_ci_coverage",
                  "mean_ci_low",
                  "mean_ci_high",
                  "stddev",
                  "cv_pct",
                  "min",
                  "p01",
                  "p05",
                  "p25",
                  "p50",
                  "p75",
                  "p95",
                  "p99",
                  "max",
                  "mad",
                  "iqr",
                  "outliers_low_severe",
                  "outliers_low_mild",
                  "outliers_high_mild",
                  "outliers_high_severe",
                  "speedup_over",
                  "speedup_x",
                  "speedup_ci_low_x",
                  "speedup_ci_high_x",
                  "baseline_median",
                  "change_pct",
                  "change_ci_low_pct",
                  "change_ci_high_pct",
                  "p_rank",
                  "p_t",
                  "p_adjusted",
                  "verdict",
                  "reason"});
  for (const WorkloadResult& w : run.workloads) {
    for (const MetricResult& m : w.metrics) {
      const stats::Summary& s = m.summary;
      std::vector<std::string> row = {
          w.name,
          w.family,
          w.mode,
          m.name,
          m.unit,
          m.lower_is_better ? "true" : "false",
          absl::StrCat(s.n),
          Num(s.mean),
          Num(s.median),
          Num(s.median_ci.low),
          Num(s.median_ci.high),
          Num(s.median_ci_coverage),
          Num(s.mean_ci.low),
          Num(s.mean_ci.high),
          Num(s.stddev),
          Percent(s.cv),
          Num(s.min),
          Num(s.p01),
          Num(s.p05),
          Num(s.p25),
          Num(s.p50),
          Num(s.p75),
          Num(s.p95),
          Num(s.p99),
          Num(s.max),
          Num(s.mad),
          Num(s.iqr),
          absl::StrCat(s.outliers.low_severe),
          absl::StrCat(s.outliers.low_mild),
          absl::StrCat(s.outliers.high_mild),
          absl::StrCat(s.outliers.high_severe),
      };
      if (m.name == w.speedup.metric && !w.speedup.baseline.empty()) {
        row.insert(row.end(),
                   {w.speedup.baseline, Num(w.speedup.ratio),
                    Num(w.speedup.interval.low), Num(w.speedup.interval.high)});
      } else if (m.name == w.speedup.metric) {
        // The family's reference variant: 1x by definition.
        row.insert(row.end(), {"", "1", "", ""});
      } else {
        row.insert(row.end(), 4, "");
      }
      const MetricComparison* c = nullptr;
      if (comparison != nullptr) {
        for (const auto& r : comparison->rows) {
          if (r.workload == w.name && r.metric == m.name) c = &r;
        }
      }
      if (c != nullptr) {
        row.insert(
            row.end(),
            {Num(c->baseline_median), Percent(c->change),
             Percent(c->change_interval.low), Percent(c->change_interval.high),
             Num(c->p_rank), Num(c->p_t), Num(c->p_adjusted),
             std::string(VerdictName(c->verdict)), c->reason});
      } else {
        row.insert(row.end(), 9, "");
      }
      AppendRow(out, row);
    }
  }
  return out;
}

std::string SamplesCsv(const RunResult& run) {
  std::string out;
  AppendRow(out, {"workload", "metric", "repeat", "seed", "value"});
  const std::string seed = absl::StrCat(run.seed);
  for (const WorkloadResult& w : run.workloads) {
    const std::string name = CsvField(w.name);
    for (const MetricResult& m : w.metrics) {
      const std::string prefix = absl::StrCat(name, ",", CsvField(m.name), ",");
      for (size_t k = 0; k < m.samples.size(); ++k) {
        absl::StrAppend(&out, prefix, k, ",", seed, ",", Num(m.samples[k]),
                        kEol);
      }
    }
  }
  return out;
}

}  // namespace trn
