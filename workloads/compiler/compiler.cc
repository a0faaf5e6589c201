#include "workloads/compiler/compiler.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "support/status_macros.h"
#include "workloads/compiler/allocation.h"
#include "workloads/compiler/broadcasts.h"
#include "workloads/compiler/engine_placement.h"
#include "workloads/compiler/hoisting.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {

static_assert(kSpillReloadBuffers == kMaxPipelineDepth,
              "a spilled block's reloads are pipelined as an innermost loop");

const char* DecidedByName(DecidedBy by) {
  return by == DecidedBy::kSpec ? "spec" : "compiler";
}

namespace {

// A loop of the nest with what the depth rule needs to know of it.
struct LoopSite {
  NkiLoop* loop = nullptr;
  // Iterations it pipelines over: one run's, or for a loop that rotates
  // its buffers over its runs, every run's.
  int64_t trips = 0;
  LoopTiles tiles;
  bool partial_last = false;  // some run ends on a partial tile
  bool innermost = true;      // no loop nested in it
};

void Collect(const WorkloadSpec& spec, NkiLoop& loop, const LoopTiles& tiles,
             LoopChain& chain, int64_t runs, std::vector<LoopSite>& out) {
  chain.push_back(&loop);
  const int64_t extent = LoopExtents(spec, chain, chain.size() - 1).back();
  const int64_t trips = (extent + loop.TileSize() - 1) / loop.TileSize();
  const bool innermost =
      std::none_of(loop.body.begin(), loop.body.end(),
                   [](const NkiOp& op) { return op.op == "loop"; });
  // A loop that rotates its buffers over its runs (RotatesOwnBuffers)
  // pipelines across them: its iterations are those of every run.
  const int64_t pipelined =
      tiles.rotates ? std::min<int64_t>(trips * runs, int64_t{1} << 40) : trips;
  out.push_back({&loop, pipelined, tiles,
                 LoopHasPartialTile(spec, chain, chain.size() - 1), innermost});
  const int64_t inner_runs = std::min<int64_t>(trips * runs, int64_t{1} << 40);
  for (NkiOp& op : loop.body) {
    if (op.op == "loop") {
      Collect(spec, op.loop.front(), TilesOf(op, tiles.keep_all), chain,
              inner_runs, out);
    }
  }
  chain.pop_back();
}

// Why a loop keeps one iteration in flight whatever the memory, or empty
// when its depth is the allocator's to decide.
std::string FixedDepthReason(const LoopSite& s) {
  if (s.tiles.keep_all) {
    return "a block: every iteration keeps its own tile, none reuses "
           "another's buffers";
  }
  // A sequential loop is pipelined as an affine one (model 8): it orders
  // only what it carries (its `carry` tiles, its state), not whole
  // iterations, so its other tiles rotate over buffers as any loop's.
  if (s.trips < 2) return "runs once";
  if (s.partial_last) {
    return "its last iteration is partial: the iterations are not alike, "
           "so one set of buffers is not rotated over them (model 7's "
           "assumption, docs/calibration.md)";
  }
  return "";
}

}  // namespace

absl::Status CompileSpec(WorkloadSpec& spec, const MemoryLimits& limits) {
  spec.compiled = CompilerDecisions{};
  RemoveInsertedBroadcasts(spec);  // validated as written, expanded below
  // Validated with every unstated depth at 1: the structure does not
  // depend on depths.
  std::vector<LoopSite> sites;
  if (spec.kernel.has_value()) {
    auto visit = [&](auto&& self, NkiLoop& l) -> void {
      if (!l.buffers_stated) l.buffers = 1;
      for (NkiOp& op : l.body) {
        if (op.op == "loop" && !op.loop.empty()) self(self, op.loop.front());
        if (!op.engine_stated) op.engine.reset();
        op.transpose_copy_engine.reset();
      }
    };
    for (NkiLoop& loop : spec.kernel->loops) visit(visit, loop);
  }
  TRN_RETURN_IF_ERROR(ValidateSpec(spec, limits));
  if (!spec.kernel.has_value()) return absl::OkStatus();
  TRN_RETURN_IF_ERROR(ExpandBroadcasts(spec, limits.partitions));
  CompilerDecisions d;
  d.engines = PlaceEngines(spec, limits);
  {
    LoopChain chain;
    for (NkiLoop& loop : spec.kernel->loops) {
      Collect(spec, loop, LoopTiles{}, chain, 1, sites);
    }
  }
  // Every loop at its stated depth or 1 must fit: otherwise no depth does.
  // Where the live tiles exceed SBUF, the compiler spills (docs/spec-format.md,
  // "Spilling"): one tile at a time, the heuristic's choice at the peak,
  // until the kernel fits or no live tile can be spilled there.
  Allocation a = Allocate(spec, limits);
  // Loop-invariant loads (hoisting.h): each load keeps the outermost hoist
  // with which the kernel still fits at one iteration in flight, in file
  // order; a kernel that spills already has no room for any.
  if (a.Fits()) {
    for (std::vector<HoistDecision>& options : HoistCandidates(spec, limits)) {
      for (HoistDecision& h : options) {
        d.hoists.push_back(std::move(h));
        if (Allocate(spec, limits, {}, d.hoists).Fits()) break;
        d.hoists.pop_back();
      }
    }
    if (!d.hoists.empty()) a = Allocate(spec, limits, {}, d.hoists);
  }
  while (a.sbuf.used > a.sbuf.limit && a.spill.has_value()) {
    SpillDecision s = *a.spill;
    if (s.slots == 0) {
      d.spills.push_back(std::move(s));
    } else {
      // A block's slots: as many more of its last ones as the excess
      // needs (the reload buffers are then counted, and the next round
      // adds what they take), never more than the block has.
      const int64_t excess = a.sbuf.used - a.sbuf.limit;
      const int64_t more = std::max<int64_t>(
          1, (excess + s.bytes - 1) / std::max<int64_t>(1, s.bytes));
      auto same = std::find_if(
          d.spills.begin(), d.spills.end(), [&](const SpillDecision& x) {
            return x.slots > 0 && x.json_path == s.json_path;
          });
      if (same == d.spills.end()) {
        s.slots = std::min(s.block_slots, more);
        d.spills.push_back(std::move(s));
      } else {
        if (same->slots >= same->block_slots) break;
        same->slots = std::min(same->block_slots, same->slots + more);
      }
    }
    a = Allocate(spec, limits, d.spills, d.hoists);
  }
  TRN_RETURN_IF_ERROR(RefusalOf(spec, a));
  const bool spills = !d.spills.empty();
  // The free space is shared out in rounds: each round gives every loop
  // that may still grow one more iteration in flight, innermost first
  // (the reverse of file order), while the kernel fits; a loop that does
  // not fit with one more stops growing. So no loop takes all the space
  // from the others, and the loops whose short iterations wait on DMA
  // latency are served first. A kernel that spills is shared out the same
  // way, with its spills (model 13): spilling makes room at the peak, and
  // a loop away from the peak keeps the free space it has there (model 8
  // kept every loop of a spilling kernel at one iteration in flight:
  // NKIBench bmm_softmax +71%: each store of its innermost loop waited,
  // at one buffer, for the one before).
  std::vector<LoopDecision> decided(sites.size());
  std::vector<int> cap(sites.size(), 1);
  std::vector<char> growing(sites.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i) {
    const LoopSite& s = sites[i];
    LoopDecision& ld = decided[i];
    ld.json_path = s.loop->json_path;
    ld.var = s.loop->var;
    ld.trips = s.trips;
    if (s.loop->buffers_stated) {
      ld.by = DecidedBy::kSpec;
      ld.why = "stated by the spec (\"buffers\"), an override";
      continue;
    }
    ld.by = DecidedBy::kCompiler;
    ld.why = FixedDepthReason(s);
    if (!ld.why.empty()) continue;
    // An innermost loop's iterations are short and their loads wait on
    // DMA latency: up to kMaxPipelineDepth in flight. A loop around other
    // loops is double-buffered: one iteration ahead already overlaps its
    // loads with a whole iteration of the loops inside.
    const int limit = s.innermost ? kMaxPipelineDepth : 2;
    cap[i] = static_cast<int>(std::min<int64_t>(limit, s.trips));
    growing[i] = 1;
    ld.why = absl::StrFormat(
        "the most in flight up to min(%d%s, trips) = %d; the kernel fits%s",
        limit, s.innermost ? "" : " for a loop around loops", cap[i],
        spills ? " with its spills" : "");
  }
  for (int round = 2; round <= kMaxPipelineDepth; ++round) {
    for (size_t r = sites.size(); r-- > 0;) {
      const size_t i = r;
      if (!growing[i]) continue;
      if (round > cap[i]) {
        growing[i] = 0;
        continue;
      }
      NkiLoop& loop = *sites[i].loop;
      loop.buffers = round;
      const Allocation at = Allocate(spec, limits, d.spills, d.hoists);
      if (at.Fits()) continue;
      loop.buffers = round - 1;
      growing[i] = 0;
      const bool sbuf = at.sbuf.used > at.sbuf.limit;
      decided[i].why = absl::StrFormat(
          "limited by %s: %d in flight would need %d %s at %s, the limit "
          "is %d",
          sbuf ? "SBUF" : "PSUM", round, sbuf ? at.sbuf.used : at.psum.used,
          sbuf ? "B per partition" : "banks", sbuf ? at.sbuf.at : at.psum.at,
          sbuf ? at.sbuf.limit : at.psum.limit);
    }
  }
  for (size_t i = 0; i < sites.size(); ++i) {
    decided[i].depth = sites[i].loop->buffers;
    d.loops.push_back(std::move(decided[i]));
  }
  a = Allocate(spec, limits, d.spills, d.hoists);
  // Each read of a block's slots reloads when its slot is spilled: the
  // reads spread evenly over the slots, as the loops that read them do.
  for (SpillDecision& s : d.spills) {
    if (s.slots == 0) continue;
    auto r = a.slot_reads.find(s.json_path);
    const int64_t reads = r == a.slot_reads.end() ? 0 : r->second;
    s.reloads = reads / std::max<int64_t>(1, s.block_slots) * s.slots;
  }
  d.sbuf = a.sbuf;
  d.psum = a.psum;
  d.psum_bank_bytes = a.psum_bank_bytes;
  d.done = true;
  spec.compiled = std::move(d);
  return absl::OkStatus();
}

}  // namespace trn
