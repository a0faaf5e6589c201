// The summary of a metric's samples as files carry it: one table of fields
// (key, accessor, unit) drives the summary object of results, baselines and
// profiles (JSON), the columns of summary.csv and the statistics the console
// and the reports show, so a figure has one name and one unit everywhere
// (docs/results-format.md, docs/reports.md).
#ifndef TRNBENCH_HARNESS_RUNNER_SUMMARY_JSON_H_
#define TRNBENCH_HARNESS_RUNNER_SUMMARY_JSON_H_

#include <span>
#include <string>
#include <string_view>

#include "harness/runner/results.h"
#include "harness/statistics/statistics.h"
#include "nlohmann/json.hpp"

namespace trn {

// What a summary field is measured in.
enum class SummaryUnit : uint8_t {
  kMetric,    // the metric's own unit (us, B, 1/s, ...)
  kFraction,  // a ratio without unit: cv 0.012 is 1.2%
  kCount,     // a whole number: n, outlier counts
};

struct SummaryField {
  // The JSON key; a '/' nests it in an object ("outliers/low_mild" is
  // "outliers": {"low_mild": ...}). CSV columns join the parts with '_'.
  std::string_view key;
  // The short column heading people read ("p1", "CV").
  std::string_view label;
  SummaryUnit unit;
  double (*get)(const stats::Summary&);
};

// Every field, in file order.
std::span<const SummaryField> SummaryFields();
// nullptr for a key not in the table.
const SummaryField* FindSummaryField(std::string_view key);
// The summary.csv column of `field`: its key with '/' replaced by '_'.
std::string CsvColumnName(const SummaryField& field);

// JSON has no NaN or infinity: an undefined statistic is written as null.
nlohmann::ordered_json JsonNumber(double x);

// A summary's fields, as documented in docs/results-format.md: the table's
// fields, then "series".
nlohmann::ordered_json SummaryToJson(const stats::Summary& s);

// The summary's "series" object: lag1, rho, p_autocorrelation,
// autocorrelated, effective_n, drift, p_drift, drifting, bimodal, notes.
nlohmann::ordered_json SeriesToJson(const stats::SeriesDiagnostics& d);

// The schedule object of results and profile files: wait, warmup, repeat
// and first_active_index.
nlohmann::ordered_json ScheduleToJson(const Schedule& s);

// What identifies a workload in results and profile files: name, family,
// mode, description, spec_file and spec_hash, set on `j` in that order.
void SetWorkloadIdentity(const WorkloadResult& w, nlohmann::ordered_json& j);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_SUMMARY_JSON_H_
