// A neuron-profile-style summary of one run, read off its timeline: how long
// each engine and the DMA queues were active, how much they overlapped.
#ifndef TRNBENCH_DEVICE_MODEL_DEVICE_SUMMARY_H_
#define TRNBENCH_DEVICE_MODEL_DEVICE_SUMMARY_H_

#include <array>
#include <cstdint>

#include "device_model/engine.h"
#include "device_model/timeline.h"

namespace trn {

struct EngineActivity {
  int64_t instructions = 0;
  int64_t flops = 0;
  // Union of the engine's busy intervals, and the sum of its instruction
  // durations. An engine runs one instruction at a time, so the two agree;
  // both are kept because a report that shows one invites the question.
  double active_us = 0;
  double instruction_us = 0;
  double active_fraction = 0;  // active / total
};

struct DmaActivity {
  int64_t chunks = 0;  // DMA events: pieces of transfers, one per queue
  int64_t bytes = 0;
  int queues_used = 0;
  double active_us = 0;       // time at least one queue is busy
  double queue_busy_us = 0;   // summed over queues
  double bandwidth_gbps = 0;  // bytes / active time
  // Measured from the transfers' completions: their mean fixed latency, and
  // the time during which some transfer waits for it while no queue moves
  // data and no engine computes (the latency nothing hides).
  int64_t transfers = 0;
  double mean_latency_us = 0;
  double latency_only_us = 0;
};

struct DeviceSummary {
  // Hardware-lane time: NCL for an NKI kernel, device time otherwise.
  double total_us = 0;
  int32_t hardware_executions = 0;
  std::array<EngineActivity, kNumEngines> engines{};
  int engines_used = 0;
  DmaActivity dma;
  double compute_active_us = 0;      // at least one engine busy
  double engines_concurrent_us = 0;  // at least two engines busy
  double dma_compute_overlap_us = 0;
  double dma_compute_overlap = 0;  // share of DMA active time
  // Hardware-lane time before the first engine or DMA event of each
  // execution: the fixed cost of launching it.
  double launch_overhead_us = 0;
};

DeviceSummary SummarizeDevice(const Timeline& timeline);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DEVICE_SUMMARY_H_
