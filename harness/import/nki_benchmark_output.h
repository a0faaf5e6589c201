// What nki.benchmark prints when it has run neuron-bench: a table with the
// end-to-end latency percentiles L(p), the NeuronCore latency percentiles
// NCL(p) (p from 0 to 100, microseconds) and the throughput INF/S. It is a
// summary without samples: medians and other percentiles can be set side
// by side, but no rank test and no interval of a change can be computed.
#ifndef TRNBENCH_HARNESS_IMPORT_NKI_BENCHMARK_OUTPUT_H_
#define TRNBENCH_HARNESS_IMPORT_NKI_BENCHMARK_OUTPUT_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

// True when `text` holds a header with NCL(p) or L(p) columns.
bool LooksLikeNkiBenchmarkOutput(absl::string_view text);

// One workload from the one result row of all `inputs`: ncl_us and
// latency_us as percentiles, throughput_per_s as one sample.
absl::StatusOr<Imported> ReadNkiBenchmarkOutput(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_NKI_BENCHMARK_OUTPUT_H_
