// The DMA engines' queues: each engine serves the pieces queued on it in
// the order they were queued. A transfer that must wait queues a piece on
// each of its engines, and in a tile loop every transfer waits behind the
// one before on all sixteen: kept piece by piece, queueing and taking them
// cost most of a run. So the queues are one list of runs in queueing order,
// a run being alike pieces of one transfer on adjacent engines; an engine's
// queue is the runs that hold a piece for it, in that order, which is the
// order it would have served its own queue in.
#ifndef TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_
#define TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace trn {

class DmaQueues {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  explicit DmaQueues(size_t engines) : nonempty_((engines + 63) / 64, 0) {}
  // Empty queues on `engines` engines, as constructed, keeping the storage.
  void Reset(size_t engines) {
    runs_.clear();
    first_ = 0;
    nonempty_.assign((engines + 63) / 64, 0);
    queued_ = 0;
  }

  // Pieces waiting, on all engines.
  size_t Queued() const { return queued_; }
  // Engine e has nothing waiting.
  bool Empty(size_t e) const {
    return (nonempty_[e / 64] >> (e % 64) & 1) == 0;
  }

  // Queues pieces piece .. piece + count - 1 of transfer `owner` on engines
  // lo .. lo + count - 1 (piece c on engine lo + c), each behind what its
  // engine holds.
  void Push(uint32_t lo, uint32_t count, uint32_t piece, uint32_t owner) {
    if (count <= 64) {
      // One run (every transfer on up to 64 engines): its bits worked out
      // once, in a register, rather than read back from the run (a store
      // of the bits may alias queued_ as far as the compiler knows).
      const uint64_t bits = Mask(count);
      runs_.push_back({bits, lo, piece, owner});
      SetBits(nonempty_, lo, bits);
      queued_ += count;
      return;
    }
    while (count > 0) {
      const uint32_t n = std::min<uint32_t>(count, 64);
      runs_.push_back(
          {n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1, lo, piece, owner});
      SetBits(nonempty_, lo, runs_.back().waiting);
      queued_ += n;
      lo += n;
      piece += n;
      count -= n;
    }
  }

  // Engines lo .. lo + count - 1 take the head of their queues, in engine
  // order: calls fn(e, n, piece, owner) for each stretch of n adjacent
  // engines from e on whose heads are the consecutive pieces piece .. of
  // one queued run of transfer `owner`, and fn(e, n, kNone, kNone) for each
  // stretch of engines with nothing waiting. A stretch may be cut in two
  // where a run would not be (every 64 engines).
  template <typename Fn>
  void PopHeads(uint32_t lo, uint32_t count, Fn&& fn) {
    for (uint32_t a = lo, end = lo + count; a < end; a += 64) {
      PopChunk(a, std::min<uint32_t>(end - a, 64), fn);
    }
  }

 private:
  struct Run {
    uint64_t waiting;  // bit c: the piece for engine lo + c waits
    uint32_t lo;
    uint32_t piece;  // the piece of engine lo
    uint32_t owner;
  };

  // The run's waiting engines among [a, a + 64), as bits from a.
  static uint64_t Overlap(const Run& r, uint32_t a) {
    if (r.lo >= a) return r.lo - a >= 64 ? 0 : r.waiting << (r.lo - a);
    return a - r.lo >= 64 ? 0 : r.waiting >> (a - r.lo);
  }

  template <typename Fn>
  void PopChunk(uint32_t a, uint32_t m, Fn& fn) {
    const uint64_t chunk = m == 64 ? ~uint64_t{0} : (uint64_t{1} << m) - 1;
    // A tile loop's case: the earliest run holds a piece for every engine
    // of the chunk and for no other, so it is the head of each of their
    // queues, and the engines take it whole, as one stretch. What follows
    // does the general steps for that case alone (about half the
    // instructions, callgrind).
    if (first_ < runs_.size() && runs_[first_].lo == a &&
        runs_[first_].waiting == chunk) {
      Run& run = runs_[first_];
      run.waiting = 0;
      queued_ -= m;
      uint64_t more = 0;  // engines a later run holds a piece for
      for (size_t r = first_ + 1; r < runs_.size() && more != chunk; ++r) {
        more |= Overlap(runs_[r], a) & chunk;
      }
      ClearBits(nonempty_, a, chunk & ~more);
      fn(a, m, run.piece, run.owner);
      Compact();
      return;
    }
    // The engines that have a piece waiting: each takes the first run that
    // holds one for it. Each run's share is one or more stretches of
    // adjacent engines.
    uint64_t want = Bits(nonempty_, a) & chunk;
    struct Stretch {
      uint32_t c;  // first engine, from a
      uint32_t n;
      uint32_t run;
    };
    std::array<Stretch, 64> found;
    size_t stretches = 0;
    uint64_t taken = 0;
    for (size_t r = first_; want != 0 && r < runs_.size(); ++r) {
      Run& run = runs_[r];
      uint64_t take = Overlap(run, a) & want;
      if (take == 0) continue;
      want &= ~take;
      // Back in the run's own bits.
      run.waiting &=
          ~(run.lo >= a ? take >> (run.lo - a) : take << (a - run.lo));
      taken |= take;
      while (take != 0) {
        const auto c = static_cast<uint32_t>(std::countr_zero(take));
        const auto n = static_cast<uint32_t>(std::countr_one(take >> c));
        found[stretches++] = {c, n, static_cast<uint32_t>(r)};
        // Counted by stretch: std::popcount is a libgcc call without
        // -mpopcnt, 2% of a tiled matmul's run.
        queued_ -= n;
        take &= n == 64 ? 0 : ~(((uint64_t{1} << n) - 1) << c);
      }
    }
    // An engine that took a piece has more waiting only if a run after the
    // one it took from holds one for it (in a tile loop, the next run).
    uint64_t eligible = 0;  // engines whose run is before r
    uint64_t more = 0;      // of those, the ones a later run holds one for
    for (size_t r = stretches > 0 ? found[0].run : runs_.size(), i = 0;
         r < runs_.size(); ++r) {
      more |= Overlap(runs_[r], a) & eligible;
      for (; i < stretches && found[i].run == r; ++i) {
        eligible |= Mask(found[i].n) << found[i].c;
      }
      if (i == stretches && (eligible & ~more) == 0) break;
    }
    taken &= ~more;
    ClearBits(nonempty_, a, taken);
    // In engine order (a few stretches, most often one), with the stretches
    // of engines that had nothing waiting between them.
    if (stretches > 1) {
      std::sort(found.begin(),
                found.begin() + static_cast<std::ptrdiff_t>(stretches),
                [](const Stretch& x, const Stretch& y) { return x.c < y.c; });
    }
    uint32_t c = 0;
    for (size_t i = 0; i <= stretches; ++i) {
      const uint32_t until = i < stretches ? found[i].c : m;
      if (until > c) fn(a + c, until - c, kNone, kNone);
      if (i == stretches) break;
      const Run& run = runs_[found[i].run];
      fn(a + found[i].c, found[i].n, run.piece + (a + found[i].c - run.lo),
         run.owner);
      c = found[i].c + found[i].n;
    }
    Compact();
  }

  static uint64_t Mask(uint32_t n) {
    return n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  }
  // words |= bits << from, and words &= ~(bits << from), over two words.
  static void SetBits(std::vector<uint64_t>& words, size_t from,
                      uint64_t bits) {
    const size_t w = from / 64;
    const size_t b = from % 64;
    words[w] |= bits << b;
    if (b != 0 && w + 1 < words.size()) words[w + 1] |= bits >> (64 - b);
  }
  static void ClearBits(std::vector<uint64_t>& words, size_t from,
                        uint64_t bits) {
    const size_t w = from / 64;
    const size_t b = from % 64;
    words[w] &= ~(bits << b);
    if (b != 0 && w + 1 < words.size()) words[w + 1] &= ~(bits >> (64 - b));
  }
  // The 64 bits of `words` from bit `from` on (bits past the end are 0).
  static uint64_t Bits(const std::vector<uint64_t>& words, size_t from) {
    const size_t w = from / 64;
    const size_t b = from % 64;
    uint64_t bits = words[w] >> b;
    if (b != 0 && w + 1 < words.size()) bits |= words[w + 1] << (64 - b);
    return bits;
  }

  // Drops the consumed runs at the front; a list that never empties drops
  // its consumed half (amortised O(1)), so it holds what waits, not every
  // run the simulation has queued.
  void Compact() {
    while (first_ < runs_.size() && runs_[first_].waiting == 0) ++first_;
    if (first_ == runs_.size()) {
      runs_.clear();
      first_ = 0;
    } else if (first_ >= 4096 && 2 * first_ >= runs_.size()) {
      runs_.erase(runs_.begin(),
                  runs_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
  }

  std::vector<Run> runs_;           // in queueing order
  size_t first_ = 0;                // runs before it are consumed
  std::vector<uint64_t> nonempty_;  // engines with pieces waiting, as bits
  size_t queued_ = 0;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_
