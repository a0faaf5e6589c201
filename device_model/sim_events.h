// The typed events the timing model's units deliver, and the listener
// interface that receives them (the llvm-mca shape: units emit, listeners
// such as a timeline recorder or a metrics accumulator consume).
//
// Within one kernel, device events arrive in non-decreasing time order, and
// kernels run one after the other on the hardware, so device events of a run
// are time-ordered as a whole. Host spans arrive in the order the host driver
// makes them, which is not time order.
#ifndef TRNBENCH_DEVICE_MODEL_SIM_EVENTS_H_
#define TRNBENCH_DEVICE_MODEL_SIM_EVENTS_H_

#include <cstdint>
#include <string>

#include "device_model/program.h"

namespace trn {

// A span of busy time on a device lane (an engine or a DMA queue): a compute
// instruction from its start until its result (or, when the engine starts
// its next instruction first, until then), or one DMA engine's share of a
// transfer while its data moves.
struct BusySpan {
  uint32_t lane = 0;  // timeline lane (EngineLane / DmaLane)
  const Kernel* kernel = nullptr;
  uint32_t instr = 0;  // index in kernel->instrs
  double start_us = 0;
  double end_us = 0;
  int64_t bytes = 0;  // DMA: bytes of this share
  // A compute span's FLOPs are its instruction's (kernel->instrs[instr]):
  // a listener that wants them reads them there, so the event loop does not
  // touch a 64-byte instruction per span for a field most listeners ignore.
  int32_t dispatch = -1;
};

// A span on a host lane (framework, runtime, hardware, host-to-device).
struct HostSpan {
  uint32_t lane = 0;
  std::string name;
  std::string detail;
  double start_us = 0;
  double end_us = 0;
  int32_t dispatch = -1;
  int64_t bytes = 0;
};

// A DMA transfer's completion: its data finished moving at `data_end_us`,
// and its fixed latency ended (the completion semaphore) at `end_us`.
struct DmaCompletion {
  const Kernel* kernel = nullptr;
  uint32_t instr = 0;
  double issue_us = 0;  // deps satisfied, descriptors queued
  double data_end_us = 0;
  double end_us = 0;
  int32_t dispatch = -1;
};

class SimListener {
 public:
  virtual ~SimListener() = default;
  // A run begins; `dma_queues` is the profile's DMA engine count.
  virtual void BeginRun(const Program& /*program*/, int /*dma_queues*/) {}
  // A device lane becomes busy at `t_us` (the matching Busy() follows).
  virtual void BusyStart(uint32_t /*lane*/, double /*t_us*/) {}
  virtual void Busy(const BusySpan& /*span*/) {}
  // The same for `count` DMA lanes from `first_lane` on at once: the shares
  // of one transfer that start, or end, together with the same bytes. The
  // defaults deliver one call per lane, in lane order, which is the order
  // the lanes would have been delivered in one by one; a listener that only
  // counts (the metrics accumulator) takes the group whole.
  virtual void BusyStartGroup(uint32_t first_lane, int count, double t_us) {
    for (int c = 0; c < count; ++c) {
      BusyStart(first_lane + static_cast<uint32_t>(c), t_us);
    }
  }
  // `span` is the first lane's; the others differ only in their lane.
  virtual void BusyGroup(const BusySpan& span, int count) {
    BusySpan s = span;
    for (int c = 0; c < count; ++c) {
      s.lane = span.lane + static_cast<uint32_t>(c);
      Busy(s);
    }
  }
  // A lane's span ends and the lane is busy again from the same instant
  // (a compute engine starts its next instruction as the last one's span
  // closes): Busy(span), then BusyStart(span.lane, span.end_us), which is
  // what the default delivers. (The run's metrics take the two as one
  // step, through KernelSim's direct calls to an exact MetricsAccumulator:
  // MetricsAccumulator::EngineHandoff.)
  virtual void BusyHandoff(const BusySpan& span) {
    Busy(span);
    BusyStart(span.lane, span.end_us);
  }
  virtual void DmaDone(const DmaCompletion& /*done*/) {}
  virtual void Host(const HostSpan& /*span*/) {}
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_SIM_EVENTS_H_
