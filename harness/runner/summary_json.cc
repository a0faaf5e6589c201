#include "harness/runner/summary_json.h"

#include <cmath>
#include <cstdint>

#include "harness/statistics/serial_dependence.h"

namespace trn {
namespace {

using stats::Summary;
constexpr SummaryUnit kM = SummaryUnit::kMetric;
constexpr SummaryUnit kF = SummaryUnit::kFraction;
constexpr SummaryUnit kN = SummaryUnit::kCount;

// The order is the files' order: results.json's summary keys have been in
// this order since schema version 1.
constexpr SummaryField kFields[] = {
    {"n", "n", kN, [](const Summary& s) { return static_cast<double>(s.n); }},
    {"mean", "mean", kM, [](const Summary& s) { return s.mean; }},
    {"median", "median", kM, [](const Summary& s) { return s.median; }},
    {"stddev", "stddev", kM, [](const Summary& s) { return s.stddev; }},
    {"cv", "CV", kF, [](const Summary& s) { return s.cv; }},
    {"min", "min", kM, [](const Summary& s) { return s.min; }},
    {"max", "max", kM, [](const Summary& s) { return s.max; }},
    {"mad", "MAD", kM, [](const Summary& s) { return s.mad; }},
    {"iqr", "IQR", kM, [](const Summary& s) { return s.iqr; }},
    {"p01", "p1", kM, [](const Summary& s) { return s.p01; }},
    {"p05", "p5", kM, [](const Summary& s) { return s.p05; }},
    {"p25", "p25", kM, [](const Summary& s) { return s.p25; }},
    {"p50", "p50", kM, [](const Summary& s) { return s.p50; }},
    {"p75", "p75", kM, [](const Summary& s) { return s.p75; }},
    {"p95", "p95", kM, [](const Summary& s) { return s.p95; }},
    {"p99", "p99", kM, [](const Summary& s) { return s.p99; }},
    {"ci_low", "median interval low", kM,
     [](const Summary& s) { return s.median_ci.low; }},
    {"ci_high", "median interval high", kM,
     [](const Summary& s) { return s.median_ci.high; }},
    {"ci_coverage", "median interval coverage", kF,
     [](const Summary& s) { return s.median_ci_coverage; }},
    {"mean_ci_low", "mean interval low", kM,
     [](const Summary& s) { return s.mean_ci.low; }},
    {"mean_ci_high", "mean interval high", kM,
     [](const Summary& s) { return s.mean_ci.high; }},
    {"outliers/low_severe", "severe low outliers", kN,
     [](const Summary& s) {
       return static_cast<double>(s.outliers.low_severe);
     }},
    {"outliers/low_mild", "mild low outliers", kN,
     [](const Summary& s) { return static_cast<double>(s.outliers.low_mild); }},
    {"outliers/high_mild", "mild high outliers", kN,
     [](const Summary& s) {
       return static_cast<double>(s.outliers.high_mild);
     }},
    {"outliers/high_severe", "severe high outliers", kN,
     [](const Summary& s) {
       return static_cast<double>(s.outliers.high_severe);
     }},
};

nlohmann::ordered_json FieldValue(const SummaryField& f, const Summary& s) {
  const double v = f.get(s);
  // Counts stay integers in the file ("n": 100, not 100.0).
  if (f.unit == SummaryUnit::kCount && std::isfinite(v)) {
    return static_cast<int64_t>(v);
  }
  return JsonNumber(v);
}

}  // namespace

std::span<const SummaryField> SummaryFields() { return kFields; }

const SummaryField* FindSummaryField(std::string_view key) {
  for (const SummaryField& f : kFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string CsvColumnName(const SummaryField& field) {
  std::string name(field.key);
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return name;
}

nlohmann::ordered_json JsonNumber(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

nlohmann::ordered_json SummaryToJson(const stats::Summary& s) {
  nlohmann::ordered_json j;
  for (const SummaryField& f : kFields) {
    const size_t slash = f.key.find('/');
    if (slash == std::string_view::npos) {
      j[std::string(f.key)] = FieldValue(f, s);
    } else {
      j[std::string(f.key.substr(0, slash))]
       [std::string(f.key.substr(slash + 1))] = FieldValue(f, s);
    }
  }
  // The series diagnostics are not figures in the metric's unit (booleans,
  // notes): they follow the table's fields.
  j["series"] = SeriesToJson(s.series);
  return j;
}

nlohmann::ordered_json SeriesToJson(const stats::SeriesDiagnostics& d) {
  return {{"lag1", JsonNumber(d.lag1)},
          {"rho", JsonNumber(d.rho)},
          {"p_autocorrelation", JsonNumber(d.p_autocorrelation)},
          {"autocorrelated", d.autocorrelated},
          {"effective_n", JsonNumber(d.effective_n)},
          {"drift", JsonNumber(d.drift)},
          {"p_drift", JsonNumber(d.p_drift)},
          {"drifting", d.drifting},
          {"bimodal", d.bimodal},
          {"notes", stats::DiagnosticNotes(d)}};
}

nlohmann::ordered_json ScheduleToJson(const Schedule& s) {
  return {{"wait", s.wait},
          {"warmup", s.warmup},
          {"repeat", s.repeat},
          {"first_active_index", s.IndexOfActive(0)}};
}

void SetWorkloadIdentity(const WorkloadResult& w, nlohmann::ordered_json& j) {
  j["name"] = w.name;
  j["family"] = w.family;
  j["mode"] = w.mode;
  j["description"] = w.description;
  j["spec_file"] = w.spec_file;
  j["spec_hash"] = w.spec_hash;
  // Only when the spec sets one, so files of specs without it keep their
  // exact bytes.
  if (std::isfinite(w.noise_threshold)) {
    j["noise_threshold"] = w.noise_threshold;
  }
}

}  // namespace trn
