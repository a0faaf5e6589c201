// A listener that records a run's events as a Timeline, for traces and
// `trnbench profile`. Only created when a timeline is asked for: its memory
// grows with the number of events.
#ifndef TRNBENCH_DEVICE_MODEL_TIMELINE_RECORDER_H_
#define TRNBENCH_DEVICE_MODEL_TIMELINE_RECORDER_H_

#include <cstdint>
#include <vector>

#include "device_model/sim_events.h"
#include "device_model/timeline.h"

namespace trn {

class TimelineRecorder : public SimListener {
 public:
  void BeginRun(const Program& program, int dma_queues) override;
  void DmaDone(const DmaCompletion& done) override;
  void Busy(const BusySpan& span) override;
  void Host(const HostSpan& span) override;

  Timeline Take() { return std::move(tl_); }

 private:
  Timeline tl_;
  // Kernel string index -> timeline string index, per kernel seen.
  const Kernel* kernel_ = nullptr;
  std::vector<uint32_t> smap_;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_TIMELINE_RECORDER_H_
