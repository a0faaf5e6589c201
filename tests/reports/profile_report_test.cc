// `trnbench profile`'s words: the findings are data in the harness and
// sentences here, with every figure formatted like the rest of the reports.
#include "reports/profile_report.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reports/finding_text.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

WorkloadProfile Profile(const std::string& name, int64_t repeat = 20) {
  const DeviceProfile trn1 = report_test::Trn1();
  RunOptions o;
  o.schedule.repeat = repeat;
  auto p = ProfileWorkload(report_test::Specs(name, trn1).front(), trn1, o);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : WorkloadProfile{};
}

std::string TextOf(const WorkloadProfile& p, const std::string& id) {
  for (const Finding& f : p.findings) {
    if (f.id == id) return FindingText(f, p);
  }
  ADD_FAILURE() << "no finding " << id;
  return "";
}

TEST(FindingTextTest, SaysTheSeedsDiagnosisWithThePredictedFix) {
  const WorkloadProfile p = Profile("exp_tiled");
  const std::string text = TextOf(p, "no_dma_compute_overlap");
  EXPECT_THAT(text,
              HasSubstr("DMA and compute never overlap (0.00% of DMA time)"));
  EXPECT_THAT(text, HasSubstr("with 2 buffers the model predicts"));
  EXPECT_THAT(text, HasSubstr("with DMA overlapping compute for"));
  EXPECT_THAT(TextOf(p, "engines_take_turns"),
              HasSubstr("are busy one at a time"));
  // Byte sizes are decimal, as everywhere in the reports.
  const std::string latency = TextOf(p, "dma_latency_bound");
  EXPECT_THAT(latency,
              HasSubstr("waits on nothing but the completion latency of its 4 "
                        "transfers"));
  EXPECT_THAT(latency, HasSubstr("pieces averaging 16.00 kB,"));
  EXPECT_THAT(latency, Not(HasSubstr("KiB")));
}

TEST(FindingTextTest, EagerRmsNormIsLaunchOverhead) {
  const WorkloadProfile p = Profile("rmsnorm_naive");
  const std::string text = TextOf(p, "launch_overhead");
  EXPECT_THAT(text, HasSubstr("launching 6 hardware executions"));
  EXPECT_THAT(text, HasSubstr("compiled into one graph the model predicts"));
}

TEST(FindingTextTest, AnUnknownFindingStillShowsItsFigures) {
  Finding f;
  f.id = "new_finding";
  f.figures = {{"share", 0.25, Unit::kFraction},
               {"time", 2389.0, Unit::kMicroseconds}};
  EXPECT_EQ(FindingText(f, WorkloadProfile{}),
            "new_finding: share 25.00%, time 2.389 ms.");
}

TEST(ProfileJsonTest, FindingsCarryTheirIdFiguresAndSentence) {
  ProfileReport rep;
  rep.workloads.push_back(Profile("exp_tiled"));
  const nlohmann::json j = nlohmann::json::parse(ProfileToJsonText(rep));
  const auto& findings = j["workloads"][0]["findings"];
  ASSERT_FALSE(findings.empty());
  bool seen = false;
  for (const auto& f : findings) {
    EXPECT_TRUE(f["figures"].is_object()) << f.dump();
    EXPECT_TRUE(f["text"].is_string()) << f.dump();
    if (f["id"] == "no_dma_compute_overlap") {
      seen = true;
      EXPECT_EQ(f["figures"]["overlap"], 0.0);
      EXPECT_EQ(f["what_if"], "double_buffering");
    }
    if (f["id"] == "engines_take_turns") {
      EXPECT_EQ(f["engines"],
                nlohmann::json::array({"vector", "scalar", "gpsimd"}));
    }
  }
  EXPECT_TRUE(seen);
  EXPECT_THAT(RenderProfileText(rep), Not(HasSubstr("KiB")));
}

}  // namespace
}  // namespace trn
