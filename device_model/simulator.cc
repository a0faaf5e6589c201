#include "device_model/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <queue>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/hash.h"

namespace trn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Pending {
  double time;
  uint32_t instr;
  bool dma_latency_end;  // else: a compute instruction ends
  bool operator>(const Pending& o) const {
    // Ties break on instruction index so event order never depends on the
    // heap implementation.
    return time != o.time ? time > o.time : instr > o.instr;
  }
};

struct ActiveDma {
  uint32_t instr;
  double remaining;  // bytes
  double rate;       // bytes per microsecond
};

// Water-filling: every active transfer gets an equal share of the HBM
// bandwidth, capped by its own queue's rate; what a capped transfer leaves
// unused goes to the others.
void AssignRates(std::vector<ActiveDma>& active, const std::vector<double>& cap,
                 double hbm) {
  if (active.empty()) return;
  std::vector<size_t> order(active.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    double ca = cap[active[a].instr];
    double cb = cap[active[b].instr];
    return ca != cb ? ca < cb : active[a].instr < active[b].instr;
  });
  double left = hbm;
  size_t n = order.size();
  for (size_t k = 0; k < n; ++k) {
    double share = left / static_cast<double>(n - k);
    ActiveDma& a = active[order[k]];
    a.rate = std::min(cap[a.instr], share);
    left -= a.rate;
  }
}

}  // namespace

KernelSim::KernelSim(const Kernel& kernel, const DeviceProfile& profile)
    : kernel_(&kernel),
      profile_(&profile),
      num_lanes_(kNumEngines + profile.dma_queues) {
  const size_t n = kernel.instrs.size();
  lane_of_.resize(n);
  compute_dur_.assign(n, 0.0);
  dma_cap_.assign(n, 0.0);
  lane_instrs_.resize(static_cast<size_t>(num_lanes_));
  std::vector<uint32_t> rdeg(n + 1, 0);
  const double queue_rate = profile.dma_queue_gbps * 1e3;  // bytes per us
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = kernel.instrs[i];
    if (in.kind == InstrKind::kCompute) {
      lane_of_[i] = static_cast<int>(in.engine);
      const auto& e = profile.engines[static_cast<int>(in.engine)];
      double per_us = profile.ElementsPerUs(in.engine, in.dtype);
      compute_dur_[i] = e.overhead_cycles / (e.clock_ghz * 1e3) +
                        static_cast<double>(in.work) / per_us;
    } else {
      lane_of_[i] = kNumEngines + (in.queue % profile.dma_queues);
      double b = static_cast<double>(in.work);
      // Small transfers pay per-descriptor costs: efficiency b / (b + h)
      // reaches ~90% at 32 KiB for h = 4 KiB.
      dma_cap_[i] = queue_rate * (b / (b + profile.dma_half_efficiency_bytes));
    }
    lane_instrs_[static_cast<size_t>(lane_of_[i])].push_back(
        static_cast<uint32_t>(i));
    for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
      ++rdeg[kernel.deps[d] + 1];
    }
  }
  for (size_t i = 0; i < n; ++i) rdeg[i + 1] += rdeg[i];
  rdeps_begin_ = rdeg;
  rdeps_.resize(rdeg[n]);
  std::vector<uint32_t> fill(rdeg.begin(), rdeg.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = kernel.instrs[i];
    for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
      rdeps_[fill[kernel.deps[d]]++] = static_cast<uint32_t>(i);
    }
  }
}

double KernelSim::Run(CounterRng& rng, double t0_us, int32_t dispatch,
                      Timeline& timeline) const {
  const Kernel& k = *kernel_;
  const size_t n = k.instrs.size();
  if (n == 0) return t0_us;

  // Draw every DMA latency up front, in program order, so the random
  // stream does not depend on the order events are processed in.
  std::vector<double> latency(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind != InstrKind::kDma) continue;
    latency[i] = in.transfer < i
                     ? latency[in.transfer]
                     : profile_->dma_latency_us.Sample(rng.NextUniform());
  }

  std::vector<uint32_t> waiting(n);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = k.instrs[i].deps_end - k.instrs[i].deps_begin;
  }
  std::vector<double> start(n, 0.0);
  std::vector<double> end(n, 0.0);
  std::vector<size_t> head(static_cast<size_t>(num_lanes_), 0);
  std::vector<char> busy(static_cast<size_t>(num_lanes_), 0);
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> heap;
  std::vector<ActiveDma> active;
  const double hbm = profile_->hbm_gbps * 1e3;
  // Simulate in absolute time so event boundaries are exact doubles.
  double t = t0_us;
  size_t done = 0;
  bool rates_dirty = false;

  auto try_start = [&](int lane) {
    auto l = static_cast<size_t>(lane);
    if (busy[l] || head[l] >= lane_instrs_[l].size()) return;
    uint32_t i = lane_instrs_[l][head[l]];
    if (waiting[i] != 0) return;
    busy[l] = 1;
    start[i] = t;
    if (k.instrs[i].kind == InstrKind::kCompute) {
      heap.push({t + compute_dur_[i], i, false});
    } else {
      heap.push({t + latency[i], i, true});
    }
  };
  auto complete = [&](uint32_t i) {
    end[i] = t;
    ++done;
    auto l = static_cast<size_t>(lane_of_[i]);
    busy[l] = 0;
    ++head[l];
    for (uint32_t r = rdeps_begin_[i]; r < rdeps_begin_[i + 1]; ++r) {
      uint32_t d = rdeps_[r];
      if (--waiting[d] == 0) try_start(lane_of_[d]);
    }
    try_start(lane_of_[i]);
  };

  for (int l = 0; l < num_lanes_; ++l) try_start(l);
  while (done < n) {
    double next = heap.empty() ? kInf : heap.top().time;
    size_t first_dma = active.size();
    for (size_t a = 0; a < active.size(); ++a) {
      double tf = t + active[a].remaining / active[a].rate;
      if (tf < next) {
        next = tf;
        first_dma = a;
      }
    }
    if (next == kInf) {
      // Simulator::Create checks that program order is topological, so a
      // stuck run is a bug in the model, not bad input.
      std::fprintf(stderr,
                   "trnbench: internal error: kernel %s stuck at %zu/%zu\n",
                   k.name.c_str(), done, n);
      std::abort();
    }
    const double dt = next - t;
    for (auto& a : active) a.remaining -= a.rate * dt;
    if (first_dma < active.size()) active[first_dma].remaining = 0;
    t = next;
    // Finished transfers; a tolerance absorbs rounding in rate * dt.
    for (size_t a = 0; a < active.size();) {
      if (active[a].remaining <= 1e-6) {
        uint32_t i = active[a].instr;
        active[a] = active.back();
        active.pop_back();
        rates_dirty = true;
        complete(i);
      } else {
        ++a;
      }
    }
    while (!heap.empty() && heap.top().time <= t) {
      Pending p = heap.top();
      heap.pop();
      // A transfer with no bytes is done when its latency ends; as an
      // active transfer it would never be picked as the next to finish.
      if (p.dma_latency_end && k.instrs[p.instr].work > 0) {
        active.push_back(
            {p.instr, static_cast<double>(k.instrs[p.instr].work), 0.0});
        rates_dirty = true;
      } else {
        complete(p.instr);
      }
    }
    if (rates_dirty) {
      AssignRates(active, dma_cap_, hbm);
      rates_dirty = false;
    }
  }

  // Emit events; kernel strings map to timeline strings once per run.
  std::vector<uint32_t> smap(k.strings.size());
  for (size_t s = 0; s < k.strings.size(); ++s) {
    smap[s] = timeline.Intern(k.strings[s]);
  }
  double makespan = t0_us;
  timeline.events.reserve(timeline.events.size() + n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = k.instrs[i];
    Event e;
    e.lane = in.kind == InstrKind::kCompute
                 ? EngineLane(in.engine)
                 : DmaLane(in.queue % profile_->dma_queues);
    e.name = smap[in.opcode];
    e.detail = smap[in.label];
    e.start_us = start[i];
    e.end_us = end[i];
    e.bytes = in.kind == InstrKind::kDma ? in.work : 0;
    e.flops = in.flops;
    e.dispatch = dispatch;
    e.source_line = in.source_line;
    e.iteration = in.iteration;
    timeline.events.push_back(e);
    makespan = std::max(makespan, end[i]);
  }
  return makespan;
}

Simulator::Simulator(const Program& program, const DeviceProfile& profile)
    : program_(&program), profile_(&profile), stream_(Fnv1a64(program.name)) {}

absl::StatusOr<Simulator> Simulator::Create(const Program& program,
                                            const DeviceProfile& profile) {
  Simulator sim(program, profile);
  for (size_t d = 0; d < program.dispatches.size(); ++d) {
    const Kernel& k = program.dispatches[d].kernel;
    for (size_t i = 0; i < k.instrs.size(); ++i) {
      const Instruction& in = k.instrs[i];
      for (uint32_t j = in.deps_begin; j < in.deps_end; ++j) {
        if (k.deps[j] >= i) {
          return absl::InternalError(
              absl::StrCat(program.name, ": kernel ", k.name, " instruction ",
                           i, " depends on a later instruction ", k.deps[j]));
        }
      }
      if (in.kind == InstrKind::kDma &&
          (in.queue < 0 || in.transfer > i ||
           k.instrs[in.transfer].kind != InstrKind::kDma)) {
        return absl::InternalError(absl::StrCat(
            program.name, ": DMA instruction ", i,
            " has a negative queue or a transfer that is not an earlier DMA"));
      }
      if (in.opcode >= k.strings.size() || in.label >= k.strings.size()) {
        return absl::InternalError(absl::StrCat(program.name, ": instruction ",
                                                i, " names a missing string"));
      }
    }
    sim.kernels_.push_back(std::make_unique<KernelSim>(k, profile));
  }
  return sim;
}

Timeline Simulator::Run(uint64_t seed, uint64_t repeat_index) const {
  const Program& p = *program_;
  const DeviceProfile& prof = *profile_;
  CounterRng rng(CounterRng::KeyFor(seed, stream_, repeat_index));
  Timeline tl;
  tl.program = p.name;
  tl.mode = p.mode;
  tl.lanes = StandardLanes(prof.dma_queues);
  if (!p.dispatches.empty()) {
    tl.source_file = p.dispatches.front().kernel.source_file;
  }
  auto draw = [&](const QuantileTable& q) {
    return q.Sample(rng.NextUniform());
  };
  auto add_span = [&](uint32_t lane, const std::string& name, double start,
                      double end, int32_t dispatch, int64_t bytes = 0,
                      const std::string& detail = "") {
    Event e;
    e.lane = lane;
    e.name = tl.Intern(name);
    e.detail = tl.Intern(detail);
    e.start_us = start;
    e.end_us = end;
    e.dispatch = dispatch;
    e.bytes = bytes;
    tl.events.push_back(e);
    return e.end_us;
  };
  auto add = [&](uint32_t lane, const std::string& name, double start,
                 double dur, int32_t dispatch, int64_t bytes = 0,
                 const std::string& detail = "") {
    return add_span(lane, name, start, start + dur, dispatch, bytes, detail);
  };

  if (p.mode == ExecMode::kNki) {
    // The benchmark loop: the host launches the kernel (its latency is
    // what separates L from NCL), then spends a gap before the next
    // iteration, which sets the throughput.
    double host = draw(prof.nki_host_latency_us);
    double gap = draw(prof.nki_iteration_gap_us);
    double t = add(kRuntimeLane, "nrta_execute_schedule", 0.0, host, 0);
    for (size_t d = 0; d < p.dispatches.size(); ++d) {
      const Dispatch& disp = p.dispatches[d];
      tl.dispatch_names.push_back(disp.name);
      double end = kernels_[d]->Run(rng, t, static_cast<int32_t>(d), tl);
      t = add_span(kHardwareLane, "nc_exec_running", t, end,
                   static_cast<int32_t>(d), 0, disp.name);
    }
    add(kFrameworkLane, "nki.benchmark loop", t, gap, -1);
    return tl;
  }

  const QuantileTable& overhead = p.mode == ExecMode::kCompiled
                                      ? prof.graph_exec_overhead_us
                                      : prof.op_exec_overhead_us;
  double fw = 0.0;   // framework lane cursor: the host runs ahead
  double rt = 0.0;   // runtime lane cursor
  double hw = 0.0;   // hardware lane cursor: executions are in order
  double h2d = 0.0;  // host-to-device copy lane cursor
  for (size_t d = 0; d < p.dispatches.size(); ++d) {
    const Dispatch& disp = p.dispatches[d];
    const auto di = static_cast<int32_t>(d);
    tl.dispatch_names.push_back(disp.name);
    double inputs_ready = 0.0;
    for (const HostCopy& c : disp.host_copies) {
      fw = add(kFrameworkLane, "aten::copy_", fw,
               draw(prof.host_op_dispatch_us), di, c.bytes, c.tensor);
      double dur = draw(prof.h2d_copy_latency_us) +
                   static_cast<double>(c.bytes) / (prof.h2d_gbps * 1e3);
      h2d = add(kHostToDeviceLane, "host_to_device_copy", std::max(fw, h2d),
                dur, di, c.bytes, c.tensor);
      inputs_ready = std::max(inputs_ready, h2d);
    }
    fw = add(kFrameworkLane, disp.name, fw, draw(prof.host_op_dispatch_us), di);
    rt = add(kRuntimeLane, "nrta_execute_schedule", std::max(fw, rt),
             draw(prof.runtime_schedule_us), di, 0, disp.name);
    double hw_start = std::max({rt, hw, inputs_ready});
    double fixed = draw(overhead);
    double end = kernels_[d]->Run(rng, hw_start + fixed, di, tl);
    hw = add_span(kHardwareLane, "nc_exec_running", hw_start, end, di, 0,
                  disp.name);
  }
  // torch.neuron.synchronize(): the host waits for the device to drain.
  if (hw > fw) add_span(kFrameworkLane, "torch.neuron.synchronize", fw, hw, -1);
  return tl;
}

}  // namespace trn
