// A comparison with baselines as JUnit XML, the test-report format CI
// systems (Jenkins, GitLab, GitHub test reporters) display natively
// (docs/reports.md).
#ifndef TRNBENCH_REPORTS_JUNIT_REPORT_H_
#define TRNBENCH_REPORTS_JUNIT_REPORT_H_

#include <string>

#include "harness/gate/comparison.h"

namespace trn {

// One <testsuite> per workload, one <testcase> per workload x metric
// comparison (classname "trnbench.<workload>", name the metric). A
// regression is a <failure> whose message is the verdict's reason; an
// inconclusive or new comparison is <skipped> with its reason (the gate
// does not fail on it, but nothing was shown either); unchanged and improved
// pass. Every test case carries the figures in <system-out>.
std::string JunitXml(const ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_JUNIT_REPORT_H_
