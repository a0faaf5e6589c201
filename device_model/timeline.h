// The timing model's output: events on lanes. Every metric and every report
// reads this one structure.
#ifndef TRNBENCH_DEVICE_MODEL_TIMELINE_H_
#define TRNBENCH_DEVICE_MODEL_TIMELINE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_model/engine.h"
#include "device_model/exec_mode.h"

namespace trn {

enum class LaneKind : uint8_t {
  kFramework,  // host: op creation (torch.profiler's CPU ops)
  kRuntime,    // host: nrta_execute_schedule
  kHardware,   // device: nc_exec_running, one per hardware execution
  kHostToDevice,
  kEngine,    // device: one per compute engine
  kDmaQueue,  // device: one per DMA queue
};

struct Lane {
  LaneKind kind;
  int index;  // engine number or DMA queue number; 0 otherwise
  std::string name;
};

struct Event {
  uint32_t lane = 0;
  uint32_t name = 0;  // index into Timeline::strings
  // Start and end are both stored so that back-to-back events share the
  // exact same double and never appear to overlap by a rounding error.
  double start_us = 0;
  double end_us = 0;
  int64_t bytes = 0;        // DMA and host copies
  int64_t flops = 0;        // engine instructions: Instruction::flops
  int32_t dispatch = -1;    // the dispatch it belongs to
  int32_t source_line = 0;  // kernel source line, 0 if none
  int32_t iteration = -1;   // tile-loop iteration, -1 if none
  uint32_t detail = 0;      // index into strings: tile/tensor label or op

  double dur_us() const { return end_us - start_us; }
};

struct Timeline {
  std::string program;
  ExecMode mode = ExecMode::kEager;
  std::string source_file;  // NKI kernel source, for source-line args
  std::vector<Lane> lanes;
  std::vector<std::string> strings;
  std::vector<Event> events;
  std::vector<std::string> dispatch_names;
  // Per DMA transfer, [its data done, its completion]: the fixed latency
  // that no lane shows busy. Kept apart from the events, so traces are
  // unchanged; `profile` measures from it how much of a kernel waits on
  // nothing else.
  std::vector<std::pair<double, double>> dma_latency;

  uint32_t Intern(const std::string& s);
  const std::string& str(uint32_t i) const { return strings[i]; }
  uint32_t LaneIndex(LaneKind kind, int index) const;
};

// Standard lane layout shared by every timeline: framework, runtime,
// hardware, host-to-device, the engines, then `dma_queues` DMA queues.
std::vector<Lane> StandardLanes(int dma_queues);
inline constexpr uint32_t kFrameworkLane = 0;
inline constexpr uint32_t kRuntimeLane = 1;
inline constexpr uint32_t kHardwareLane = 2;
inline constexpr uint32_t kHostToDeviceLane = 3;
constexpr uint32_t EngineLane(Engine e) { return 4 + static_cast<uint32_t>(e); }
constexpr uint32_t DmaLane(int queue) {
  return 4 + kNumEngines + static_cast<uint32_t>(queue);
}

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_TIMELINE_H_
