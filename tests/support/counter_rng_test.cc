#include "support/counter_rng.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace trn {
namespace {

// Golden values. They were computed outside C++ with arbitrary-precision
// integers (Python: z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9 mod 2^64, ...),
// and the NextU64 stream for key 0 is the published SplitMix64 reference
// sequence for seed 0 (Vigna's splitmix64.c). A compiler or library that
// changes any bit of the stream changes these.

TEST(Mix64Test, GoldenValues) {
  EXPECT_EQ(Mix64(0), 0u);  // the finaliser's fixed point
  EXPECT_EQ(Mix64(1), 0x5692161d100b05e5ULL);
  EXPECT_EQ(Mix64(42), 0xa759ea27d4727622ULL);
  // SplitMix64(seed 0) outputs Mix64(k * 0x9e3779b97f4a7c15), k = 1, 2, 3.
  EXPECT_EQ(Mix64(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(Mix64(0x3c6ef372fe94f82aULL), 0x6e789e6aa1b965f4ULL);
}

TEST(Mix64Test, IsUsableAtCompileTime) {
  static_assert(Mix64(1) == 0x5692161d100b05e5ULL);
  static_assert(CounterRng::KeyFor(1, 2, 3) == 0x89f077dbe50a2498ULL);
  SUCCEED();
}

TEST(CounterRngTest, KeyForGoldenValues) {
  // Mix64(Mix64(Mix64(seed) ^ stream) + index * golden).
  EXPECT_EQ(CounterRng::KeyFor(0, 0, 0), 0u);
  EXPECT_EQ(CounterRng::KeyFor(1, 2, 3), 0x89f077dbe50a2498ULL);
  EXPECT_EQ(CounterRng::KeyFor(42, 7, 0), 0x63ea398ec7ead96aULL);
}

TEST(CounterRngTest, NextU64GoldenStream) {
  CounterRng rng(0);
  EXPECT_EQ(rng.counter(), 0u);
  EXPECT_EQ(rng.NextU64(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.NextU64(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.NextU64(), 0x06c45d188009454fULL);
  EXPECT_EQ(rng.NextU64(), 0xf88bb8a8724c81ecULL);
  EXPECT_EQ(rng.counter(), 4u);
}

TEST(CounterRngTest, NextUniformGoldenValues) {
  CounterRng rng(0);
  // (0xe220a8397b1dcdaf >> 11) * 2^-53 = 0.8833108082136426.
  EXPECT_EQ(rng.NextUniform(), 0x1.c4415072f63b9p-1);
  // (0x6e789e6aa1b965f4 >> 11) * 2^-53 = 0.43152799704850997.
  EXPECT_EQ(rng.NextUniform(), 0x1.b9e279aa86e58p-2);
}

TEST(CounterRngTest, NextBelowGoldenValues) {
  // floor(x * n / 2^64) of the key-0 stream; no draw is rejected for these.
  CounterRng rng(0);
  const std::array<uint64_t, 8> expected = {8, 4, 0, 9, 1, 3, 1, 7};
  for (uint64_t e : expected) EXPECT_EQ(rng.NextBelow(10), e);
  CounterRng rng2(CounterRng::KeyFor(1, 2, 3));
  const std::array<uint64_t, 5> expected2 = {904, 404, 352, 513, 8};
  for (uint64_t e : expected2) EXPECT_EQ(rng2.NextBelow(1000), e);
}

TEST(CounterRngTest, DrawsMadeOutOfOrderAreTheStreamsDraws) {
  const uint64_t key = CounterRng::KeyFor(3, 5, 9);
  CounterRng in_turn(key);
  std::array<double, 6> drawn{};
  for (double& u : drawn) u = in_turn.NextUniform();
  CounterRng skipping(key);
  skipping.NextUniform();  // draw 1, in turn
  const uint64_t base = skipping.counter();
  skipping.Skip(4);  // draws 2..5 are made out of order below
  EXPECT_EQ(skipping.counter(), 5u);
  for (uint64_t j : {4u, 2u, 5u, 3u}) {
    EXPECT_EQ(skipping.UniformAt(base + j - 1), drawn[j - 1]) << "draw " << j;
  }
  // The stream goes on after the skipped draws as if they had been drawn.
  EXPECT_EQ(skipping.NextUniform(), drawn[5]);
  EXPECT_EQ(CounterRng(key).U64At(1), CounterRng(key).NextU64());
}

TEST(CounterRngTest, SameKeySameStream) {
  const uint64_t key = CounterRng::KeyFor(7, 11, 13);
  CounterRng a(key);
  CounterRng b(key);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.NextU64(), b.NextU64()) << "draw " << i;
  }
  EXPECT_EQ(a.counter(), 1000u);
}

TEST(CounterRngTest, DifferentKeysDiffer) {
  // Changing any one of seed, stream, index changes the key and the stream.
  const uint64_t base = CounterRng::KeyFor(7, 11, 13);
  const std::array<uint64_t, 3> others = {CounterRng::KeyFor(8, 11, 13),
                                          CounterRng::KeyFor(7, 12, 13),
                                          CounterRng::KeyFor(7, 11, 14)};
  for (uint64_t other : others) {
    EXPECT_NE(other, base);
    CounterRng a(base);
    CounterRng b(other);
    int same = 0;
    for (int i = 0; i < 100; ++i) same += a.NextU64() == b.NextU64();
    EXPECT_EQ(same, 0);
  }
}

TEST(CounterRngTest, KeysOfASmallGridAreDistinct) {
  // 8 x 8 x 8 identities must give 512 distinct keys.
  std::set<uint64_t> keys;
  for (uint64_t s = 0; s < 8; ++s) {
    for (uint64_t st = 0; st < 8; ++st) {
      for (uint64_t i = 0; i < 8; ++i)
        keys.insert(CounterRng::KeyFor(s, st, i));
    }
  }
  EXPECT_EQ(keys.size(), 512u);
}

TEST(CounterRngTest, NextUniformIsInUnitIntervalWithMeanOneHalf) {
  // Fixed key: the outcome is deterministic, so the bound cannot flake.
  CounterRng rng(CounterRng::KeyFor(2024, 1, 0));
  constexpr int kN = 100000;
  double sum = 0;
  double lo = 1;
  double hi = 0;
  for (int i = 0; i < kN; ++i) {
    double u = rng.NextUniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  // The mean of 1e5 uniforms has sd sqrt(1/12 / 1e5) = 0.00091; 0.005 is
  // more than 5 sd.
  EXPECT_NEAR(sum / kN, 0.5, 0.005);
  // The extremes of 1e5 draws lie within ~1e-4 of the ends.
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
}

TEST(CounterRngTest, NextBelowStaysInRange) {
  CounterRng rng(CounterRng::KeyFor(5, 5, 5));
  for (uint64_t n :
       {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_LT(rng.NextBelow(n), n) << "n = " << n;
    }
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rng.NextBelow(1), 0u);
}

TEST(CounterRngTest, NextBelowIsRoughlyUniform) {
  // Chi-square over 10 cells of 100000 draws (expected 10000 each). With 9
  // degrees of freedom the 99.9th percentile is 27.88; the key is fixed, so
  // the statistic is a constant and the test cannot flake.
  CounterRng rng(CounterRng::KeyFor(99, 3, 1));
  constexpr int kCells = 10;
  constexpr int kN = 100000;
  std::array<int, kCells> count{};
  for (int i = 0; i < kN; ++i) ++count[rng.NextBelow(kCells)];
  const double expected = static_cast<double>(kN) / kCells;
  double chi2 = 0;
  for (int c : count) {
    const double d = c - expected;
    chi2 += d * d / expected;
  }
  EXPECT_LT(chi2, 27.88);
  // Every cell is hit, and none is far from 10000.
  for (int c : count) EXPECT_NEAR(c, expected, 600);
}

TEST(CounterRngTest, NextBelowRejectsBiasedDraws) {
  // n = 2^63 + 1: about half of all 64-bit draws fall in the biased zone
  // and must be redrawn, so 1000 draws consume clearly more than 1000
  // counter steps (expected ~2000), each result still in range.
  CounterRng rng(CounterRng::KeyFor(1, 1, 1));
  const uint64_t n = (1ULL << 63) + 1;
  for (int i = 0; i < 1000; ++i) ASSERT_LT(rng.NextBelow(n), n);
  EXPECT_GT(rng.counter(), 1500u);
  EXPECT_LT(rng.counter(), 2500u);
}

}  // namespace
}  // namespace trn
