// The likely cause of a regression names the profile parameters that
// differ between the baseline and the run, where the tool can know them.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using test::RunTrnbench;
using test::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Baselines() {
  return std::string(TRNBENCH_SOURCE_DIR) + "/baselines/trn1";
}

// Saves the rmsnorm baselines under `dir`/bl with op_exec_overhead_us set
// to 350 (another profile than the shipped one); the exit code.
int SaveBaselineAt350(const std::string& dir) {
  return RunTrnbench(
             "--workload rmsnorm --repeat 30 --set op_exec_overhead_us=350 "
             "--save-baseline " +
             dir + "/bl")
      .code;
}

// The shipped profile gated against `dir`/bl, with fresh seeds.
test::Outcome GateAgainst(const std::string& dir) {
  return RunTrnbench("gate --baseline " + dir +
                     "/bl --workload rmsnorm --fresh-seeds --repeat 30 "
                     "--summary " +
                     dir + "/s.md");
}

// The shipped baselines ran the shipped profile: a --set is exactly the
// difference, named with both values, in the summary, the console and the
// results' comparison notes.
TEST(ProfileCauseTest, ASetParameterIsNamedWithBothValues) {
  const std::string dir = test::FreshDir("profile_cause_set");
  const auto r = RunTrnbench(
      "gate --baseline " + Baselines() +
      " --workload rmsnorm --repeat 30 --set op_exec_overhead_us=410 "
      "--summary " +
      dir + "/s.md --output " + dir + "/r.json");
  ASSERT_EQ(r.code, 1) << r.err;
  const std::string named =
      "profile parameters that differ: op_exec_overhead_us 387.4 us -> 410 "
      "us (--set)";
  EXPECT_THAT(r.out, HasSubstr(named));
  const std::string summary = Slurp(dir + "/s.md");
  EXPECT_THAT(summary, HasSubstr("**Likely cause**"));
  EXPECT_THAT(summary, HasSubstr("op\\_exec\\_overhead\\_us 387.4 us -\\> 410 "
                                 "us (--set)"));
  const auto j = nlohmann::json::parse(Slurp(dir + "/r.json"));
  EXPECT_THAT(j["comparison"].dump(), HasSubstr(named));
}

// A baseline saved under a --set records the parameters it ran with: the
// gate names what moved (here the --set of the baseline's side, so no
// "(--set)" on this run's).
TEST(ProfileCauseTest, ABaselinesRecordedParametersAreCompared) {
  const std::string dir = test::FreshDir("profile_cause_other");
  ASSERT_EQ(SaveBaselineAt350(dir), 0);
  const auto saved =
      nlohmann::json::parse(Slurp(dir + "/bl/rmsnorm_naive.json"));
  EXPECT_EQ(saved["device"]["params"]["op_exec_overhead_us"], 350.0);
  const auto r = GateAgainst(dir);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("profile parameters that differ: "
                               "op_exec_overhead_us 350 us -> 387.4 us"));
  EXPECT_THAT(r.out, Not(HasSubstr("(--set)")));
}

// An edited profile file (--profiles-dir), not a --set: the parameter that
// moved is named all the same.
TEST(ProfileCauseTest, AnEditedProfileFileIsNamedByParameter) {
  const std::string dir = test::FreshDir("profile_cause_edited");
  std::filesystem::create_directories(dir + "/profiles");
  auto profile = nlohmann::json::parse(Slurp(
      std::string(TRNBENCH_SOURCE_DIR) + "/device_model/profiles/trn1.json"));
  for (auto& q : profile["parameters"]["op_exec_overhead_us"]["quantiles"]) {
    q[1] = q[1].get<double>() + 20.0;  // 387.4 -> 407.4 at the median
  }
  std::ofstream(dir + "/profiles/trn1.json") << profile.dump(2);
  ASSERT_EQ(RunTrnbench("--workload rmsnorm --repeat 30 --profiles-dir " + dir +
                        "/profiles --save-baseline " + dir + "/bl")
                .code,
            0);
  const auto r = RunTrnbench("gate --baseline " + dir +
                             "/bl --workload rmsnorm --repeat 30");
  EXPECT_THAT(r.out, HasSubstr("profile parameters that differ: "
                               "op_exec_overhead_us 407.4 us -> 387.4 us"));
  EXPECT_THAT(r.out, Not(HasSubstr("(--set)")));
}

// A baseline written before baselines recorded their parameters cannot be
// resolved to them: the note says so and gives both hashes, rather than
// naming the wrong ones.
TEST(ProfileCauseTest, AnUnrecordedProfileIsSaidToBeUnknown) {
  const std::string dir = test::FreshDir("profile_cause_unrecorded");
  ASSERT_EQ(SaveBaselineAt350(dir), 0);
  for (const auto& e : std::filesystem::directory_iterator(dir + "/bl")) {
    auto j = nlohmann::json::parse(Slurp(e.path().string()));
    j["device"].erase("params");
    std::ofstream(e.path()) << j.dump(2);
  }
  const auto r = GateAgainst(dir);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("profile parameters that differ: not recorded; "
                               "the baseline ran a profile other than trn1"));
  EXPECT_THAT(r.out, Not(HasSubstr("(--set)")));
}

// The same profile on both sides: no such note.
TEST(ProfileCauseTest, NoNoteWhenTheProfilesAgree) {
  const auto r = RunTrnbench("gate --baseline " + Baselines() +
                             " --workload rmsnorm --repeat 30");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("profile parameters that differ")));
}

}  // namespace
}  // namespace trn
