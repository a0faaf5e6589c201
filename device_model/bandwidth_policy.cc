#include "device_model/bandwidth_policy.h"

#include <algorithm>
#include <numeric>

namespace trn {

namespace {

// Whether the flows' demands, summed one flow after another as separate
// flows would be, fit in `hbm`. A group's demand is added once per flow, not
// multiplied, so the sum rounds the same. That sum takes a flow's time per
// member, so first an estimate (demand times count, per group): a float sum
// of n terms is within n * 2^-53 of the exact one, relatively, so with at
// most 2^30 flows the estimate and the member-by-member sum differ by under
// 1e-6 relatively, and only an estimate that close to `hbm` needs the sum.
bool AllFit(const std::vector<Flow>& flows, double hbm) {
  double estimate = 0;
  for (const Flow& f : flows) {
    estimate += f.cap * f.hbm_weight * static_cast<double>(f.count);
  }
  if (estimate <= hbm * (1 - 1e-6)) return true;
  if (estimate >= hbm * (1 + 1e-6)) return false;
  double total = 0;
  for (const Flow& f : flows) {
    const double demand = f.cap * f.hbm_weight;
    for (int c = 0; c < f.count; ++c) total += demand;
  }
  return total <= hbm;
}

}  // namespace

bool FairShareHbmPolicy::Assign(std::vector<Flow>& flows, double hbm) const {
  const size_t n = flows.size();
  if (n == 0) return true;
  // The common case: every engine gets its own rate, no sharing to decide.
  if (AllFit(flows, hbm)) {
    for (Flow& f : flows) f.rate = f.cap;
    return true;
  }
  for (const Flow& f : flows) {
    if (f.count != 1) return false;
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
  return true;
}

std::unique_ptr<BandwidthPolicy> MakeDefaultBandwidthPolicy() {
  return std::make_unique<FairShareHbmPolicy>();
}

}  // namespace trn
