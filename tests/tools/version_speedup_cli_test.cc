// `compare OLD NEW --pair A=B`: the model's speed-up of one kernel's new
// version over its old one, and the check of issue 40 item 6 on the NKI
// matmul tutorial's four versions (docs/validation.md, "Speed-ups between
// versions").
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using test::Outcome;
using test::RunTrnbench;
using ::testing::HasSubstr;

std::string Spec(const std::string& name) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/workloads/validation/" + name +
         ".json";
}

// The tutorial's four versions and their published NCL p99 on trn1 (NKI
// tutorial "Matrix multiplication", table of kernel latencies; the same
// figures as workloads/validation/).
struct Version {
  const char* workload;
  double published_ms;
};
constexpr Version kVersions[] = {{"nki_matmul_tiled", 51.80},
                                 {"nki_matmul_hoist_load", 42.96},
                                 {"nki_matmul_block_free", 22.07},
                                 {"nki_matmul_fully_optimized", 6.97}};

// Consecutive speed-ups the model misses by more than ±20% today, as
// measured and explained in docs/validation.md. A listed pair that comes
// within fails the test, so the list can only shrink. Empty since model 12
// (tiled -> hoist_load came within: +17.3%).
const std::set<std::string>& KnownGaps() {
  static const auto* gaps = new std::set<std::string>{};
  return *gaps;
}

TEST(VersionSpeedupCliTest, MatmulTutorialVersionsAgainstPublished) {
  const std::string dir = test::FreshDir("version_speedup");
  std::string specs;
  for (const Version& v : kVersions) specs += " --spec " + Spec(v.workload);
  const Outcome run =
      RunTrnbench(specs + " --repeat 10 --output " + dir + "/four.json");
  ASSERT_EQ(run.code, 0) << run.err;
  std::string pairs;
  for (size_t i = 1; i < std::size(kVersions); ++i) {
    pairs += std::string(" --pair ") + kVersions[i - 1].workload + "=" +
             kVersions[i].workload;
  }
  const std::string files = dir + "/four.json " + dir + "/four.json";
  const Outcome c = RunTrnbench("compare " + files + pairs + " --format json");
  ASSERT_EQ(c.code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  ASSERT_EQ(j["schema"], "trnbench.speedups");
  ASSERT_EQ(j["pairs"].size(), std::size(kVersions) - 1);
  std::printf("%-50s %9s %9s %8s  %s\n", "pair", "published", "model", "error",
              "model interval");
  for (size_t i = 1; i < std::size(kVersions); ++i) {
    const auto& p = j["pairs"][i - 1];
    const std::string key =
        std::string(kVersions[i - 1].workload) + "=" + kVersions[i].workload;
    EXPECT_EQ(p["old"], kVersions[i - 1].workload);
    EXPECT_EQ(p["new"], kVersions[i].workload);
    const double published =
        kVersions[i - 1].published_ms / kVersions[i].published_ms;
    const double model = p["ratio"];
    const double error = model / published - 1;
    std::printf("%-50s %8.3fx %8.3fx %+7.1f%%  [%.3fx, %.3fx]\n", key.c_str(),
                published, model, 100 * error, p["ci_low"].get<double>(),
                p["ci_high"].get<double>());
    EXPECT_LE(p["ci_low"].get<double>(), model);
    EXPECT_GE(p["ci_high"].get<double>(), model);
    const bool within = std::abs(error) <= 0.20;
    if (KnownGaps().count(key) > 0) {
      EXPECT_FALSE(within) << key << " is now within ±20% (" << 100 * error
                           << "%): take it off the known gaps here and in "
                              "docs/validation.md";
    } else {
      EXPECT_TRUE(within) << key << ": model " << model << "x, published "
                          << published << "x (" << 100 * error << "%)";
    }
  }
  // The same figures on the console.
  const Outcome table = RunTrnbench("compare " + files + pairs);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(
      table.out,
      HasSubstr("nki_matmul_block_free -> nki_matmul_fully_optimized: "));
  EXPECT_THAT(table.out, HasSubstr("percentile bootstrap"));
}

TEST(VersionSpeedupCliTest, BadPairsAreBadInput) {
  const std::string dir = test::FreshDir("version_speedup_bad");
  const Outcome run = RunTrnbench("--spec " + Spec("nki_matmul_tiled") +
                                  " --repeat 5 --output " + dir + "/one.json");
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string files = dir + "/one.json " + dir + "/one.json";
  const Outcome missing =
      RunTrnbench("compare " + files + " --pair nki_matmul_tiled=nope");
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("has no workload nope"));
  EXPECT_TRUE(missing.out.empty());
  for (const char* bad : {"a", "=b", "a=", "a=b=c"}) {
    const Outcome o = RunTrnbench("compare " + files + " --pair " + bad);
    EXPECT_EQ(o.code, 2) << bad;
    EXPECT_THAT(o.err, HasSubstr("--pair")) << bad;
  }
  // A pair with itself: a speed-up of exactly 1.
  const Outcome same = RunTrnbench("compare " + files +
                                   " --pair nki_matmul_tiled=nki_matmul_tiled");
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_THAT(same.out,
              HasSubstr("nki_matmul_tiled -> nki_matmul_tiled: 1.00x"));
}

}  // namespace
}  // namespace trn
