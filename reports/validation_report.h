// `trnbench validate` output: published figures beside the model's, as a
// terminal table, a markdown table with sources, or versioned JSON
// (docs/validation.md).
#ifndef TRNBENCH_REPORTS_VALIDATION_REPORT_H_
#define TRNBENCH_REPORTS_VALIDATION_REPORT_H_

#include <string>

#include "harness/validation/validation.h"
#include "nlohmann/json.hpp"

namespace trn {

std::string ValidationTable(const ValidationResult& result);
std::string ValidationMarkdown(const ValidationResult& result);
nlohmann::ordered_json ValidationToJson(const ValidationResult& result);
// Pretty-printed, newline-terminated; byte-identical for identical results.
// With `training` (docs/validation.md, "Training figures"), its figures and
// totals under "training".
std::string ValidationJsonText(const ValidationResult& result,
                               const ValidationResult* training = nullptr);
// The line above the training figures' table.
std::string TrainingHeading();

}  // namespace trn

#endif  // TRNBENCH_REPORTS_VALIDATION_REPORT_H_
