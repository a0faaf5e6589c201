#include "device_model/kernel_sim.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>

#include "device_model/timeline.h"

namespace trn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class EvKind : uint8_t {
  kComplete,  // a compute instruction's result is committed
  kLaneFree,  // an engine may issue its next instruction
  kReady,     // every dependency of an instruction is visible
  kIssued,    // a DMA instruction's descriptors are generated
  kDmaDone,   // a transfer's completion semaphore
  kStreamed,  // a matmul has streamed its operands: the next matmul of the
              // same PSUM accumulation may follow without its latency
};

struct Ev {
  double time;
  uint64_t seq;  // push order: ties never depend on the heap's internals
  uint32_t what;
  EvKind kind;
  bool operator>(const Ev& o) const {
    return time != o.time ? time > o.time : seq > o.seq;
  }
};

// Splits a transfer over the DMA engines: engine e serves the partitions
// [e * ppe, (e + 1) * ppe), and a partition's rows (descriptors) go to its
// engine; rows are dealt to partitions as evenly as they go.
void SplitTransfer(const Instruction& in, const DeviceProfile& p,
                   std::vector<DmaPiece>& out) {
  const int64_t engines = p.dma_queues;
  const int64_t pmax = std::max<int64_t>(1, p.memory.partitions);
  const int64_t ppe = std::max<int64_t>(1, (pmax + engines - 1) / engines);
  const int64_t parts = std::clamp<int64_t>(in.partitions, 1, pmax);
  const int64_t runs = std::max<int64_t>(in.aux, 1);
  if (in.work <= 0) return;
  const double speed = in.transpose ? p.dma_transpose_efficiency : 1.0;
  int64_t bytes_left = in.work;
  int64_t runs_left = runs;
  for (int64_t e = 0; e * ppe < parts; ++e) {
    const int64_t first = e * ppe;
    const int64_t last = std::min(parts, first + ppe);
    int64_t r = 0;
    for (int64_t q = first; q < last; ++q) {
      r += runs / parts + (q < runs % parts ? 1 : 0);
    }
    if (r == 0) continue;
    // The last engine takes what rounding leaves.
    const int64_t b = r == runs_left ? bytes_left : in.work * r / runs;
    bytes_left -= b;
    runs_left -= r;
    DmaPiece piece;
    piece.engine = static_cast<int32_t>(e % engines);
    piece.bytes = b;
    piece.work = (static_cast<double>(b) +
                  static_cast<double>(r) * p.dma_descriptor_overhead_bytes) /
                 speed;
    out.push_back(piece);
  }
}

}  // namespace

KernelSim::KernelSim(const Kernel& kernel, const DeviceProfile& profile,
                     const BandwidthPolicy& policy)
    : kernel_(&kernel), profile_(&profile), policy_(&policy) {
  const size_t n = kernel.instrs.size();
  timing_.assign(n, InstructionTiming{});
  lane_instrs_.resize(kNumEngines);
  shape_of_.assign(n, 0);
  shape_begin_.assign(1, 0);
  // What SplitTransfer reads of an instruction.
  using Shape = std::tuple<int32_t, int64_t, int64_t, bool>;
  std::map<Shape, uint32_t> shapes;
  std::vector<uint32_t> rdeg(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& in = kernel.instrs[i];
    if (in.kind == InstrKind::kCompute) {
      timing_[i] = ComputeTiming(in, profile);
      lane_instrs_[static_cast<size_t>(in.engine)].push_back(
          static_cast<uint32_t>(i));
    } else {
      const Shape key{in.partitions, in.work, in.aux, in.transpose};
      auto [it, added] =
          shapes.try_emplace(key, static_cast<uint32_t>(shapes.size()));
      if (added) {
        SplitTransfer(in, profile, pieces_);
        shape_begin_.push_back(static_cast<uint32_t>(pieces_.size()));
      }
      shape_of_[i] = it->second;
    }
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

std::vector<DmaPiece> KernelSim::Pieces(size_t i) const {
  if (kernel_->instrs[i].kind != InstrKind::kDma) return {};
  const uint32_t s = shape_of_[i];
  return {pieces_.begin() + shape_begin_[s],
          pieces_.begin() + shape_begin_[s + 1]};
}

double KernelSim::Run(CounterRng& rng, double t0_us, int32_t dispatch,
                      SimListener& out) const {
  const Kernel& k = *kernel_;
  const DeviceProfile& prof = *profile_;
  const size_t n = k.instrs.size();
  if (n == 0) return t0_us;

  // Every DMA latency is drawn up front, in program order, so the random
  // stream does not depend on the order events are processed in.
  std::vector<double> latency(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    if (k.instrs[i].kind == InstrKind::kDma) {
      latency[i] = prof.dma_latency_us.Sample(rng.NextUniform());
    }
  }

  std::vector<uint32_t> waiting(n);
  std::vector<double> ready_at(n, t0_us);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = k.instrs[i].deps_end - k.instrs[i].deps_begin;
  }
  std::vector<double> start(n, 0.0);  // compute: start; DMA: queued
  std::vector<uint32_t> pieces_left(n, 0);
  std::vector<char> edge_done(rdeps_.size(), 0);
  std::vector<double> data_end(n, 0.0);

  // A binary heap under std::greater; Ev's order is total (time, then push
  // order), so it pops the same sequence as any other heap.
  std::vector<Ev> heap;
  uint64_t seq = 0;
  auto push = [&](double time, uint32_t what, EvKind kind) {
    heap.push_back({time, seq++, what, kind});
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };

  // Compute engines.
  std::array<size_t, kNumEngines> head{};
  std::array<double, kNumEngines> lane_free{};
  std::array<uint32_t, kNumEngines> open{};  // started, span not closed
  lane_free.fill(t0_us);
  open.fill(kNone);

  // DMA engines: an in-order queue of pieces each, the head piece moving.
  // A queued piece is its shape's piece and the transfer it belongs to.
  struct Queued {
    uint32_t piece;
    uint32_t owner;
  };
  const auto engines = static_cast<size_t>(prof.dma_queues);
  std::vector<std::vector<Queued>> fifo(engines);
  std::vector<size_t> fifo_head(engines, 0);
  std::vector<uint32_t> active(engines, kNone);  // piece index
  std::vector<uint32_t> active_owner(engines, kNone);
  // The engines with a piece, as bits in engine order: the scans below visit
  // only those (a DMA engine is idle most of a compute-bound kernel), in the
  // same order as a scan of all engines, so every sum is the same.
  std::vector<uint64_t> busy((engines + 63) / 64, 0);
  auto for_each_busy = [&](auto&& fn) {
    for (size_t w = 0; w < busy.size(); ++w) {
      for (uint64_t bits = busy[w]; bits != 0; bits &= bits - 1) {
        fn(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
      }
    }
  };
  std::vector<double> remaining(engines, 0.0);
  std::vector<double> piece_start(engines, 0.0);
  std::vector<Flow> flows;
  std::vector<size_t> flow_engine;
  std::vector<double> rate(engines, 0.0);
  std::vector<double> issuer_free(
      static_cast<size_t>(std::max(1, prof.dma_issuers)), t0_us);
  const double hbm = prof.hbm_gbps * 1e3;        // bytes per us
  const double cap = prof.dma_queue_gbps * 1e3;  // work per us
  const double sync = prof.cost.dependency_sync_us;

  double t = t0_us;
  double makespan = t0_us;
  size_t done = 0;
  bool rates_dirty = false;

  auto close_span = [&](size_t e, double at) {
    const uint32_t i = open[e];
    open[e] = kNone;
    const Instruction& in = k.instrs[i];
    out.Busy({EngineLane(static_cast<Engine>(e)), &k, i, start[i], at, 0,
              in.flops, dispatch});
  };
  auto try_start = [&](size_t e) {
    if (head[e] >= lane_instrs_[e].size() || lane_free[e] > t) return;
    const uint32_t i = lane_instrs_[e][head[e]];
    if (waiting[i] != 0 || ready_at[i] > t) return;
    if (open[e] != kNone) close_span(e, t);
    ++head[e];
    start[i] = t;
    open[e] = i;
    lane_free[e] = t + timing_[i].interval_us;
    out.BusyStart(EngineLane(static_cast<Engine>(e)), t);
    push(lane_free[e], static_cast<uint32_t>(e), EvKind::kLaneFree);
    if (k.instrs[i].rule == CostRule::kMatmul) {
      push(lane_free[e], i, EvKind::kStreamed);
    }
    push(t + timing_[i].latency_us, i, EvKind::kComplete);
  };
  // Engine e (idle) starts piece p of transfer `owner`.
  auto begin_piece = [&](size_t e, uint32_t p, uint32_t owner) {
    active[e] = p;
    active_owner[e] = owner;
    busy[e / 64] |= uint64_t{1} << (e % 64);
    remaining[e] = pieces_[p].work;
    piece_start[e] = t;
    out.BusyStart(DmaLane(static_cast<int>(e)), t);
    rates_dirty = true;
  };
  auto activate = [&](size_t e) {
    if (active[e] != kNone || fifo_head[e] >= fifo[e].size()) return;
    const Queued q = fifo[e][fifo_head[e]++];
    // A drained queue starts over, so it holds what is in flight, not
    // every piece the run has queued.
    if (fifo_head[e] == fifo[e].size()) {
      fifo[e].clear();
      fifo_head[e] = 0;
    } else if (fifo_head[e] >= 4096 && 2 * fifo_head[e] >= fifo[e].size()) {
      // A queue that never drains drops its consumed half (amortised O(1)).
      fifo[e].erase(
          fifo[e].begin(),
          fifo[e].begin() + static_cast<std::ptrdiff_t>(fifo_head[e]));
      fifo_head[e] = 0;
    }
    begin_piece(e, q.piece, q.owner);
  };
  auto resolve = [&](uint32_t i) {
    ++done;
    makespan = std::max(makespan, t);
    for (uint32_t r = rdeps_begin_[i]; r < rdeps_begin_[i + 1]; ++r) {
      if (edge_done[r]) continue;
      const uint32_t d = rdeps_[r];
      ready_at[d] = std::max(ready_at[d], t + sync);
      if (--waiting[d] == 0) push(ready_at[d], d, EvKind::kReady);
    }
  };
  // Matmuls that accumulate into one PSUM tile issue back to back: the
  // accumulation happens in PSUM, so a matmul waits for the previous one's
  // operands to stream, not for its result.
  auto release_accumulation = [&](uint32_t i) {
    for (uint32_t r = rdeps_begin_[i]; r < rdeps_begin_[i + 1]; ++r) {
      const uint32_t d = rdeps_[r];
      if (k.instrs[d].rule != CostRule::kMatmul) continue;
      edge_done[r] = 1;
      ready_at[d] = std::max(ready_at[d], t);
      if (--waiting[d] == 0) push(ready_at[d], d, EvKind::kReady);
    }
  };
  auto enqueue = [&](uint32_t i) {
    start[i] = t;
    const uint32_t b = shape_begin_[shape_of_[i]];
    const uint32_t e = shape_begin_[shape_of_[i] + 1];
    pieces_left[i] = e - b;
    if (b == e) {
      data_end[i] = t;
      push(t + latency[i], i, EvKind::kDmaDone);
      return;
    }
    for (uint32_t p = b; p < e; ++p) {
      const auto eng = static_cast<size_t>(pieces_[p].engine);
      if (active[eng] == kNone && fifo_head[eng] == fifo[eng].size()) {
        begin_piece(eng, p, i);  // an idle engine: no need to queue
      } else {
        fifo[eng].push_back({p, i});
        activate(eng);
      }
    }
  };

  for (size_t e = 0; e < kNumEngines; ++e) try_start(e);
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0 && k.instrs[i].kind == InstrKind::kDma) {
      push(t, static_cast<uint32_t>(i), EvKind::kReady);
    }
  }
  while (done < n) {
    if (rates_dirty) {
      flows.clear();
      flow_engine.clear();
      for_each_busy([&](size_t e) {
        const DmaPiece& pc = pieces_[active[e]];
        flows.push_back(
            {cap, pc.work > 0 ? static_cast<double>(pc.bytes) / pc.work : 0,
             0});
        flow_engine.push_back(e);
      });
      policy_->Assign(flows, hbm);
      for (size_t f = 0; f < flows.size(); ++f) {
        rate[flow_engine[f]] = flows[f].rate;
      }
      rates_dirty = false;
    }
    double next = heap.empty() ? kInf : heap.front().time;
    size_t first_flow = engines;
    for_each_busy([&](size_t e) {
      if (rate[e] <= 0) return;
      const double tf = t + remaining[e] / rate[e];
      if (tf < next) {
        next = tf;
        first_flow = e;
      }
    });
    if (next == kInf) {
      // Simulator::Create checks that program order is topological, so a
      // stuck run is a bug in the model, not bad input.
      std::fprintf(stderr,
                   "trnbench: internal error: kernel %s stuck at %zu/%zu\n",
                   k.name.c_str(), done, n);
      std::abort();
    }
    const double dt = next - t;
    t = next;
    // Moves every share on, and finishes those done, in engine order; a
    // tolerance absorbs rounding. One pass: finishing a share touches only
    // its own engine.
    for_each_busy([&](size_t e) {
      remaining[e] = e == first_flow ? 0 : remaining[e] - rate[e] * dt;
      if (remaining[e] > 1e-6) return;
      const uint32_t p = active[e];
      const uint32_t i = active_owner[e];
      active[e] = kNone;
      busy[e / 64] &= ~(uint64_t{1} << (e % 64));
      rate[e] = 0;
      rates_dirty = true;
      out.Busy({DmaLane(static_cast<int>(e)), &k, i, piece_start[e], t,
                pieces_[p].bytes, 0, dispatch});
      if (--pieces_left[i] == 0) {
        push(t + latency[i], i, EvKind::kDmaDone);
        data_end[i] = t;
      }
      activate(e);
    });
    while (!heap.empty() && heap.front().time <= t) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      const Ev ev = heap.back();
      heap.pop_back();
      switch (ev.kind) {
        case EvKind::kComplete: {
          const auto e = static_cast<size_t>(k.instrs[ev.what].engine);
          if (open[e] == ev.what) close_span(e, t);
          resolve(ev.what);
          try_start(e);
          break;
        }
        case EvKind::kLaneFree:
          try_start(ev.what);
          break;
        case EvKind::kReady: {
          const Instruction& in = k.instrs[ev.what];
          if (in.kind == InstrKind::kCompute) {
            try_start(static_cast<size_t>(in.engine));
          } else if (prof.dma_issue_us > 0) {
            auto it = std::min_element(issuer_free.begin(), issuer_free.end());
            const double s = std::max(t, *it);
            *it = s + prof.dma_issue_us;
            push(*it, ev.what, EvKind::kIssued);
          } else {
            enqueue(ev.what);
          }
          break;
        }
        case EvKind::kIssued:
          enqueue(ev.what);
          break;
        case EvKind::kStreamed:
          release_accumulation(ev.what);
          break;
        case EvKind::kDmaDone: {
          out.DmaDone(
              {&k, ev.what, start[ev.what], data_end[ev.what], t, dispatch});
          resolve(ev.what);
          break;
        }
      }
    }
  }
  return makespan;
}

}  // namespace trn
