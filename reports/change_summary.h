// The compact "what changed" of a comparison, in GitHub-flavoured markdown,
// for a pull request or a CI job page (--summary FILE, $GITHUB_STEP_SUMMARY):
// the verdict line, every comparison that is not unchanged with its change,
// interval and adjusted p, and the likely cause (what differs between the
// baseline and the run). A few KB for the shipped suite; the full report is
// --report-dir's report.md.
#ifndef TRNBENCH_REPORTS_CHANGE_SUMMARY_H_
#define TRNBENCH_REPORTS_CHANGE_SUMMARY_H_

#include <string>
#include <string_view>
#include <vector>

#include "harness/gate/comparison.h"

namespace trn {

// At most this many rows are listed; the rest are counted.
inline constexpr size_t kSummaryMaxRows = 40;

// `title` names the command ("trnbench gate").
std::string RenderChangeSummary(const ComparisonReport& report,
                                std::string_view title);

// The notes of the report that say what differs between the two sides
// (spec, model version, device profile, source), each once with the
// workloads it concerns: the likely causes of a change.
std::vector<std::string> LikelyCauses(const ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CHANGE_SUMMARY_H_
