#include "reports/measurement_text.h"

#include "absl/strings/str_cat.h"

namespace trn {

std::string MeasurementLine(const RunResult& run) {
  const Measurement& m = run.measurement;
  std::string out = absl::StrCat("measured by ", m.tool);
  if (!m.tool_version.empty()) absl::StrAppend(&out, " ", m.tool_version);
  if (!m.instance_type.empty()) absl::StrAppend(&out, " on ", m.instance_type);
  const size_t n = m.inputs.size();
  absl::StrAppend(&out, " \xC2\xB7 device ", run.device, " \xC2\xB7 ", n,
                  n == 1 ? " file" : " files", " imported");
  return out;
}

std::string MeasurementNote(const RunResult& run) {
  bool percentiles_only = false;
  for (const auto& w : run.workloads) {
    for (const auto& m : w.metrics) {
      percentiles_only = percentiles_only || m.samples.empty();
    }
  }
  std::string out = absl::StrCat(
      "Figures were measured by ", run.measurement.tool,
      " and imported with trnbench import, not produced by the timing "
      "model. Intervals of a median are distribution-free (order "
      "statistics) and assume independent samples; outliers (Tukey "
      "fences) are counted, never dropped.");
  if (percentiles_only) {
    absl::StrAppend(
        &out,
        " A metric without samples is the tool's own summary (its "
        "percentiles): medians and tails can be set side by side, but no "
        "interval and no rank test can be computed from it.");
  }
  return out;
}

}  // namespace trn
