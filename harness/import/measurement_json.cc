#include "harness/import/measurement_json.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "harness/import/measured_file.h"

namespace trn::import {
namespace {

absl::StatusOr<std::string> StringField(const nlohmann::json& obj,
                                        absl::string_view file,
                                        const std::string& pointer,
                                        const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return BadInput(file, pointer + "/" + key, "missing");
  if (!it->is_string()) {
    return BadInput(file, pointer + "/" + key, "expected a string");
  }
  return it->get<std::string>();
}

}  // namespace

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
  if (!j.is_object()) return BadInput(file, pointer, "expected an object");
  Measurement m;
  for (auto [key, field] :
       {std::pair{"format", &m.format}, std::pair{"tool", &m.tool},
        std::pair{"tool_version", &m.tool_version},
        std::pair{"instance_type", &m.instance_type}}) {
    auto v = StringField(j, file, pointer, key);
    if (!v.ok()) return v.status();
    *field = *std::move(v);
  }
  auto inputs = j.find("inputs");
  if (inputs == j.end() || !inputs->is_array()) {
    return BadInput(file, pointer + "/inputs",
                    "expected an array of the measured files");
  }
  for (size_t i = 0; i < inputs->size(); ++i) {
    const std::string p = absl::StrCat(pointer, "/inputs/", i);
    const nlohmann::json& in = (*inputs)[i];
    if (!in.is_object()) return BadInput(file, p, "expected an object");
    MeasuredInput mi;
    auto name = StringField(in, file, p, "file");
    if (!name.ok()) return name.status();
    auto hash = StringField(in, file, p, "fnv1a64");
    if (!hash.ok()) return hash.status();
    mi.file = *std::move(name);
    mi.fnv1a64 = *std::move(hash);
    auto bytes = in.find("bytes");
    if (bytes == in.end() || !bytes->is_number_integer() ||
        bytes->get<int64_t>() < 0) {
      return BadInput(file, p + "/bytes", "expected a size in bytes");
    }
    mi.bytes = bytes->get<int64_t>();
    m.inputs.push_back(std::move(mi));
  }
  return m;
}

absl::StatusOr<std::vector<std::pair<double, double>>> PercentilesFromJson(
    const nlohmann::json& obj, absl::string_view file,
    const std::string& pointer) {
  if (!obj.is_object() || obj.empty()) {
    return BadInput(file, pointer,
                    "expected an object of percentiles, such as "
                    "{\"50\": 20, \"99\": 21}");
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& [key, value] : obj.items()) {
    absl::string_view k = key;
    absl::ConsumePrefix(&k, "p");
    double p = 0;
    const std::string kp = absl::StrCat(pointer, "/", key);
    if (!absl::SimpleAtod(k, &p) || !(p >= 0 && p <= 100)) {
      return BadInput(file, kp, "expected a percentile from 0 to 100 as key");
    }
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      return BadInput(file, kp, "expected a finite number");
    }
    out.emplace_back(p, value.get<double>());
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].second < out[i - 1].second) {
      return BadInput(file, pointer,
                      "expected percentiles that do not decrease as the "
                      "percent grows");
    }
  }
  return out;
}

}  // namespace trn::import
