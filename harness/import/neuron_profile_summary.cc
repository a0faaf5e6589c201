#include "harness/import/neuron_profile_summary.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "support/json_reader.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn::import {
namespace {

// Field of the summary -> metric, and the factor to the metric's unit.
struct Field {
  const char* key;
  const char* metric;
  double scale;
  bool fraction;  // a share that must lie in [0, 1]
};

constexpr Field kFields[] = {
    {"total_time", "device_time_us", 1e6, false},
    {"tensor_engine_active_time", "tensor_busy_us", 1e6, false},
    {"vector_engine_active_time", "vector_busy_us", 1e6, false},
    {"scalar_engine_active_time", "scalar_busy_us", 1e6, false},
    {"gpsimd_engine_active_time", "gpsimd_busy_us", 1e6, false},
    {"tensor_engine_active_time_percent", "tensor_util", 1, true},
    {"vector_engine_active_time_percent", "vector_util", 1, true},
    {"scalar_engine_active_time_percent", "scalar_util", 1, true},
    {"gpsimd_engine_active_time_percent", "gpsimd_util", 1, true},
    {"dma_active_time", "dma_active_us", 1e6, false},
    {"dma_transfer_total_bytes", "dma_bytes", 1, false},
    {"mfu_estimated_percent", "mfu", 1, true},
    {"mbu_estimated_percent", "mbu", 1, true},
    {"hbm_read_bytes", "hbm_read_bytes", 1, false},
    {"hbm_write_bytes", "hbm_write_bytes", 1, false},
};

}  // namespace

bool LooksLikeNeuronProfileSummary(const nlohmann::json& json) {
  if (!json.is_object() || json.empty()) return false;
  for (const auto& [key, value] : json.items()) {
    if (!value.is_object() || !value.contains("total_time")) return false;
  }
  return true;
}

absl::StatusOr<Imported> ReadNeuronProfileSummaries(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options) {
  Imported out;
  out.tool = "neuron-profile";
  std::vector<std::vector<double>> values(std::size(kFields));
  std::vector<bool> everywhere(std::size(kFields), true);
  size_t executions = 0;
  for (const ParsedInput& in : inputs) {
    const std::string& file = in.file->path;
    const JsonReader r(file);
    if (!in.json.is_object() || in.json.empty()) {
      return BadInput(file, "/",
                      "expected an object of execution summaries keyed by "
                      "NEFF node (neuron-profile view --output-format "
                      "summary-json)");
    }
    for (const auto& [node, summary] : in.json.items()) {
      const std::string p = "/" + EscapeJsonPointerToken(node);
      TRN_RETURN_IF_ERROR(r.Object(summary, p, "an execution summary object"));
      ++executions;
      for (size_t f = 0; f < std::size(kFields); ++f) {
        const Field& field = kFields[f];
        // total_time is the sample itself; the rest are optional.
        if (f > 0 && !summary.contains(field.key)) {
          everywhere[f] = false;
          continue;
        }
        TRN_ASSIGN_OR_RETURN(
            double x,
            NumberField(summary, file, p, field.key,
                        {.min = 0,
                         .max = field.fraction
                                    ? 1.0
                                    : std::numeric_limits<double>::infinity()},
                        field.fraction
                            ? "a fraction from 0 to 1 (summary-json writes "
                              "percents as fractions)"
                            : "a value of at least 0"));
        values[f].push_back(x * field.scale);
      }
      for (const char* key : {"instance_type", "explorer_version",
                              "profiler_version", "runtime_version"}) {
        auto v = summary.find(key);
        if (v == summary.end() || !v->is_string()) continue;
        std::string& into = absl::string_view(key) == "instance_type"
                                ? out.instance_type
                                : out.tool_version;
        if (into.empty()) into = v->get<std::string>();
      }
    }
  }
  ImportedWorkload w;
  w.name = options.workload;
  for (size_t f = 0; f < std::size(kFields); ++f) {
    if (!everywhere[f] || values[f].size() != executions) continue;
    w.metrics.push_back(MeasuredMetric(kFields[f].metric, values[f]));
  }
  out.workloads.push_back(std::move(w));
  return out;
}

}  // namespace trn::import
