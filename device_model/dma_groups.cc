#include "device_model/dma_groups.h"

namespace trn {

void DmaGroups::MarkWords(size_t lo, size_t count, bool busy) {
  for (size_t e = lo, end = lo + count; e < end;) {
    const size_t bit = e % 64;
    const size_t n = std::min<size_t>(64 - bit, end - e);
    const uint64_t mask = (n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1)
                          << bit;
    if (busy) {
      busy_[e / 64] |= mask;
    } else {
      busy_[e / 64] &= ~mask;
    }
    e += n;
  }
}

uint32_t DmaGroups::Grow() {
  groups_.emplace_back();
  return static_cast<uint32_t>(groups_.size() - 1);
}

uint32_t DmaGroups::Begin(uint32_t lo, uint32_t count, uint32_t owner,
                          uint32_t piece, int64_t bytes, double work,
                          double t) {
  // Engine lo is idle, so a busy lo - 1 is the last engine of its group.
  if (merge_ && lo > 0 && !Idle(lo - 1)) {
    const uint32_t prev = slot_of_[lo - 1];
    DmaGroup& g = groups_[prev];
    // Same state member for member: the newcomers' remaining work is their
    // work, and the group's rate is set anew before it is used.
    if (g.owner == owner && g.bytes == bytes && g.work == work &&
        g.start == t && g.remaining == work) {
      g.count += count;
      Mark(lo, count, true);
      Ends(prev);
      return prev;
    }
  }
  const uint32_t slot = NewSlot();
  groups_[slot] = {lo, count, owner, piece, bytes, work, t, work, t};
  Mark(lo, count, true);
  Ends(slot);
  return slot;
}

uint32_t DmaGroups::SplitFirst(uint32_t slot) {
  const uint32_t rest = NewSlot();
  DmaGroup& g = groups_[slot];  // after any growth of groups_
  DmaGroup& r = groups_[rest];
  r = g;
  r.lo = g.lo + 1;
  r.count = g.count - 1;
  g.count = 1;
  Ends(slot);
  Ends(rest);
  return rest;
}

}  // namespace trn
