#include "device_model/device_profile.h"

#include <algorithm>
#include <cmath>
#include <set>
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
#include "support/json_reader.h"
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
  // A parameter added after schema version 2 was fixed may be absent: a
  // profile written before it then keeps its meaning, which is this value.
  // Negative: required.
  double when_absent = -1;
  absl::string_view absent_unit = "";
  absl::string_view absent_source = "";
};

// Every parameter the model reads. A profile must give all of them (but
// the few with a value for when they are absent) and nothing else, so a
// typo cannot silently fall back to a default: an unknown key is an error.
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
    // Added in model version 13; before it an engine was active for an
    // instruction's whole static overhead (the cost takes the smaller of
    // this and the overhead, so the largest value keeps that meaning).
    {"sbuf_access_overhead_cycles", false, false, kMaxParamValue,
     kMaxParamValue, "cycles",
     "absent from the profile: an engine is active for an instruction's "
     "whole static overhead, what every profile meant before the parameter "
     "existed"},
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
    // Added in model version 6; before it every row was its own descriptor.
    {"dma_rows_per_descriptor", false, true, 1024, 1, "rows",
     "absent from the profile: one descriptor per row, what every profile "
     "meant before the parameter existed"},
    {"dma_transpose_efficiency", false, false, 1},
    {"dma_latency_us", true, false},
    {"dma_issue_us", false, false},
    {"dma_issuers", false, true, 1024},
    // Added in model version 12; before it a queue's transfers followed one
    // another on an engine without a pause.
    {"dma_queue_gap_us", false, false, kMaxParamValue, 0, "us",
     "absent from the profile: an engine starts a queue's next transfer as "
     "soon as the one before has moved its data, what every profile meant "
     "before the parameter existed"},
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

absl::StatusOr<ProfileParam> ParseParam(const json& j, const JsonReader& r,
                                        const std::string& path,
                                        const ParamSpec& spec) {
  static constexpr std::string_view kKeys[] = {"value", "quantiles", "unit",
                                               "source", "fitted_on"};
  TRN_RETURN_IF_ERROR(r.CheckKeys(j, path, kKeys, "a parameter"));
  ProfileParam p;
  const json* value = JsonReader::Optional(j, "value");
  const json* quantiles = JsonReader::Optional(j, "quantiles");
  if (quantiles != nullptr && !spec.distribution_allowed) {
    return r.Error({path, "quantiles"},
                   "this parameter is a fixed hardware figure; give `value`");
  }
  if ((value == nullptr) == (quantiles == nullptr)) {
    return r.Error(path, "expected exactly one of `value` or `quantiles`");
  }
  if (value != nullptr && spec.integer) {
    TRN_ASSIGN_OR_RETURN(const int64_t x,
                         r.Int(*value, {path, "value"}, 1, 1'000'000'000,
                               "a positive integer (at most 1e9)"));
    p.dist = QuantileTable::Constant(static_cast<double>(x));
  } else if (value != nullptr) {
    TRN_ASSIGN_OR_RETURN(
        const double x,
        r.Number(*value, {path, "value"}, {.min = 0}, "a finite number >= 0"));
    p.dist = QuantileTable::Constant(x);
  } else {
    const std::string at = JsonChild(path, "quantiles");
    TRN_RETURN_IF_ERROR(
        r.Array(*quantiles, at, "an array of [probability, value] pairs"));
    std::vector<std::pair<double, double>> points;
    for (size_t i = 0; i < quantiles->size(); ++i) {
      const json& e = (*quantiles)[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_number() ||
          !e[1].is_number()) {
        return r.Expected({at, i}, "a [probability, value] pair of numbers", e);
      }
      points.emplace_back(e[0].get<double>(), e[1].get<double>());
    }
    auto table = QuantileTable::FromPoints(std::move(points));
    if (!table.ok()) return r.Error(at, std::string(table.status().message()));
    p.dist = *std::move(table);
  }
  TRN_RETURN_IF_ERROR(r.OptionalString(j, path, "unit", p.unit));
  TRN_RETURN_IF_ERROR(r.OptionalString(j, path, "source", p.source));
  if (p.source.empty()) {
    return r.Error({path, "source"},
                   "every parameter must say where its value comes from");
  }
  if (const json* on = JsonReader::Optional(j, "fitted_on"); on != nullptr) {
    const std::string at = JsonChild(path, "fitted_on");
    if (!p.source.starts_with("fitted")) {
      return r.Error(at,
                     "only a fitted parameter names the figures it was "
                     "fitted on; its source does not start with \"fitted\"");
    }
    TRN_ASSIGN_OR_RETURN(
        p.fitted_on,
        r.StringArray(*on, at,
                      "an array of validation keys (\"<workload> <metric> "
                      "<statistic> <device>\")"));
    std::set<std::string, std::less<>> seen;
    for (size_t i = 0; i < p.fitted_on.size(); ++i) {
      const std::string& key = p.fitted_on[i];
      if (std::count(key.begin(), key.end(), ' ') < 3) {
        return r.Error({at, i},
                       absl::StrCat("\"", key,
                                    "\" is not a validation key; expected "
                                    "\"<workload> <metric> <statistic> "
                                    "<device>\""));
      }
      if (!seen.insert(key).second) {
        return r.Error({at, i}, absl::StrCat("\"", key, "\" listed twice"));
      }
    }
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
  d.memory.vector_clock_ghz = Median(d, "vector_clock_ghz");
  d.memory.gpsimd_clock_ghz = Median(d, "gpsimd_clock_ghz");
  d.memory.gpsimd_start_cycles = Median(d, "index_gen_fixed_cycles");
  d.memory.min_ii_cycles = Median(d, "min_initiation_interval_cycles");
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
  c.access_overhead_cycles = Median(d, "sbuf_access_overhead_cycles");
  d.dma_queues = static_cast<int>(Median(d, "dma_queues"));
  d.dma_queue_gbps = Median(d, "dma_queue_gbps");
  d.hbm_gbps = Median(d, "hbm_gbps");
  d.dma_descriptor_overhead_bytes = Median(d, "dma_descriptor_overhead_bytes");
  d.dma_rows_per_descriptor =
      static_cast<int>(Median(d, "dma_rows_per_descriptor"));
  d.dma_transpose_efficiency = Median(d, "dma_transpose_efficiency");
  d.dma_latency_us = Dist(d, "dma_latency_us");
  d.dma_issue_us = Median(d, "dma_issue_us");
  d.dma_issuers = static_cast<int>(Median(d, "dma_issuers"));
  d.dma_queue_gap_us = Median(d, "dma_queue_gap_us");
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
  const JsonReader r(std::string_view(label.data(), label.size()));
  static constexpr std::string_view kKeys[] = {
      "schema_version", "name", "description", "calibrated", "parameters"};
  // Before the key check: a newer version may have keys this one lacks.
  TRN_RETURN_IF_ERROR(r.SchemaVersion(j, "", kProfileSchemaVersion));
  TRN_RETURN_IF_ERROR(r.CheckKeys(j, "", kKeys, "a device profile"));
  DeviceProfile d;
  d.content_hash = Fnv1a64Hex(std::string_view(text.data(), text.size()));
  TRN_ASSIGN_OR_RETURN(const json* name, r.Required(j, "", "name"));
  TRN_ASSIGN_OR_RETURN(d.name, r.NonEmptyString(*name, "/name"));
  TRN_RETURN_IF_ERROR(r.OptionalString(j, "", "description", d.description));
  TRN_RETURN_IF_ERROR(r.OptionalBool(j, "", "calibrated", d.calibrated));
  TRN_ASSIGN_OR_RETURN(const json* params, r.Required(j, "", "parameters"));
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    for (const auto& p : kParams)
      names.emplace_back(p.key.data(), p.key.size());
    return names;
  }();
  TRN_RETURN_IF_ERROR(
      r.CheckKeys(*params, "/parameters", kNames, "the parameters"));
  for (const auto& spec : kParams) {
    const std::string_view key(spec.key.data(), spec.key.size());
    const json* param = JsonReader::Optional(*params, key);
    if (param == nullptr && spec.when_absent >= 0) {
      ProfileParam absent;
      absent.dist = QuantileTable::Constant(spec.when_absent);
      absent.unit = std::string(spec.absent_unit);
      absent.source = std::string(spec.absent_source);
      d.params.emplace(spec.key, std::move(absent));
      continue;
    }
    if (param == nullptr) {
      return r.Required(*params, "/parameters", key).status();
    }
    TRN_ASSIGN_OR_RETURN(
        auto value, ParseParam(*param, r, JsonChild("/parameters", key), spec));
    d.params.emplace(spec.key, std::move(value));
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

bool IsCountParam(absl::string_view key) {
  const ParamSpec* spec = FindParamSpec(key);
  return spec != nullptr && spec->integer;
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
  // The figures were fitted to the old value, not to this one.
  param.fitted_on.clear();
  TRN_RETURN_IF_ERROR(Rebuild(updated, key));
  profile = std::move(updated);
  return absl::OkStatus();
}

}  // namespace trn
