#include "harness/import/imported.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "harness/measured_metrics.h"

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
                                   const std::string& pointer,
                                   const char* key) {
  const std::string p = absl::StrCat(pointer, "/", key);
  if (!obj.is_object()) return BadInput(file, pointer, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) return BadInput(file, p, "missing");
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    return BadInput(file, p, "expected a finite number");
  }
  return it->get<double>();
}

}  // namespace trn::import
