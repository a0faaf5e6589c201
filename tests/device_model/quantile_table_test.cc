#include "device_model/quantile_table.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

using Points = std::vector<std::pair<double, double>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void ExpectRejected(const Points& points) {
  auto t = QuantileTable::FromPoints(points);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(t.status().message().empty());
}

TEST(QuantileTableFromPointsTest, RejectsTooFewPoints) {
  ExpectRejected({});
  ExpectRejected({{0.0, 1.0}});
}

TEST(QuantileTableFromPointsTest, RejectsMissingPZero) {
  ExpectRejected({{0.01, 1.0}, {0.5, 2.0}, {1.0, 3.0}});
}

TEST(QuantileTableFromPointsTest, RejectsMissingPOne) {
  ExpectRejected({{0.0, 1.0}, {0.5, 2.0}, {0.99, 3.0}});
}

TEST(QuantileTableFromPointsTest, RejectsDecreasingValues) {
  ExpectRejected({{0.0, 2.0}, {1.0, 1.0}});
  ExpectRejected({{0.0, 1.0}, {0.5, 3.0}, {0.9, 2.0}, {1.0, 4.0}});
}

TEST(QuantileTableFromPointsTest, RejectsDecreasingOrRepeatedProbabilities) {
  ExpectRejected({{0.0, 1.0}, {0.6, 2.0}, {0.5, 3.0}, {1.0, 4.0}});
  ExpectRejected({{0.0, 1.0}, {0.5, 2.0}, {0.5, 3.0}, {1.0, 4.0}});
}

TEST(QuantileTableFromPointsTest, RejectsNegativeValues) {
  ExpectRejected({{0.0, -1.0}, {1.0, 1.0}});
  ExpectRejected({{0.0, -2.0}, {0.5, -1.0}, {1.0, -0.5}});
}

TEST(QuantileTableFromPointsTest, RejectsNonFiniteEntries) {
  ExpectRejected({{0.0, kNaN}, {1.0, 1.0}});
  ExpectRejected({{0.0, 1.0}, {1.0, kNaN}});
  ExpectRejected({{0.0, 1.0}, {kNaN, 2.0}, {1.0, 3.0}});
  ExpectRejected({{0.0, 1.0}, {0.5, kInf}, {1.0, kInf}});
  ExpectRejected({{kNaN, 1.0}, {1.0, 2.0}});
}

TEST(QuantileTableFromPointsTest, AcceptsFlatStretchesAndKeepsPoints) {
  // Values only need to be non-decreasing: a flat stretch is a point mass.
  const Points points = {{0.0, 1.0}, {0.5, 1.0}, {1.0, 2.0}};
  auto t = QuantileTable::FromPoints(points);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->points(), points);
  EXPECT_FALSE(t->IsConstant());
  // Zero is a valid cost.
  EXPECT_TRUE(QuantileTable::FromPoints({{0.0, 0.0}, {1.0, 0.0}}).ok());
}

TEST(QuantileTableSampleTest, InterpolatesLinearly) {
  auto t = QuantileTable::FromPoints(
      {{0.0, 10.0}, {0.5, 20.0}, {0.9, 60.0}, {1.0, 100.0}});
  ASSERT_TRUE(t.ok()) << t.status();
  // Tabulated points come back exactly.
  EXPECT_DOUBLE_EQ(t->Sample(0.0), 10.0);
  EXPECT_DOUBLE_EQ(t->Sample(0.5), 20.0);
  EXPECT_DOUBLE_EQ(t->Sample(0.9), 60.0);
  // u = 0.25: 10 + (20 - 10) * 0.25 / 0.5 = 15.
  EXPECT_NEAR(t->Sample(0.25), 15.0, 1e-12);
  // u = 0.7: 20 + (60 - 20) * 0.2 / 0.4 = 40.
  EXPECT_NEAR(t->Sample(0.7), 40.0, 1e-12);
  // u = 0.95: 60 + (100 - 60) * 0.05 / 0.1 = 80.
  EXPECT_NEAR(t->Sample(0.95), 80.0, 1e-12);
  // u = 0.1: 10 + 10 * 0.1 / 0.5 = 12.
  EXPECT_NEAR(t->Sample(0.1), 12.0, 1e-12);
  // The top of [0, 1): 60 + 40 * (1 - 2^-53 - 0.9) / 0.1 -> 100.
  EXPECT_NEAR(t->Sample(std::nextafter(1.0, 0.0)), 100.0, 1e-9);
  // Median is Sample(0.5).
  EXPECT_DOUBLE_EQ(t->Median(), 20.0);
}

TEST(QuantileTableSampleTest, MedianInterpolatesWhenNotTabulated) {
  auto t = QuantileTable::FromPoints({{0.0, 2.0}, {0.25, 4.0}, {1.0, 10.0}});
  ASSERT_TRUE(t.ok()) << t.status();
  // 4 + (10 - 4) * (0.5 - 0.25) / 0.75 = 4 + 2 = 6.
  EXPECT_NEAR(t->Median(), 6.0, 1e-12);
  // 2 + (4 - 2) * 0.125 / 0.25 = 3.
  EXPECT_NEAR(t->Sample(0.125), 3.0, 1e-12);
}

TEST(QuantileTableSampleTest, IsMonotoneInU) {
  auto t = QuantileTable::FromPoints({{0.0, 3.82},
                                      {0.01, 3.86},
                                      {0.5, 3.92},
                                      {0.9, 4.02},
                                      {0.99, 4.66},
                                      {1.0, 4.96}});
  ASSERT_TRUE(t.ok()) << t.status();
  double prev = t->Sample(0.0);
  EXPECT_DOUBLE_EQ(prev, 3.82);
  for (int i = 1; i < 1000; ++i) {
    double v = t->Sample(i / 1000.0);
    EXPECT_GE(v, prev) << "u = " << i / 1000.0;
    EXPECT_LE(v, 4.96);
    prev = v;
  }
}

// Sample as it was before its buckets: the interval of u found by
// counting the interior points at or below it.
double ScanSample(const Points& p, double u) {
  size_t i = 1;
  for (size_t j = 1; j + 1 < p.size(); ++j) i += p[j].first <= u ? 1 : 0;
  const double t = (u - p[i - 1].first) / (p[i].first - p[i - 1].first);
  return p[i - 1].second + (p[i].second - p[i - 1].second) * t;
}

// Sample finds u's interval from its bucket of [0, 1) where no point
// splits the bucket (quantile_table.h): every draw the same, to the bit, as
// the scan, at and next to every point and bucket edge and at random u, for
// tables with points inside buckets, on their edges, several in one
// bucket, and more than a bucket's count holds.
TEST(QuantileTableSampleTest, BucketsGiveWhatTheScanGives) {
  std::vector<Points> tables = {
      {{0.0, 3.15},
       {0.01, 3.19},
       {0.5, 3.25},
       {0.9, 3.35},
       {0.99, 3.95},
       {1.0, 4.25}},
      {{0.0, 1.0}, {0.25, 2.0}, {0.5, 4.0}, {0.75, 8.0}, {1.0, 9.0}},
      {{0.0, 1.0}, {0.001, 2.0}, {0.002, 3.0}, {0.003, 4.0}, {1.0, 5.0}},
      {{0.0, 0.0}, {1.0, 1.0}},
  };
  // 400 points: past what a bucket's count holds.
  Points many = {{0.0, 0.0}};
  for (int j = 1; j < 400; ++j) many.push_back({j / 400.0, j * 0.5});
  many.push_back({1.0, 400.0});
  tables.push_back(many);
  CounterRng rng(42);
  size_t checked = 0;
  for (size_t n = 0; n < tables.size(); ++n) {
    auto t = QuantileTable::FromPoints(tables[n]);
    ASSERT_TRUE(t.ok()) << t.status();
    std::vector<double> us = {0.0, std::nextafter(1.0, 0.0)};
    for (const auto& [p, v] : tables[n]) {
      us.insert(us.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 1.0)});
    }
    for (int b = 0; b <= 256; ++b) {
      const double edge = b / 256.0;
      us.insert(us.end(),
                {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 1.0)});
    }
    for (int r = 0; r < 20000; ++r) us.push_back(rng.NextUniform());
    for (const double u : us) {
      if (!(u >= 0.0 && u < 1.0)) continue;
      ASSERT_EQ(std::bit_cast<uint64_t>(t->Sample(u)),
                std::bit_cast<uint64_t>(ScanSample(tables[n], u)))
          << "table " << n << " u = " << u;
      ++checked;
    }
  }
  EXPECT_GT(checked, tables.size() * 20000);
}

TEST(QuantileTableConstantTest, EveryDrawIsTheValue) {
  QuantileTable c = QuantileTable::Constant(7.5);
  EXPECT_TRUE(c.IsConstant());
  ASSERT_EQ(c.points().size(), 1u);
  EXPECT_EQ(c.points()[0].second, 7.5);
  EXPECT_EQ(c.Sample(0.0), 7.5);
  EXPECT_EQ(c.Sample(0.3), 7.5);
  EXPECT_EQ(c.Sample(std::nextafter(1.0, 0.0)), 7.5);
  EXPECT_EQ(c.Median(), 7.5);
}

TEST(QuantileTableScaleTest, ScalesValuesNotProbabilities) {
  auto t = QuantileTable::FromPoints({{0.0, 1.0}, {0.5, 2.0}, {1.0, 4.0}});
  ASSERT_TRUE(t.ok()) << t.status();
  t->Scale(2.5);
  const Points expected = {{0.0, 2.5}, {0.5, 5.0}, {1.0, 10.0}};
  EXPECT_EQ(t->points(), expected);
  // u = 0.75: 5 + (10 - 5) * 0.5 = 7.5.
  EXPECT_NEAR(t->Sample(0.75), 7.5, 1e-12);
  EXPECT_DOUBLE_EQ(t->Median(), 5.0);
}

TEST(QuantileTableScaleTest, ScalesConstant) {
  QuantileTable c = QuantileTable::Constant(3.0);
  c.Scale(0.5);
  EXPECT_TRUE(c.IsConstant());
  EXPECT_EQ(c.Sample(0.9), 1.5);
}

}  // namespace
}  // namespace trn
