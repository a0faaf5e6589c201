// neuron-profile's `view --output-format summary-json`: an object keyed by
// the NEFF node, one summary per captured execution. Each execution is one
// sample: device time from total_time (seconds), engine active times and
// their shares (fractions in this format), DMA activity, MFU, MBU and HBM
// bytes; instance type and versions as provenance.
#ifndef TRNBENCH_HARNESS_IMPORT_NEURON_PROFILE_SUMMARY_H_
#define TRNBENCH_HARNESS_IMPORT_NEURON_PROFILE_SUMMARY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

bool LooksLikeNeuronProfileSummary(const nlohmann::json& json);

// One workload from all `inputs`. A metric is imported when every
// execution carries its field.
absl::StatusOr<Imported> ReadNeuronProfileSummaries(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_NEURON_PROFILE_SUMMARY_H_
