#include "harness/import/google_benchmark_json.h"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "support/input_error.h"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn::import {
namespace {

// Microseconds per unit of Google Benchmark's "time_unit".
absl::StatusOr<double> MicrosecondsPer(const nlohmann::json& entry,
                                       const JsonReader& r,
                                       const std::string& pointer) {
  const nlohmann::json* unit = JsonReader::Optional(entry, "time_unit");
  // Google Benchmark's default unit, written by every version that
  // writes the field at all.
  if (unit == nullptr) return 1e-3;
  static constexpr std::string_view kUnits[] = {"ns", "us", "ms", "s"};
  static constexpr double kMicroseconds[] = {1e-3, 1.0, 1e3, 1e6};
  TRN_ASSIGN_OR_RETURN(const size_t i, r.Enum(*unit, {pointer, "time_unit"},
                                              "time_unit", kUnits));
  return kMicroseconds[i];
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
    const JsonReader r(file);
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
      const std::string p = JsonChild("/benchmarks", i);
      const nlohmann::json& run = runs[i];
      TRN_RETURN_IF_ERROR(r.Object(run, p));
      auto type = run.find("run_type");
      if (type != run.end() && type->is_string() &&
          type->get<std::string>() == "aggregate") {
        continue;  // mean, median, stddev, BigO...: not a sample
      }
      if (Flag(run, "error_occurred") || Flag(run, "skipped")) continue;
      std::string name;
      for (const char* key : {"run_name", "name"}) {
        auto n = run.find(key);
        if (n != run.end() && n->is_string()) {
          name = n->get<std::string>();
          break;
        }
      }
      if (name.empty()) {
        return BadInput(file, p + "/name", "expected the benchmark's name");
      }
      TRN_ASSIGN_OR_RETURN(const double us, MicrosecondsPer(run, r, p));
      // A time of 0 (a run faster than the clock, rounded) is no
      // measurement, and the results reader refuses it.
      constexpr NumberBounds kTime{.min = 0, .min_open = true};
      constexpr std::string_view kExpected = "a time > 0";
      TRN_ASSIGN_OR_RETURN(double real, NumberField(run, file, p, "real_time",
                                                    kTime, kExpected));
      TRN_ASSIGN_OR_RETURN(
          double cpu, NumberField(run, file, p, "cpu_time", kTime, kExpected));
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
      for (const auto& [key, t] :
           {std::pair{"real_time", real}, std::pair{"cpu_time", cpu}}) {
        if (!std::isfinite(t * us)) {
          return BadInput(file, JsonChild(p, key),
                          absl::StrCat("expected a time that stays finite in "
                                       "microseconds, got ",
                                       t, " (overflows on conversion)"));
        }
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
