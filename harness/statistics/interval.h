// A confidence interval, shared by every statistic in harness/.
#ifndef TRNBENCH_HARNESS_STATISTICS_INTERVAL_H_
#define TRNBENCH_HARNESS_STATISTICS_INTERVAL_H_

#include <cmath>

namespace trn::stats {

// Every field is NaN when the interval is undefined (too few samples, bad
// confidence), so callers need one check: isnan(low).
struct Interval {
  double low = NAN;
  double high = NAN;
  double level = NAN;
};

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_INTERVAL_H_
