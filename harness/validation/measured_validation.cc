#include "harness/validation/measured_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/gate/comparison.h"
#include "harness/runner/runner.h"
#include "nlohmann/json.hpp"
#include "support/status_macros.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The figures a calibration fits: what the published measurements and the
// Neuron tools report, and what the gate judges.
constexpr const char* kCalibrationMetrics[] = {
    "device_time_us", "ncl_us", "latency_us", "throughput_per_s"};

double MedianOf(const WorkloadResult& w, const char* metric) {
  const MetricResult* m = w.Find(metric);
  return m == nullptr ? kNaN : m->summary.median;
}

// Sum of squared log errors of the model's medians over every target, or
// NaN when the model fails on one.
struct Evaluation {
  double sum_sq = 0;
  int64_t terms = 0;
  struct Term {
    size_t target;
    const char* metric;
    double model_median;
  };
  std::vector<Term> terms_seen;  // every (target, metric) both carry
};

absl::StatusOr<Evaluation> Evaluate(
    const std::vector<CalibrationTarget>& targets, const DeviceProfile& profile,
    const RunOptions& options) {
  Evaluation e;
  for (size_t i = 0; i < targets.size(); ++i) {
    const CalibrationTarget& t = targets[i];
    TRN_ASSIGN_OR_RETURN(WorkloadResult w,
                         RunWorkload(*t.spec, profile, options));
    for (const char* metric : kCalibrationMetrics) {
      const MetricResult* meas = t.measured->Find(metric);
      if (meas == nullptr || w.Find(metric) == nullptr) continue;
      const double model = MedianOf(w, metric);
      const double m = meas->summary.median;
      e.terms_seen.push_back({i, metric, model});
      if (!(model > 0) || !(m > 0)) continue;
      const double d = std::log(model / m);
      e.sum_sq += d * d;
      ++e.terms;
    }
  }
  return e;
}

}  // namespace

absl::StatusOr<MeasuredValidation> ValidateMeasured(
    const Baseline& measured, const WorkloadSpec& spec,
    const DeviceProfile& profile, const RunOptions& options) {
  TRN_ASSIGN_OR_RETURN(WorkloadResult model,
                       RunWorkload(spec, profile, options));
  MeasuredValidation v;
  v.workload = measured.workload;
  v.spec_file = spec.file;
  v.device = profile.name;
  v.measurement = measured.measurement;
  v.seed = options.seed;
  v.model_repeat = options.schedule.repeat;
  for (const MetricResult& m : measured.metrics) {
    const MetricResult* p = model.Find(m.name);
    if (p == nullptr) continue;
    MetricValidation mv;
    mv.metric = m.name;
    mv.unit = m.unit;
    mv.model = p->summary;
    mv.measured = m.summary;
    mv.measured_has_samples = !m.samples.empty();
    if (mv.measured_has_samples) {
      // Measurement as the baseline, the model as the "current" side:
      // the change is the model's error.
      const MetricComparison c =
          CompareSamples(m.samples, p->samples,
                         /*paired=*/false, options.confidence);
      mv.error = c.change;
      mv.error_interval = c.change_interval;
    } else {
      mv.error = m.summary.median > 0 ? p->summary.median / m.summary.median - 1
                                      : kNaN;
      mv.error_interval = {kNaN, kNaN, options.confidence};
    }
    v.metrics.push_back(std::move(mv));
  }
  if (v.metrics.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        measured.file, ": workload ", measured.workload,
        ": expected a metric the model also computes (device_time_us, "
        "ncl_us, latency_us, throughput_per_s, engine or DMA figures)"));
  }
  const double device = MedianOf(model, "device_time_us");
  for (const char* part : {"tensor_busy_us", "vector_busy_us", "scalar_busy_us",
                           "gpsimd_busy_us", "dma_active_us"}) {
    const double us = MedianOf(model, part);
    if (!std::isfinite(us) || us <= 0) continue;
    v.engines.push_back({part, us, device > 0 ? us / device : kNaN});
  }
  std::stable_sort(
      v.engines.begin(), v.engines.end(),
      [](const ModelPart& a, const ModelPart& b) { return a.us > b.us; });
  for (const OpResult& op : model.ops) {
    v.ops.push_back({op.name, op.self_device_us,
                     device > 0 ? op.self_device_us / device : kNaN});
  }
  return v;
}

absl::StatusOr<CalibrationResult> Calibrate(
    const std::vector<CalibrationTarget>& targets, const DeviceProfile& profile,
    const RunOptions& options, int sweeps,
    const std::function<void(int64_t)>& on_plan) {
  CalibrationResult r;
  r.profile = profile;
  std::vector<std::string> names;
  for (const auto& [name, param] : profile.params) {
    // A count (rows per descriptor) is a structural choice that the figures
    // decide between, not a quantity a least-squares step can move.
    if (absl::StartsWith(param.source, "fitted") && !IsCountParam(name)) {
      names.push_back(name);
    }
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device profile ", profile.name,
        ": expected parameters whose source says \"fitted\"; there is "
        "nothing to calibrate"));
  }
  // The fit runs the model on every target at most 1 + 10 sweeps (k + 1)
  // times (the first evaluation, then per iteration a Jacobian of k and a
  // trial step): bounded as a run is, by kMaxSimulatedInstructions over the
  // whole fit, before anything runs (docs/errors.md, "Limits").
  {
    const auto k_params = static_cast<int64_t>(names.size());
    const int64_t evaluations = 1 + 10 * int64_t{sweeps} * (k_params + 1);
    const int64_t runs = options.schedule.SimulatedRuns();
    int64_t per_evaluation = 0;
    for (const CalibrationTarget& t : targets) {
      TRN_ASSIGN_OR_RETURN(Program program, Lower(*t.spec, profile));
      // Each at most kMaxSimulatedInstructions + 1 after the first check.
      per_evaluation +=
          std::min(kMaxSimulatedInstructions + 1,
                   SimulatedWork(program.InstructionCount(), runs));
      per_evaluation = std::min(per_evaluation, kMaxSimulatedInstructions + 1);
    }
    if (on_plan) {
      on_plan(evaluations * static_cast<int64_t>(targets.size()) * runs);
    }
    if (per_evaluation > kMaxSimulatedInstructions / evaluations) {
      return absl::InvalidArgumentError(absl::StrCat(
          "`repeat`=", options.schedule.repeat,
          ": calibrate would simulate up to ", per_evaluation,
          " instructions per model evaluation, ", evaluations, " evaluations (",
          k_params,
          " fitted parameters; each run counts its program's instructions "
          "and ",
          kRunOverheadInstructions, " more); expected at most ",
          kMaxSimulatedInstructions,
          " instructions for the whole fit: lower `repeat`"));
    }
  }
  TRN_ASSIGN_OR_RETURN(Evaluation before, Evaluate(targets, profile, options));
  if (before.terms == 0) {
    return absl::InvalidArgumentError(
        "calibrate: expected measurements with a positive median of "
        "device_time_us, ncl_us, latency_us or throughput_per_s that the "
        "model also computes for the same workload");
  }
  // Levenberg-Marquardt on x = log(value / value as given): residuals are
  // the log errors of every figure, plus a small ridge row per parameter
  // so that, when fewer figures than parameters pin them (one measured
  // workload, several parameters it depends on), the fit moves each in
  // proportion to how much the figures depend on it instead of leaving it
  // to whichever parameter comes first.
  constexpr double kRidge = 1e-3;
  constexpr double kMaxLogMove = 2.995732273553991;  // log(20)
  const size_t k = names.size();
  std::vector<double> base(k);
  for (size_t j = 0; j < k; ++j) {
    base[j] = profile.params.at(names[j]).dist.Median();
  }
  auto profile_at =
      [&](const std::vector<double>& x) -> absl::StatusOr<DeviceProfile> {
    DeviceProfile p = profile;
    for (size_t j = 0; j < k; ++j) {
      if (base[j] > 0 && x[j] != 0) {
        TRN_RETURN_IF_ERROR(
            OverrideParam(p, names[j], base[j] * std::exp(x[j]), "calibrate"));
      }
    }
    return p;
  };
  auto residuals =
      [&](const std::vector<double>& x) -> absl::StatusOr<std::vector<double>> {
    TRN_ASSIGN_OR_RETURN(DeviceProfile p, profile_at(x));
    TRN_ASSIGN_OR_RETURN(Evaluation e, Evaluate(targets, p, options));
    std::vector<double> out;
    for (size_t i = 0; i < e.terms_seen.size(); ++i) {
      const auto& t = e.terms_seen[i];
      const double m =
          targets[t.target].measured->Find(t.metric)->summary.median;
      out.push_back(t.model_median > 0 && m > 0 ? std::log(t.model_median / m)
                                                : 0.0);
    }
    for (size_t j = 0; j < k; ++j) out.push_back(std::sqrt(kRidge) * x[j]);
    return out;
  };
  auto cost = [](const std::vector<double>& res) {
    double c = 0;
    for (double v : res) c += v * v;
    return c;
  };
  std::vector<double> x(k, 0.0);
  TRN_ASSIGN_OR_RETURN(std::vector<double> r0, residuals(x));
  double c0 = cost(r0);
  const size_t figures = r0.size() - k;
  std::vector<bool> pinned(k, false);
  double mu = 1e-3;
  for (int iter = 0; iter < 10 * sweeps; ++iter) {
    // Jacobian by forward differences in log space.
    constexpr double kStep = 0.02;
    std::vector<std::vector<double>> jac(r0.size(), std::vector<double>(k));
    for (size_t j = 0; j < k; ++j) {
      std::vector<double> xh = x;
      xh[j] += kStep;
      TRN_ASSIGN_OR_RETURN(std::vector<double> rh, residuals(xh));
      for (size_t i = 0; i < r0.size(); ++i) {
        jac[i][j] = (rh[i] - r0[i]) / kStep;
        if (i < figures && std::fabs(jac[i][j]) > 1e-9) pinned[j] = true;
      }
    }
    // (J'J + mu I) d = -J'r, by Gaussian elimination (k is small).
    std::vector<std::vector<double>> a(k, std::vector<double>(k + 1, 0.0));
    for (size_t p = 0; p < k; ++p) {
      for (size_t q = 0; q < k; ++q) {
        for (size_t i = 0; i < r0.size(); ++i) a[p][q] += jac[i][p] * jac[i][q];
      }
      a[p][p] += mu;
      for (size_t i = 0; i < r0.size(); ++i) a[p][k] -= jac[i][p] * r0[i];
    }
    for (size_t c = 0; c < k; ++c) {
      size_t piv = c;
      for (size_t rr = c + 1; rr < k; ++rr) {
        if (std::fabs(a[rr][c]) > std::fabs(a[piv][c])) piv = rr;
      }
      std::swap(a[c], a[piv]);
      for (size_t rr = 0; rr < k; ++rr) {
        if (rr == c || a[c][c] == 0) continue;
        const double f = a[rr][c] / a[c][c];
        for (size_t q = c; q <= k; ++q) a[rr][q] -= f * a[c][q];
      }
    }
    std::vector<double> xn = x;
    for (size_t j = 0; j < k; ++j) {
      const double d = a[j][j] != 0 ? a[j][k] / a[j][j] : 0.0;
      xn[j] = std::clamp(x[j] + d, -kMaxLogMove, kMaxLogMove);
    }
    TRN_ASSIGN_OR_RETURN(std::vector<double> rn, residuals(xn));
    const double cn = cost(rn);
    if (cn < c0) {
      const bool converged = c0 - cn < 1e-12;
      x = xn;
      r0 = rn;
      c0 = cn;
      mu = std::max(mu / 10, 1e-9);
      if (converged) break;
    } else {
      mu *= 10;
      if (mu > 1e6) break;
    }
  }
  TRN_ASSIGN_OR_RETURN(r.profile, profile_at(x));
  for (size_t j = 0; j < k; ++j) {
    FittedParam fp;
    fp.name = names[j];
    fp.before = base[j];
    r.params.push_back(fp);
  }
  TRN_ASSIGN_OR_RETURN(Evaluation after, Evaluate(targets, r.profile, options));
  for (size_t j = 0; j < r.params.size(); ++j) {
    FittedParam& fp = r.params[j];
    fp.after = r.profile.params.at(fp.name).dist.Median();
    // Pinned when some figure moved with it at any step of the fit.
    fp.pinned = pinned[j];
  }
  // Evaluate() visits the same (target, metric) pairs on every profile.
  for (size_t i = 0; i < before.terms_seen.size(); ++i) {
    const auto& term = before.terms_seen[i];
    const CalibrationTarget& t = targets[term.target];
    Residual res;
    res.workload = t.measured->workload;
    res.metric = term.metric;
    res.measured_median = t.measured->Find(term.metric)->summary.median;
    res.model_before = term.model_median;
    res.model_after = after.terms_seen[i].model_median;
    r.residuals.push_back(std::move(res));
  }
  r.rms_log_error_before =
      std::sqrt(before.sum_sq / static_cast<double>(before.terms));
  r.rms_log_error_after =
      std::sqrt(after.sum_sq / static_cast<double>(after.terms));
  return r;
}

absl::StatusOr<std::string> CalibratedProfileText(
    absl::string_view original_text, const CalibrationResult& result,
    const std::string& fitted_to) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(
      std::string(original_text), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("parameters")) {
    return absl::InvalidArgumentError(
        "calibrate: the device profile is not a JSON object with "
        "\"parameters\"");
  }
  for (const FittedParam& fp : result.params) {
    nlohmann::ordered_json& p = j["parameters"][fp.name];
    if (!fp.pinned || fp.after == fp.before || !(fp.before > 0)) {
      p["source"] = absl::StrCat(
          p.value("source", ""), "; not moved by trnbench calibrate (",
          fp.pinned ? "already at the fit" : "no measurement depends on it",
          ")");
      continue;
    }
    const double factor = fp.after / fp.before;
    // Fitted to the measurements now, no longer to the figures it named.
    p.erase("fitted_on");
    if (p.contains("value")) {
      p["value"] = fp.after;
    } else if (p.contains("quantiles")) {
      for (auto& q : p["quantiles"]) q[1] = q[1].get<double>() * factor;
    }
    p["source"] = absl::StrFormat(
        "fitted by trnbench calibrate to %s: median %.6g -> %.6g %s "
        "(was: %s)",
        fitted_to, fp.before, fp.after, p.value("unit", ""),
        p.value("source", ""));
  }
  std::string residuals;
  for (const Residual& r : result.residuals) {
    absl::StrAppendFormat(
        &residuals, "%s%s %s: measured %.6g, model %.6g (%+.1f%%)",
        residuals.empty() ? "" : "; ", r.workload, r.metric, r.measured_median,
        r.model_after, (r.model_after / r.measured_median - 1) * 100);
  }
  j["description"] = absl::StrFormat(
      "%s Calibrated by trnbench calibrate to %s; rms log error %.4f -> "
      "%.4f; residuals: %s.",
      j.value("description", ""), fitted_to, result.rms_log_error_before,
      result.rms_log_error_after, residuals);
  // Measurements pin its figures now.
  j["calibrated"] = true;
  return j.dump(2) + "\n";
}

}  // namespace trn
