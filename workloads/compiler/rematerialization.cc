#include "workloads/compiler/rematerialization.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "workloads/compiler/allocation.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

constexpr int64_t kCap = int64_t{1} << 50;

int64_t CapMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kCap / b ? kCap : a * b;
}

// The HBM tensors some op of the nest writes (a store, an HBM copy).
void WrittenTensors(const std::vector<NkiOp>& body,
                    std::set<std::string>& out) {
  for (const NkiOp& op : body) {
    if (op.op == "store" || op.op == "hbm_copy") out.insert(op.tensor);
    for (const NkiLoop& l : op.loop) WrittenTensors(l.body, out);
  }
}

bool Names(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Whether the op, or an op of its nest, reads tile `id`.
bool Reads(const NkiOp& op, const std::string& id) {
  if (Names(op.inputs, id) || Names(op.after, id) || Names(op.carry, id) ||
      op.mask == id || op.indirect == id) {
    return true;
  }
  for (const NkiLoop& l : op.loop) {
    if (Names(l.results, id)) return true;
    for (const NkiOp& inner : l.body) {
      if (Reads(inner, id)) return true;
    }
  }
  return false;
}

class Sinker {
 public:
  Sinker(WorkloadSpec& spec, const MemoryLimits& limits,
         const std::vector<HoistDecision>& hoists)
      : spec_(spec), limits_(limits), hoists_(hoists) {
    for (const NkiLoop& l : spec.kernel->loops)
      WrittenTensors(l.body, written_);
    for (const HoistDecision& h : hoists) hoisted_.insert(h.json_path);
  }

  // Makes the first move the rule allows, in pre-order; false when none.
  bool SinkOne(std::vector<RematDecision>& out) {
    LoopChain chain;
    for (NkiLoop& loop : spec_.kernel->loops) {
      if (Visit(loop, chain, out)) return true;
    }
    return false;
  }

 private:
  bool Visit(NkiLoop& parent, LoopChain& chain,
             std::vector<RematDecision>& out) {
    chain.push_back(&parent);
    for (size_t j = 0; j < parent.body.size(); ++j) {
      if (parent.body[j].op != "loop" || parent.body[j].loop.empty()) continue;
      for (size_t i = 0; i < j; ++i) {
        if (TrySink(parent, i, j, chain, out)) {
          chain.pop_back();
          return true;
        }
      }
    }
    for (NkiOp& op : parent.body) {
      if (op.op != "loop" || op.loop.empty()) continue;
      if (Visit(op.loop.front(), chain, out)) {
        chain.pop_back();
        return true;
      }
    }
    chain.pop_back();
    return false;
  }

  // Whether every op of the nest is a load of an input nothing writes, as
  // it is in HBM (no gather, no predicate, no ordering, no fixed buffer,
  // not already kept over a loop), or a loop of such loads.
  bool OnlyInputLoads(const NkiLoop& loop) const {
    if (loop.buffers_stated) return false;
    for (const NkiOp& op : loop.body) {
      if (op.op == "loop") {
        if (op.loop.empty() || !OnlyInputLoads(op.loop.front())) return false;
        continue;
      }
      if (op.op != "load" || !op.indirect.empty() || !op.mask.empty() ||
          !op.after.empty() || op.FixedBuffers() > 0 || op.transpose ||
          written_.count(op.tensor) > 0 || hoisted_.count(op.json_path) > 0) {
        return false;
      }
    }
    return true;
  }

  // The block's bytes per partition: each load's tile once per iteration
  // of the block's loops around it.
  int64_t BlockBytes(const NkiLoop& loop, LoopChain& chain) const {
    chain.push_back(&loop);
    const int64_t trips = LoopTrips(spec_, chain);
    int64_t bytes = 0;
    for (const NkiOp& op : loop.body) {
      if (op.op == "loop") {
        bytes += BlockBytes(op.loop.front(), chain);
      } else {
        bytes += ResolveNkiTileInChain(spec_, chain, op, limits_.partitions)
                     .BytesPerPartition();
      }
    }
    chain.pop_back();
    return std::min(kCap, CapMul(bytes, trips));
  }

  bool TrySink(NkiLoop& parent, size_t i, size_t j, LoopChain& chain,
               std::vector<RematDecision>& out) {
    NkiOp& block = parent.body[i];
    NkiLoop& l = parent.body[j].loop.front();
    if (block.op != "loop" || block.id.empty() || block.loop.empty() ||
        block.sunk_from_index >= 0 || block.FixedBuffers() > 0 ||
        LoopResultOf(block.loop.front()) != LoopResultKind::kBlock ||
        !OnlyInputLoads(block.loop.front())) {
      return false;
    }
    // L: a loop around loops whose depth is the compiler's and may grow,
    // not a block itself, and the only reader of the block.
    if (!parent.body[j].id.empty() || l.buffers_stated ||
        l.range != LoopRange::kAffine || l.buffers != 1 ||
        std::none_of(l.body.begin(), l.body.end(),
                     [](const NkiOp& op) { return op.op == "loop"; })) {
      return false;
    }
    if (!Reads(parent.body[j], block.id) || Names(parent.results, block.id)) {
      return false;
    }
    for (size_t k = 0; k < parent.body.size(); ++k) {
      if (k != i && k != j && Reads(parent.body[k], block.id)) return false;
    }
    chain.push_back(&l);
    const bool partial = LoopHasPartialTile(spec_, chain, chain.size() - 1);
    const int64_t trips = LoopTrips(spec_, chain);
    const int64_t loads = LoopRuns(spec_, chain);
    chain.pop_back();
    if (partial || trips < 2) return false;
    // Two iterations of L in flight: with the block kept, and with it out
    // of SBUF (every slot gone, no reload buffers: the block is no longer
    // held across L at all).
    l.buffers = 2;
    const Allocation kept = Allocate(spec_, limits_, {}, hoists_);
    SpillDecision gone;
    gone.json_path = block.json_path;
    gone.id = block.id;
    gone.slots = std::numeric_limits<int32_t>::max();
    gone.bytes = 0;
    const Allocation without = Allocate(spec_, limits_, {gone}, hoists_);
    l.buffers = 1;
    if (kept.Fits() || !without.Fits() || kept.sbuf.used <= kept.sbuf.limit) {
      return false;
    }
    RematDecision r;
    r.json_path = block.json_path;
    r.id = block.id;
    r.loop_path = l.json_path;
    r.var = l.var;
    r.bytes = BlockBytes(block.loop.front(), chain);
    r.loads = loads;
    r.kept_loads = LoopRuns(spec_, chain);
    r.why = absl::StrFormat(
        "each tile of %s is an unmodified copy of an input: kept across "
        "loop %s, two of its iterations in flight would need %d B per "
        "partition (the limit is %d), without it %d: not kept, loaded "
        "again in each iteration of %s (%d loads of %d B per partition "
        "instead of %d), as a compiler rematerializes a value it can load "
        "again rather than hold or spill it",
        block.id, l.var, kept.sbuf.used, kept.sbuf.limit, without.sbuf.used,
        l.var, r.loads, r.bytes, r.kept_loads);
    NkiOp moved = std::move(block);
    moved.sunk_from_index = static_cast<int64_t>(i);
    parent.body.erase(parent.body.begin() + static_cast<ptrdiff_t>(i));
    NkiLoop& into = parent.body[j - 1].loop.front();
    into.body.insert(into.body.begin(), std::move(moved));
    out.push_back(std::move(r));
    return true;
  }

  WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  const std::vector<HoistDecision>& hoists_;
  std::set<std::string> written_;
  std::set<std::string> hoisted_;
};

void Restore(NkiLoop& parent) {
  std::vector<NkiOp> back;
  for (NkiOp& op : parent.body) {
    if (op.op != "loop" || op.loop.empty()) continue;
    std::vector<NkiOp>& inner = op.loop.front().body;
    for (auto it = inner.begin(); it != inner.end();) {
      if (it->sunk_from_index < 0) {
        ++it;
        continue;
      }
      back.push_back(std::move(*it));
      it = inner.erase(it);
    }
  }
  std::sort(back.begin(), back.end(), [](const NkiOp& a, const NkiOp& b) {
    return a.sunk_from_index < b.sunk_from_index;
  });
  for (NkiOp& op : back) {
    const size_t at =
        std::min(static_cast<size_t>(op.sunk_from_index), parent.body.size());
    op.sunk_from_index = -1;
    parent.body.insert(parent.body.begin() + static_cast<ptrdiff_t>(at),
                       std::move(op));
  }
  for (NkiOp& op : parent.body) {
    if (op.op == "loop" && !op.loop.empty()) Restore(op.loop.front());
  }
}

}  // namespace

void RestoreSunkBlocks(WorkloadSpec& spec) {
  if (!spec.kernel.has_value()) return;
  for (NkiLoop& loop : spec.kernel->loops) Restore(loop);
}

std::vector<RematDecision> SinkInputBlocks(
    WorkloadSpec& spec, const MemoryLimits& limits,
    const std::vector<HoistDecision>& hoists) {
  std::vector<RematDecision> out;
  if (!spec.kernel.has_value()) return out;
  Sinker s(spec, limits, hoists);
  // Each move takes one block out of a body; a body has finitely many.
  while (s.SinkOne(out)) {
  }
  return out;
}

}  // namespace trn
