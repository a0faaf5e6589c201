#include "device_model/timeline.h"

#include "absl/strings/str_cat.h"

namespace trn {

uint32_t Timeline::Intern(const std::string& s) {
  for (uint32_t i = 0; i < strings.size(); ++i) {
    if (strings[i] == s) return i;
  }
  strings.push_back(s);
  return static_cast<uint32_t>(strings.size() - 1);
}

uint32_t Timeline::LaneIndex(LaneKind kind, int index) const {
  switch (kind) {
    case LaneKind::kFramework:
      return kFrameworkLane;
    case LaneKind::kRuntime:
      return kRuntimeLane;
    case LaneKind::kHardware:
      return kHardwareLane;
    case LaneKind::kHostToDevice:
      return kHostToDeviceLane;
    case LaneKind::kEngine:
      return EngineLane(static_cast<Engine>(index));
    case LaneKind::kDmaQueue:
      return DmaLane(index);
  }
  return 0;
}

std::vector<Lane> StandardLanes(int dma_queues) {
  std::vector<Lane> lanes = {
      {LaneKind::kFramework, 0, "framework"},
      {LaneKind::kRuntime, 0, "runtime"},
      {LaneKind::kHardware, 0, "hardware"},
      {LaneKind::kHostToDevice, 0, "host_to_device"},
  };
  for (int e = 0; e < kNumEngines; ++e) {
    lanes.push_back({LaneKind::kEngine, e,
                     std::string(EngineName(static_cast<Engine>(e)))});
  }
  for (int q = 0; q < dma_queues; ++q) {
    lanes.push_back({LaneKind::kDmaQueue, q, absl::StrCat("dma_q", q)});
  }
  return lanes;
}

}  // namespace trn
