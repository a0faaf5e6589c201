#include "device_model/bandwidth_policy.h"

#include <algorithm>
#include <numeric>

namespace trn {

void FairShareHbmPolicy::Assign(std::vector<Flow>& flows, double hbm) const {
  const size_t n = flows.size();
  if (n == 0) return;
  // The common case: every engine gets its own rate, no sharing to decide.
  double total = 0;
  for (const Flow& f : flows) total += f.cap * f.hbm_weight;
  if (total <= hbm) {
    for (Flow& f : flows) f.rate = f.cap;
    return;
  }
  // A flow's HBM demand at full speed; the smallest demands are met first.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double da = flows[a].cap * flows[a].hbm_weight;
    const double db = flows[b].cap * flows[b].hbm_weight;
    return da != db ? da < db : a < b;
  });
  double left = hbm;
  for (size_t k = 0; k < n; ++k) {
    Flow& f = flows[order[k]];
    const double share = left / static_cast<double>(n - k);
    const double demand = f.cap * f.hbm_weight;
    if (demand <= share || f.hbm_weight <= 0) {
      f.rate = f.cap;
      left -= demand;
    } else {
      f.rate = share / f.hbm_weight;
      left -= share;
    }
  }
}

std::unique_ptr<BandwidthPolicy> MakeDefaultBandwidthPolicy() {
  return std::make_unique<FairShareHbmPolicy>();
}

}  // namespace trn
