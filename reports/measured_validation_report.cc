#include "reports/measured_validation_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/runner/summary_json.h"
#include "reports/number_format.h"
#include "reports/text_table.h"

namespace trn {
namespace {

std::string Signed(double x) {
  return std::isfinite(x) ? absl::StrFormat("%+.1f%%", x * 100) : "n/a";
}

std::string Share(double x) {
  return std::isfinite(x) ? absl::StrFormat("%.0f%%", x * 100) : "n/a";
}

// A value in its metric's unit; an unknown symbol reads as a plain number.
std::string InUnit(const std::string& unit, double x) {
  return FormatQuantity(x, UnitFromSymbol(unit).value_or(Unit::kCount));
}

}  // namespace

std::string RenderMeasuredValidation(
    const std::vector<MeasuredValidation>& validations) {
  std::string out;
  for (const MeasuredValidation& v : validations) {
    absl::StrAppendFormat(&out,
                          "%s · model (device %s, spec %s, %d runs, seed %d) "
                          "vs measured (%s%s%s)\n",
                          v.workload, v.device, v.spec_file, v.model_repeat,
                          v.seed, v.measurement.tool,
                          v.measurement.tool_version.empty() ? "" : " ",
                          v.measurement.tool_version);
    TextTable t({"metric", "model median", "model p1-p99", "measured median",
                 "measured p1-p99", "n measured", "model error",
                 "95% interval"});
    for (const MetricValidation& m : v.metrics) {
      const std::string iv =
          m.measured_has_samples && std::isfinite(m.error_interval.low) &&
                  std::isfinite(m.error_interval.high)
              ? absl::StrCat("[", Signed(m.error_interval.low), ", ",
                             Signed(m.error_interval.high), "]")
              : (m.measured_has_samples ? "n/a" : "none: percentiles only");
      t.AddRow({m.metric, InUnit(m.unit, m.model.median),
                absl::StrCat(InUnit(m.unit, m.model.p01), " - ",
                             InUnit(m.unit, m.model.p99)),
                InUnit(m.unit, m.measured.median),
                absl::StrCat(InUnit(m.unit, m.measured.p01), " - ",
                             InUnit(m.unit, m.measured.p99)),
                m.measured_has_samples ? absl::StrCat(m.measured.n) : "-",
                Signed(m.error), iv});
    }
    out += t.Render("  ");
    if (!v.engines.empty() || !v.ops.empty()) {
      absl::StrAppend(&out,
                      "  what dominates the model's device time (median):\n");
      TextTable parts({"part", "time", "share of device time"});
      for (const ModelPart& p : v.engines) {
        parts.AddRow({p.name, FormatQuantity(p.us, Unit::kMicroseconds),
                      Share(p.share)});
      }
      size_t shown = 0;
      for (const ModelPart& p : v.ops) {
        if (shown++ == 5) break;
        parts.AddRow({"op " + p.name, FormatQuantity(p.us, Unit::kMicroseconds),
                      Share(p.share)});
      }
      out += parts.Render("    ");
    }
    out += "\n";
  }
  absl::StrAppend(&out,
                  "model error = model / measured - 1: the Hodges-Lehmann "
                  "shift of log samples with its interval; for a summary "
                  "without samples, the ratio of medians and no interval\n");
  return out;
}

nlohmann::ordered_json MeasuredValidationToJson(
    const std::vector<MeasuredValidation>& validations) {
  nlohmann::ordered_json j;
  j["schema"] = "trnbench.measured_validation";
  j["schema_version"] = 1;
  nlohmann::ordered_json ws = nlohmann::ordered_json::array();
  for (const MeasuredValidation& v : validations) {
    nlohmann::ordered_json w;
    w["workload"] = v.workload;
    w["spec_file"] = v.spec_file;
    w["device"] = v.device;
    w["seed"] = v.seed;
    w["model_repeat"] = v.model_repeat;
    w["measured_by"] = v.measurement.tool;
    nlohmann::ordered_json ms = nlohmann::ordered_json::array();
    for (const MetricValidation& m : v.metrics) {
      ms.push_back({{"metric", m.metric},
                    {"unit", m.unit},
                    {"model", SummaryToJson(m.model)},
                    {"measured", SummaryToJson(m.measured)},
                    {"measured_has_samples", m.measured_has_samples},
                    {"error", JsonNumber(m.error)},
                    {"error_ci_low", JsonNumber(m.error_interval.low)},
                    {"error_ci_high", JsonNumber(m.error_interval.high)}});
    }
    w["metrics"] = std::move(ms);
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const ModelPart& p : v.engines) {
      parts.push_back({{"part", p.name},
                       {"us", JsonNumber(p.us)},
                       {"share", JsonNumber(p.share)}});
    }
    for (const ModelPart& p : v.ops) {
      parts.push_back({{"part", "op " + p.name},
                       {"us", JsonNumber(p.us)},
                       {"share", JsonNumber(p.share)}});
    }
    w["model_parts"] = std::move(parts);
    ws.push_back(std::move(w));
  }
  j["workloads"] = std::move(ws);
  return j;
}

std::string RenderCalibration(const CalibrationResult& r) {
  std::string out = absl::StrFormat(
      "calibrated profile %s: rms log error %.4f -> %.4f over %d figures\n\n",
      r.profile.name, r.rms_log_error_before, r.rms_log_error_after,
      r.residuals.size());
  TextTable p({"fitted parameter", "before (median)", "after (median)",
               "pinned by these measurements"});
  for (const FittedParam& f : r.params) {
    p.AddRow({f.name, absl::StrFormat("%.6g", f.before),
              absl::StrFormat("%.6g", f.after), f.pinned ? "yes" : "no"});
  }
  out += p.Render("  ");
  out += "\n";
  TextTable t({"workload", "metric", "measured", "model before", "model after",
               "residual"});
  for (const Residual& res : r.residuals) {
    t.AddRow({res.workload, res.metric,
              absl::StrFormat("%.6g", res.measured_median),
              absl::StrFormat("%.6g", res.model_before),
              absl::StrFormat("%.6g", res.model_after),
              Signed(res.model_after / res.measured_median - 1)});
  }
  out += t.Render("  ");
  return out;
}

nlohmann::ordered_json CalibrationToJson(const CalibrationResult& r) {
  nlohmann::ordered_json j;
  j["schema"] = "trnbench.calibration";
  j["schema_version"] = 1;
  j["device"] = r.profile.name;
  j["rms_log_error_before"] = JsonNumber(r.rms_log_error_before);
  j["rms_log_error_after"] = JsonNumber(r.rms_log_error_after);
  nlohmann::ordered_json ps = nlohmann::ordered_json::array();
  for (const FittedParam& f : r.params) {
    ps.push_back({{"name", f.name},
                  {"before", JsonNumber(f.before)},
                  {"after", JsonNumber(f.after)},
                  {"pinned", f.pinned}});
  }
  j["parameters"] = std::move(ps);
  nlohmann::ordered_json rs = nlohmann::ordered_json::array();
  for (const Residual& res : r.residuals) {
    rs.push_back({{"workload", res.workload},
                  {"metric", res.metric},
                  {"measured_median", JsonNumber(res.measured_median)},
                  {"model_before", JsonNumber(res.model_before)},
                  {"model_after", JsonNumber(res.model_after)}});
  }
  j["residuals"] = std::move(rs);
  return j;
}

}  // namespace trn
