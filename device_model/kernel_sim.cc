#include "device_model/kernel_sim.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "device_model/chunks.h"
#include "device_model/dma_groups.h"
#include "device_model/dma_queues.h"
#include "device_model/event_queue.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/ready_queue.h"
#include "device_model/timeline.h"

namespace trn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// State::resolved of an instruction whose kReady is part of a kReadyRun.
constexpr uint32_t kBatched = kNone;
// KernelSim::Hot::special.
constexpr uint8_t kUnsplit = 1;
constexpr uint8_t kFanOut = 2;

// Whether a kReady of an instruction on `unit` may be one of a kReadyRun:
// a compute engine without the shared SBUF port (Vector and GpSimd: an
// engine that the port's other engine blocks may wait for a time already
// past, which would come between the run's events).
constexpr bool Batchable(uint8_t unit) {
  return unit == static_cast<uint8_t>(Engine::kTensor) ||
         unit == static_cast<uint8_t>(Engine::kScalar);
}

enum class EvKind : uint8_t {
  kComplete,  // a compute instruction's result is committed
  kLaneFree,  // an engine may issue its next instruction
  kReady,     // every dependency of an instruction is visible
  kIssued,    // a DMA instruction's descriptors are generated
  kDmaDone,   // a transfer's completion semaphore
  kIssueEnd,  // an engine may issue again after an instruction: the events
              // that schedules, as one (AfterIssue below)
  kReadyRun,  // the kReady events of dependents that one completion makes
              // ready at one time, as one (resolve below)
};

// What an instruction's issue schedules for the time its engine may issue
// again, in the order it would have pushed them as events of their own:
// its engine's wake-up (kLaneFree), the wake-up of the other engine of the
// SBUF port (kLaneFree), its streaming (kStream) and, when its latency
// equals its issue interval, its completion (kComplete). kStream: a
// matmul has streamed its operands, so the next matmul of the same PSUM
// accumulation may follow without its latency. Pushed one after
// the other at one time, those events are adjacent in the queue's order
// (time, then push order: nothing can come between them), so handling them
// in turn as one event handles every event in the same order, to the bit,
// for one push and one pop instead of up to four (a matmul pushed three).
enum AfterIssue : uint8_t {
  kWakeEngine = 1,
  kWakePortPeer = 2,
  kStream = 4,
  kCompleteToo = 8,
  // Not merged with the others: the end of an instruction's active time
  // when no instruction of its engine reads its result (active_us).
  kCloseSpan = 16,
};

// An event as handled: what it concerns (an instruction or an engine) and
// its kind, kept in the queue as a payload of what | kind << 32.
// A kIssueEnd's AfterIssue flags ride above the kind.
struct Ev {
  uint32_t what;
  EvKind kind;
  uint8_t flags;
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
    // Whole rows follow one another in HBM: a descriptor may cover several.
    const int64_t per = in.contiguous_rows ? p.dma_rows_per_descriptor : 1;
    const int64_t descriptors = (r + per - 1) / per;
    DmaPiece piece;
    piece.engine = static_cast<int32_t>(e % engines);
    piece.bytes = b;
    piece.work =
        (static_cast<double>(b) +
         static_cast<double>(descriptors) * p.dma_descriptor_overhead_bytes) /
        speed;
    out.push_back(piece);
  }
}

// Each instruction's state in one place: a tile's few instructions are a
// few cache lines, not one in each of six arrays (at 100k tiles the
// state is far larger than the caches).
struct State {
  union {
    // Until it issues: when every dependency is visible; 0 rather than
    // t0_us before the first is resolved, which compares alike because
    // the run's time never goes below t0_us.
    double ready_at;
    // A DMA's, once its data has moved (nothing reads ready_at then):
    // when that was. One field for both keeps the state at 24 bytes.
    double dma_end;
  };
  double start;       // compute: started; DMA: queued
  uint32_t resolved;  // dependencies done, of hot_[i].deps
  // DMA: shares not ended; compute, while `resolved` is kBatched: the
  // instruction whose kReadyRun it is in.
  uint32_t pieces_left;
};
static_assert(sizeof(State) == 24);

// What a DMA engine served last (model 12's queue gap).
struct LastPiece {
  uint32_t queue = kNone;
  double end = 0;
};

// The rate of a group moving alone, by its piece, count and work: most
// transfers of a tiled kernel move alone, alike, so the policy (whose
// rates depend only on its flows) is asked once per shape (and queue gap).
struct Alone {
  uint32_t count = 0;
  double work = 0;  // per share, any queue gap's wait included
  double rate = 0;
};

// Storage for a run's per-instruction state, in 2 MB pages where it is
// that large: a run reads and writes it all over (a 500k-instruction
// kernel's is 12 MB), and in 4 KB pages it cost a page fault per 4 KB the
// first time each thread ran the kernel (at --jobs 2, 7% more CPU than at
// --jobs 1 for exp_tiled at 12800000x512, perf stat: page-faults and
// task-clock) and a TLB miss on most accesses after. Transparent huge pages
// are often granted only on request (madvise mode); elsewhere the request
// is a no-op and the storage is as before.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;
  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < kHuge) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) {
    return true;
  }
};

// What a run works in, kept by each thread from one run to the next: a run
// made its arrays anew (a dozen allocations, two of them the size of the
// kernel, freed and page-faulted back in by every run). Each run sets
// every part before use, so nothing carries over from the last.
struct RunScratch {
  std::vector<State, HugePageAllocator<State>> st;
  // A run began and has not ended: st may hold its values.
  bool st_dirty = false;
  std::vector<char, HugePageAllocator<char>> edge_done;
  std::vector<Alone> alone;
  EventQueue heap;
  DmaQueues queues{0};
  DmaGroups dma{0, true};
  std::vector<Flow> flows;
  std::vector<uint32_t> flow_group;
  std::vector<double> issuer_free;
  // With a queue gap: what each DMA engine served last, as an index into
  // `ends`, one entry per group of pieces that ended (the engines of a
  // group share one, so alike engines are seen alike by one compare).
  std::vector<uint32_t> last;
  std::vector<LastPiece> ends;
  // Per compute engine: its instructions whose dependencies are all
  // visible and that have not started (ready_queue.h).
  std::array<ReadyQueue, kNumEngines> ready;
};

}  // namespace

KernelSim::KernelSim(const Kernel& kernel, const DeviceProfile& profile,
                     const BandwidthPolicy& policy, SimOptions options)
    : kernel_(&kernel),
      profile_(&profile),
      policy_(&policy),
      group_shares_(options.group_shares) {
  const size_t n = kernel.instrs.size();
  // Written in full below (NoFillAllocator).
  shape_of_.resize(n);
  dma_draw_.resize(n);
  shape_begin_.assign(1, 0);
  // What SplitTransfer reads of an instruction.
  using Shape = std::tuple<int32_t, int64_t, int64_t, bool, bool, bool, bool>;
  std::map<Shape, uint32_t> shapes;
  // Timings interned by their bits: equal timings are one entry.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint32_t> timing_ids;
  // A DMA instruction's queue: one per DMA statement of the program (its
  // opcode, what it moves and its source line), see queue_of_.
  std::map<std::tuple<uint32_t, uint32_t, int32_t>, uint32_t> queues;
  queue_of_.resize(n);
  hot_.resize(n);
  // Each instruction's dependencies, for the passes below: reading an
  // instruction back from the program rebuilds all of it (InstructionList),
  // and TimingEdges reads one per dependency.
  UnfilledVector<uint32_t> dep_begin(n + 1);
  dep_begin[0] = 0;
  // About the longest edge in program order (of each instruction's first
  // and last dependency; TimingEdges sizes its window by it).
  size_t span = 0;
  // Per form of the kernel (InstructionList::FormOf): its timing (compute)
  // or shape (DMA), and its queue (DMA), worked out form by form before
  // the instructions. Forms are numbered in the order they first appear
  // and every form is some instruction's, so ids are given in the order
  // keys first appear in program order, as when every instruction was
  // looked up; and the per-instruction pass reads 12 bytes of a form, not
  // the fields of its Instruction.
  struct FormInfo {
    uint32_t shape;  // shape_of_
    uint32_t queue;  // queue_of_ (DMA)
    uint8_t unit;    // Hot::unit
    bool matmul;     // Hot::matmul
  };
  std::vector<FormInfo> form_info(kernel.instrs.forms());
  // A DMA form's shape: how SplitTransfer splits it, stored once per
  // distinct shape.
  auto shape_id = [&](const Instruction& in) {
    const Shape key{in.partitions, in.work,       in.aux,
                    in.transpose,  in.hbm_to_hbm, in.contiguous_rows,
                    in.on_chip};
    auto [it, added] =
        shapes.try_emplace(key, static_cast<uint32_t>(shapes.size()));
    if (added) {
      const size_t first = pieces_.size();
      SplitTransfer(in, profile, pieces_);
      shape_begin_.push_back(static_cast<uint32_t>(pieces_.size()));
      // From the last piece back: how many alike shares on adjacent
      // engines each piece heads.
      run_.resize(pieces_.size(), 1);
      for (size_t p = first; p < pieces_.size(); ++p) {
        const DmaPiece& pc = pieces_[p];
        // An HBM copy reads and writes HBM: twice its bytes; an SBUF
        // copy none.
        const double hbm_bytes =
            static_cast<double>(pc.bytes) * (in.hbm_to_hbm ? 2
                                             : in.on_chip  ? 0
                                                           : 1);
        hbm_weight_.push_back(pc.work > 0 ? hbm_bytes / pc.work : 0);
      }
      for (size_t p = pieces_.size(); p-- > first + 1;) {
        const DmaPiece& a = pieces_[p - 1];
        const DmaPiece& b = pieces_[p];
        if (group_shares_ && b.engine == a.engine + 1 && b.bytes == a.bytes &&
            b.work == a.work) {
          run_[p - 1] = run_[p] + 1;
        }
      }
    }
    return it->second;
  };
  for (uint32_t f = 0; f < form_info.size(); ++f) {
    const Instruction& in = kernel.instrs.Form(f);
    FormInfo& info = form_info[f];
    if (in.kind == InstrKind::kCompute) {
      const InstructionTiming tm = ComputeTiming(in, profile);
      auto [it, added] =
          timing_ids.try_emplace({std::bit_cast<uint64_t>(tm.interval_us),
                                  std::bit_cast<uint64_t>(tm.latency_us),
                                  std::bit_cast<uint64_t>(tm.active_us)},
                                 static_cast<uint32_t>(timings_.size()));
      if (added) timings_.push_back(tm);
      info = {it->second, 0, static_cast<uint8_t>(in.engine),
              in.rule == CostRule::kMatmul};
      // A matmul's form: whether it streams before it completes (see
      // rdeps_mid_ below, and TimingEdges).
      if (in.rule == CostRule::kMatmul) {
        any_matmul_ = true;
        any_unsplit_ = any_unsplit_ || !(tm.interval_us <= tm.latency_us);
      }
    } else {
      const uint32_t queue =
          queues
              .try_emplace({in.opcode, in.label, in.source_line},
                           static_cast<uint32_t>(queues.size()))
              .first->second;
      info = {shape_id(in), queue, kDmaUnit, false};
    }
  }
  // The passes over the instructions below go in chunks of program order,
  // one thread each (chunks.h): each writes its own instructions' entries,
  // and what a chunk finds of an earlier one's (a DMA's rank, an edge into
  // it) is merged after, in chunk order, as one pass in order would have.
  const std::vector<size_t> chunks =
      ChunkBounds(n, options.threads, options.min_chunk);
  const size_t chunk_count = chunks.size() - 1;
  // Per chunk: its longest edge, its DMA instructions without
  // dependencies (the first chunk's straight into initial_dma_) and how
  // many DMA instructions it has (its ranks are counted from its start,
  // and moved up by the earlier chunks' counts in the pass after
  // TimingEdges).
  std::vector<size_t> chunk_span(chunk_count, 0);
  std::vector<std::vector<uint32_t>> chunk_initial_dma(chunk_count);
  std::vector<uint32_t> chunk_dmas(chunk_count, 0);
  // The arrays through locals of each chunk's (see the pass after
  // TimingEdges).
  ForEachChunk(chunks, [&](size_t k, size_t begin, size_t end) {
    const InstructionList& instrs = kernel.instrs;
    const uint32_t* const deps = kernel.deps.data();
    const FormInfo* const forms = form_info.data();
    uint32_t* const db = dep_begin.data();
    Hot* const hot = hot_.data();
    uint32_t* const shape = shape_of_.data();
    uint32_t* const draw = dma_draw_.data();
    uint32_t* const queue = queue_of_.data();
    std::vector<uint32_t>& initial =
        k == 0 ? initial_dma_ : chunk_initial_dma[k];
    size_t longest = 0;
    uint32_t dmas = 0;
    for (size_t i = begin; i < end; ++i) {
      const FormInfo& info = forms[instrs.FormOf(i)];
      const uint32_t deps_begin = instrs.DepsBegin(i);
      const uint32_t deps_end = instrs.DepsEnd(i);
      db[i] = deps_begin;
      if (deps_begin != deps_end) {
        longest = std::max<size_t>(
            longest, i - std::min(deps[deps_begin], deps[deps_end - 1]));
      }
      hot[i] = {deps_end - deps_begin, info.unit, info.matmul, false, 0};
      shape[i] = info.shape;
      if (info.unit == kDmaUnit) {
        if (deps_begin == deps_end) {
          initial.push_back(static_cast<uint32_t>(i));
        }
        draw[i] = ++dmas;
        queue[i] = info.queue;
      } else {
        draw[i] = 0;
        queue[i] = 0;
      }
    }
    chunk_span[k] = longest;
    chunk_dmas[k] = dmas;
  });
  if (n > 0) dep_begin[n] = kernel.instrs.DepsEnd(n - 1);
  // Each chunk's ranks move up by the DMA instructions before it.
  std::vector<uint32_t> dma_before(chunk_count, 0);
  for (size_t k = 0; k < chunk_count; ++k) {
    span = std::max(span, chunk_span[k]);
    dma_before[k] = dma_count_;
    dma_count_ += chunk_dmas[k];
    if (k > 0) {
      initial_dma_.insert(initial_dma_.end(), chunk_initial_dma[k].begin(),
                          chunk_initial_dma[k].end());
    }
  }
  forward_ = profile.cost.dependency_sync_us >= 0;
  for (const InstructionTiming& tm : timings_) {
    forward_ = forward_ && tm.interval_us >= 0 && tm.latency_us >= 0;
  }
  ready_in_place_ = options.ready_in_place && forward_;
  const std::vector<char> keep =
      options.skip_implied_edges
          ? TimingEdges(kernel, profile, dep_begin, span, chunks)
          : std::vector<char>(kernel.deps.size(), 1);
  // The matmuls whose edge to a matmul was left out (TimingEdges), for
  // `matmul` below: marked on every edge a matmul left out (only a
  // matmul's mark is read).
  std::vector<char> left_early(any_matmul_ ? n : 0, 0);
  // rdeps_begin_ built in place, shifted one entry up: a's count in entry
  // a + 2, so that after the prefix sum entry a + 1 is where a's
  // dependents start, and filling them moves it to where a + 1's start.
  // No copy of the counts for the fill (it was two passes over them).
  rdeps_begin_.assign(n + 2, 0);
  uint32_t* rb = rdeps_begin_.data();
  // An edge into an earlier chunk than its dependent's (edge d of
  // instruction i): what it marks and counts of its dependency is that
  // chunk's, so it is done after the chunks, in order.
  struct Cross {
    uint32_t d;
    uint32_t i;
  };
  std::vector<std::vector<Cross>> cross(chunk_count);
  std::vector<std::vector<uint32_t>> chunk_initial_compute(chunk_count);
  // Within the chunks, the arrays through the chunk's own locals: what a
  // lambda captured is read again after every byte stored (a char may
  // alias it), which cost this pass 30% more than the loop it was. The
  // first chunk has no earlier one, and is not asked per edge (kCross
  // false: with one thread this pass and the fill cost what they did
  // before chunks, callgrind).
  auto count_pass = [&]<bool kCross>(size_t k, size_t begin, size_t end) {
    const uint32_t* const deps = kernel.deps.data();
    const uint32_t* const db = dep_begin.data();
    const char* const kept_edge = keep.data();
    char* const early_left = left_early.data();
    Hot* const hot = hot_.data();
    uint32_t* const draw = dma_draw_.data();
    uint32_t* const counts = rb;
    std::vector<uint32_t>& initial =
        k == 0 ? initial_compute_ : chunk_initial_compute[k];
    std::vector<Cross>& into_earlier = cross[k];
    const uint32_t dma_offset = dma_before[k];
    for (size_t i = begin; i < end; ++i) {
      // An instruction whose result an instruction of its own engine reads
      // keeps the engine active for its whole latency (the architecture
      // guide's static instruction overhead of dependent back-to-back
      // instructions); any other, for its interval and tensor access. Over
      // every edge, kept or not: marked in the same walk over them.
      const uint8_t unit = hot[i].unit;
      const bool matmul = hot[i].matmul;
      if (unit == kDmaUnit) draw[i] += dma_offset;
      uint32_t kept = 0;
      for (uint32_t d = db[i]; d < db[i + 1]; ++d) {
        const uint32_t a = deps[d];
        if (kCross && a < begin) {
          into_earlier.push_back({d, static_cast<uint32_t>(i)});
          kept += kept_edge[d];
          continue;
        }
        if (unit != kDmaUnit && hot[a].unit == unit) hot[a].drain = true;
        if (!kept_edge[d]) {
          if (matmul) early_left[a] = 1;
          continue;
        }
        ++kept;
        ++counts[a + 2];
      }
      hot[i].deps = kept;
      if (kept == 0 && unit != kDmaUnit) {
        initial.push_back(static_cast<uint32_t>(i));
      }
    }
  };
  ForEachChunk(chunks, [&](size_t k, size_t begin, size_t end) {
    if (begin == 0) {
      count_pass.template operator()<false>(k, begin, end);
    } else {
      count_pass.template operator()<true>(k, begin, end);
    }
  });
  for (size_t k = 1; k < chunk_count; ++k) {
    initial_compute_.insert(initial_compute_.end(),
                            chunk_initial_compute[k].begin(),
                            chunk_initial_compute[k].end());
    for (const Cross& x : cross[k]) {
      const uint32_t a = kernel.deps[x.d];
      const uint8_t unit = hot_[x.i].unit;
      if (unit != kDmaUnit && hot_[a].unit == unit) hot_[a].drain = true;
      if (!keep[x.d]) {
        if (hot_[x.i].matmul) left_early[a] = 1;
        continue;
      }
      ++rb[a + 2];
    }
  }
  for (size_t i = 2; i < n + 2; ++i) rb[i] += rb[i - 1];
  rdeps_.resize(rb[n + 1]);  // each entry filled below
  // Each dependency's dependents in program order: a chunk's own first,
  // then the later chunks' edges into it, chunk by chunk.
  auto fill_pass = [&]<bool kCross>(size_t begin, size_t end) {
    const uint32_t* const deps = kernel.deps.data();
    const uint32_t* const db = dep_begin.data();
    const char* const kept_edge = keep.data();
    uint32_t* const dependents = rdeps_.data();
    uint32_t* const next = rb;
    for (size_t i = begin; i < end; ++i) {
      for (uint32_t d = db[i]; d < db[i + 1]; ++d) {
        const uint32_t a = deps[d];
        if ((!kCross || a >= begin) && kept_edge[d]) {
          dependents[next[a + 1]++] = static_cast<uint32_t>(i);
        }
      }
    }
  };
  ForEachChunk(chunks, [&](size_t, size_t begin, size_t end) {
    if (begin == 0) {
      fill_pass.template operator()<false>(begin, end);
    } else {
      fill_pass.template operator()<true>(begin, end);
    }
  });
  for (size_t k = 1; k < chunk_count; ++k) {
    for (const Cross& x : cross[k]) {
      if (keep[x.d]) rdeps_[rb[kernel.deps[x.d] + 1]++] = x.i;
    }
  }
  rdeps_begin_.pop_back();
  // A matmul streams at its issue interval and completes at its latency,
  // both from its start: when the interval is not the later, its
  // streaming is handled first (an earlier time, or the same time and
  // pushed first or handled first in one kIssueEnd), so by its
  // completion its edges to matmuls are all released, in every run.
  // All but a split matmul's dependents wait for its completion: set by
  // one copy, and only the matmuls' moved below.
  rdeps_mid_.assign(rdeps_begin_.begin(), rdeps_begin_.end() - 1);
  std::vector<uint32_t> later;
  for (size_t i = 0; any_matmul_ && i < n; ++i) {
    if (!hot_[i].matmul) continue;
    const uint32_t b = rdeps_begin_[i];
    const uint32_t e = rdeps_begin_[i + 1];
    const InstructionTiming& tm = timings_[shape_of_[i]];
    if (!(tm.interval_us <= tm.latency_us)) {
      hot_[i].special = kUnsplit;
      continue;
    }
    later.clear();
    uint32_t m = b;
    for (uint32_t r = b; r < e; ++r) {
      if (hot_[rdeps_[r]].matmul) {
        rdeps_[m++] = rdeps_[r];
      } else {
        later.push_back(rdeps_[r]);
      }
    }
    rdeps_mid_[i] = m;
    std::copy(later.begin(), later.end(), rdeps_.begin() + m);
  }
  // With every matmul split, the event loop reads `matmul` only to handle
  // a matmul's streaming (kStream), which releases its dependents at
  // [rdeps_begin_, rdeps_mid_): one no matmul waits for has nothing to
  // handle, so its issue pushes no kStream (a kIssueEnd fewer where nothing
  // else is due then, one step fewer in the others). One whose edges to
  // matmuls were all implied (TimingEdges) still pushes it, an event that
  // releases nothing: without it the DMA steps of a run with and without
  // implied edges would differ, and so their rounding.
  // (Without a matmul there is no `matmul` to clear.)
  if (any_matmul_ && !any_unsplit_) {
    for (size_t i = 0; i < n; ++i) {
      if (rdeps_mid_[i] == rdeps_begin_[i] &&
          !(hot_[i].matmul && left_early[i])) {
        hot_[i].matmul = false;
      }
    }
  }
  // Handling a run of kReady events as one needs every event their
  // handling pushes to be no earlier than they are (resolve, in RunWith),
  // and a dependent's count that no streaming changes after it is ready.
  bool batch = options.batch_ready && forward_ && !any_unsplit_;
  for (const InstructionTiming& tm : timings_) {
    batch = batch && tm.active_us >= 0;
  }
  if (!batch) return;
  std::vector<size_t> fan_outs(chunk_count, 0);
  ForEachChunk(chunks, [&](size_t k, size_t begin, size_t end) {
    const uint32_t* const mid = rdeps_mid_.data();
    const uint32_t* const rdeps_end = rdeps_begin_.data() + 1;
    const uint32_t* const dependents = rdeps_.data();
    Hot* const hot = hot_.data();
    size_t count = 0;
    for (size_t i = begin; i < end; ++i) {
      uint32_t can = 0;
      for (uint32_t r = mid[i]; r < rdeps_end[i]; ++r) {
        if (Batchable(hot[dependents[r]].unit)) ++can;
      }
      if (can >= 2) {
        hot[i].special = kFanOut;
        ++count;
      }
    }
    fan_outs[k] = count;
  });
  for (const size_t count : fan_outs) fan_out_count_ += count;
}

namespace {

// The widest window of program order WindowClosure is used with, in 64-bit
// words (4096 instructions, 528 bytes a step); a kernel with a longer edge
// gets half of it (more gains little: callgrind, the fully optimized matmul
// kept 106k edges at 2048 and 105k at 4096, for 117 M instructions of
// Simulator::Create against 132 M).
constexpr size_t kMaxWindowWords = 64;
constexpr size_t kFarWindowWords = 32;
// Up to this width, the bits of c's own dependencies are gathered apart and
// ORed in at the end; above it, set one by one.
constexpr size_t kOwnWords = 8;

// u's first kCount words set to r's (kOr false) or ORed with them,
// unrolled. Apart, so that the two are known not to overlap (g++ honours
// __restrict on parameters) and the words are moved in SSE2 pairs; not a
// loop, which g++ turns into a call to memcpy when it only copies.
template <size_t kCount, bool kOr>
inline void MoveWords(uint64_t* __restrict u, const uint64_t* __restrict r) {
  [&]<size_t... x>(std::index_sequence<x...>) {
    if constexpr (kOr) {
      ((u[x] |= r[x]), ...);
    } else {
      ((u[x] = r[x]), ...);
    }
  }
  (std::make_index_sequence<kCount>());
}

// For each instruction c (in program order, which is topological): R(c),
// the instructions among the kWords * 64 before it that reach c through a
// path whose first edge is not released early, as bits. R(c) is the union
// over c's dependencies b of R(b), plus b itself when b -> c is not
// released early, and only the last kWords * 64 instructions' R are kept
// (a ring). Built in one forward pass. An edge a -> c not released early is
// cleared in `keep` when a is in the union of R(b) over c's dependencies: a
// reaches another dependency of c (a is never in R(a)). A set bit is always
// a real path (a window only leaves paths out), and a path from a to b
// stays between them in program order, so every path no longer than the
// window is found. Instructions with an edge longer than the window (not
// released early; they have two dependencies or more) are added to `far`.
// With `early_too`, an edge a -> c released early is cleared on the same
// test (TimingEdges says when that is exact).
//
// The bits are numbered by instruction, not by distance from c: instruction
// a is bit a + kWindow of the program, and R(c) keeps kWords + 2 of its
// words from the one that holds c - kWindow (word c / 64) on: up to c - 1,
// and an even count, for SSE2. R(b) in c's frame is then R(b)'s words from
// the (c / 64 - b / 64)th on, moved whole: a load and an OR per word, not
// the two shifts and two ORs that moving it by c - b bits took (callgrind,
// Simulator::Create of the hoisted matmul 117 -> 106 M instructions,
// bench/README.md, sim42f). Bits of instructions before c - kWindow in
// c's lowest word stay as R(b) had them: each a real path, and never read
// (an edge that long is not looked up in the bits).
template <size_t kWords, typename Early>
void WindowClosure(const Kernel& kernel,
                   const UnfilledVector<uint32_t>& dep_begin, Early early,
                   bool early_too, size_t begin, size_t end,
                   std::vector<char>& keep, std::vector<uint32_t>& far) {
  constexpr size_t kWindow = 64 * kWords;
  constexpr size_t kSpan = kWords + 2;
  using Bits = std::array<uint64_t, kSpan>;
  // Each entry R's kSpan words, then kWords zero words: R(b) moved by up to
  // kWords words reads into the zeros, so every move is the same kSpan
  // words.
  constexpr size_t kStride = kSpan + kWords;
  std::vector<uint64_t> ring(kWindow * kStride, 0);
  auto entry = [&ring](size_t i) { return &ring[(i % kWindow) * kStride]; };
  const uint32_t* deps = kernel.deps.data();
  // R(c) for c in [begin, end) reads R of instructions in c's window only,
  // and a path between two of them stays between them: R of the kWindow
  // instructions before `begin`, built from an empty ring, holds every
  // bit that is read (kRecord false: R only, nothing marked).
  auto visit = [&]<bool kRecord>(size_t c) {
    const uint32_t* first = deps + dep_begin[c];
    const uint32_t* last = deps + dep_begin[c + 1];
    if constexpr (kWords == 1) {
      // One word, by distance (bit k: c - 1 - k): two plain passes cost
      // less than the ordered one below.
      uint64_t u = 0;
      for (const uint32_t* p = first; p < last; ++p) {
        const size_t s = c - *p;
        if (s < kWindow) u |= entry(*p)[0] << s;
      }
      uint64_t own = 0;
      bool is_far = false;
      for (const uint32_t* p = first; p < last; ++p) {
        const size_t s = c - *p;
        if (early(*p, c)) {
          if (kRecord && early_too && s <= kWindow && (u >> (s - 1) & 1) != 0) {
            keep[p - deps] = 0;
          }
          continue;
        }
        if (s > kWindow) {
          is_far = true;
          continue;
        }
        const uint64_t bit = uint64_t{1} << (s - 1);
        own |= bit;
        if (kRecord && (u & bit) != 0) keep[p - deps] = 0;
      }
      if (kRecord && is_far && last - first >= 2) {
        far.push_back(static_cast<uint32_t>(c));
      }
      entry(c)[0] = u | own;
      return;
    }
    // Instruction a's bit in R(c) and u (for a in c's window).
    const size_t base = c / 64 * 64;
    auto bit_of = [base](uint32_t a) { return a + 64 * kWords - base; };
    auto has = [](const uint64_t* u, size_t k) {
      return ((u[k / 64] >> (k % 64)) & 1) != 0;
    };
    // Built in c's entry of the ring (what it held, R(c - kWindow), no
    // dependency of c reads): set by the first add (or zeroed).
    uint64_t* u = entry(c);
    Bits own{};
    bool empty = true;
    bool is_far = false;
    bool sorted = true;
    uint32_t prev = kNone;
    // Nearest first (lowering lists an instruction's dependencies in one
    // order or the other): a dependency b already in u (it reaches
    // another) is left out, and R(b) is in u already (whatever reaches b
    // reaches that one), so it is not added again.
    const bool forward = first < last && first[0] > last[-1];
    const ptrdiff_t step = forward ? 1 : -1;
    const uint32_t* p = forward ? first : last - 1;
    for (const uint32_t* stop = forward ? last : first - 1; p != stop;
         p += step) {
      const uint32_t b = *p;
      sorted = sorted && b <= prev;
      prev = b;
      const size_t s = c - b;
      if constexpr (kWords <= kOwnWords) {
        if (s <= kWindow && !early(b, c)) {
          const size_t k = bit_of(b);
          own[k / 64] |= uint64_t{1} << (k % 64);
        }
      }
      if (s > kWindow) {
        is_far = is_far || !early(b, c);
      } else if (!empty && has(u, bit_of(b))) {
        if (kRecord && (early_too || !early(b, c))) keep[p - deps] = 0;
      } else if (s < kWindow) {  // R(b) then holds no instruction c reads
        const uint64_t* r = entry(b) + (c / 64 - b / 64);
        if (empty) {
          MoveWords<kSpan, false>(u, r);
        } else {
          MoveWords<kSpan, true>(u, r);
        }
        empty = false;
      }
    }
    if (empty) std::fill_n(u, kSpan, 0);
    // In neither order, a dependency may be reached by one added after it.
    if (kRecord && !sorted) {
      for (p = first; p < last; ++p) {
        const size_t s = c - *p;
        if (s <= kWindow && has(u, bit_of(*p)) &&
            (early_too || !early(*p, c))) {
          keep[p - deps] = 0;
        }
      }
    }
    if (kRecord && is_far && last - first >= 2) {
      far.push_back(static_cast<uint32_t>(c));
    }
    if constexpr (kWords <= kOwnWords) {
      MoveWords<kSpan, true>(u, own.data());
    } else {
      for (p = first; p < last; ++p) {
        const size_t s = c - *p;
        if (s <= kWindow && !early(*p, c)) {
          const size_t k = bit_of(*p);
          u[k / 64] |= uint64_t{1} << (k % 64);
        }
      }
    }
  };
  for (size_t c = begin - std::min(begin, kWindow); c < begin; ++c) {
    visit.template operator()<false>(c);
  }
  for (size_t c = begin; c < end; ++c) visit.template operator()<true>(c);
}

// The one-step check of the edges longer than the window, for the
// instructions WindowClosure listed in `far`: edge a -> c is left out when
// another dependency b of c waits for a through an edge not released early
// (and a -> c is not early, unless `early_too`). Its arrays as parameters:
// a store to `keep` (a char) could alias anything read through a lambda's
// captures, which were then read again at every step.
template <typename HotT, typename Early>
__attribute__((noinline)) void LongEdgeCheck(const std::vector<uint32_t>& far,
                                             size_t n, size_t window,
                                             const uint32_t* deps,
                                             const uint32_t* dep_begin,
                                             const HotT* hot, Early early,
                                             bool early_too, char* keep) {
  std::vector<uint32_t> mark(n, kNone);
  for (const uint32_t c : far) {
    for (uint32_t d = dep_begin[c]; d < dep_begin[c + 1]; ++d) {
      const uint32_t b = deps[d];
      const uint32_t* first = deps + dep_begin[b];
      const uint32_t* last = deps + dep_begin[b + 1];
      // early(a, b) asks whether both are matmuls: b's side once, not per
      // edge (this pass was a third of the fully optimized matmul's
      // Simulator::Create; issue 42, lower42d).
      if (!hot[b].matmul) {
        for (const uint32_t* p = first; p < last; ++p) mark[*p] = c;
      } else {
        for (const uint32_t* p = first; p < last; ++p) {
          if (!hot[*p].matmul) mark[*p] = c;
        }
      }
    }
    for (uint32_t d = dep_begin[c]; d < dep_begin[c + 1]; ++d) {
      const uint32_t a = deps[d];
      if (c - a > window && mark[a] == c && (early_too || !early(a, c))) {
        keep[d] = 0;
      }
    }
  }
}

}  // namespace

std::vector<char> KernelSim::TimingEdges(
    const Kernel& kernel, const DeviceProfile& profile,
    const UnfilledVector<uint32_t>& dep_begin, size_t span,
    const std::vector<size_t>& chunks) const {
  std::vector<char> keep(kernel.deps.size(), 1);
  // The argument below needs time to run forward: no negative hand-off,
  // issue interval or latency (a profile may set anything).
  bool forward = profile.cost.dependency_sync_us >= 0;
  for (const InstructionTiming& tm : timings_) {
    forward = forward && tm.interval_us >= 0 && tm.latency_us >= 0;
  }
  if (!forward) return keep;
  // An edge a -> c is released early (at a's streaming, without the
  // hand-off) only between two matmuls (release_accumulation in Run);
  // every other edge when a completes.
  const Hot* hot = hot_.data();
  const auto early = [hot](uint32_t a, size_t c) {
    return hot[a].matmul && hot[c].matmul;
  };
  // Edge a -> c, not released early, is left out when another dependency
  // b of c waits for a through a path a -> x -> ... -> b whose first edge
  // is not released early (the others may be): x is ready only after a
  // has completed, at t_a + sync or later, and starts no earlier; every
  // instruction after it on the path starts no earlier than the one
  // before released it, which is no earlier than that one started (times
  // run forward). So b starts at t_a + sync or later, and releases its
  // edge to c no earlier than it starts, in an event handled after a's
  // completion (each step of the path is caused by the one before). b's
  // edge then raises c's ready time at least as far as a's (b's release,
  // plus sync unless released early, against t_a + sync), and is handled
  // later: a's edge is never the last to arrive nor the one that sets c's
  // ready time, so c is pushed at the same time with the same ready time,
  // and every event after is the same, to the bit. Edges left out compose:
  // if b is left out for b', b' arrives later still, and the last
  // dependency of c in program order is never left out (nothing it waits
  // for comes after it).
  //
  // Edge a -> c released early (both matmuls) is left out on the same
  // test, when every matmul's issue interval is at most its latency (all
  // are split: the constructor's rdeps_mid_). x is then released at a's
  // completion plus the hand-off, t_a + latency_a + sync, which is no
  // earlier than a's streaming (t_a + interval_a, when a's edge to c is
  // released) and handled after it (a split matmul streams first); every
  // later step as above; so b releases c no earlier than a does, in an
  // event handled after: a's edge is never the last to arrive nor the one
  // that sets c's ready time. In the block-free matmul, leaving them out
  // saves a tenth of a run's instructions (sim42i counted ~9 such edges
  // per streamed matmul; bench/README.md, early42). A path whose first
  // edge is early would do too, but finding those takes a second set of
  // bits, which cost Simulator::Create 13-35 M instructions more on the
  // tutorial's matmuls and left out no more edges there.
  // The lowered program's edges repeat one another a great deal: 47-61% of
  // them are implied in the matmul and Mamba validation kernels (issue 25's
  // note), and the loop pays for every edge it handles.
  //
  // Which instructions reach which is kept as bits over a window of program
  // order (WindowClosure), as wide as the longest edge up to 4096
  // instructions. An edge longer than the window is checked for the
  // one-step path only (some other dependency b of c waits for a through
  // an edge not released early), as before. Searching paths of every
  // length through the dependency lists instead cost Simulator::Create
  // 15x more on the fully optimized matmul; paths of three steps, 1.8x
  // (bench/README.md, sim42c).
  size_t words = 1;
  while (words < kMaxWindowWords && words * 64 < span) words *= 2;
  if (words * 64 < span) words = kFarWindowWords;
  // Early edges are looked at only where some may be implied: a matmul
  // depends on a matmul, and every matmul is split.
  const bool early_too = any_matmul_ && !any_unsplit_;
  // Chunk by chunk (chunks.h), each on a thread of its own: every edge is
  // its dependent's, so each chunk clears its own entries of `keep`.
  const size_t window = words * 64;
  ForEachChunk(chunks, [&](size_t, size_t begin, size_t end) {
    std::vector<uint32_t> far;
    switch (words) {
      case 1:
        WindowClosure<1>(kernel, dep_begin, early, early_too, begin, end, keep,
                         far);
        break;
      case 2:
        WindowClosure<2>(kernel, dep_begin, early, early_too, begin, end, keep,
                         far);
        break;
      case 4:
        WindowClosure<4>(kernel, dep_begin, early, early_too, begin, end, keep,
                         far);
        break;
      case 8:
        WindowClosure<8>(kernel, dep_begin, early, early_too, begin, end, keep,
                         far);
        break;
      case 16:
        WindowClosure<16>(kernel, dep_begin, early, early_too, begin, end, keep,
                          far);
        break;
      case 32:
        WindowClosure<32>(kernel, dep_begin, early, early_too, begin, end, keep,
                          far);
        break;
      default:
        WindowClosure<kMaxWindowWords>(kernel, dep_begin, early, early_too,
                                       begin, end, keep, far);
    }
    if (!far.empty()) {
      LongEdgeCheck(far, kernel.instrs.size(), window, kernel.deps.data(),
                    dep_begin.data(), hot, early, early_too, keep.data());
    }
  });
  return keep;
}

std::vector<DmaPiece> KernelSim::Pieces(size_t i) const {
  if (hot_[i].unit != kDmaUnit) return {};
  const uint32_t s = shape_of_[i];
  return {pieces_.begin() + shape_begin_[s],
          pieces_.begin() + shape_begin_[s + 1]};
}

namespace {

// This thread's scratch; a kernel's run does not nest another. One for
// every instantiation of RunWith. Out of line, so RunWith holds a plain
// pointer: inline, g++ addressed the scratch through the thread pointer
// and, once the loop had the kReadyRun case, rebuilt that address on
// every step of it (callgrind: +0.5-1.5% on the DMA-bound matmuls).
__attribute__((noinline)) RunScratch& ThreadScratch() {
  thread_local RunScratch scratch;
  return scratch;
}

// A MetricsAccumulator's device-lane calls made directly: qualified, so
// not virtual, and inline (metrics_accumulator.h). Through the vtable they
// were a call each, several per simulated instruction, and kept the
// accumulator's sweep out of the loop's registers.
class DirectMetrics {
 public:
  explicit DirectMetrics(MetricsAccumulator& acc) : acc_(acc) {}
  void BusyStart(uint32_t lane, double t_us) {
    acc_.MetricsAccumulator::BusyStart(lane, t_us);
  }
  void Busy(const BusySpan& span) { acc_.MetricsAccumulator::Busy(span); }
  // A compute engine's lane only (RunWith's start).
  void BusyHandoff(const BusySpan& span) { acc_.EngineHandoff(span); }
  // Groups are of DMA lanes only (RunWith): the accumulator's test for
  // another lane folds away.
  void BusyStartGroup(uint32_t first_lane, int count, double t_us) {
    if (first_lane < DmaLane(0)) __builtin_unreachable();
    acc_.MetricsAccumulator::BusyStartGroup(first_lane, count, t_us);
  }
  void BusyGroup(const BusySpan& span, int count) {
    if (span.lane < DmaLane(0)) __builtin_unreachable();
    acc_.MetricsAccumulator::BusyGroup(span, count);
  }
  void DmaDone(const DmaCompletion& done) {
    acc_.MetricsAccumulator::DmaDone(done);
  }

 private:
  MetricsAccumulator& acc_;
};

}  // namespace

double KernelSim::Run(CounterRng& rng, double t0_us, int32_t dispatch,
                      SimListener& out) const {
  // Exactly a MetricsAccumulator (the harness's runs), not a class derived
  // from one, which may override its calls.
  if (typeid(out) == typeid(MetricsAccumulator)) {
    DirectMetrics direct(static_cast<MetricsAccumulator&>(out));
    return RunWith(rng, t0_us, dispatch, direct);
  }
  return RunWith(rng, t0_us, dispatch, out);
}

template <typename Sink>
double KernelSim::RunWith(CounterRng& rng, double t0_us, int32_t dispatch,
                          Sink& out) const {
  const Kernel& k = *kernel_;
  const DeviceProfile& prof = *profile_;
  // From its own arrays: the kernel's instructions may have been released.
  const size_t n = hot_.size();
  if (n == 0) return t0_us;

  RunScratch& scratch = ThreadScratch();
  // All zero as it starts. A run that ends puts back the zeros of every
  // field it read before writing (below, kReady and kDmaDone), so the next
  // run on this thread finds them without a pass over the state (2.4 MB
  // per run of the tiled matmul, written again and again). Not after a run
  // that did not end (a listener that threw), nor with an unsplit matmul,
  // whose edges may count a dependent after it is ready.
  auto& st = scratch.st;
  if (scratch.st_dirty || any_unsplit_) {
    st.assign(n, State{});
  } else if (st.size() < n) {
    st.resize(n);
  }
  scratch.st_dirty = true;
  // Transfer i's latency is the run's draw dma_draw_[i]: the draws belong
  // to transfers in program order, whatever order events are handled in,
  // and each is made when its transfer needs it (drawing them all up front
  // cost a pass over the state of every instruction).
  const uint64_t draw0 = rng.counter();
  rng.Skip(dma_count_);
  auto& edge_done = scratch.edge_done;
  if (any_unsplit_) edge_done.assign(rdeps_.size(), 0);

  EventQueue& heap = scratch.heap;
  heap.Clear();
  auto payload = [](uint32_t what, EvKind kind, uint8_t flags = 0) {
    return what | uint64_t{static_cast<uint8_t>(kind)} << 32 |
           uint64_t{flags} << 40;
  };
  auto push = [&](double time, uint32_t what, EvKind kind, uint8_t flags = 0) {
    heap.Push(time, payload(what, kind, flags));
  };

  // Compute engines. Each issues, of its instructions whose dependencies
  // are visible, the first in program order (list scheduling, as
  // neuronx-cc's scheduler reorders independent instructions; see
  // kernel_sim.h).
  std::array<ReadyQueue, kNumEngines>& ready = scratch.ready;
  for (auto& r : ready) r.clear();
  std::array<double, kNumEngines> lane_free{};
  // VectorE and GpSimdE cannot access SBUF in parallel, so the compiler
  // serializes their instructions (NKI architecture guide, NeuronCore-v2,
  // "Concurrent SBUF/PSUM accesses by engines"): they share one port, free
  // from this time on.
  constexpr auto kV = static_cast<size_t>(Engine::kVector);
  constexpr auto kG = static_cast<size_t>(Engine::kGpSimd);
  double sbuf_port_free = t0_us;
  auto shares_port = [](size_t e) { return e == kV || e == kG; };
  // When engine e may issue next, for its own issue interval and the port.
  auto free_at = [&](size_t e) {
    return shares_port(e) ? std::max(lane_free[e], sbuf_port_free)
                          : lane_free[e];
  };
  std::array<uint32_t, kNumEngines> open{};  // started, span not closed
  lane_free.fill(t0_us);
  open.fill(kNone);

  // DMA engines: an in-order queue of pieces each, the head piece moving
  // (dma_queues.h).
  const auto engines = static_cast<size_t>(prof.dma_queues);
  DmaQueues& queues = scratch.queues;
  queues.Reset(engines);
  // The moving pieces, alike ones on adjacent engines as one group. The
  // scans below visit groups in engine order (a DMA engine is idle most of
  // a compute-bound kernel), as a scan of every engine would visit their
  // members, so every sum and every tie is the same.
  DmaGroups& dma = scratch.dma;
  dma.Reset(engines, group_shares_);
  std::vector<Flow>& flows = scratch.flows;
  std::vector<uint32_t>& flow_group = scratch.flow_group;
  std::vector<double>& issuer_free = scratch.issuer_free;
  issuer_free.assign(static_cast<size_t>(std::max(1, prof.dma_issuers)), t0_us);
  const double hbm = prof.hbm_gbps * 1e3;        // bytes per us
  const double cap = prof.dma_queue_gbps * 1e3;  // work per us
  const double sync = prof.cost.dependency_sync_us;
  // An engine's pause between two transfers of one queue (model 12).
  const double gap = prof.dma_queue_gap_us;
  std::vector<uint32_t>& last = scratch.last;
  std::vector<LastPiece>& ended = scratch.ends;
  if (gap > 0) {
    last.assign(engines, 0);
    ended.assign(1, LastPiece{kNone, t0_us});
  }

  double t = t0_us;
  double makespan = t0_us;
  size_t done = 0;
  bool rates_dirty = false;

  // A compute engine's span ends (out of line: in `start`, where most
  // spans of a compute-bound kernel end, the next one begins at the same
  // instant, and the two are one call, BusyHandoff).
  auto close_span = [&](size_t e, double at) {
    // A compute engine's index: the metrics' lane tests then fold away
    // (callgrind, with the same in start: fully optimized matmul 23.90 ->
    // 23.61 M, block-free 46.05 -> 45.80 M).
    if (e >= kNumEngines) __builtin_unreachable();
    const uint32_t i = open[e];
    open[e] = kNone;
    out.Busy({EngineLane(static_cast<Engine>(e)), &k, i, st[i].start, at, 0,
              dispatch});
  };
  // Two of three attempts find that the engine cannot start: the check is
  // inline at each call site and the start out of line, which keeps the
  // event loop's code small (measured: runs 4-5% faster; inlining more of
  // the loop, or -O3, made them slower).
  // The port goes to the earlier instruction in program order when both
  // of its engines could take one.
  auto can_start = [&](size_t e) {
    if (ready[e].empty() || free_at(e) > t) return false;
    if (!shares_port(e)) return true;
    const size_t other = e == kV ? kG : kV;
    return ready[other].empty() || lane_free[other] > t ||
           ready[other].front() > ready[e].front();
  };
  auto start = [&](size_t e) __attribute__((noinline)) {
    if (e >= kNumEngines) __builtin_unreachable();  // as in close_span
    const uint32_t i = ready[e].pop();
    // In a local: a time written (st, lane_free) may alias `t` as far as
    // the compiler knows, which reloaded it after each store (23.97 ->
    // 23.90 M on the fully optimized matmul, a little on the other three).
    const double now = t;
    const uint32_t lane = EngineLane(static_cast<Engine>(e));
    // The engine's last span, if still open, ends as this one begins (33k
    // of the fully optimized matmul's 37k starts).
    if (const uint32_t last_open = open[e]; last_open != kNone) {
      out.BusyHandoff(
          {lane, &k, last_open, st[last_open].start, now, 0, dispatch});
    } else {
      out.BusyStart(lane, now);
    }
    st[i].start = now;
    open[e] = i;
    const InstructionTiming& tm = timings_[shape_of_[i]];
    lane_free[e] = now + tm.interval_us;
    // The engine wakes when it frees only if some instruction of it is
    // ready by now; one that is not yet wakes it with its kReady event.
    // Most engines of a tiled kernel free long before their next
    // instruction is ready, and a wake-up for each was a fifth of all
    // events. (So: while an engine is busy and has ready instructions, a
    // kLaneFree is pending.)
    // All at lane_free[e], as one event (AfterIssue).
    uint8_t after = 0;
    if (!ready[e].empty()) after |= kWakeEngine;
    if (shares_port(e)) {
      sbuf_port_free = lane_free[e];
      // The other engine of the port, if it has work, tries again when
      // the port frees.
      const size_t other = e == kV ? kG : kV;
      if (!ready[other].empty()) after |= kWakePortPeer;
    }
    if (hot_[i].matmul) after |= kStream;
    const double complete = now + tm.latency_us;
    // The engine is active to the instruction's completion only if its
    // result is read on this engine; otherwise its span ends with its
    // tensor access (or at the next start, if sooner).
    if (!hot_[i].drain && tm.active_us < tm.latency_us) {
      push(now + tm.active_us, i, EvKind::kIssueEnd, kCloseSpan);
    }
    if (!forward_) {
      // A negative delay could push an event between them: each alone.
      for (const uint8_t f : {kWakeEngine, kWakePortPeer, kStream}) {
        if (after & f) push(lane_free[e], i, EvKind::kIssueEnd, f);
      }
      push(complete, i, EvKind::kComplete);
    } else if (after == 0) {
      push(complete, i, EvKind::kComplete);
    } else if (complete == lane_free[e]) {
      push(complete, i, EvKind::kIssueEnd, after | kCompleteToo);
    } else {
      // Most starts of a compute-bound kernel (the fully optimized
      // matmul's 33k of 37k): one call and one walk for both (callgrind,
      // one steady run: 25.4 -> 24.1 M).
      heap.PushPair(lane_free[e], payload(i, EvKind::kIssueEnd, after),
                    complete, payload(i, EvKind::kComplete));
    }
  };
  auto try_start = [&](size_t e) {
    if (can_start(e)) start(e);
  };
  // Compute instruction i's dependencies are visible now.
  auto compute_ready = [&](uint32_t i) {
    const uint8_t unit = hot_[i].unit;
    const bool waiting = !ready[unit].empty();
    ready[unit].push(i);
    if (can_start(unit)) {
      start(unit);
    } else if (!waiting) {
      // The first ready while its engine is busy: the engine takes the
      // first ready one when it frees.
      push(free_at(unit), unit, EvKind::kLaneFree);
    }
  };
  // Idle engines lo .. lo + count - 1 start the alike pieces p .. p + count
  // - 1 of transfer `owner`.
  // While a group's engines take their next pieces: its queue.
  uint32_t ending_queue = kNone;
  // While a group's engines take their next pieces: its slot, not yet
  // ended (finish). When the next pieces start on exactly its engines as
  // one group, the slot is begun again in place (DmaGroups::Restart),
  // which is what ending it and beginning them would leave; otherwise it
  // is ended first.
  uint32_t restarting = kNone;
  // This and start_all inline by choice: left to g++ they were calls of
  // their own whose entries (saved registers, captures reloaded) cost ~60
  // instructions per group started (callgrind: -1.3% on the tiled matmul).
  auto begin_group = [&](uint32_t lo, uint32_t count, uint32_t owner,
                         uint32_t p, double work, double from)
      __attribute__((always_inline)) {
    if (restarting != kNone) {
      const uint32_t s = restarting;
      restarting = kNone;
      if (dma.Restart(s, lo, count, owner, p, pieces_[p].bytes, work, from)) {
        return;
      }
      dma.End(s);
    }
    dma.Begin(lo, count, owner, p, pieces_[p].bytes, work, from);
  };
  auto begin_pieces = [&](uint32_t lo, uint32_t count, uint32_t p,
                          uint32_t owner) {
    rates_dirty = true;
    if (gap <= 0) {
      begin_group(lo, count, owner, p, pieces_[p].work, t);
      out.BusyStartGroup(DmaLane(static_cast<int>(lo)), static_cast<int>(count),
                         t);
      return;
    }
    // An engine whose last piece was of this queue waits out the rest of
    // the gap before the data moves (model 12). The queue holds the engine
    // meanwhile, as work at the engine's rate that draws no HBM bytes
    // (gather), so the engine counts as active; the transfer's span is
    // its data alone, from the gap's end. A piece after another queue's
    // starts at once: round robin served that queue in the gap. Engines
    // alike in their wait start as one group.
    const uint32_t q = queue_of_[owner];
    // The whole group starts after one wait.
    auto start_all = [&](double wait) __attribute__((always_inline)) {
      begin_group(lo, count, owner, p,
                  wait > 0 ? pieces_[p].work + wait * cap : pieces_[p].work,
                  t + wait);
      out.BusyStartGroup(DmaLane(static_cast<int>(lo)), static_cast<int>(count),
                         t);
    };
    // Engines of the group that ended now, taking their next pieces: their
    // last piece is that group's, ended at t.
    if (ending_queue != kNone) {
      start_all(ending_queue == q ? std::max(0.0, t + gap - t) : 0.0);
      return;
    }
    auto wait_of = [&](uint32_t e) {
      const LastPiece& l = ended[last[e]];
      return l.queue == q ? std::max(0.0, l.end + gap - t) : 0.0;
    };
    // Most often the engines ended their last pieces together (one group),
    // so one wait stands for all: one pass over their indices to see that
    // (a wait worked out engine by engine for every start was a fifth of
    // a tiled matmul's run, callgrind).
    // All alike when each equals the one before: the range against itself
    // shifted by one (memcmp: the loop of compares cost as much again).
    if (std::memcmp(&last[lo + 1], &last[lo], (count - 1) * sizeof(uint32_t)) ==
        0) {
      start_all(wait_of(lo));
      return;
    }
    if (restarting != kNone) {
      dma.End(restarting);
      restarting = kNone;
    }
    for (uint32_t c = 0; c < count;) {
      const double wait = wait_of(lo + c);
      uint32_t m = 1;
      while (c + m < count && wait_of(lo + c + m) == wait) ++m;
      dma.Begin(lo + c, m, owner, p + c, pieces_[p].bytes,
                pieces_[p].work + wait * cap, t + wait);
      out.BusyStartGroup(DmaLane(static_cast<int>(lo + c)), static_cast<int>(m),
                         t);
      c += m;
    }
  };
  // The edges of an unsplit matmul (kernel_sim.h), each marked done as
  // released: out of line, as no profile loaded has one.
  auto resolve_unsplit = [&](uint32_t i, bool streamed)
      __attribute__((noinline)) {
    for (uint32_t r = rdeps_begin_[i]; r < rdeps_begin_[i + 1]; ++r) {
      const uint32_t d = rdeps_[r];
      if (edge_done[r] || (streamed && !hot_[d].matmul)) continue;
      if (streamed) edge_done[r] = 1;
      const double at = streamed ? t : t + sync;
      st[d].ready_at = std::max(st[d].ready_at, at);
      if (++st[d].resolved == hot_[d].deps) {
        push(st[d].ready_at, d, EvKind::kReady);
      }
    }
  };
  // Dependents made ready here at t + sync (a matmul block's operands, a
  // PSUM tile freed: eight matmuls at once in the fully optimized matmul)
  // have their kReady events pushed one after the other at one time, so
  // they are adjacent in the queue's order. Handling them in turn as one
  // kReadyRun event, marked by `resolved` (kBatched), handles them in the
  // same order to the bit, provided nothing their handling pushes comes
  // before the last of them: so only engines without the shared SBUF port
  // (whose blocked engine may wait for a time already past), only where
  // every delay is >= 0 (kFanOut, set in the constructor), and the run
  // ends at an individual kReady pushed at the same time after it (which
  // would come between). Out of line, with the unsplit case: the common
  // resolve stays as small as without runs.
  auto resolve_fan_out = [&](uint32_t i) __attribute__((noinline)) {
    if (hot_[i].special == kUnsplit) return resolve_unsplit(i, false);
    const double at = t + sync;
    // 0: no run yet; 1: a run is open; 2: closed, no more this call.
    int run = 0;
    for (uint32_t r = rdeps_mid_[i]; r < rdeps_begin_[i + 1]; ++r) {
      const uint32_t d = rdeps_[r];
      st[d].ready_at = std::max(st[d].ready_at, at);
      if (++st[d].resolved == hot_[d].deps) {
        const bool same = st[d].ready_at == at;
        if (run < 2 && same && Batchable(hot_[d].unit)) {
          // Marked as this run's: an instruction of i's list may be in
          // another completion's run (pending as this one's is handled).
          st[d].resolved = kBatched;
          st[d].pieces_left = i;
          if (run == 0) push(at, i, EvKind::kReadyRun);
          run = 1;
        } else {
          push(st[d].ready_at, d, EvKind::kReady);
          if (same && run == 1) run = 2;
        }
      }
    }
  };
  // The kReadyRun of instruction i's completion: its dependents marked
  // kBatched, in its order (out of line: the event loop's code as small
  // as without it).
  auto ready_run = [&](uint32_t i) __attribute__((noinline)) {
    for (uint32_t r = rdeps_mid_[i]; r < rdeps_begin_[i + 1]; ++r) {
      const uint32_t d = rdeps_[r];
      if (st[d].resolved != kBatched || st[d].pieces_left != i) continue;
      st[d].resolved = 0;
      st[d].ready_at = 0;
      st[d].pieces_left = 0;
      compute_ready(d);
    }
  };
  auto resolve = [&](uint32_t i) {
    ++done;
    makespan = std::max(makespan, t);
    if (hot_[i].special != 0) return resolve_fan_out(i);
    for (uint32_t r = rdeps_mid_[i]; r < rdeps_begin_[i + 1]; ++r) {
      const uint32_t d = rdeps_[r];
      st[d].ready_at = std::max(st[d].ready_at, t + sync);
      if (++st[d].resolved == hot_[d].deps) {
        push(st[d].ready_at, d, EvKind::kReady);
      }
    }
  };
  // Matmuls that accumulate into one PSUM tile issue back to back: the
  // accumulation happens in PSUM, so a matmul waits for the previous one's
  // operands to stream, not for its result.
  //
  // A matmul this makes ready now, while the tensor engine is busy past
  // now with instructions already waiting, joins the engine's ready queue
  // here rather than through a kReady event at t (ready_in_place_). That
  // event would only have added it to the queue (the engine cannot start,
  // and a wake-up is pending: compute_ready), and it would be handled in
  // this pass of the event loop, after events at t that cannot tell the
  // difference: the engine stays busy past t (only a start moves its free
  // time, and it cannot start before then), so nothing at t starts it or
  // finds its queue empty; the queue is kept in program order whatever the
  // order of its pushes; and the tensor engine shares no SBUF port (whose
  // peer would read the queue's front). The event has the current time, so
  // no DMA step is taken or left out for it. Nothing else reads d's state
  // until then (every edge into it has been counted), and it is zeroed as
  // the kReady would. 14k of the block-free matmul's 50k kReady events
  // (bench/README.md, sim42j). The tensor engine only (where matmuls run):
  // the same test for any engine, its queue and free time indexed, cost
  // the fully optimized matmul's event loop registers (+0.6%).
  auto release_accumulation = [&](uint32_t i) {
    if (hot_[i].special == kUnsplit) return resolve_unsplit(i, true);
    constexpr auto kT = static_cast<size_t>(Engine::kTensor);
    for (uint32_t r = rdeps_begin_[i]; r < rdeps_mid_[i]; ++r) {
      const uint32_t d = rdeps_[r];
      st[d].ready_at = std::max(st[d].ready_at, t);
      if (++st[d].resolved == hot_[d].deps) {
        if (ready_in_place_ && hot_[d].unit == kT && !(st[d].ready_at > t) &&
            !ready[kT].empty() && lane_free[kT] > t) {
          st[d].resolved = 0;
          st[d].ready_at = 0;
          ready[kT].push(d);
          continue;
        }
        push(st[d].ready_at, d, EvKind::kReady);
      }
    }
  };
  // Compute instruction i's result is committed now.
  auto complete = [&](uint32_t i) {
    const size_t e = hot_[i].unit;
    if (open[e] == i) close_span(e, t);
    resolve(i);
    try_start(e);
  };
  // Transfer i's data has all moved now: its completion semaphore follows
  // after its latency.
  auto data_moved = [&](uint32_t i) __attribute__((always_inline)) {
    const double latency =
        prof.dma_latency_us.Sample(rng.UniformAt(draw0 + dma_draw_[i]));
    push(t + latency, i, EvKind::kDmaDone);
    st[i].dma_end = t;
  };
  // Inline by choice, at its two call sites (kReady, kIssued): out of line,
  // its entry (saved registers, captures reloaded) was ~20 instructions a
  // transfer (callgrind, one steady run: tiled matmul 95.7 -> 93.7 M,
  // the other three versions 1-2% fewer too).
  auto enqueue = [&](uint32_t i) __attribute__((always_inline)) {
    st[i].start = t;
    const uint32_t b = shape_begin_[shape_of_[i]];
    const uint32_t e = shape_begin_[shape_of_[i] + 1];
    st[i].pieces_left = e - b;
    if (b == e) {
      data_moved(i);
      return;
    }
    // Piece by piece, an engine that is idle starts its piece, and a busy
    // one queues it; a stretch of alike pieces does either at once. An idle
    // engine has nothing queued: an engine that frees takes the head of its
    // queue at once (finish, below).
    for (uint32_t p = b; p < e;) {
      const auto eng = static_cast<uint32_t>(pieces_[p].engine);
      const uint32_t alike = run_[p];
      uint32_t m = static_cast<uint32_t>(dma.IdleRun(eng, alike));
      if (m > 0) {
        queues.Served(eng, m, queue_of_[i]);
        begin_pieces(eng, m, p, i);
        p += m;
        continue;
      }
      m = static_cast<uint32_t>(dma.BusyRun(eng, alike));
      queues.Push(eng, m, p, i, queue_of_[i]);
      p += m;
    }
  };
  // Engines e .. e + count - 1 deliver their spans of `span`'s transfer.
  auto spans_end = [&](BusySpan & span, uint32_t e, uint32_t count)
      __attribute__((always_inline)) {
    span.lane = DmaLane(static_cast<int>(e));
    if (group_shares_) {
      out.BusyGroup(span, static_cast<int>(count));
    } else {
      for (uint32_t c = 0; c < count; ++c) {
        span.lane = DmaLane(static_cast<int>(e + c));
        out.Busy(span);
      }
    }
  };
  // Group `s`'s pieces end now: each engine delivers its span and takes the
  // next piece of its queue, but for finish's case (a whole run taken).
  // Out of line: its callback and what it captures are built only here.
  auto finish_general = [&](uint32_t s) __attribute__((noinline)) {
    const DmaGroup g = dma[s];  // a copy: starting pieces may reuse the slot
    // Engines that go idle note what they served last (an engine that
    // takes a next piece at once is seen through ending_queue instead, and
    // notes it when it goes idle: filling the note for every piece that
    // ended cost 4% of a tiled matmul's run, callgrind).
    uint32_t note = kNone;
    auto went_idle = [&](uint32_t e, uint32_t engines_idle) {
      if (gap <= 0) return;
      if (note == kNone) {
        note = static_cast<uint32_t>(ended.size());
        ended.push_back({queue_of_[g.owner], t});
      }
      std::fill_n(last.begin() + e, engines_idle, note);
    };
    BusySpan span{DmaLane(static_cast<int>(g.lo)),
                  &k,
                  g.owner,
                  g.start,
                  t,
                  g.bytes,
                  dispatch};
    if (queues.Queued() == 0) {
      dma.End(s);
      out.BusyGroup(span, static_cast<int>(g.count));
      went_idle(g.lo, g.count);
      return;
    }
    // Each engine's span ends and its engine takes the head of its queue,
    // in engine order, as the engines free one by one. A stretch of
    // engines whose heads are alike pieces of one transfer (a tile loop's
    // transfers queue behind one another on every engine) starts them at
    // once: engine by engine, each would have joined the group its left
    // neighbour had just begun (DmaGroups::Begin). The metrics do not
    // depend on how the ends and starts of one instant interleave.
    // The group ends before any of its engines starts a piece (or, when
    // they start one group on exactly its engines, is begun again in
    // place: begin_group).
    bool group_ended = false;
    // The callback inline by choice: DmaQueues calls it from several
    // paths, and g++ then kept it out of line, ~45 instructions of entry
    // a transfer (callgrind, one steady run: tiled matmul 97.3 -> 95.7 M,
    // hoist_load 65.1 -> 64.2 M).
    queues.PopHeadsInChunks(
        g.lo, g.count,
        [&](uint32_t e, uint32_t count, uint32_t piece,
            uint32_t owner) __attribute__((always_inline)) {
          if (!group_ended) {
            group_ended = true;
            if (piece != DmaQueues::kNone && e == g.lo && count == g.count) {
              restarting = s;
            } else {
              dma.End(s);
            }
          }
          spans_end(span, e, count);
          if (piece != DmaQueues::kNone) {
            ending_queue = gap > 0 ? queue_of_[g.owner] : kNone;
            begin_pieces(e, count, piece, owner);
            ending_queue = kNone;
          } else {
            went_idle(e, count);
          }
        });
  };
  // Group `s`'s pieces end now. A tile loop's case inline: every piece
  // waiting is in a whole run (DmaQueues::PopWhole), so all the engines
  // take the next one, as one group on exactly the group's engines: what
  // finish_general's callback does for it, without the callback, its
  // captures (a dozen variables stored for every transfer that ended)
  // and the copy of the group.
  auto finish = [&](uint32_t s) {
    const DmaGroup& g = dma[s];
    const uint32_t owner = g.owner;
    const uint32_t count = g.count;
    uint32_t next_piece;
    uint32_t next_owner;
    if (queues.PopWhole(g.lo, count, next_piece, next_owner)) {
      const uint32_t lo = g.lo;
      BusySpan span{DmaLane(static_cast<int>(lo)),
                    &k,
                    owner,
                    g.start,
                    t,
                    g.bytes,
                    dispatch};
      restarting = s;
      spans_end(span, lo, count);
      ending_queue = gap > 0 ? queue_of_[owner] : kNone;
      begin_pieces(lo, count, next_piece, next_owner);
      ending_queue = kNone;
    } else {
      finish_general(s);
    }
    st[owner].pieces_left -= count;
    if (st[owner].pieces_left == 0) {
      data_moved(owner);
    }
  };

  // The flows in engine order, a group as one flow of its count.
  auto add_flow = [&](uint32_t s) {
    const DmaGroup& g = dma[s];
    // A queue gap held in the piece's work draws no HBM bytes.
    const double w = pieces_[g.piece].work;
    flows.push_back(
        {cap,
         g.work == w ? hbm_weight_[g.piece] : hbm_weight_[g.piece] * w / g.work,
         0, static_cast<int>(g.count)});
    flow_group.push_back(s);
  };
  // `only`: the only group, or kNone (DmaGroups::Only); one group is its
  // own flow list, without the pass over the engines (a group that starts
  // after a queue gap misses the rate cache: 3.5% of a hoisted matmul's
  // run, callgrind).
  auto gather = [&](uint32_t only) {
    flows.clear();
    flow_group.clear();
    if (only != DmaGroups::kNone) {
      add_flow(only);
      return;
    }
    dma.ForEach(add_flow);
  };
  std::vector<Alone>& alone = scratch.alone;
  alone.assign(pieces_.size(), Alone{});
  // Rates the bandwidth policy works out: out of line, as most steps of
  // a tiled kernel reuse a rate (below), so the loop's own code stays
  // small.
  auto assign_new_rates = [&](uint32_t only) __attribute__((noinline)) {
    gather(only);
    if (!policy_->Assign(flows, hbm)) {
      // The members of a group would not all get one rate: every piece
      // goes on alone from now on.
      for (uint32_t s : flow_group) {
        while (dma[s].count > 1) s = dma.SplitFirst(s);
      }
      gather(dma.Only());
      if (!policy_->Assign(flows, hbm)) {
        std::fprintf(stderr,
                     "trnbench: internal error: the bandwidth policy refused "
                     "single flows\n");
        std::abort();
      }
    }
    for (size_t f = 0; f < flows.size(); ++f) {
      dma[flow_group[f]].rate = flows[f].rate;
    }
    if (only != DmaGroups::kNone && flows.size() == 1) {
      alone[dma[only].piece] = {dma[only].count, dma[only].work, flows[0].rate};
    }
  };
  // The shares move at the rates set last until the rates change again:
  // brought up to date then only, and when each ends found once per rate
  // rather than at every step (model 16; before, every step of the loop
  // moved every share on by rate * dt and divided for its end, ~45
  // instructions a step, and the roundings of those steps moved the end
  // by a few ulps with the events of other engines).
  double dma_end = kInf;  // the first end of a group
  double dma_due = kInf;  // the first time a step ends a group
  auto bring_up_to_date = [&](DmaGroup& g) {
    if (g.since != t) {
      g.remaining -= g.rate * (t - g.since);
      g.since = t;
    }
  };
  auto set_end = [&](DmaGroup& g) {
    // A tolerance absorbs rounding: a step within 1e-6 work of a share's
    // end ends it. (due <= end, as rounding is monotone.)
    const double tolerance = 1e-6;
    const double end = g.rate > 0 ? t + g.remaining / g.rate : kInf;
    g.due = g.remaining <= tolerance ? t
            : g.rate > 0             ? t + (g.remaining - tolerance) / g.rate
                                     : kInf;
    dma_end = std::min(dma_end, end);
    dma_due = std::min(dma_due, g.due);
  };
  auto assign_rates = [&] {
    dma_end = kInf;
    dma_due = kInf;
    if (dma.None()) return;
    const uint32_t only = dma.Only();
    if (only != DmaGroups::kNone) {
      DmaGroup& g = dma[only];
      bring_up_to_date(g);
      // The same flow as the one cached (its weight follows from the piece
      // and the work), so the same rate. The work keyed too: a group that
      // starts after a queue gap carries the wait in its work, and that
      // wait, (t + gap) - t, is one value over long stretches of t (a
      // binade), so the hoisted matmul's transfers hit the cache as well.
      if (alone[g.piece].count == g.count && alone[g.piece].work == g.work) {
        g.rate = alone[g.piece].rate;
        set_end(g);
        return;
      }
    } else {
      dma.ForEach([&](uint32_t s) { bring_up_to_date(dma[s]); });
    }
    assign_new_rates(only);  // (may split groups)
    dma.ForEach([&](uint32_t s) { set_end(dma[s]); });
  };

  // Simulator::Create checks that program order is topological, so a stuck
  // run is a bug in the model, not bad input.
  auto stuck = [&]() __attribute__((noinline, noreturn)) {
    std::fprintf(stderr,
                 "trnbench: internal error: kernel %s stuck at %zu/%zu\n",
                 k.name.c_str(), done, n);
    std::abort();
  };

  for (uint32_t i : initial_compute_) {
    ready[hot_[i].unit].push(i);
  }
  for (size_t e = 0; e < kNumEngines; ++e) try_start(e);
  for (uint32_t i : initial_dma_) push(t, i, EvKind::kReady);
  while (done < n) {
    if (rates_dirty) {
      assign_rates();
      rates_dirty = false;
    }
    // The next event, or the first end of a group's shares if sooner.
    const double next = std::min(heap.TopTime(), dma_end);
    if (next == kInf) stuck();  // (an empty queue's top is +infinity)
    t = next;
    if (t >= dma_due) {
      // The shares due end, in engine order (the group whose end set
      // `next` among them). Ending one touches only its own engines. A
      // group ends whole (before model 16, when rounding left the other
      // members of the group that set `next` some work, they went on as a
      // group of their own for a step).
      rates_dirty = true;
      if (const uint32_t one = dma.Only(); one != DmaGroups::kNone) {
        finish(one);
      } else {
        dma.ForEach([&](uint32_t s) {
          if (t >= dma[s].due) finish(s);
        });
      }
    }
    while (heap.TopTime() <= t) {  // (an empty queue's is +infinity)
      const QueuedEvent popped = heap.Pop();
      const Ev ev{static_cast<uint32_t>(popped.payload),
                  static_cast<EvKind>(popped.payload >> 32 & 0xff),
                  static_cast<uint8_t>(popped.payload >> 40)};
      // Only this loop's pushes are queued: every kind is one of the cases
      // (the switch's range test folds away).
      if (ev.kind > EvKind::kReadyRun) __builtin_unreachable();
      switch (ev.kind) {
        case EvKind::kComplete:
          complete(ev.what);
          break;
        case EvKind::kIssueEnd: {
          const size_t e = hot_[ev.what].unit;
          if (ev.flags & kWakeEngine) try_start(e);
          if (ev.flags & kWakePortPeer) try_start(e == kV ? kG : kV);
          if (ev.flags & kStream) release_accumulation(ev.what);
          if (ev.flags & kCompleteToo) complete(ev.what);
          if ((ev.flags & kCloseSpan) && open[e] == ev.what) close_span(e, t);
          break;
        }
        case EvKind::kLaneFree:
          try_start(ev.what);
          break;
        case EvKind::kReadyRun:
          ready_run(ev.what);
          break;
        case EvKind::kReady: {
          // Read no more this run: zero again for the next (see st).
          st[ev.what].resolved = 0;
          st[ev.what].ready_at = 0;
          const uint8_t unit = hot_[ev.what].unit;
          if (unit != kDmaUnit) {
            compute_ready(ev.what);
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
        case EvKind::kDmaDone: {
          out.DmaDone({&k, ev.what, st[ev.what].start, st[ev.what].dma_end, t,
                       dispatch});
          st[ev.what].dma_end = 0;
          resolve(ev.what);
          break;
        }
      }
    }
  }
  // An unsplit matmul's streaming may count a dependent after its kReady
  // zeroed it: then the next run on this thread zeroes all first.
  scratch.st_dirty = any_unsplit_;
  return makespan;
}

}  // namespace trn
