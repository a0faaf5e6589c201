#include "harness/import/measurement_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "harness/import/measured_file.h"
#include "support/input_error.h"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn::import {

nlohmann::ordered_json MeasurementToJson(const Measurement& m) {
  nlohmann::ordered_json j;
  j["format"] = m.format;
  j["tool"] = m.tool;
  j["tool_version"] = m.tool_version;
  j["instance_type"] = m.instance_type;
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const MeasuredInput& in : m.inputs) {
    inputs.push_back(
        {{"file", in.file}, {"fnv1a64", in.fnv1a64}, {"bytes", in.bytes}});
  }
  j["inputs"] = std::move(inputs);
  return j;
}

nlohmann::ordered_json PercentilesToJson(
    const std::vector<std::pair<double, double>>& percentiles) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [p, v] : percentiles) j[absl::StrCat("p", p)] = v;
  return j;
}

stats::Summary SummaryFromPercentiles(
    const std::vector<std::pair<double, double>>& percentiles) {
  stats::Summary s;
  s.n = 0;
  for (const auto& [p, v] : percentiles) {
    if (p == 0) s.min = v;
    if (p == 1) s.p01 = v;
    if (p == 5) s.p05 = v;
    if (p == 25) s.p25 = v;
    if (p == 50) s.p50 = s.median = v;
    if (p == 75) s.p75 = v;
    if (p == 95) s.p95 = v;
    if (p == 99) s.p99 = v;
    if (p == 100) s.max = v;
  }
  return s;
}

absl::StatusOr<Measurement> MeasurementFromJson(const nlohmann::json& j,
                                                absl::string_view file,
                                                const std::string& pointer) {
  const JsonReader r(std::string_view(file.data(), file.size()));
  TRN_RETURN_IF_ERROR(r.Object(j, pointer));
  Measurement m;
  for (auto [key, field] :
       {std::pair{"format", &m.format}, std::pair{"tool", &m.tool},
        std::pair{"tool_version", &m.tool_version},
        std::pair{"instance_type", &m.instance_type}}) {
    TRN_ASSIGN_OR_RETURN(*field, r.RequiredString(j, pointer, key));
  }
  TRN_ASSIGN_OR_RETURN(const nlohmann::json* inputs,
                       r.Required(j, pointer, "inputs"));
  const std::string inputs_at = JsonChild(pointer, "inputs");
  TRN_RETURN_IF_ERROR(
      r.Array(*inputs, inputs_at, "an array of the measured files"));
  for (size_t i = 0; i < inputs->size(); ++i) {
    const std::string p = JsonChild(inputs_at, i);
    const nlohmann::json& in = (*inputs)[i];
    MeasuredInput mi;
    TRN_ASSIGN_OR_RETURN(mi.file, r.RequiredString(in, p, "file"));
    TRN_ASSIGN_OR_RETURN(mi.fnv1a64, r.RequiredString(in, p, "fnv1a64"));
    TRN_ASSIGN_OR_RETURN(const nlohmann::json* bytes,
                         r.Required(in, p, "bytes"));
    TRN_ASSIGN_OR_RETURN(mi.bytes, r.Int(*bytes, {p, "bytes"}, 0,
                                         std::numeric_limits<int64_t>::max(),
                                         "a size in bytes"));
    m.inputs.push_back(std::move(mi));
  }
  return m;
}

absl::StatusOr<std::vector<std::pair<double, double>>> PercentilesFromJson(
    const nlohmann::json& obj, absl::string_view file,
    const std::string& pointer) {
  const JsonReader r(std::string_view(file.data(), file.size()));
  constexpr std::string_view kExpected =
      "an object of percentiles, such as {\"50\": 20, \"99\": 21}";
  TRN_RETURN_IF_ERROR(r.Object(obj, pointer, kExpected));
  if (obj.empty()) return r.Expected(pointer, kExpected, obj);
  std::vector<std::pair<double, double>> out;
  for (const auto& [key, value] : obj.items()) {
    absl::string_view k = key;
    absl::ConsumePrefix(&k, "p");
    double p = 0;
    const std::string kp = JsonChild(pointer, key);
    if (!absl::SimpleAtod(k, &p) || !(p >= 0 && p <= 100)) {
      return r.Error(kp, "expected a percentile from 0 to 100 as key");
    }
    TRN_ASSIGN_OR_RETURN(const double v, r.Number(value, kp));
    out.emplace_back(p, v);
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].second < out[i - 1].second) {
      return r.Error(pointer,
                     "expected percentiles that do not decrease as the "
                     "percent grows");
    }
  }
  return out;
}

}  // namespace trn::import
