// Google Benchmark's JSON output (--benchmark_format=json or
// --benchmark_out): each repetition is a sample; aggregates, errored and
// skipped entries are dropped.
#ifndef TRNBENCH_HARNESS_IMPORT_GOOGLE_BENCHMARK_JSON_H_
#define TRNBENCH_HARNESS_IMPORT_GOOGLE_BENCHMARK_JSON_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

// True when `json` looks like Google Benchmark output.
bool LooksLikeGoogleBenchmark(const nlohmann::json& json);

absl::StatusOr<Imported> ReadGoogleBenchmark(
    const std::vector<ParsedInput>& inputs);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_GOOGLE_BENCHMARK_JSON_H_
