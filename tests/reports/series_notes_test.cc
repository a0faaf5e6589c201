// Every output of a run says when a metric's samples are autocorrelated,
// drift or are bimodal (issue 12): console, markdown and the results JSON.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/console_report.h"
#include "reports/json_results.h"
#include "reports/report_builder.h"
#include "reports/report_doc.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

TEST(SeriesNotesTest, AnAutocorrelatedMetricIsNamedInEveryOutput) {
  RunResult run = report_test::MakeRun("rmsnorm_fused", 100);
  ASSERT_EQ(run.workloads.size(), 1u);
  for (MetricResult& m : run.workloads[0].metrics) {
    if (m.name != "device_time_us") continue;
    // A run that warms up: device time creeps up 8% from the first repeat
    // to the last (thermal drift), which also correlates neighbours.
    for (size_t i = 0; i < m.samples.size(); ++i) {
      m.samples[i] *= std::exp(0.08 * static_cast<double>(i) / 99.0);
    }
    m.summary = stats::Summarize(m.samples, run.confidence);
    ASSERT_TRUE(m.summary.series.autocorrelated);
  }
  const std::string console = RenderConsoleReport(run);
  EXPECT_THAT(console, HasSubstr("note: rmsnorm_fused device_time_us "
                                 "autocorrelated: \xCF\x81\xCC\x82 0."));
  EXPECT_THAT(console,
              HasSubstr("note: rmsnorm_fused device_time_us drift: +"));
  ReportInputs in;
  in.run = &run;
  const std::string md = RenderMarkdown(BuildReport(in));
  EXPECT_THAT(md, HasSubstr("autocorrelated: \xCF\x81\xCC\x82 0."));
  EXPECT_THAT(md, HasSubstr("drift: +"));
  const std::string json = ResultsToJsonText(run, nullptr);
  EXPECT_THAT(json, HasSubstr("\"autocorrelated\": true"));
  EXPECT_THAT(json, HasSubstr("effective n "));
}

}  // namespace
}  // namespace trn
