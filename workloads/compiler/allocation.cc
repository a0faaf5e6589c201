#include "workloads/compiler/allocation.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

// Byte counts saturate: a block of 2^40 tiles is refused, not wrapped.
int64_t SatMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::numeric_limits<int64_t>::max();
  }
  return r;
}

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return std::numeric_limits<int64_t>::max();
  }
  return r;
}

// One memory's use at a point: the sum and the tiles that make it.
struct Use {
  int64_t used = 0;
  std::vector<LiveTile> live;
  void Add(const Use& u) {
    used = SatAdd(used, u.used);
    live.insert(live.end(), u.live.begin(), u.live.end());
  }
  Use Times(int64_t d) const {
    Use u = *this;
    u.used = SatMul(u.used, d);
    for (LiveTile& t : u.live) t.copies = SatMul(t.copies, d);
    return u;
  }
};

struct Point {
  Use sbuf;
  Use psum;  // banks
};

struct Peaks {
  MemoryPeak sbuf;
  MemoryPeak psum;
  std::optional<SpillDecision> spill;  // what to spill at the SBUF peak
  void Take(const Point& p, const std::string& at,
            const std::optional<SpillDecision>& candidate) {
    if (p.sbuf.used > sbuf.used) {
      sbuf.used = p.sbuf.used;
      sbuf.at = at;
      sbuf.live = p.sbuf.live;
      spill = candidate;
    }
    if (p.psum.used > psum.used) {
      psum.used = p.psum.used;
      psum.at = at;
      psum.live = p.psum.live;
    }
  }
};

// Whether the loop's result op, through the loops without an id in the
// result position, is a matmul accumulating into PSUM (an accumulator).
bool AccumulatesInPsum(const NkiLoop& loop) {
  const NkiOp* op = LoopResultOp(loop);
  return op != nullptr && op->op == "matmul" && op->buffer == "psum" &&
         !op->overwrite;
}

class Allocator {
 public:
  Allocator(const WorkloadSpec& spec, const MemoryLimits& limits,
            const std::vector<SpillDecision>& spills,
            const std::vector<HoistDecision>& hoists)
      : spec_(spec),
        spills_(spills),
        limits_(limits),
        bank_bytes_(std::max<int64_t>(1, limits.psum_bytes_per_partition /
                                             std::max(1, limits.psum_banks))) {
    if (spec.kernel.has_value()) {
      for (const NkiLoop& loop : spec.kernel->loops) FindInPlace(loop);
      for (const auto& [op, vars] : BlockSlotReadDepths(spec.kernel->loops)) {
        read_depth_[op->json_path] = vars;
      }
    }
    for (const SpillDecision& s : spills) {
      if (s.slots > 0) slot_spills_[s.json_path] = &s;
    }
    for (const HoistDecision& h : hoists) {
      hoisted_loads_.insert(h.json_path);
      Use& u = hoisted_in_[h.loop_path];
      u.Add(Use{SatMul(h.bytes, h.copies),
                {{h.id + ".hoisted", h.bytes, h.copies}}});
    }
  }

  // The reads of each spilled block's slots over the kernel (one per run of
  // a body with an op that reads a slot of it), from the last Walk.
  const std::map<std::string, int64_t>& slot_reads() const {
    return slot_reads_;
  }

  int64_t bank_bytes() const { return bank_bytes_; }

  // The peaks of chain.back() over the kernel: its body's tiles, each copy
  // per iteration in flight, and the loops nested in it. `scale`: the
  // copies of this loop's runs in flight at once (the depths of the loops
  // around it, up to the nearest that rotates its own buffers), by which
  // every tile of the body is multiplied, except a tile held to a fixed
  // number of buffers (one_buffer, tile_buffers): that number is its
  // buffers over the whole kernel (NKI's mod_alloc: physical tile = logical
  // index mod count), whatever the depth of this loop or of any around it.
  // `has_id`: the loop's result is held by the body around it (from the
  // loop to its last reader), so it is not counted here.
  Peaks Walk(LoopChain& chain, const LoopTiles& tiles, bool has_id,
             int64_t scale) {
    const NkiLoop& loop = *chain.back();
    // A block's iterations each keep only their slot (counted as the
    // block's result by the body around it); its other tiles are transient
    // and counted once, not once per slot.
    const int64_t depth = tiles.keep_all ? 1 : std::max(1, loop.buffers);
    const int64_t copies = SatMul(depth, scale);
    const auto preds = BodyPreds(loop);
    const std::vector<size_t> order = BodyOrder(preds);
    const size_t n = loop.body.size();
    std::vector<size_t> pos(n, 0);
    for (size_t p = 0; p < order.size(); ++p) pos[order[p]] = p;
    const int result = has_id ? LoopResultIndex(loop) : -1;
    // An accumulator whose result is made in a loop without an id nested in
    // it (a matmul accumulating over both loops): that loop's result is
    // this loop's one tile, which the body around holds, not a tile of the
    // nested loop's iterations. Likewise a block whose slot is filled by a
    // loop without an id in its result position (`v[i][j]` filled over i
    // and j; BlockLevels): that loop is one level of the block, whose
    // slots the body around holds (the block's size counts every level);
    // its result op writes one of those slots, not a tile of its own (the
    // NKI block dimension migration guide: a block's logical tiles are
    // its physical tiles, each allocated once). Counted in both places
    // before, the slot being written was held twice.
    const bool result_nested =
        result >= 0 && loop.body[static_cast<size_t>(result)].op == "loop" &&
        loop.body[static_cast<size_t>(result)].id.empty() &&
        (AccumulatesInPsum(loop) || tiles.keep_all);
    // Live range of each op's tile, in positions of `order`.
    std::vector<size_t> def(n), last(n);
    std::vector<Point> size(n);
    for (size_t i = 0; i < n; ++i) {
      def[i] = pos[i];
      last[i] = pos[i];
      if (static_cast<int>(i) != result) size[i] = SizeOf(chain, loop.body[i]);
    }
    for (size_t j = 0; j < n; ++j) {
      for (size_t i : preds[j]) last[i] = std::max(last[i], pos[j]);
    }
    // Each tile's uses (its write and its reads), in positions: a spilled
    // tile is out of SBUF between two uses, saved after its write and
    // reloaded for the later use.
    std::vector<std::vector<size_t>> uses(n);
    for (size_t i = 0; i < n; ++i) uses[i].push_back(def[i]);
    for (size_t j = 0; j < n; ++j) {
      for (size_t i : preds[j]) uses[i].push_back(pos[j]);
    }
    for (auto& u : uses) {
      std::sort(u.begin(), u.end());
      u.erase(std::unique(u.begin(), u.end()), u.end());
    }
    // The gaps spilled: (previous use, reload position).
    std::vector<std::vector<std::pair<size_t, size_t>>> out_of_sbuf(n);
    for (const SpillDecision& s : spills_) {
      for (size_t i = 0; i < n; ++i) {
        if (s.json_path != loop.body[i].json_path) continue;
        for (size_t k = 1; k < uses[i].size(); ++k) {
          if (loop.body[order[uses[i][k]]].json_path == s.reload_before) {
            out_of_sbuf[i].emplace_back(uses[i][k - 1], uses[i][k]);
          }
        }
      }
    }
    // A state updated in place (`acc[...] += x` over a sequential loop) is
    // the tile it updates: that tile stays live to the state's last reader,
    // and the state adds no bytes of its own (its result op's are none).
    for (size_t i = 0; i < n; ++i) {
      const auto it = updated_.find(loop.body[i].json_path);
      if (it == updated_.end()) continue;
      for (size_t j = 0; j < n; ++j) {
        if (loop.body[j].id == it->second) {
          last[j] = std::max(last[j], last[i]);
        }
      }
    }
    std::vector<char> carried(n, 0);
    for (size_t j = 0; j < n; ++j) {
      // A carried tile is read by the next iteration: alive throughout.
      for (const std::string& id : loop.body[j].carry) {
        for (size_t i = 0; i < n; ++i) {
          if (loop.body[i].id == id) {
            def[i] = 0;
            last[i] = n - 1;
            carried[i] = 1;
          }
        }
      }
    }
    // Block dimensions are logical tiles, each with its own live range
    // (the NKI block dimension migration guide: "the physical tiles may
    // not be alive in the memory simultaneously"): a block whose last
    // reader is a block loop that reads it one top-level slot per
    // iteration (`b[i]` in iteration i) frees each slot as that loop fills
    // one of its own, so at that loop the two hold at most
    // max(n b + r, b + n r), not n b + n r (b, r: one slot of each).
    // At that point, the entry of the smaller side counts one slot.
    std::vector<Point> at_release = size;
    std::vector<size_t> released_at(n, n);
    for (size_t i = 0; i < n; ++i) {
      const size_t l = order[last[i]];
      if (l == i || carried[i] || !ReleasedSlotBySlot(loop, preds, i, l) ||
          !OneSbufBlock(size[i]) || !OneSbufBlock(size[l])) {
        continue;
      }
      chain.push_back(&loop.body[l].loop.front());
      const int64_t slots = LoopTrips(spec_, chain);
      chain.pop_back();
      LiveTile& b = at_release[i].sbuf.live.front();
      LiveTile& r = at_release[l].sbuf.live.front();
      if (slots < 2 || b.copies % slots != 0 || r.copies % slots != 0) {
        continue;
      }
      LiveTile& one =
          SatMul(b.bytes, b.copies) <= SatMul(r.bytes, r.copies) ? b : r;
      Point& smaller = &one == &b ? at_release[i] : at_release[l];
      one.copies /= slots;
      smaller.sbuf.used = SatMul(one.bytes, one.copies);
      released_at[i] = last[i];
      released_at[l] = last[i];
    }
    Peaks peaks;
    for (size_t p = 0; p < order.size(); ++p) {
      const NkiOp& at = loop.body[order[p]];
      Point iter;    // a copy per iteration in flight: x copies
      Point nested;  // the nested loop's peak, over the kernel already
      Point fixed;   // its number of buffers, or a rotating loop's peak
      // The spill heuristic's choice here: of the SBUF tiles live across
      // this point and read only later, the one whose next read is the
      // furthest away (the largest on a tie), as linear-scan allocation
      // spills the interval that ends furthest (Poletto and Sarkar).
      std::optional<size_t> candidate;
      size_t candidate_next = 0;
      for (size_t i = 0; i < n; ++i) {
        if (p < def[i] || p > last[i]) continue;
        bool out = false;
        for (const auto& [from, to] : out_of_sbuf[i]) {
          out = out || (from < p && p < to);
        }
        if (out) continue;
        // A tile held to its own number of buffers (one_buffer,
        // tile_buffers): that many copies, not one per iteration in flight
        // of this loop or of the loops around it.
        const int64_t own = loop.body[i].FixedBuffers();
        Point& into = own > 0 ? fixed : iter;
        const Point& here = released_at[i] == p ? at_release[i] : size[i];
        into.sbuf.Add(own > 1 ? here.sbuf.Times(own) : here.sbuf);
        into.psum.Add(own > 1 ? here.psum.Times(own) : here.psum);
        // Live across p without a use at p: its next use after p.
        const auto next = std::upper_bound(uses[i].begin(), uses[i].end(), p);
        const bool used_here =
            std::binary_search(uses[i].begin(), uses[i].end(), p);
        const NkiOp& op = loop.body[i];
        if (used_here || next == uses[i].end() || carried[i] ||
            op.op == "loop" || op.op == "reduction" || size[i].sbuf.used == 0) {
          continue;
        }
        if (!candidate || *next > candidate_next ||
            (*next == candidate_next &&
             size[i].sbuf.used > size[*candidate].sbuf.used)) {
          candidate = i;
          candidate_next = *next;
        }
      }
      if (at.op == "matmul" && at.insert_transpose) {
        const Point t = InsertedTranspose(chain, at);
        iter.sbuf.Add(t.sbuf);
        iter.psum.Add(t.psum);
      }
      // The op reads slots of spilled blocks: their reload buffers, a fixed
      // number over the kernel (kSpillReloadBuffers), live while it runs.
      for (size_t k = 0; k < at.inputs.size(); ++k) {
        if (k >= at.input_slots.size() || at.input_slots[k].empty()) continue;
        const std::string& base = at.inputs[k];
        for (const auto& [path, s] : slot_spills_) {
          if (s->id != base) continue;
          fixed.sbuf.Add(
              Use{SatMul(s->bytes, kSpillReloadBuffers),
                  {{base + ".reload", s->bytes, kSpillReloadBuffers}}});
          slot_reads_[path] = SatAdd(slot_reads_[path], Runs(chain));
        }
      }
      // Without a whole tile to spill here, the slots of a block live here
      // that every reader reads one slot at a time, down to single tiles:
      // the largest such block with slots left in SBUF. (The compiler stage
      // decides how many of its last slots go, from the excess.)
      std::optional<size_t> block;
      if (!candidate) {
        for (size_t i = 0; i < n; ++i) {
          if (p < def[i] || p > last[i] || !SlotSpillable(chain, i)) continue;
          if (!block || size[i].sbuf.used > size[*block].sbuf.used) block = i;
        }
      }
      std::optional<SpillDecision> spill;
      if (block) {
        const NkiOp& op = loop.body[*block];
        const LiveTile& leaf = size[*block].sbuf.live.front();
        SpillDecision s;
        s.json_path = op.json_path;
        s.id = op.id;
        s.reload_before = "each read of a spilled slot";
        s.bytes = leaf.bytes;
        s.block_slots = leaf.copies + SpilledSlots(op.json_path);
        s.slots = 1;  // at least; CompileSpec sizes it from the excess
        s.partitions = BlockPartitions(chain, op);
        s.runs = Runs(chain);
        s.why = absl::StrFormat(
            "live across %s, where the live tiles exceed SBUF, and read one "
            "slot at a time: its last slots are spilled, as few as make the "
            "kernel fit, and reloaded for each read",
            at.json_path);
        spill = std::move(s);
      }
      if (candidate) {
        const NkiOp& op = loop.body[*candidate];
        SpillDecision s;
        s.json_path = op.json_path;
        s.id = op.id;
        s.reload_before = loop.body[order[candidate_next]].json_path;
        s.partitions =
            ResolveNkiTileInChain(spec_, chain, op, limits_.partitions)
                .partitions;
        s.bytes = size[*candidate].sbuf.used;
        s.runs = Runs(chain);
        s.why = absl::StrFormat(
            "live across %s, where the live tiles exceed SBUF, and read "
            "next at %s: the live tile read furthest ahead",
            at.json_path, s.reload_before);
        spill = std::move(s);
      }
      if (at.op == "loop") {
        const LoopTiles inner_tiles = TilesOf(at, tiles.keep_all);
        chain.push_back(&at.loop.front());
        // A loop without an id rotates its own buffers over its runs: its
        // tiles are not copied for the iterations in flight around it.
        const bool inner_has_id =
            !at.id.empty() ||
            (result_nested && static_cast<int>(order[p]) == result);
        const Peaks inner = Walk(chain, inner_tiles, inner_has_id,
                                 inner_tiles.rotates ? scale : copies);
        chain.pop_back();
        // A whole tile before a block's slots (one reload a run, not one a
        // read); of two blocks, the one with more slots left in SBUF.
        if (inner.spill &&
            (!spill || (spill->slots > 0 && (inner.spill->slots == 0 ||
                                             SlotBytesLeft(*inner.spill) >
                                                 SlotBytesLeft(*spill))))) {
          spill = inner.spill;
        }
        Point in{{inner.sbuf.used, inner.sbuf.live},
                 {inner.psum.used, inner.psum.live}};
        Point& into = inner_tiles.rotates ? fixed : nested;
        into.sbuf.Add(in.sbuf);
        into.psum.Add(in.psum);
      }
      // The loads hoisted out of this loop: kept over each of its runs in
      // flight, whatever its own depth.
      if (auto h = hoisted_in_.find(loop.json_path); h != hoisted_in_.end()) {
        fixed.sbuf.Add(h->second.Times(scale));
      }
      Point total{iter.sbuf.Times(copies), iter.psum.Times(copies)};
      total.sbuf.Add(nested.sbuf);
      total.psum.Add(nested.psum);
      total.sbuf.Add(fixed.sbuf);
      total.psum.Add(fixed.psum);
      peaks.Take(total, at.json_path, spill);
    }
    return peaks;
  }

 private:
  // The two transient tiles of the transpose the compiler inserts before a
  // matmul with insert_transpose: x [M, K] transposed into PSUM as [K, M],
  // and its copy to SBUF, each M elements per partition, counted at PSUM's
  // 4 bytes (an upper bound for a narrower x), alive at the matmul.
  Point InsertedTranspose(const LoopChain& chain, const NkiOp& op) const {
    const NkiTile out =
        ResolveNkiTileInChain(spec_, chain, op, limits_.partitions);
    const int64_t bytes = out.partitions * 4;
    Point p;
    p.psum.used = (bytes + bank_bytes_ - 1) / bank_bytes_;
    p.psum.live.push_back({op.id + ".transpose", bytes, 1});
    p.sbuf.used = bytes;
    p.sbuf.live.push_back({op.id + ".transpose_copy", bytes, 1});
    return p;
  }

  // Whether `p` is one block of SBUF tiles (one live entry), held to no
  // fixed number of buffers.
  static bool OneSbufBlock(const Point& p) {
    return p.psum.used == 0 && p.sbuf.live.size() == 1 &&
           p.sbuf.live.front().copies > 1;
  }

  // Whether body op i, a block loop, is read only by body op l, a block
  // loop, and there only one top-level slot per iteration of l: every
  // read of i's id inside l names a slot whose first index is l's
  // variable (`"b[i][...]"`), and nothing else in the body reads it.
  static bool ReleasedSlotBySlot(const NkiLoop& loop,
                                 const std::vector<std::vector<size_t>>& preds,
                                 size_t i, size_t l) {
    const NkiOp& b = loop.body[i];
    const NkiOp& r = loop.body[l];
    if (b.op != "loop" || b.id.empty() || b.loop.empty() || r.op != "loop" ||
        r.id.empty() || r.loop.empty() || b.FixedBuffers() > 0 ||
        r.FixedBuffers() > 0 ||
        LoopResultOf(b.loop.front()) != LoopResultKind::kBlock ||
        LoopResultOf(r.loop.front()) != LoopResultKind::kBlock) {
      return false;
    }
    for (size_t j = 0; j < loop.body.size(); ++j) {
      if (j != l &&
          std::find(preds[j].begin(), preds[j].end(), i) != preds[j].end()) {
        return false;
      }
    }
    bool read = false;
    const std::string& var = r.loop.front().var;
    auto reads_by_slot = [&](auto&& self, const NkiLoop& in) -> bool {
      for (const NkiOp& op : in.body) {
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          if (op.inputs[k] != b.id) continue;
          if (k >= op.input_slots.size() || op.input_slots[k].empty() ||
              op.input_slots[k].front() != var) {
            return false;
          }
          read = true;
        }
        if (op.mask == b.id || op.indirect == b.id ||
            std::find(op.after.begin(), op.after.end(), b.id) !=
                op.after.end() ||
            std::find(op.carry.begin(), op.carry.end(), b.id) !=
                op.carry.end()) {
          return false;
        }
        for (const NkiLoop& nested : op.loop) {
          if (!self(self, nested)) return false;
        }
      }
      return true;
    };
    return reads_by_slot(reads_by_slot, r.loop.front()) && read;
  }

  // The SBUF bytes of a block spill candidate's slots still in SBUF.
  int64_t SlotBytesLeft(const SpillDecision& s) const {
    return SatMul(s.block_slots - SpilledSlots(s.json_path), s.bytes);
  }

  // Slots of the block already spilled.
  int64_t SpilledSlots(const std::string& json_path) const {
    auto s = slot_spills_.find(json_path);
    return s == slot_spills_.end() ? 0 : s->second->slots;
  }

  // Whether op i of chain.back()'s body is a block in SBUF whose slots may
  // be spilled one by one: every read of it takes one slot, as deep as the
  // block goes (so each read reloads one tile), and some are left.
  bool SlotSpillable(LoopChain& chain, size_t i) {
    const NkiOp& op = chain.back()->body[i];
    if (op.op != "loop" || op.id.empty() || op.loop.empty()) return false;
    if (LoopResultOf(op.loop.front()) != LoopResultKind::kBlock) return false;
    auto d = read_depth_.find(op.json_path);
    if (d == read_depth_.end() || d->second != BlockLevels(op)) return false;
    const Point p = SizeOf(chain, op);
    return p.sbuf.live.size() == 1 && p.sbuf.live.front().copies > 0 &&
           p.psum.used == 0;
  }

  // How many levels a block has: one, and one more for each loop without
  // an id in its result position (it fills part of each slot).
  static size_t BlockLevels(const NkiOp& op) {
    size_t levels = 1;
    const NkiLoop* at = &op.loop.front();
    for (;;) {
      const int r = LoopResultIndex(*at);
      if (r < 0) break;
      const NkiOp& inner = at->body[static_cast<size_t>(r)];
      if (inner.op != "loop" || !inner.id.empty() || inner.loop.empty()) break;
      ++levels;
      at = &inner.loop.front();
    }
    return levels;
  }

  // The partitions of one slot of a block: its innermost result op's tile.
  int64_t BlockPartitions(LoopChain& chain, const NkiOp& op) const {
    const size_t depth = chain.size();
    const NkiLoop* at = &op.loop.front();
    chain.push_back(at);
    const NkiOp* r = nullptr;
    for (;;) {
      const int j = LoopResultIndex(*at);
      if (j < 0) break;
      r = &at->body[static_cast<size_t>(j)];
      if (r->op != "loop" || r->loop.empty()) break;
      at = &r->loop.front();
      chain.push_back(at);
    }
    int64_t parts = limits_.partitions;
    if (r != nullptr && r->op != "loop") {
      parts = ResolveNkiTileInChain(spec_, chain, *r, limits_.partitions)
                  .partitions;
    }
    chain.resize(depth);
    return parts;
  }

  // How many times the body of chain.back() runs over the kernel.
  int64_t Runs(const LoopChain& chain) const { return LoopRuns(spec_, chain); }

  // What the op holds while its tile (or its loop's result) is live.
  Point SizeOf(LoopChain& chain, const NkiOp& op) {
    Point p;
    if (op.op == "loop") {
      if (op.id.empty()) return p;
      chain.push_back(&op.loop.front());
      p = ResultOf(chain, op.id);
      chain.pop_back();
      // A block's spilled slots are in HBM, not SBUF.
      if (auto s = slot_spills_.find(op.json_path);
          s != slot_spills_.end() && p.sbuf.live.size() == 1) {
        LiveTile& t = p.sbuf.live.front();
        const int64_t gone = std::min(s->second->slots, t.copies);
        t.copies -= gone;
        p.sbuf.used -= SatMul(gone, t.bytes);
      }
      return p;
    }
    if (!NkiOpDefinesTile(op.op) || in_place_.count(op.json_path) ||
        hoisted_loads_.count(op.json_path)) {
      return p;  // a hoisted load's tiles are the loop's (hoisted_in_)
    }
    const NkiTile tile =
        ResolveNkiTileInChain(spec_, chain, op, limits_.partitions);
    int64_t bytes = tile.BytesPerPartition();
    if (op.op == "reduction") {
      // The reductions of a block loop: one tile per iteration, held from
      // the loop's end (the loop's own body counts its accumulate op's
      // tile, not the few bytes of each reduction while the loop runs).
      for (const NkiOp& of : chain.back()->body) {
        if (of.id != op.inputs.front() || of.op != "loop") continue;
        chain.push_back(&of.loop.front());
        bytes = SatMul(bytes, LoopTrips(spec_, chain));
        chain.pop_back();
      }
    }
    if (op.buffer == "psum") {
      p.psum.used = (bytes + bank_bytes_ - 1) / bank_bytes_;
      p.psum.live.push_back({op.id, bytes, 1});
    } else {
      p.sbuf.used = bytes;
      p.sbuf.live.push_back({op.id, bytes, 1});
    }
    return p;
  }

  // The tile a nested loop's id stands for: its result op's tile, once per
  // iteration for a block. A state (a sequential loop's id) is the tiles
  // its iterations update in place: one of its result tile, however many
  // blocks that tile is made in (`in_state`).
  Point ResultOf(LoopChain& chain, const std::string& id,
                 bool in_state = false) {
    const NkiLoop& loop = *chain.back();
    const int r = LoopResultIndex(loop);
    if (r < 0) return {};
    const NkiOp& op = loop.body[static_cast<size_t>(r)];
    Point unit;
    if (op.op == "loop") {
      chain.push_back(&op.loop.front());
      unit = ResultOf(chain, id,
                      in_state || LoopResultOf(loop) == LoopResultKind::kState);
      chain.pop_back();
    } else {
      unit = SizeOf(chain, op);
    }
    for (LiveTile& t : unit.sbuf.live) t.id = id;
    for (LiveTile& t : unit.psum.live) t.id = id;
    if (in_state || LoopResultOf(loop) != LoopResultKind::kBlock) return unit;
    const int64_t trips = LoopTrips(spec_, chain);
    return {unit.sbuf.Times(trips), unit.psum.Times(trips)};
  }

  // The ops that update a tile made before their loop in place (the result
  // op of a state or accumulator loop, TileUpdatedInPlace): they write into
  // that tile's bytes, as NKI's `result_tiles[...] += res` does, and hold
  // none of their own. `updated_` maps each such loop op to the id it
  // updates.
  void FindInPlace(const NkiLoop& loop) {
    for (const NkiOp& op : loop.body) {
      if (op.op != "loop" || op.loop.empty()) continue;
      FindInPlace(op.loop.front());
      if (op.id.empty()) continue;
      std::string updated = TileUpdatedInPlace(op.loop.front());
      if (updated.empty()) continue;
      in_place_.insert(LoopResultOp(op.loop.front())->json_path);
      updated_[op.json_path] = std::move(updated);
    }
  }

  std::map<std::string, size_t> read_depth_;  // BlockSlotReadDepths
  std::map<std::string, const SpillDecision*> slot_spills_;
  std::map<std::string, int64_t> slot_reads_;
  std::set<std::string> in_place_;
  std::set<std::string> hoisted_loads_;
  std::map<std::string, Use> hoisted_in_;  // by the loop's JSON pointer
  std::map<std::string, std::string> updated_;
  const WorkloadSpec& spec_;
  const std::vector<SpillDecision>& spills_;
  const MemoryLimits& limits_;
  const int64_t bank_bytes_;
};

// `id` split around its last run of digits: {before, number, after}, or
// nullopt when it has none.
struct Numbered {
  std::string head;
  int64_t number = 0;
  std::string tail;
};
std::optional<Numbered> SplitNumber(const std::string& id) {
  size_t end = id.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(id[end - 1]))) {
    --end;
  }
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(id[begin - 1]))) {
    --begin;
  }
  if (begin == end || end - begin > 9) return std::nullopt;
  return Numbered{id.substr(0, begin),
                  std::stoll(id.substr(begin, end - begin)), id.substr(end)};
}

// The live tiles as text. A run of three or more tiles alike but for a
// counter in their ids (the bank-wide pieces of a staged broadcast,
// `x_bcast128_0_sb` .. `x_bcast128_15_sb`) is one entry,
// `x_bcast128_{0..15}_sb 2048 B each`, so that a refusal stays readable.
std::string LiveText(const std::vector<LiveTile>& live) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < live.size();) {
    const LiveTile& t = live[i];
    const std::string copies =
        t.copies > 1 ? absl::StrFormat(" x %d", t.copies) : std::string();
    size_t j = i + 1;
    const std::optional<Numbered> first = SplitNumber(t.id);
    if (first) {
      while (j < live.size()) {
        const std::optional<Numbered> next = SplitNumber(live[j].id);
        if (!next || next->head != first->head || next->tail != first->tail ||
            next->number != first->number + static_cast<int64_t>(j - i) ||
            live[j].bytes != t.bytes || live[j].copies != t.copies) {
          break;
        }
        ++j;
      }
    }
    if (j - i >= 3) {
      parts.push_back(absl::StrFormat(
          "%s{%d..%d}%s %d B each%s", first->head, first->number,
          first->number + static_cast<int64_t>(j - i) - 1, first->tail, t.bytes,
          copies));
      i = j;
      continue;
    }
    parts.push_back(absl::StrFormat("%s %d B%s", t.id, t.bytes, copies));
    ++i;
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

Allocation Allocate(const WorkloadSpec& spec, const MemoryLimits& limits,
                    const std::vector<SpillDecision>& spills,
                    const std::vector<HoistDecision>& hoists) {
  Allocation a;
  Allocator alloc(spec, limits, spills, hoists);
  a.psum_bank_bytes = alloc.bank_bytes();
  a.sbuf.limit = limits.sbuf_bytes_per_partition;
  a.psum.limit = limits.psum_banks;
  if (!spec.kernel.has_value()) return a;
  // The kernel's loops run one after the other: the peak is the largest.
  for (const NkiLoop& loop : spec.kernel->loops) {
    LoopChain chain{&loop};
    const Peaks p =
        alloc.Walk(chain, LoopTiles{}, /*has_id=*/false, /*scale=*/1);
    if (p.sbuf.used > a.sbuf.used) {
      a.sbuf.used = p.sbuf.used;
      a.sbuf.at = p.sbuf.at;
      a.sbuf.live = p.sbuf.live;
      a.spill = p.spill;
    }
    if (p.psum.used > a.psum.used) {
      a.psum.used = p.psum.used;
      a.psum.at = p.psum.at;
      a.psum.live = p.psum.live;
    }
  }
  a.slot_reads = alloc.slot_reads();
  return a;
}

absl::Status RefusalOf(const WorkloadSpec& spec, const Allocation& a) {
  const std::string file = spec.file.empty() ? spec.name : spec.file;
  if (a.sbuf.used > a.sbuf.limit) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s: SBUF overflow: the live tiles need %d B per partition here, "
        "the limit is %d B per partition (live: %s)",
        file, a.sbuf.at, a.sbuf.used, a.sbuf.limit, LiveText(a.sbuf.live)));
  }
  if (a.psum.used > a.psum.limit) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s: PSUM overflow: the live tiles need %d banks of %d B per "
        "partition here, the limit is %d banks (live: %s)",
        file, a.psum.at, a.psum.used, a.psum_bank_bytes, a.psum.limit,
        LiveText(a.psum.live)));
  }
  return absl::OkStatus();
}

}  // namespace trn
