// How many samples a gated comparison needs before its verdict can mean
// anything: the rank tests' smallest attainable p-value, and with Holm's
// correction over m comparisons the smallest number of repeats per side at
// which any comparison can reach alpha at all. Below that a gate cannot
// call a regression whatever the data say, so it refuses to run instead of
// reporting "inconclusive" and passing (docs/statistics.md).
#ifndef TRNBENCH_HARNESS_STATISTICS_SAMPLE_SIZE_H_
#define TRNBENCH_HARNESS_STATISTICS_SAMPLE_SIZE_H_

#include <cstdint>

namespace trn::stats {

// Fewer samples per side than this are never gated: the order of the
// samples (serial dependence, drift, a level shift) cannot be diagnosed
// below it (serial_dependence.h's kMinDiagnosedSamples), and a verdict on
// samples whose independence nobody checked is not one.
inline constexpr int64_t kMinGateSamples = 8;

// The smallest two-sided p-value the rank test behind a comparison can
// give: Mann-Whitney with n1 and n2 samples, 2 / C(n1 + n2, n1) exactly
// (both below 50, the exact null's range); the signed-rank test on n pairs,
// 2 / 2^n. From 50 on, the normal approximation's p at the extreme
// statistic. 1 when a side is empty.
double SmallestRankP(int64_t n1, int64_t n2, bool paired);

// The smallest n (per side, equal sides) from kMinGateSamples on at which
// `comparisons` rank tests with Holm's correction can reach `alpha`:
// comparisons * SmallestRankP(n, n, paired) < alpha. Holm's smallest
// adjusted p is m times the smallest raw one, so below this n no
// comparison of the run can be called a regression or an improvement.
int64_t MinSamplesForGate(int64_t comparisons, double alpha, bool paired);

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_SAMPLE_SIZE_H_
