// How the HBM arbiter shares the core's bandwidth among the DMA engines
// that move data at the same time. A policy is replaceable: the simulator
// asks it for rates whenever the set of active flows changes.
#ifndef TRNBENCH_DEVICE_MODEL_BANDWIDTH_POLICY_H_
#define TRNBENCH_DEVICE_MODEL_BANDWIDTH_POLICY_H_

#include <memory>
#include <vector>

namespace trn {

struct Flow {
  double cap = 0;         // the engine's own rate limit (work per us)
  double hbm_weight = 1;  // HBM bytes per unit of work (descriptor overhead
                          // is engine time, not HBM traffic)
  double rate = 0;        // out: the assigned rate (work per us)
  // How many identical flows this entry stands for, consecutive in flow
  // order: the simulator moves the shares of a transfer that start together
  // as one group, and all of them must get one rate.
  int count = 1;
};

class BandwidthPolicy {
 public:
  virtual ~BandwidthPolicy() = default;
  // Sets every flow's rate so that sum(rate * hbm_weight * count) <= hbm
  // (bytes per us) and rate <= cap, giving a flow of count c exactly the rate
  // each of c separate flows in its place would get, and returns true. Returns
  // false, rates unspecified, when those c flows would not all get the same
  // rate: the caller then asks again with the flows apart (count 1 each),
  // which always succeeds. The rates depend on the flows and `hbm` alone,
  // so the caller may reuse them for the same flows.
  virtual bool Assign(std::vector<Flow>& flows, double hbm) const = 0;
};

// Max-min fairness on HBM bytes (water-filling): every flow gets an equal
// share of HBM, capped by its engine; what a capped flow leaves goes to the
// others. Deterministic: ties break on flow order. A group is decided whole
// only when every flow gets its cap; water-filling gives equal flows shares
// that can differ in the last bit (each share divides what the ones before
// left), so then it asks for the flows apart.
class FairShareHbmPolicy : public BandwidthPolicy {
 public:
  bool Assign(std::vector<Flow>& flows, double hbm) const override;
};

std::unique_ptr<BandwidthPolicy> MakeDefaultBandwidthPolicy();

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_BANDWIDTH_POLICY_H_
