// Slow drift in a series of nightly levels: the Theil-Sen slope and the
// Mann-Kendall trend test, both distribution-free and deterministic.
#ifndef TRNBENCH_HARNESS_HISTORY_DRIFT_H_
#define TRNBENCH_HARNESS_HISTORY_DRIFT_H_

#include <span>

namespace trn::history {

// Median of the pairwise slopes (y_j - y_i) / (j - i), i < j, per night.
// NaN for fewer than two nights.
double TheilSenSlope(std::span<const double> y);

struct TrendTest {
  long s = 0;    // Mann-Kendall S: concordant minus discordant pairs
  double p = 1;  // two-sided
  bool exact = false;
};

// Mann-Kendall: exact two-sided p-value from the distribution of Kendall's
// S under no trend (Mahonian numbers) when there are no ties and at most
// kExactMannKendallMax nights, else the normal approximation with the tie
// correction of the variance and a continuity correction.
inline constexpr int kExactMannKendallMax = 60;
TrendTest MannKendall(std::span<const double> y);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_DRIFT_H_
