// What every reader of measured files returns: the tool's workloads with
// their samples (or, for a summary without samples, percentiles), before
// they become a results document.
#ifndef TRNBENCH_HARNESS_IMPORT_IMPORTED_H_
#define TRNBENCH_HARNESS_IMPORT_IMPORTED_H_

#include <string>
#include <string_view>
#include <vector>

#include "harness/import/measured_file.h"
#include "harness/runner/results.h"
#include "nlohmann/json.hpp"
#include "support/json_reader.h"

namespace trn::import {

struct ImportOptions {
  // Name of the workload for formats that hold one (Kineto, neuron-bench,
  // neuron-profile, nki.benchmark); empty: the first file's name.
  std::string workload;
  // Kineto event categories that count as device time. Neuron's are not
  // documented; CUDA, ROCm and other PrivateUse1 backends use these.
  std::vector<std::string> device_categories = {"kernel", "gpu_memcpy",
                                                "gpu_memset"};
  // Name of the record_function span that marks one iteration; empty:
  // torch.profiler's ProfilerStep#N.
  std::string step_span;
};

struct ImportedWorkload {
  std::string name;  // as the tool names it
  std::vector<MetricResult> metrics;
  std::vector<OpResult> ops;
};

struct Imported {
  std::string tool;
  std::string tool_version;   // empty when the files do not say
  std::string instance_type;  // empty when the files do not say
  std::vector<ImportedWorkload> workloads;
};

// One input as a reader sees it: the file, and its JSON when it is JSON.
struct ParsedInput {
  const MeasuredFile* file = nullptr;
  nlohmann::json json;
};

// A metric named `name` (unit and direction from the metric tables) with
// these samples in measurement order.
MetricResult MeasuredMetric(absl::string_view name,
                            std::vector<double> samples);

// The number at `obj[key]` (`obj` at `pointer`) as a double within
// `bounds`; an error naming file and pointer when it is missing, not a
// number (a JSON null included) or out of bounds ("expected <expected>,
// got ...").
absl::StatusOr<double> NumberField(const nlohmann::json& obj,
                                   absl::string_view file,
                                   const std::string& pointer, const char* key,
                                   const NumberBounds& bounds = {},
                                   std::string_view expected = "a number");

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_IMPORTED_H_
