// neuron-bench results: per-iteration latencies (nc_latency_data.json for
// the NeuronCore latency, latency_data.json end to end), and the summary
// (info.json: percentiles of both and the throughput).
#ifndef TRNBENCH_HARNESS_IMPORT_NEURON_BENCH_H_
#define TRNBENCH_HARNESS_IMPORT_NEURON_BENCH_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

bool LooksLikeNeuronBench(const nlohmann::json& json);

// One workload from all `inputs` (files of one or several runs): samples
// of ncl_us and latency_us from the *latency_data.json files, pooled in the
// order given; a summary's percentiles for a metric that has no samples
// (only from one info.json: percentiles of two runs cannot be pooled); one
// throughput_per_s sample per info.json. Latencies are in microseconds,
// as neuron-bench prints them.
absl::StatusOr<Imported> ReadNeuronBench(const std::vector<ParsedInput>& inputs,
                                         const ImportOptions& options);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_NEURON_BENCH_H_
