#include "harness/summary_json.h"

#include <cmath>

#include "harness/serial_dependence.h"

namespace trn {

nlohmann::ordered_json JsonNumber(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

nlohmann::ordered_json SummaryToJson(const stats::Summary& s) {
  nlohmann::ordered_json j;
  j["n"] = s.n;
  j["mean"] = JsonNumber(s.mean);
  j["median"] = JsonNumber(s.median);
  j["stddev"] = JsonNumber(s.stddev);
  j["cv"] = JsonNumber(s.cv);
  j["min"] = JsonNumber(s.min);
  j["max"] = JsonNumber(s.max);
  j["mad"] = JsonNumber(s.mad);
  j["iqr"] = JsonNumber(s.iqr);
  j["p01"] = JsonNumber(s.p01);
  j["p05"] = JsonNumber(s.p05);
  j["p25"] = JsonNumber(s.p25);
  j["p50"] = JsonNumber(s.p50);
  j["p75"] = JsonNumber(s.p75);
  j["p95"] = JsonNumber(s.p95);
  j["p99"] = JsonNumber(s.p99);
  j["ci_low"] = JsonNumber(s.median_ci.low);
  j["ci_high"] = JsonNumber(s.median_ci.high);
  j["ci_coverage"] = JsonNumber(s.median_ci_coverage);
  j["mean_ci_low"] = JsonNumber(s.mean_ci.low);
  j["mean_ci_high"] = JsonNumber(s.mean_ci.high);
  j["outliers"] = {{"low_severe", s.outliers.low_severe},
                   {"low_mild", s.outliers.low_mild},
                   {"high_mild", s.outliers.high_mild},
                   {"high_severe", s.outliers.high_severe}};
  const stats::SeriesDiagnostics& d = s.series;
  j["series"] = {{"lag1", JsonNumber(d.lag1)},
                 {"rho", JsonNumber(d.rho)},
                 {"p_autocorrelation", JsonNumber(d.p_autocorrelation)},
                 {"autocorrelated", d.autocorrelated},
                 {"effective_n", JsonNumber(d.effective_n)},
                 {"drift", JsonNumber(d.drift)},
                 {"p_drift", JsonNumber(d.p_drift)},
                 {"drifting", d.drifting},
                 {"bimodal", d.bimodal},
                 {"notes", stats::DiagnosticNotes(d)}};
  return j;
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
