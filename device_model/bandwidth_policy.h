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
};

class BandwidthPolicy {
 public:
  virtual ~BandwidthPolicy() = default;
  // Sets every flow's rate so that sum(rate * hbm_weight) <= hbm (bytes per
  // us) and rate <= cap.
  virtual void Assign(std::vector<Flow>& flows, double hbm) const = 0;
};

// Max-min fairness on HBM bytes (water-filling): every flow gets an equal
// share of HBM, capped by its engine; what a capped flow leaves goes to the
// others. Deterministic: ties break on flow order.
class FairShareHbmPolicy : public BandwidthPolicy {
 public:
  void Assign(std::vector<Flow>& flows, double hbm) const override;
};

std::unique_ptr<BandwidthPolicy> MakeDefaultBandwidthPolicy();

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_BANDWIDTH_POLICY_H_
