// The comparison JSON written a row at a time (ComparisonJsonText) is the
// tree's dump, byte for byte.
#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "reports/comparison_report.h"

namespace trn {
namespace {

MetricComparison Row(std::string workload, Verdict verdict,
                     std::vector<std::string> notes) {
  MetricComparison c;
  c.workload = std::move(workload);
  c.metric = "device_time_us";
  c.verdict = verdict;
  c.reason = "a \"quoted\"\nreason";
  c.change = 0.031;
  c.change_interval = {0.02, 0.04, 0.95};
  c.p_adjusted = NAN;
  c.notes = std::move(notes);
  return c;
}

TEST(ComparisonJsonTextTest, IsTheTreesDumpByteForByte) {
  ComparisonReport r;
  r.baseline_source = "baselines/trn1";
  r.comparisons = 3;
  EXPECT_EQ(ComparisonJsonText(r), ComparisonToJson(r).dump(2) + "\n");
  r.rows = {Row("w1", Verdict::kRegression, {}),
            Row("w2", Verdict::kUnchanged, {"drift: +1%", "bimodal"}),
            Row("w3", Verdict::kInconclusive, {"one note"})};
  EXPECT_EQ(ComparisonJsonText(r), ComparisonToJson(r).dump(2) + "\n");
  r.rows.resize(1);
  EXPECT_EQ(ComparisonJsonText(r), ComparisonToJson(r).dump(2) + "\n");
}

}  // namespace
}  // namespace trn
