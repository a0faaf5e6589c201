#include "harness/import/imported.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "harness/runner/measured_metrics.h"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn::import {

MetricResult MeasuredMetric(absl::string_view name,
                            std::vector<double> samples) {
  MetricResult m;
  m.name = std::string(name);
  if (const MetricInfo* info =
          FindAnyMetric(std::string_view(name.data(), name.size()))) {
    m.unit = std::string(UnitSymbol(info->unit));
    m.lower_is_better = info->lower_is_better;
  }
  m.samples = std::move(samples);
  return m;
}

absl::StatusOr<double> NumberField(const nlohmann::json& obj,
                                   absl::string_view file,
                                   const std::string& pointer, const char* key,
                                   const NumberBounds& bounds,
                                   std::string_view expected) {
  const JsonReader r(std::string_view(file.data(), file.size()));
  TRN_ASSIGN_OR_RETURN(const nlohmann::json* v, r.Required(obj, pointer, key));
  return r.Number(*v, {pointer, key}, bounds, expected);
}

}  // namespace trn::import
