#include "harness/import/google_benchmark_json.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "support/status_macros.h"

namespace trn::import {
namespace {

// Microseconds per unit of Google Benchmark's "time_unit".
absl::StatusOr<double> MicrosecondsPer(const nlohmann::json& entry,
                                       const std::string& file,
                                       const std::string& pointer) {
  auto it = entry.find("time_unit");
  // Google Benchmark's default unit, written by every version that
  // writes the field at all.
  if (it == entry.end()) return 1e-3;
  if (it->is_string()) {
    const std::string u = it->get<std::string>();
    if (u == "ns") return 1e-3;
    if (u == "us") return 1.0;
    if (u == "ms") return 1e3;
    if (u == "s") return 1e6;
  }
  return BadInput(file, pointer + "/time_unit",
                  "expected \"ns\", \"us\", \"ms\" or \"s\"");
}

bool Flag(const nlohmann::json& entry, const char* key) {
  auto it = entry.find(key);
  if (it == entry.end()) return false;
  // "skipped" is a boolean in some versions and a skip message in others.
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return !it->get<std::string>().empty();
  return !it->is_null();
}

}  // namespace

bool LooksLikeGoogleBenchmark(const nlohmann::json& json) {
  return json.is_object() && json.contains("benchmarks") &&
         json["benchmarks"].is_array();
}

absl::StatusOr<Imported> ReadGoogleBenchmark(
    const std::vector<ParsedInput>& inputs) {
  Imported out;
  out.tool = "google-benchmark";
  for (const ParsedInput& in : inputs) {
    const std::string& file = in.file->path;
    const nlohmann::json& j = in.json;
    if (!LooksLikeGoogleBenchmark(j)) {
      return BadInput(file, "/benchmarks",
                      "expected an array of benchmark runs (Google "
                      "Benchmark JSON output)");
    }
    if (auto ctx = j.find("context"); ctx != j.end() && ctx->is_object()) {
      auto v = ctx->find("library_version");
      if (v != ctx->end() && v->is_string() && out.tool_version.empty()) {
        out.tool_version = v->get<std::string>();
      }
    }
    const nlohmann::json& runs = j["benchmarks"];
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string p = absl::StrCat("/benchmarks/", i);
      const nlohmann::json& r = runs[i];
      if (!r.is_object()) return BadInput(file, p, "expected an object");
      auto type = r.find("run_type");
      if (type != r.end() && type->is_string() &&
          type->get<std::string>() == "aggregate") {
        continue;  // mean, median, stddev, BigO...: not a sample
      }
      if (Flag(r, "error_occurred") || Flag(r, "skipped")) continue;
      std::string name;
      for (const char* key : {"run_name", "name"}) {
        auto n = r.find(key);
        if (n != r.end() && n->is_string()) {
          name = n->get<std::string>();
          break;
        }
      }
      if (name.empty()) {
        return BadInput(file, p + "/name", "expected the benchmark's name");
      }
      TRN_ASSIGN_OR_RETURN(const double us, MicrosecondsPer(r, file, p));
      TRN_ASSIGN_OR_RETURN(double real, NumberField(r, file, p, "real_time"));
      TRN_ASSIGN_OR_RETURN(double cpu, NumberField(r, file, p, "cpu_time"));
      if (real < 0 || cpu < 0) {
        return BadInput(file, p + (real < 0 ? "/real_time" : "/cpu_time"),
                        "expected a time of at least 0");
      }
      ImportedWorkload* w = nullptr;
      for (auto& existing : out.workloads) {
        if (existing.name == name) w = &existing;
      }
      if (w == nullptr) {
        out.workloads.push_back({name,
                                 {MeasuredMetric("wall_time_us", {}),
                                  MeasuredMetric("cpu_time_us", {})},
                                 {}});
        w = &out.workloads.back();
      }
      w->metrics[0].samples.push_back(real * us);
      w->metrics[1].samples.push_back(cpu * us);
    }
  }
  if (out.workloads.empty()) {
    return BadInput(inputs.front().file->path, "/benchmarks",
                    "expected at least one benchmark run that is not an "
                    "aggregate, an error or skipped");
  }
  return out;
}

}  // namespace trn::import
