#include "harness/import/neuron_bench.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "harness/import/measurement_json.h"
#include "support/status_macros.h"

namespace trn::import {
namespace {

bool IsPercentileTable(const nlohmann::json& j) {
  return j.is_object() && !j.empty() &&
         std::all_of(j.items().begin(), j.items().end(), [](const auto& kv) {
           double p = 0;
           std::string k = kv.key();
           if (!k.empty() && k[0] == 'p') k = k.substr(1);
           return absl::SimpleAtod(k, &p);
         });
}

// The per-iteration latencies of a latency_data file: every array of its
// "latency_data" object, in key order (numeric keys numerically).
absl::StatusOr<std::vector<double>> LatencySamples(const ParsedInput& in) {
  const std::string& file = in.file->path;
  const nlohmann::json& data = in.json["latency_data"];
  if (!data.is_object() || data.empty()) {
    return BadInput(file, "/latency_data",
                    "expected an object of per-iteration latency arrays");
  }
  std::vector<std::pair<std::string, const nlohmann::json*>> series;
  for (const auto& [key, value] : data.items())
    series.emplace_back(key, &value);
  std::stable_sort(
      series.begin(), series.end(), [](const auto& a, const auto& b) {
        int64_t x = 0;
        int64_t y = 0;
        if (absl::SimpleAtoi(a.first, &x) && absl::SimpleAtoi(b.first, &y)) {
          return x < y;
        }
        return a.first < b.first;
      });
  std::vector<double> out;
  for (const auto& [key, values] : series) {
    const std::string p = absl::StrCat("/latency_data/", key);
    if (!values->is_array()) {
      return BadInput(file, p, "expected an array of latencies");
    }
    for (size_t i = 0; i < values->size(); ++i) {
      const nlohmann::json& x = (*values)[i];
      if (!x.is_number() || !std::isfinite(x.get<double>()) ||
          x.get<double>() < 0) {
        return BadInput(file, absl::StrCat(p, "/", i),
                        "expected a latency in microseconds of at least 0");
      }
      out.push_back(x.get<double>());
    }
  }
  if (out.empty()) {
    return BadInput(file, "/latency_data", "expected at least one latency");
  }
  return out;
}

MetricResult* FindOrAdd(ImportedWorkload& w, absl::string_view name) {
  for (auto& m : w.metrics) {
    if (m.name == name) return &m;
  }
  w.metrics.push_back(MeasuredMetric(name, {}));
  return &w.metrics.back();
}

}  // namespace

bool LooksLikeNeuronBench(const nlohmann::json& json) {
  if (!json.is_object()) return false;
  if (json.contains("latency_data")) return true;
  for (const char* key : {"nc_latency", "latency"}) {
    auto it = json.find(key);
    if (it != json.end() && IsPercentileTable(*it)) return true;
  }
  return false;
}

absl::StatusOr<Imported> ReadNeuronBench(const std::vector<ParsedInput>& inputs,
                                         const ImportOptions& options) {
  Imported out;
  out.tool = "neuron-bench";
  ImportedWorkload w;
  w.name = options.workload;
  const ParsedInput* summary = nullptr;
  int summaries = 0;
  for (const ParsedInput& in : inputs) {
    const std::string& file = in.file->path;
    if (!LooksLikeNeuronBench(in.json)) {
      return BadInput(file, "/",
                      "expected a neuron-bench file: latency_data "
                      "(nc_latency_data.json, latency_data.json) or the "
                      "nc_latency / latency percentiles of info.json");
    }
    if (in.json.contains("latency_data")) {
      TRN_ASSIGN_OR_RETURN(std::vector<double> samples, LatencySamples(in));
      // The file's name says which latency it holds.
      const std::string base = std::filesystem::path(file).filename().string();
      const char* metric = base.rfind("nc_", 0) == 0 ? "ncl_us" : "latency_us";
      auto& s = FindOrAdd(w, metric)->samples;
      s.insert(s.end(), samples.begin(), samples.end());
      continue;
    }
    ++summaries;
    summary = &in;
    if (auto t = in.json.find("throughput"); t != in.json.end()) {
      TRN_ASSIGN_OR_RETURN(double x,
                           NumberField(in.json, file, "", "throughput"));
      FindOrAdd(w, "throughput_per_s")->samples.push_back(x);
    }
    for (const char* key : {"instance_type", "neuron_version", "tools_version",
                            "runtime_version"}) {
      auto v = in.json.find(key);
      if (v == in.json.end() || !v->is_string()) continue;
      std::string& field = absl::string_view(key) == "instance_type"
                               ? out.instance_type
                               : out.tool_version;
      if (field.empty()) field = v->get<std::string>();
    }
  }
  for (const char* key : {"nc_latency", "latency"}) {
    const char* metric =
        absl::string_view(key) == "nc_latency" ? "ncl_us" : "latency_us";
    if (summary == nullptr || !summary->json.contains(key)) continue;
    bool has_samples = false;
    for (const auto& m : w.metrics) {
      has_samples = has_samples || (m.name == metric && !m.samples.empty());
    }
    if (has_samples) continue;  // samples say more than their percentiles
    if (summaries > 1) {
      return BadInput(summary->file->path, absl::StrCat("/", key),
                      "expected the per-iteration latency_data files: the "
                      "percentiles of several runs cannot be pooled");
    }
    TRN_ASSIGN_OR_RETURN(
        auto table, PercentilesFromJson(summary->json[key], summary->file->path,
                                        absl::StrCat("/", key)));
    FindOrAdd(w, metric)->percentiles = std::move(table);
  }
  if (w.metrics.empty()) {
    return BadInput(inputs.front().file->path, "/",
                    "expected latencies or a throughput");
  }
  out.workloads.push_back(std::move(w));
  return out;
}

}  // namespace trn::import
