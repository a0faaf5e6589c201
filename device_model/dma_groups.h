// The DMA engines that are moving data, kept as groups of adjacent engines
// in the same state. The model is per engine: each engine moves one share
// of a transfer at a time. But a transfer's shares on idle engines are
// usually alike (a 128-partition tile is 16 shares of the same bytes that
// start together and so get the same rate), and simulating them one by one
// cost most of a run. A group is `count` adjacent engines whose shares have
// the same transfer, bytes, work, start, remaining work (as of the same
// time) and rate: every computation on it gives each member exactly what
// that member alone would get, so the simulator computes it once. Members
// that would diverge are split apart first.
#ifndef TRNBENCH_DEVICE_MODEL_DMA_GROUPS_H_
#define TRNBENCH_DEVICE_MODEL_DMA_GROUPS_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace trn {

struct DmaGroup {
  uint32_t lo = 0;     // the first engine
  uint32_t count = 0;  // engines lo .. lo + count - 1
  uint32_t owner = 0;  // the transfer (instruction index)
  uint32_t piece = 0;  // one member's piece (the others' are alike)
  int64_t bytes = 0;   // per share
  double work = 0;     // per share
  double start = 0;    // when the shares started
  // Work left at `since`: a share moves at its rate from the time its rate
  // was set on (the simulator brings it up to date only when the rates
  // change, model 16).
  double remaining = 0;
  double since = 0;
  double rate = 0;  // per share; set before use whenever a group changes
  // From when a step ends the shares (their end at this rate, less a
  // rounding tolerance): set with the rate. Their end itself is not kept:
  // the simulator needs only the first of all groups' ends, and with it
  // here (80 bytes a group, not 72) the block-free matmul's runs took ~4%
  // longer (paired whole-process timings), for no cause found.
  double due = std::numeric_limits<double>::infinity();
};

class DmaGroups {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // `merge` false keeps every share in a group of its own: the reference
  // the grouped simulation is tested against.
  DmaGroups(size_t engines, bool merge)
      : slot_of_(engines, kNone),
        busy_((engines + 63) / 64, 0),
        merge_(merge) {}
  // No group on `engines` engines, as constructed, keeping the storage.
  void Reset(size_t engines, bool merge) {
    groups_.clear();
    free_.clear();
    slot_of_.assign(engines, kNone);
    busy_.assign((engines + 63) / 64, 0);
    first_busy_ = kEnd;
    in_use_ = 0;
    merge_ = merge;
  }

  bool Idle(size_t e) const { return (busy_[e / 64] >> (e % 64) & 1) == 0; }
  // How many engines from lo on, up to `max`, are idle in a row.
  size_t IdleRun(size_t lo, size_t max) const {
    const size_t next = NextBusy(lo);
    return next == kEnd ? max : std::min(max, next - lo);
  }
  // How many engines from lo on, up to `max`, are busy in a row.
  size_t BusyRun(size_t lo, size_t max) const {
    size_t w = lo / 64;
    size_t run = 0;
    uint64_t bits = ~busy_[w] >> (lo % 64);  // idle engines, from lo
    size_t avail = 64 - lo % 64;             // bits of this word from lo
    while (run < max) {
      if (bits != 0) {
        return std::min(max, run + static_cast<size_t>(std::countr_zero(bits)));
      }
      run += avail;
      if (++w == busy_.size()) break;
      bits = ~busy_[w];
      avail = 64;
    }
    return std::min(max, run);
  }
  // No engine is moving data (most of a compute-bound kernel's time).
  bool None() const { return in_use_ == 0; }
  // The slot of the only group, or kNone when there are none or several.
  uint32_t Only() const { return in_use_ == 1 ? slot_of_[FirstBusy()] : kNone; }
  DmaGroup& operator[](uint32_t slot) { return groups_[slot]; }
  const DmaGroup& operator[](uint32_t slot) const { return groups_[slot]; }

  // Idle engines [lo, lo + count) start identical shares at `t`. They join
  // the group that ends at engine lo - 1 when its members are in the same
  // state (the same transfer and share, started at `t`, not yet moved);
  // otherwise they form a new group. Returns the group's slot.
  uint32_t Begin(uint32_t lo, uint32_t count, uint32_t owner, uint32_t piece,
                 int64_t bytes, double work, double t);
  // Begin(lo, count, ...) on the engines of the group in `slot` as they
  // become idle, without the idling: the group's shares ended and its
  // engines start the next ones as one group. Returns false, changing
  // nothing, when those are not exactly its engines or they would join the
  // group to their left (then End and Begin). Otherwise the slot holds
  // what End(slot) and Begin would have left in it (Begin takes the slot
  // End freed last), and the busy engines and every other slot are as
  // they were.
  [[gnu::always_inline]] bool Restart(uint32_t slot, uint32_t lo,
                                      uint32_t count, uint32_t owner,
                                      uint32_t piece, int64_t bytes,
                                      double work, double t) {
    DmaGroup& g = groups_[slot];
    if (g.lo != lo || g.count != count) return false;
    if (merge_ && lo > 0 && !Idle(lo - 1)) {
      const DmaGroup& left = groups_[slot_of_[lo - 1]];
      if (left.owner == owner && left.bytes == bytes && left.work == work &&
          left.start == t && left.remaining == work) {
        return false;
      }
    }
    g = {lo, count, owner, piece, bytes, work, t, work, t};
    return true;
  }
  // The group's engines become idle.
  void End(uint32_t slot) {
    Mark(groups_[slot].lo, groups_[slot].count, false);
    free_.push_back(slot);
    --in_use_;
  }
  // Splits the group's first engine off: the slot keeps it alone, and the
  // returned slot holds the others, in the same state.
  uint32_t SplitFirst(uint32_t slot);

  // Calls fn(slot) for each group in engine order. fn may end or split the
  // group it is given and begin shares on that group's engines; those
  // engines are not visited again in this pass.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    // What fn does stays on the engines of the group it is given, so the
    // groups to visit are the ones there are as the pass starts, and the
    // pass ends with the last of them rather than with a scan for one more
    // (most passes have one group: that scan was 5% of the instructions of
    // a tiled matmul's run, callgrind).
    size_t left = in_use_;
    if (left == 0) return;
    for (size_t e = FirstBusy();;) {
      const uint32_t slot = slot_of_[e];
      if (--left == 0) {
        fn(slot);
        return;
      }
      const size_t end = e + groups_[slot].count;
      fn(slot);
      e = NextBusy(end);
    }
  }

 private:
  static constexpr size_t kEnd = std::numeric_limits<size_t>::max();

  // NextBusy(0) while a group is in use (there is a busy engine): every
  // pass starts here, two or three times per step of a run, so it is kept
  // up to date as engines turn busy or idle (Mark) rather than found by a
  // scan of the bits each time (4% of a tiled matmul's run, callgrind).
  size_t FirstBusy() const { return first_busy_; }
  size_t NextBusy(size_t from) const {
    size_t w = from / 64;
    if (w >= busy_.size()) return kEnd;
    uint64_t bits = busy_[w] & (~uint64_t{0} << (from % 64));
    while (bits == 0) {
      if (++w == busy_.size()) return kEnd;
      bits = busy_[w];
    }
    return w * 64 + static_cast<size_t>(std::countr_zero(bits));
  }
  uint32_t NewSlot() {
    ++in_use_;
    if (free_.empty()) return Grow();
    const uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  uint32_t Grow();
  // Marks engines [lo, lo + count) busy (or idle), a word at a time. Inline
  // for the common case, a group within one word (16 DMA engines). The
  // engines were all idle (or all busy): ones turning idle hold the first
  // busy engine only if lo is that engine.
  void Mark(size_t lo, size_t count, bool busy) {
    const size_t bit = lo % 64;
    if (bit + count > 64) {
      MarkWords(lo, count, busy);
    } else {
      const uint64_t mask =
          (count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1) << bit;
      if (busy) {
        busy_[lo / 64] |= mask;
      } else {
        busy_[lo / 64] &= ~mask;
      }
    }
    if (busy) {
      first_busy_ = std::min(first_busy_, lo);
    } else if (lo == first_busy_) {
      first_busy_ = NextBusy(lo + count);
    }
  }
  void MarkWords(size_t lo, size_t count, bool busy);
  // Records the slot at both ends of its group, the only engines looked up.
  void Ends(uint32_t slot) {
    slot_of_[groups_[slot].lo] = slot;
    slot_of_[groups_[slot].lo + groups_[slot].count - 1] = slot;
  }

  std::vector<DmaGroup> groups_;  // by slot
  std::vector<uint32_t> free_;    // slots not in use
  // Per engine, the slot of the group it begins or ends; stale elsewhere
  // (a group's inner engines and idle engines are never looked up).
  std::vector<uint32_t> slot_of_;
  std::vector<uint64_t> busy_;  // engines with a share, as bits
  size_t first_busy_ = kEnd;    // the first busy engine; kEnd: none
  size_t in_use_ = 0;           // groups
  bool merge_;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DMA_GROUPS_H_
