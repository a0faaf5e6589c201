// `trnbench validate --measured` and `trnbench calibrate` as text and JSON.
#ifndef TRNBENCH_REPORTS_MEASURED_VALIDATION_REPORT_H_
#define TRNBENCH_REPORTS_MEASURED_VALIDATION_REPORT_H_

#include <string>
#include <vector>

#include "harness/validation/measured_validation.h"
#include "nlohmann/json.hpp"

namespace trn {

std::string RenderMeasuredValidation(
    const std::vector<MeasuredValidation>& validations);
nlohmann::ordered_json MeasuredValidationToJson(
    const std::vector<MeasuredValidation>& validations);

std::string RenderCalibration(const CalibrationResult& result);
nlohmann::ordered_json CalibrationToJson(const CalibrationResult& result);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_MEASURED_VALIDATION_REPORT_H_
