// `trnbench profile` output: the device summary, roofline and findings of
// each workload as text, and the same as a JSON document
// (docs/profile.md).
#ifndef TRNBENCH_REPORTS_PROFILE_REPORT_H_
#define TRNBENCH_REPORTS_PROFILE_REPORT_H_

#include <string>

#include "harness/profile/profile_analysis.h"
#include "nlohmann/json.hpp"

namespace trn {

inline constexpr int kProfileReportSchemaVersion = 1;

std::string RenderProfileText(const ProfileReport& report);

nlohmann::ordered_json ProfileToJson(const ProfileReport& report);
// Pretty-printed, newline-terminated; byte-identical for identical input.
std::string ProfileToJsonText(const ProfileReport& report);

// The warning an uncalibrated device profile carries in every output.
std::string UncalibratedWarning(const std::string& device);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_PROFILE_REPORT_H_
