// torch.profiler (Kineto) trace JSON, as written by export_chrome_trace or
// tensorboard_trace_handler: one sample per step (ProfilerStep#N, or a
// named record_function span) of host time, and of device time from the
// device events launched in that step.
#ifndef TRNBENCH_HARNESS_IMPORT_KINETO_TRACE_H_
#define TRNBENCH_HARNESS_IMPORT_KINETO_TRACE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

bool LooksLikeKineto(const nlohmann::json& json);

// One workload from all `inputs`, steps in file order then time order.
// Metrics: wall_time_us (the step span's duration) and, when any device
// event falls in a step, device_time_us (the sum of the durations of the
// device events launched in the step); ops: a key_averages()-like table
// per step, recomputed from the cpu_op events and the device events
// linked to them by "External id".
absl::StatusOr<Imported> ReadKinetoTraces(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_KINETO_TRACE_H_
