#include "device_model/timeline_recorder.h"

#include <algorithm>
#include <utility>

namespace trn {

void TimelineRecorder::BeginRun(const Program& program, int dma_queues) {
  tl_ = Timeline{};
  tl_.program = program.name;
  tl_.mode = program.mode;
  tl_.lanes = StandardLanes(dma_queues);
  if (!program.dispatches.empty()) {
    tl_.source_file = program.dispatches.front().kernel.source_file;
  }
  // Room for the run's events up front (one per compute instruction, at
  // most one per DMA engine a transfer uses, a few host spans per
  // dispatch): growing by doubling faulted in fresh pages on every run.
  size_t expected = 0;
  for (const Dispatch& d : program.dispatches) {
    tl_.dispatch_names.push_back(d.name);
    expected += 8;
    for (const Instruction& in : d.kernel.instrs) {
      expected += in.kind == InstrKind::kCompute
                      ? 1
                      : static_cast<size_t>(std::clamp(
                            in.partitions, 1, std::max(1, dma_queues)));
    }
  }
  tl_.events.reserve(expected);
  kernel_ = nullptr;
}

void TimelineRecorder::Busy(const BusySpan& s) {
  const Kernel& k = *s.kernel;
  if (&k != kernel_) {
    kernel_ = &k;
    smap_.resize(k.strings.size());
    for (size_t i = 0; i < k.strings.size(); ++i) {
      smap_[i] = tl_.Intern(k.strings[i]);
    }
  }
  const Instruction& in = k.instrs[s.instr];
  Event e;
  e.lane = s.lane;
  e.name = smap_[in.opcode];
  e.detail = smap_[in.label];
  e.start_us = s.start_us;
  e.end_us = s.end_us;
  e.bytes = s.bytes;
  e.flops = s.lane < DmaLane(0) ? in.flops : 0;
  e.dispatch = s.dispatch;
  e.source_line = in.source_line;
  e.iteration = in.iteration;
  tl_.events.push_back(e);
}

void TimelineRecorder::DmaDone(const DmaCompletion& done) {
  tl_.dma_latency.emplace_back(done.data_end_us, done.end_us);
}

void TimelineRecorder::Host(const HostSpan& s) {
  Event e;
  e.lane = s.lane;
  e.name = tl_.Intern(s.name);
  e.detail = tl_.Intern(s.detail);
  e.start_us = s.start_us;
  e.end_us = s.end_us;
  e.dispatch = s.dispatch;
  e.bytes = s.bytes;
  tl_.events.push_back(e);
}

}  // namespace trn
