// One threshold rule for every command (issue 12): a spec's
// noise_threshold is recorded in the results file and `compare OLD NEW`
// applies it, and the header says so.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using test::Outcome;
using test::RunTrnbench;
using test::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ThresholdCliTest, CompareAppliesTheRecordedSpecThreshold) {
  const std::string dir = ::testing::TempDir() + "/threshold_cli";
  std::filesystem::create_directories(dir);
  std::string spec = Slurp(std::string(TRNBENCH_SOURCE_DIR) +
                           "/workloads/specs/rmsnorm_fused.json");
  const auto brace = spec.find('{');
  ASSERT_NE(brace, std::string::npos);
  spec.insert(brace + 1, "\n  \"noise_threshold\": 0.1,");
  std::ofstream(dir + "/fused.json", std::ios::binary) << spec;
  for (const char* seed : {"1", "2"}) {
    const Outcome o =
        RunTrnbench("--spec " + dir + "/fused.json --repeat 20 --seed " + seed +
                    " --output " + dir + "/run" + seed + ".json");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  EXPECT_THAT(Slurp(dir + "/run1.json"), HasSubstr("\"noise_threshold\": 0.1"));
  const Outcome c =
      RunTrnbench("compare " + dir + "/run1.json " + dir + "/run2.json");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("threshold ±10.00%"));
  EXPECT_THAT(c.out, Not(HasSubstr("±2.00%")));
}

// Issue 43: a baseline whose provenance records noise_threshold 0.99 (the
// samples' checksum does not cover it) widened the gate to the 20% cap,
// and a vector clock 20% slower (softmax_nki +8.7%) then passed with exit
// 0. A baseline may
// narrow the gate's threshold, never widen it, and the row says so.
TEST(ThresholdCliTest, ABaselineCannotWidenTheGate) {
  const std::string dir = test::FreshDir("threshold_widen");
  std::string baseline = Slurp(std::string(TRNBENCH_SOURCE_DIR) +
                               "/baselines/trn1/softmax_nki.json");
  const auto at = baseline.find("\"provenance\": {");
  ASSERT_NE(at, std::string::npos);
  baseline.insert(at + 15, "\n    \"noise_threshold\": 0.99,");
  std::ofstream(dir + "/softmax_nki.json", std::ios::binary) << baseline;
  const Outcome o =
      RunTrnbench("gate --workload softmax_nki --baseline " + dir +
                  "/softmax_nki.json --repeat 100 --set "
                  "vector_clock_ghz=0.896");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("regression"));
  EXPECT_THAT(o.out, HasSubstr("records noise_threshold 0.99, wider than "
                               "--threshold 2.00%: a baseline may narrow the "
                               "threshold, never widen it; 2.00% applies"));
  EXPECT_THAT(o.out, Not(HasSubstr("20.00%")));
}

}  // namespace
}  // namespace trn
