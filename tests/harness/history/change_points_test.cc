#include "harness/history/change_points.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/history/drift.h"

namespace trn::history {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A deterministic wiggle of about +-1 around 0.
std::vector<double> Noise(int n, double scale) {
  std::vector<double> y;
  for (int i = 0; i < n; ++i) {
    y.push_back(scale * std::sin(1.7 * i + 0.3) * std::cos(0.9 * i));
  }
  return y;
}

TEST(NoiseScale, FromDifferencesIgnoresAStepAndASpike) {
  std::vector<double> y = Noise(40, 0.01);
  const double clean = NoiseScaleFromDifferences(y, 1e-9);
  for (int i = 20; i < 40; ++i) y[i] += 0.5;  // a step
  y[10] += 3.0;                               // a spike
  const double dirty = NoiseScaleFromDifferences(y, 1e-9);
  EXPECT_NEAR(dirty, clean, 0.3 * clean);
  EXPECT_GT(clean, 0.002);
}

TEST(NoiseScale, ConstantSeriesGetsTheFloor) {
  EXPECT_EQ(NoiseScaleFromDifferences(std::vector<double>(10, 3.0), 1e-6),
            1e-6);
}

TEST(L1CostTable, MatchesTheDefinition) {
  const std::vector<double> y = {3, 1, 4, 1, 5, 9, 2, 6};
  const L1CostTable t(y);
  for (int s = 0; s < 8; ++s) {
    for (int e = s + 1; e <= 8; ++e) {
      const double m =
          Median(std::vector<double>(y.begin() + s, y.begin() + e));
      double cost = 0;
      for (int i = s; i < e; ++i) cost += std::fabs(y[i] - m);
      EXPECT_DOUBLE_EQ(t.Cost(s, e), cost) << s << " " << e;
    }
  }
}

TEST(SegmentL1, FindsAStepAndIgnoresASpike) {
  std::vector<double> y = Noise(30, 0.001);
  for (int i = 18; i < 30; ++i) y[i] += 0.05;
  y[7] += 0.3;  // one night, far off
  const double scale = NoiseScaleFromDifferences(y, 1e-9);
  EXPECT_THAT(SegmentL1(y, scale, SegmentationOptions{}), ElementsAre(18));
}

TEST(SegmentL1, NothingInNoise) {
  const std::vector<double> y = Noise(40, 0.01);
  EXPECT_THAT(
      SegmentL1(y, NoiseScaleFromDifferences(y, 1e-9), SegmentationOptions{}),
      IsEmpty());
}

TEST(TestShift, LargeShiftIsSignificantSmallIsNot) {
  std::vector<double> y = Noise(20, 0.01);
  for (int i = 10; i < 20; ++i) y[i] += 0.1;
  const double scale = NoiseScaleFromDifferences(y, 1e-9);
  const ShiftTest big = TestShift(y, 0, 10, 20, scale, 20);
  EXPECT_NEAR(big.shift, 0.1, 0.02);
  EXPECT_LT(big.p, 1e-6);
  const std::vector<double> flat = Noise(20, 0.01);
  EXPECT_GT(TestShift(flat, 0, 10, 20, scale, 20).p, 0.05);
}

TEST(TheilSen, SlopeOfALineWithAnOutlier) {
  std::vector<double> y;
  for (int i = 0; i < 11; ++i) y.push_back(2.0 + 0.5 * i);
  y[3] = 100;
  EXPECT_DOUBLE_EQ(TheilSenSlope(y), 0.5);
}

TEST(MannKendall, ExactPValuesOfKendallsS) {
  // Eight rising nights: S = 28, the only permutation that extreme on
  // each side, so p = 2 / 8!.
  const std::vector<double> up = {1, 2, 3, 4, 5, 6, 7, 8};
  const TrendTest t = MannKendall(up);
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.s, 28);
  EXPECT_NEAR(t.p, 2.0 / 40320.0, 1e-15);
  // n = 4, S = 4 (one discordant pair): P(S >= 4) = 4/24 (R's Kendall
  // exact tail: 1 + 3 permutations with at most one inversion).
  const std::vector<double> one_swap = {1, 3, 2, 4};
  const TrendTest u = MannKendall(one_swap);
  EXPECT_EQ(u.s, 4);
  EXPECT_NEAR(u.p, 2.0 * 4.0 / 24.0, 1e-15);
  // Ties use the normal approximation.
  const std::vector<double> ties = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  const TrendTest v = MannKendall(ties);
  EXPECT_FALSE(v.exact);
  EXPECT_LT(v.p, 0.001);
  EXPECT_EQ(MannKendall(std::vector<double>(8, 1.0)).p, 1.0);
}

}  // namespace
}  // namespace trn::history
