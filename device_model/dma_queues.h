// The DMA engines' queues. A transfer goes to a queue (in the model, its
// DMA statement's: kernel_sim.cc) and is dealt in pieces over engines; on
// each engine a queue's pieces are served in the order they were queued,
// and the queues with pieces waiting are served round robin (the NKI DMA
// overview: "DMA queues ... served round robin"; model 12 took the
// queues but kept one in-order list per engine). A transfer that must wait
// queues a piece on each of its engines, and in a tile loop every transfer
// waits behind the one before on all sixteen: kept piece by piece,
// queueing and taking them cost most of a run. So the queues are one list
// of runs in queueing order, a run being alike pieces of one transfer on
// adjacent engines; an engine's pieces of one queue are the runs of that
// queue that hold a piece for it, in that order. While one queue has
// pieces waiting (a tile loop's stream) the engines take the earliest run,
// as before; with more, each engine takes the earliest run of the first
// queue after the one it served last, in queue order, that has a piece for
// it. Each queue's runs are linked in order, from its earliest with pieces
// waiting, so that this run is found without a search; and while every
// waiting run is on all the engines (the tile loops of the NKI matmul
// tutorial, sixteen engines a transfer, two or three DMA statements in
// turn), a pop of all of them takes that run whole, with no scan of the
// list.
#ifndef TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_
#define TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace trn {

class DmaQueues {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  explicit DmaQueues(size_t engines)
      : nonempty_((engines + 63) / 64, 0),
        last_(engines, kNone),
        whole_mask_(engines <= 64 ? Mask(static_cast<uint32_t>(engines)) : 0),
        whole_engines_(engines <= 64 ? static_cast<uint32_t>(engines) : 0) {}
  // Empty queues on `engines` engines, as constructed, keeping the storage.
  void Reset(size_t engines) {
    last_.assign(engines, kNone);
    lockstep_ = true;
    queues_.clear();
    active_low_ = 0;
    active_queues_ = 0;
    whole_mask_ = engines <= 64 ? Mask(static_cast<uint32_t>(engines)) : 0;
    whole_engines_ = engines <= 64 ? static_cast<uint32_t>(engines) : 0;
    whole_ = 0;
    end_ = 0;
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

  // Queues pieces piece .. piece + count - 1 of transfer `owner`, of queue
  // `queue`, on engines lo .. lo + count - 1 (piece c on engine lo + c),
  // each behind what its engine holds of that queue.
  void Push(uint32_t lo, uint32_t count, uint32_t piece, uint32_t owner,
            uint32_t queue = 0) {
    // The rest in a call of its own (a jump, with no registers to save):
    // Push's one run stays a few loads and stores (-0.8% on the tiled
    // matmul, callgrind).
    if (queue >= queues_.size() || count > 64 || end_ == runs_.size())
        [[unlikely]] {
      return PushSlow(lo, count, piece, owner, queue);
    }
    // One run (every transfer on up to 64 engines): its bits worked out
    // once, in a register, rather than read back from the run (a store
    // of the bits may alias queued_ as far as the compiler knows).
    const uint64_t bits = Mask(count);
    Append({bits, lo, piece, owner, queue, 0});
    SetBits(nonempty_, lo, bits);
    queued_ += count;
  }

  // Engines lo .. lo + count - 1, idle with nothing waiting, started a
  // piece of `queue` without queueing it: the queue they served last.
  void Served(uint32_t lo, uint32_t count, uint32_t queue) {
    Note(lo, count, queue);
  }

  // Engines lo .. lo + count - 1 take the head of their queues, in engine
  // order: calls fn(e, n, piece, owner) for each stretch of n adjacent
  // engines from e on whose heads are the consecutive pieces piece .. of
  // one queued run of transfer `owner`, and fn(e, n, kNone, kNone) for each
  // stretch of engines with nothing waiting. A stretch may be cut in two
  // where a run would not be (every 64 engines).
  template <typename Fn>
  void PopHeads(uint32_t lo, uint32_t count, Fn&& fn) {
    uint32_t piece;
    uint32_t owner;
    if (PopWhole(lo, count, piece, owner)) {
      fn(lo, count, piece, owner);
      return;
    }
    PopHeadsInChunks(lo, count, fn);
  }
  // PopHeads where PopWhole returned false.
  template <typename Fn>
  void PopHeadsInChunks(uint32_t lo, uint32_t count, Fn&& fn) {
    for (uint32_t a = lo, end = lo + count; a < end; a += 64) {
      PopChunk(a, std::min<uint32_t>(end - a, 64), fn);
    }
  }

  // PopHeads' tile-loop case, without a callback: when engines lo .. lo +
  // count - 1 are all the engines (lo 0, up to 64), in lockstep, and every
  // waiting piece is in a whole run, they all take the earliest run of the
  // queue next in their turn (pieces piece .. of transfer `owner`) and
  // still have pieces waiting if any are: returns true. Otherwise returns
  // false and changes nothing (PopHeads then). A caller that handles this
  // case itself builds no callback object for it: the run loop's callback
  // captures a dozen of its variables, stored for every transfer that
  // ended (callgrind, tiled matmul: ~5% of a run).
  [[gnu::always_inline]] bool PopWhole(uint32_t lo, uint32_t count,
                                       uint32_t& piece, uint32_t& owner) {
    // Before PopChunk's steps (-2.3% on the tiled matmul against the same
    // in PopChunk, callgrind).
    if (lo != 0 || count != whole_engines_ || !lockstep_ || queued_ == 0 ||
        queued_ != whole_ * count) {
      return false;
    }
    const uint32_t q = NextQueue(last_[0]);
    const size_t r = queues_[q].head;
    Run& run = runs_[r];
    --whole_;
    run.waiting = 0;
    Drained(r);
    FillInline(last_.data(), count, q);
    queued_ -= count;
    if (queued_ == 0) nonempty_[0] = 0;
    piece = run.piece;
    owner = run.owner;
    // Before the caller starts the pieces rather than after (as PopChunk
    // does): only taken runs are dropped, which nothing outside sees.
    Compact();
    return true;
  }

 private:
  struct Run {
    uint64_t waiting;  // bit c: the piece for engine lo + c waits
    uint32_t lo;
    uint32_t piece;  // the piece of engine lo
    uint32_t owner;
    uint32_t queue;
    // The queue's next run is this many runs on (0: none yet). Relative,
    // so Compact's erase leaves it right.
    uint32_t next;
  };
  // Per queue.
  struct Queue {
    uint32_t waiting_runs = 0;  // runs with pieces waiting
    // While it has some: its earliest run with pieces waiting, and the run
    // it queued last (both at or after first_: runs before it are taken).
    // Exact, so a pop finds the queue's next run without a search. 32 bits,
    // as the links: runs_ holds what waits, about, not 4G runs.
    uint32_t head = 0;
    uint32_t tail = 0;
    uint32_t unused = 0;  // 16 bytes: queues_.size() is a shift
  };

  // Push with a new queue, a full runs_, or more than 64 engines (a run
  // every 64).
  [[gnu::noinline]] void PushSlow(uint32_t lo, uint32_t count, uint32_t piece,
                                  uint32_t owner, uint32_t queue) {
    if (queue >= queues_.size()) queues_.resize(queue + 1);
    while (count > 0) {
      const uint32_t n = std::min<uint32_t>(count, 64);
      if (end_ == runs_.size()) GrowRuns();
      Append({Mask(n), lo, piece, owner, queue, 0});
      SetBits(nonempty_, lo, Mask(n));
      queued_ += n;
      lo += n;
      piece += n;
      count -= n;
    }
  }

  // Puts run r at the end of runs_ (which has room) and of its queue's
  // links.
  [[gnu::always_inline]] void Append(const Run& r) {
    const size_t at = end_;
    runs_[at] = r;
    end_ = at + 1;
    if (r.lo == 0 && r.waiting == whole_mask_) ++whole_;
    Queue& s = queues_[r.queue];
    if (s.waiting_runs++ == 0) {
      ++active_queues_;
      if (r.queue < 64) active_low_ |= uint64_t{1} << r.queue;
      s.head = static_cast<uint32_t>(at);
    } else {
      runs_[s.tail].next = static_cast<uint32_t>(at) - s.tail;
    }
    s.tail = static_cast<uint32_t>(at);
  }

  // Room for more runs. Out of line, and runs_ kept at its size with the
  // runs in use counted apart (end_): a push_back that g++ did not inline
  // cost the tiled matmul 1.6% (callgrind).
  [[gnu::noinline]] void GrowRuns() {
    runs_.resize(std::max<size_t>(64, 2 * runs_.size()));
  }

  // The run is about to lose pieces: it is no longer whole.
  void Losing(const Run& run) {
    if (run.lo == 0 && run.waiting == whole_mask_) --whole_;
  }

  // Run r has no piece left waiting: one fewer of its queue's, whose
  // earliest run with pieces waiting is a later one if it was r.
  [[gnu::always_inline]] void Drained(size_t r) {
    const uint32_t q = runs_[r].queue;
    Queue& s = queues_[q];
    if (--s.waiting_runs == 0) {
      --active_queues_;
      if (q < 64) active_low_ &= ~(uint64_t{1} << q);
      return;
    }
    if (s.head != r) return;
    size_t h = r;
    do {
      h += runs_[h].next;
    } while (runs_[h].waiting == 0);
    s.head = static_cast<uint32_t>(h);
  }

  // The first queue with pieces waiting in the turn of an engine that
  // served `last` (at least one queue has pieces waiting). With up to 64
  // queues, from the bits of the active ones, rather than a search of the
  // queues on every pop of a tile loop with two statements or more.
  [[gnu::always_inline]] uint32_t NextQueue(uint32_t last) const {
    const auto n = static_cast<uint32_t>(queues_.size());
    if (n <= 64) {
      uint64_t bits = active_low_;
      if (last != kNone && last < 63) {
        const uint64_t after = bits & (~uint64_t{1} << last);
        if (after != 0) bits = after;
      }
      return static_cast<uint32_t>(std::countr_zero(bits));
    }
    uint32_t q = last == kNone || last + 1 >= n ? 0 : last + 1;
    for (uint32_t k = 0; k < n && queues_[q].waiting_runs == 0; ++k) {
      q = q + 1 == n ? 0 : q + 1;
    }
    return q;
  }

  // Where queue q comes in the round robin of an engine that served
  // `last` (kNone: none yet): the queues after it in queue order, then
  // the ones before, it last.
  static uint32_t Turn(uint32_t q, uint32_t last) {
    if (last == kNone) return q;
    return q > last ? q - last - 1 : q + (kNone - last);
  }

  // With engines a .. a + m - 1 in lockstep (each served the same queue
  // last), the earliest run of the first queue in their turn that has runs
  // waiting, when it holds a piece for every one of them and no other:
  // each takes its piece of it. kNoRun otherwise (the general round robin
  // decides).
  size_t LockstepRun(uint32_t a, uint32_t m, uint64_t chunk,
                     uint64_t want) const {
    const uint32_t* from = last_.data() + a;
    const uint32_t last = from[0];
    // All equal: every engine's are (lockstep_), or each equals the next
    // (memcmp compares 16 engines in a few vector steps, a loop took most
    // of a tiled matmul's queue time).
    if (m > 1 && !lockstep_ &&
        std::memcmp(from, from + 1, (m - 1) * sizeof(uint32_t)) != 0) {
      return kNoRun;
    }
    // The queue's runs from its earliest with pieces waiting, along its
    // links (a search of the list passed the other queues' runs and q's
    // drained ones: 4% of a hoisted matmul's run, callgrind).
    for (size_t r = queues_[NextQueue(last)].head;; r += runs_[r].next) {
      const Run& run = runs_[r];
      if (const uint64_t o = Overlap(run, a) & chunk; o != 0) {
        return o == want ? r : kNoRun;
      }
      if (run.next == 0) return kNoRun;
    }
  }

  // The round robin of PopChunk with more than one queue waiting: engine
  // a + c takes the earliest run of the queue whose turn comes first.
  // Out of line: PopChunk's tile-loop path stays small enough to inline.
  template <typename Fn>
  [[gnu::noinline]] void PopChunkRoundRobin(uint32_t a, uint32_t m,
                                            uint64_t chunk, Fn& fn) {
    const uint64_t want = Bits(nonempty_, a) & chunk;
    std::array<size_t, 64> pick;
    // Engines in lockstep: the first queue in their turn has one run with
    // a piece for each engine that wants one (a transfer queued on all
    // sixteen, taken by a group of some of them).
    if (const size_t r = LockstepRun(a, m, chunk, want); r != kNoRun) {
      for (uint32_t c = 0; c < m; ++c) {
        pick[c] = (want >> c & 1) != 0 ? r : kNoRun;
      }
      Take(a, m, chunk, pick, fn);
      return;
    }
    std::array<uint32_t, 64> turn;
    std::fill_n(pick.begin(), m, kNoRun);
    // An engine stops looking once it has the queue next in its turn, or
    // has seen every queue that waits (queue ids below 64 tracked; others
    // look to the end of the list).
    std::array<uint64_t, 64> seen;
    std::fill_n(seen.begin(), m, uint64_t{0});
    uint64_t open = want;
    for (size_t r = first_; open != 0 && r < end_; ++r) {
      const Run& run = runs_[r];
      uint64_t o = Overlap(run, a) & open;
      while (o != 0) {
        const auto c = static_cast<uint32_t>(std::countr_zero(o));
        o &= o - 1;
        const uint64_t bit = run.queue < 64 ? uint64_t{1} << run.queue : 0;
        if ((seen[c] & bit) != 0) continue;  // a later run of a seen queue
        seen[c] |= bit;
        const uint32_t t = Turn(run.queue, last_[a + c]);
        if (pick[c] == kNoRun || t < turn[c]) {
          pick[c] = r;
          turn[c] = t;
        }
        if (t == 0 || (bit != 0 && static_cast<size_t>(std::popcount(
                                       seen[c])) == active_queues_)) {
          open &= ~(uint64_t{1} << c);
        }
      }
    }
    Take(a, m, chunk, pick, fn);
  }

  // Engine a + c takes its piece of run pick[c] (kNoRun: it has none
  // waiting), and PopHeads' stretches are reported.
  template <typename Fn>
  void Take(uint32_t a, uint32_t m, uint64_t chunk,
            const std::array<size_t, 64>& pick, Fn& fn) {
    for (uint32_t c = 0; c < m; ++c) {
      if (pick[c] == kNoRun) continue;
      Run& run = runs_[pick[c]];
      const uint32_t e = a + c;
      Losing(run);
      run.waiting &= ~(uint64_t{1} << (e - run.lo));
      if (run.waiting == 0) Drained(pick[c]);
      if (last_[e] != run.queue && last_.size() > 1) lockstep_ = false;
      last_[e] = run.queue;
      --queued_;
    }
    uint64_t more = 0;  // engines with a piece still waiting
    for (size_t r = first_; r < end_ && more != chunk; ++r) {
      more |= Overlap(runs_[r], a) & chunk;
    }
    ClearBits(nonempty_, a, chunk & ~more);
    // In engine order: stretches of engines that took consecutive pieces
    // of one run, and of engines with nothing waiting.
    for (uint32_t c = 0; c < m;) {
      uint32_t n = 1;
      while (c + n < m && pick[c + n] == pick[c]) ++n;
      if (pick[c] == kNoRun) {
        fn(a + c, n, kNone, kNone);
      } else {
        const Run& run = runs_[pick[c]];
        fn(a + c, n, run.piece + (a + c - run.lo), run.owner);
      }
      c += n;
    }
    Compact();
  }

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
    // queues, and the engines take it whole, as one stretch; with other
    // queues waiting, when its queue's turn comes first on each of them
    // (two statements that alternate). What follows does the general
    // steps for that case alone (about half the instructions, callgrind).
    size_t head = first_;
    if (active_queues_ > 1) {
      // Engines in lockstep (the same queue served last) whose queue next
      // in turn has a run of pieces for each of them take it whole.
      head = LockstepRun(a, m, chunk, chunk);
      if (head == kNoRun || runs_[head].lo != a ||
          runs_[head].waiting != chunk) {
        PopChunkRoundRobin(a, m, chunk, fn);
        return;
      }
    }
    if (head < end_ && runs_[head].lo == a && runs_[head].waiting == chunk) {
      Run& run = runs_[head];
      if (a == 0 && chunk == whole_mask_) --whole_;
      run.waiting = 0;
      Drained(head);
      Note(a, m, run.queue);
      queued_ -= m;
      uint64_t more = 0;  // engines another run holds a piece for
      for (size_t r = first_; r < end_ && more != chunk; ++r) {
        if (r != head) more |= Overlap(runs_[r], a) & chunk;
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
    for (size_t r = first_; want != 0 && r < end_; ++r) {
      Run& run = runs_[r];
      uint64_t take = Overlap(run, a) & want;
      if (take == 0) continue;
      want &= ~take;
      Losing(run);
      // Back in the run's own bits.
      run.waiting &=
          ~(run.lo >= a ? take >> (run.lo - a) : take << (a - run.lo));
      if (run.waiting == 0) Drained(r);
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
    for (size_t r = stretches > 0 ? found[0].run : end_, i = 0; r < end_; ++r) {
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
      Note(a + found[i].c, found[i].n, run.queue);
      fn(a + found[i].c, found[i].n, run.piece + (a + found[i].c - run.lo),
         run.owner);
      c = found[i].c + found[i].n;
    }
    Compact();
  }

  // Engines lo .. lo + n - 1 served queue v last.
  [[gnu::always_inline]] void Note(size_t lo, size_t n, uint32_t v) {
    if (n == last_.size()) {
      lockstep_ = true;
    } else if (lockstep_ && last_[lo == 0 ? n : 0] != v) {
      lockstep_ = false;  // an engine outside the range holds the old value
    }
    Fill(last_.data() + lo, n, v);
  }
  // Sets n values from p on to v, four a step: g++ -O2 does not vectorise
  // std::fill_n of a count it does not know, and a store and a loop step
  // per engine were 3.6% of a tiled matmul's run (callgrind), where the
  // engines take their next pieces and note the queue they served.
  static void Fill(uint32_t* p, size_t n, uint32_t v) {
    if (n == 16) return FillInline(p, n, v);
    const uint64_t two = uint64_t{v} << 32 | v;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      std::memcpy(p + i, &two, sizeof(two));
      std::memcpy(p + i + 2, &two, sizeof(two));
    }
    for (; i < n; ++i) p[i] = v;
  }

  // Fill, with 16 engines (a NeuronCore's DMA engines, trn1 and trn2) in
  // eight stores, no loop (-0.9% on the tiled matmul against Fill's loop,
  // callgrind) and no call: g++ inlines Fill or not as the code around it
  // changes (0.2% of the tiled matmul).
  [[gnu::always_inline]] static void FillInline(uint32_t* p, size_t n,
                                                uint32_t v) {
    if (n != 16) return Fill(p, n, v);
    const uint64_t two = uint64_t{v} << 32 | v;
    for (size_t k = 0; k < 16; k += 2) std::memcpy(p + k, &two, 8);
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
  // run the simulation has queued. Inline: a call of its own after every
  // chunk of heads taken cost the tiled matmul 1.3% (callgrind).
  [[gnu::always_inline]] void Compact() {
    while (first_ < end_ && runs_[first_].waiting == 0) ++first_;
    if (first_ == end_) {
      end_ = 0;
      first_ = 0;
    } else if (first_ >= 4096 && 2 * first_ >= end_) {
      std::copy(runs_.begin() + static_cast<std::ptrdiff_t>(first_),
                runs_.begin() + static_cast<std::ptrdiff_t>(end_),
                runs_.begin());
      end_ -= first_;
      for (Queue& s : queues_) {
        if (s.waiting_runs == 0) continue;
        s.head -= static_cast<uint32_t>(first_);
        s.tail -= static_cast<uint32_t>(first_);
      }
      first_ = 0;
    }
  }

  std::vector<Run> runs_;  // in queueing order, the first end_ in use
  size_t end_ = 0;
  size_t first_ = 0;                // runs before it are consumed
  std::vector<uint64_t> nonempty_;  // engines with pieces waiting, as bits
  size_t queued_ = 0;
  static constexpr size_t kNoRun = std::numeric_limits<size_t>::max();
  std::vector<uint32_t> last_;  // the queue each engine served last
  bool lockstep_ = true;        // every engine's last_ is the same
  std::vector<Queue> queues_;
  uint64_t active_low_ = 0;   // bit q: queue q (below 64) has pieces waiting
  size_t active_queues_ = 0;  // queues with pieces waiting
  // A whole run is a run of a piece on every engine, lo 0 (on up to 64
  // engines; 0 above). While every waiting piece is in one (a tile loop's
  // transfers), PopHeads knows without a scan which run the engines take
  // and which have more.
  uint64_t whole_mask_;
  uint32_t whole_engines_;  // the engines, up to 64 (0 above)
  size_t whole_ = 0;        // whole runs waiting
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DMA_QUEUES_H_
