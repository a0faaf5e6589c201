#include "reports/csv_report.h"

#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/runner/summary_json.h"
#include "reports/comparison_report.h"
#include "reports/json_results.h"
#include "reports/text_escape.h"

namespace trn {
namespace {

using nlohmann::ordered_json;

constexpr char kEol[] = "\r\n";  // RFC 4180 records end with CRLF

// The speed-up object's fields and the comparison row's, in summary.csv:
// each column is the results document's key (prefixed with its object for
// the speed-up), its value the same number in the same unit.
constexpr std::string_view kSeriesKeys[] = {
    "lag1",  "rho",     "p_autocorrelation", "autocorrelated", "effective_n",
    "drift", "p_drift", "drifting",          "bimodal",        "notes"};
constexpr std::string_view kSpeedupKeys[] = {"baseline", "ratio", "ci_low",
                                             "ci_high"};
constexpr std::string_view kComparisonKeys[] = {
    "baseline_median", "change",  "change_ci_low", "change_ci_high",
    "p_rank",          "p_t",     "test",          "p",
    "p_adjusted",      "verdict", "reason"};

void AppendRow(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  out += kEol;
}

// A JSON value as a CSV field: numbers as the shortest round trip, null
// (undefined) as an empty field, a list of strings (notes) joined by "; ".
std::string Field(const ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) {
      if (!out.empty()) out += "; ";
      out += Field(x);
    }
    return out;
  }
  if (v.is_string()) return v.get<std::string>();
  // TRUE / FALSE: the spelling both R's read.csv and pandas read as
  // booleans (R leaves "true" as text).
  if (v.is_boolean()) return v.get<bool>() ? "TRUE" : "FALSE";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) return ShortestDouble(v.get<double>());
  return v.dump();
}

}  // namespace

std::string SummaryCsv(const RunResult& run,
                       const ComparisonReport* comparison) {
  std::vector<std::string> header = {"workload", "family", "mode",
                                     "metric",   "unit",   "lower_is_better"};
  for (const SummaryField& f : SummaryFields()) {
    header.push_back(CsvColumnName(f));
  }
  for (std::string_view k : kSeriesKeys) {
    header.push_back("series_" + std::string(k));
  }
  for (std::string_view k : kSpeedupKeys) {
    header.push_back("speedup_" + std::string(k));
  }
  for (std::string_view k : kComparisonKeys) header.emplace_back(k);
  std::string out;
  AppendRow(out, header);
  for (const WorkloadResult& w : run.workloads) {
    const ordered_json speedup = SpeedupToJson(w.speedup);
    for (const MetricResult& m : w.metrics) {
      std::vector<std::string> row = {
          w.name, w.family, w.mode,
          m.name, m.unit,   m.lower_is_better ? "TRUE" : "FALSE"};
      for (const SummaryField& f : SummaryFields()) {
        const double v = f.get(m.summary);
        row.push_back(f.unit == SummaryUnit::kCount && std::isfinite(v)
                          ? absl::StrCat(static_cast<int64_t>(v))
                          : ShortestDouble(v));
      }
      const ordered_json series = SeriesToJson(m.summary.series);
      for (std::string_view k : kSeriesKeys) {
        row.push_back(Field(series.at(std::string(k))));
      }
      // The speed-up is of one metric; the other rows leave it empty.
      for (std::string_view k : kSpeedupKeys) {
        row.push_back(m.name == w.speedup.metric
                          ? Field(speedup.at(std::string(k)))
                          : "");
      }
      const MetricComparison* c = nullptr;
      if (comparison != nullptr) {
        for (const auto& r : comparison->rows) {
          if (r.workload == w.name && r.metric == m.name) c = &r;
        }
      }
      const ordered_json cj =
          c != nullptr ? ComparisonRowToJson(*c) : ordered_json::object();
      for (std::string_view k : kComparisonKeys) {
        row.push_back(c != nullptr ? Field(cj.at(std::string(k))) : "");
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
        absl::StrAppend(&out, prefix, k, ",", seed, ",",
                        ShortestDouble(m.samples[k]), kEol);
      }
    }
  }
  return out;
}

}  // namespace trn
