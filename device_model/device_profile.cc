#include "device_model/device_profile.h"

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "support/input_error.h"
#include "support/input_file.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn {
namespace {

using nlohmann::json;

// Every time the model computes is a sum of products of these figures over
// up to kMaxInstructions instructions. Bounding them keeps every time finite:
// 1e308 would overflow to infinity, and a rate of 1e-300 divide into it,
// and the simulator would stall.
constexpr double kMaxParamValue = 1e9;
constexpr double kMinRate = 1e-6;

struct ParamSpec {
  absl::string_view key;
  bool distribution_allowed;
  bool integer;
  double max = kMaxParamValue;
};

// Every parameter the model reads. A profile must give all of them and
// nothing else, so a typo cannot silently fall back to a default.
constexpr ParamSpec kParams[] = {
    {"partitions", false, true},
    {"sbuf_bytes_per_partition", false, true},
    {"psum_bytes_per_partition", false, true},
    {"psum_banks", false, true},
    {"tensor_clock_ghz", false, false},
    {"vector_clock_ghz", false, false},
    {"scalar_clock_ghz", false, false},
    {"gpsimd_clock_ghz", false, false},
    {"tensor_elements_per_cycle", false, false},
    {"vector_elements_per_cycle", false, false},
    {"scalar_elements_per_cycle", false, false},
    {"gpsimd_elements_per_cycle", false, false},
    {"tensor_fp32_rate", false, false},
    {"tensor_fp32_transpose_rate", false, false},
    {"min_initiation_interval_cycles", false, false},
    {"static_overhead_cycles", false, false},
    {"tensor_pipeline_latency_cycles", false, false},
    {"dependency_sync_us", false, false},
    {"two_input_cycles_per_element", false, false},
    {"reciprocal_cycles_per_element", false, false},
    {"bn_aggr_cycles_per_element", false, false},
    {"index_gen_fixed_cycles", false, false},
    {"vector_narrow_speedup_1input", false, false},
    {"vector_narrow_speedup_2input", false, false},
    // One lane per queue: a billion queues would be a billion lanes.
    {"dma_queues", false, true, 1024},
    {"dma_queue_gbps", false, false},
    {"hbm_gbps", false, false},
    {"dma_descriptor_overhead_bytes", false, false},
    {"dma_transpose_efficiency", false, false, 1},
    {"dma_latency_us", true, false},
    {"dma_issue_us", false, false},
    {"dma_issuers", false, true, 1024},
    {"op_exec_overhead_us", true, false},
    {"graph_exec_overhead_us", true, false},
    {"host_op_dispatch_us", true, false},
    {"runtime_schedule_us", true, false},
    {"h2d_copy_latency_us", true, false},
    {"h2d_gbps", false, false},
    {"nki_host_latency_us", true, false},
    {"nki_iteration_gap_us", true, false},
};

const ParamSpec* FindParamSpec(absl::string_view key) {
  for (const auto& p : kParams) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

std::string KnownKeys() {
  std::vector<absl::string_view> keys;
  for (const auto& p : kParams) keys.push_back(p.key);
  return absl::StrJoin(keys, ", ");
}

absl::Status Err(absl::string_view label, absl::string_view path,
                 absl::string_view what) {
  return InputError(std::string_view(label.data(), label.size()),
                    std::string_view(path.data(), path.size()),
                    std::string_view(what.data(), what.size()));
}

absl::StatusOr<ProfileParam> ParseParam(const json& j, absl::string_view label,
                                        const std::string& path,
                                        const ParamSpec& spec) {
  if (!j.is_object()) return Err(label, path, "expected an object");
  ProfileParam p;
  bool has_value = false;
  bool has_quantiles = false;
  for (const auto& [k, v] : j.items()) {
    if (k == "value") {
      if (!v.is_number())
        return Err(label, path + "/value", "expected a number");
      double x = v.get<double>();
      if (!std::isfinite(x) || x < 0) {
        return Err(label, path + "/value", "expected a finite number >= 0");
      }
      if (spec.integer && (x != std::floor(x) || x < 1 || x > 1e9)) {
        return Err(label, path + "/value",
                   "expected a positive integer (at most 1e9)");
      }
      p.dist = QuantileTable::Constant(x);
      has_value = true;
    } else if (k == "quantiles") {
      if (!spec.distribution_allowed) {
        return Err(label, path + "/quantiles",
                   "this parameter is a fixed hardware figure; give `value`");
      }
      if (!v.is_array()) {
        return Err(label, path + "/quantiles",
                   "expected an array of [probability, value] pairs");
      }
      std::vector<std::pair<double, double>> points;
      for (size_t i = 0; i < v.size(); ++i) {
        const json& e = v[i];
        if (!e.is_array() || e.size() != 2 || !e[0].is_number() ||
            !e[1].is_number()) {
          return Err(label, absl::StrCat(path, "/quantiles/", i),
                     "expected a [probability, value] pair of numbers");
        }
        points.emplace_back(e[0].get<double>(), e[1].get<double>());
      }
      auto table = QuantileTable::FromPoints(std::move(points));
      if (!table.ok()) {
        return Err(label, path + "/quantiles", table.status().message());
      }
      p.dist = *std::move(table);
      has_quantiles = true;
    } else if (k == "unit" || k == "source") {
      if (!v.is_string())
        return Err(label, path + "/" + k, "expected a string");
      (k == "unit" ? p.unit : p.source) = v.get<std::string>();
    } else {
      return Err(label, path + "/" + k,
                 "unknown key; expected value or quantiles, unit, source");
    }
  }
  if (has_value == has_quantiles) {
    return Err(label, path, "expected exactly one of `value` or `quantiles`");
  }
  if (p.source.empty()) {
    return Err(label, path + "/source",
               "every parameter must say where its value comes from");
  }
  return p;
}

double Median(const DeviceProfile& d, absl::string_view key) {
  return d.params.find(key)->second.dist.Median();
}
const QuantileTable& Dist(const DeviceProfile& d, absl::string_view key) {
  return d.params.find(key)->second.dist;
}

// Derives the typed fields from `params`, so overrides go through one path.
absl::Status Rebuild(DeviceProfile& d, absl::string_view label) {
  for (const auto& p : kParams) {
    const double max = d.params.find(p.key)->second.dist.points().back().second;
    if (max > p.max) {
      return Err(
          label, absl::StrCat("/parameters/", p.key),
          absl::StrFormat("expected values from 0 to %g, got %g", p.max, max));
    }
  }
  // Rates divide: a zero would turn into an infinite time, not an error.
  for (absl::string_view key :
       {"tensor_clock_ghz", "vector_clock_ghz", "scalar_clock_ghz",
        "gpsimd_clock_ghz", "tensor_elements_per_cycle",
        "vector_elements_per_cycle", "scalar_elements_per_cycle",
        "gpsimd_elements_per_cycle", "tensor_fp32_rate",
        "tensor_fp32_transpose_rate", "two_input_cycles_per_element",
        "reciprocal_cycles_per_element", "bn_aggr_cycles_per_element",
        "vector_narrow_speedup_1input", "vector_narrow_speedup_2input",
        "dma_queue_gbps", "hbm_gbps", "dma_transpose_efficiency", "h2d_gbps"}) {
    if (!(Median(d, key) >= kMinRate)) {
      return Err(label, absl::StrCat("/parameters/", key),
                 absl::StrFormat("expected a rate greater than 0 (at least "
                                 "%g), got %g",
                                 kMinRate, Median(d, key)));
    }
  }
  d.memory.partitions = static_cast<int>(Median(d, "partitions"));
  d.memory.sbuf_bytes_per_partition =
      static_cast<int64_t>(Median(d, "sbuf_bytes_per_partition"));
  d.memory.psum_bytes_per_partition =
      static_cast<int64_t>(Median(d, "psum_bytes_per_partition"));
  d.memory.psum_banks = static_cast<int>(Median(d, "psum_banks"));
  const double overhead = Median(d, "static_overhead_cycles");
  for (int i = 0; i < kNumEngines; ++i) {
    const auto engine = static_cast<Engine>(i);
    const std::string name(EngineName(engine));
    auto& e = d.engines[static_cast<size_t>(i)];
    e.clock_ghz = Median(d, name + "_clock_ghz");
    e.elements_per_cycle = Median(d, name + "_elements_per_cycle");
    e.static_overhead_cycles = engine == Engine::kTensor
                                   ? Median(d, "tensor_pipeline_latency_cycles")
                                   : overhead;
  }
  d.tensor_fp32_rate = Median(d, "tensor_fp32_rate");
  CostParams& c = d.cost;
  c.min_ii_cycles = Median(d, "min_initiation_interval_cycles");
  c.two_input_factor = Median(d, "two_input_cycles_per_element");
  c.reciprocal_factor = Median(d, "reciprocal_cycles_per_element");
  c.bn_aggr_factor = Median(d, "bn_aggr_cycles_per_element");
  c.index_gen_fixed_cycles = Median(d, "index_gen_fixed_cycles");
  c.vector_narrow_speedup_1input = Median(d, "vector_narrow_speedup_1input");
  c.vector_narrow_speedup_2input = Median(d, "vector_narrow_speedup_2input");
  c.tensor_fp32_transpose_rate = Median(d, "tensor_fp32_transpose_rate");
  c.dependency_sync_us = Median(d, "dependency_sync_us");
  d.dma_queues = static_cast<int>(Median(d, "dma_queues"));
  d.dma_queue_gbps = Median(d, "dma_queue_gbps");
  d.hbm_gbps = Median(d, "hbm_gbps");
  d.dma_descriptor_overhead_bytes = Median(d, "dma_descriptor_overhead_bytes");
  d.dma_transpose_efficiency = Median(d, "dma_transpose_efficiency");
  d.dma_latency_us = Dist(d, "dma_latency_us");
  d.dma_issue_us = Median(d, "dma_issue_us");
  d.dma_issuers = static_cast<int>(Median(d, "dma_issuers"));
  d.op_exec_overhead_us = Dist(d, "op_exec_overhead_us");
  d.graph_exec_overhead_us = Dist(d, "graph_exec_overhead_us");
  d.host_op_dispatch_us = Dist(d, "host_op_dispatch_us");
  d.runtime_schedule_us = Dist(d, "runtime_schedule_us");
  d.h2d_copy_latency_us = Dist(d, "h2d_copy_latency_us");
  d.h2d_gbps = Median(d, "h2d_gbps");
  d.nki_host_latency_us = Dist(d, "nki_host_latency_us");
  d.nki_iteration_gap_us = Dist(d, "nki_iteration_gap_us");
  return absl::OkStatus();
}

}  // namespace

double DeviceProfile::ElementsPerUs(Engine e, DType t) const {
  const auto& p = engines[static_cast<int>(e)];
  double rate = p.clock_ghz * 1e3 * p.elements_per_cycle;
  if (e == Engine::kTensor && (t == DType::kFp32 || t == DType::kInt32)) {
    rate *= tensor_fp32_rate;
  }
  return rate;
}

absl::StatusOr<DeviceProfile> ParseDeviceProfile(absl::string_view text,
                                                 absl::string_view label) {
  TRN_ASSIGN_OR_RETURN(
      const json j,
      ParseStrictJson(std::string_view(text.data(), text.size()),
                      std::string_view(label.data(), label.size())));
  if (!j.is_object()) return Err(label, "/", "expected a JSON object");
  DeviceProfile d;
  d.content_hash = Fnv1a64Hex(std::string_view(text.data(), text.size()));
  bool seen_version = false;
  bool seen_params = false;
  for (const auto& [k, v] : j.items()) {
    if (k == "schema_version") {
      if (!v.is_number_integer() || v.get<int64_t>() != kProfileSchemaVersion) {
        return Err(label, "/schema_version",
                   absl::StrCat("expected ", kProfileSchemaVersion));
      }
      seen_version = true;
    } else if (k == "name" || k == "description") {
      if (!v.is_string()) return Err(label, "/" + k, "expected a string");
      (k == "name" ? d.name : d.description) = v.get<std::string>();
    } else if (k == "calibrated") {
      if (!v.is_boolean())
        return Err(label, "/calibrated", "expected true or false");
      d.calibrated = v.get<bool>();
    } else if (k == "parameters") {
      if (!v.is_object())
        return Err(label, "/parameters", "expected an object");
      for (const auto& [pk, pv] : v.items()) {
        const ParamSpec* spec = FindParamSpec(pk);
        if (spec == nullptr) {
          return Err(
              label, "/parameters/" + pk,
              absl::StrCat("unknown parameter; expected one of ", KnownKeys()));
        }
        TRN_ASSIGN_OR_RETURN(auto param,
                             ParseParam(pv, label, "/parameters/" + pk, *spec));
        d.params.emplace(pk, std::move(param));
      }
      seen_params = true;
    } else {
      return Err(label, "/" + k,
                 "unknown key; expected schema_version, name, description, "
                 "calibrated, parameters");
    }
  }
  if (!seen_version) return Err(label, "/schema_version", "missing");
  if (!seen_params) return Err(label, "/parameters", "missing");
  if (d.name.empty()) return Err(label, "/name", "missing or empty");
  for (const auto& p : kParams) {
    if (!d.params.contains(p.key)) {
      return Err(label, absl::StrCat("/parameters/", p.key), "missing");
    }
  }
  TRN_RETURN_IF_ERROR(Rebuild(d, label));
  return d;
}

absl::StatusOr<DeviceProfile> LoadDeviceProfile(const std::string& path) {
  TRN_ASSIGN_OR_RETURN(
      const std::string text,
      ReadInputFile(path, kMaxProfileBytes, "device profile",
                    absl::StrCat("the file is larger than 1 MiB; a device "
                                 "profile may be at most 1 MiB (",
                                 kMaxProfileBytes, " bytes)")));
  return ParseDeviceProfile(text, path);
}

absl::Status OverrideParam(DeviceProfile& profile, absl::string_view key,
                           double value, absl::string_view by) {
  auto it = profile.params.find(key);
  if (it == profile.params.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        key, ": unknown parameter; expected one of ", KnownKeys()));
  }
  const ParamSpec* spec = FindParamSpec(key);
  if (!std::isfinite(value) || value < 0 ||
      (spec->integer && (value != std::floor(value) || value < 1))) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, "=", value, ": expected a finite ",
                     spec->integer ? "positive integer" : "number >= 0"));
  }
  // Work on a copy so that a value the rebuild rejects (a zero clock)
  // leaves `profile` as it was.
  DeviceProfile updated = profile;
  ProfileParam& param = updated.params.find(key)->second;
  auto& dist = param.dist;
  if (dist.IsConstant()) {
    dist = QuantileTable::Constant(value);
  } else {
    double median = dist.Median();
    if (median <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(key,
                       ": its distribution has median 0 and cannot be "
                       "rescaled"));
    }
    dist.Scale(value / median);
  }
  param.source = absl::StrCat("overridden by ", by,
                              " (the profile said: ", param.source, ")");
  TRN_RETURN_IF_ERROR(Rebuild(updated, key));
  profile = std::move(updated);
  return absl::OkStatus();
}

}  // namespace trn
