#include "device_model/dma_queues.h"

#include <cstdint>
#include <deque>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

struct Piece {
  uint32_t piece;
  uint32_t owner;
  bool operator==(const Piece&) const = default;
};

// Random pushes and pops against one deque per engine: every engine takes
// the pieces queued on it in the order they were queued, and the stretches
// PopHeads reports are in engine order, cover the engines asked, and hold
// consecutive pieces of one transfer.
TEST(DmaQueuesTest, EachEngineServesItsOwnQueueInOrder) {
  for (size_t engines : {size_t{16}, size_t{5}, size_t{130}}) {
    CounterRng rng(engines);
    DmaQueues q(engines);
    std::vector<std::deque<Piece>> model(engines);
    size_t model_queued = 0;
    uint32_t owner = 0;
    for (int step = 0; step < 20000; ++step) {
      const auto lo = static_cast<uint32_t>(rng.NextBelow(engines));
      const auto count = 1 + static_cast<uint32_t>(rng.NextBelow(engines - lo));
      if (rng.NextBelow(2) == 0) {
        const auto piece = static_cast<uint32_t>(rng.NextBelow(1000));
        q.Push(lo, count, piece, ++owner);
        for (uint32_t c = 0; c < count; ++c) {
          model[lo + c].push_back({piece + c, owner});
        }
        model_queued += count;
      } else {
        uint32_t next = lo;
        q.PopHeads(lo, count,
                   [&](uint32_t e, uint32_t n, uint32_t piece, uint32_t who) {
                     ASSERT_EQ(e, next);
                     ASSERT_GE(n, 1u);
                     next += n;
                     for (uint32_t c = 0; c < n; ++c) {
                       auto& m = model[e + c];
                       if (piece == DmaQueues::kNone) {
                         ASSERT_TRUE(m.empty()) << e + c;
                         continue;
                       }
                       ASSERT_FALSE(m.empty()) << e + c;
                       EXPECT_EQ(m.front(), (Piece{piece + c, who})) << e + c;
                       m.pop_front();
                       --model_queued;
                     }
                   });
        ASSERT_EQ(next, lo + count);
      }
      ASSERT_EQ(q.Queued(), model_queued);
      for (size_t e = 0; e < engines; ++e) {
        ASSERT_EQ(q.Empty(e), model[e].empty()) << e;
      }
    }
  }
}

// How RoundRobinAgainstReference draws its steps.
struct Mix {
  size_t engines;
  uint32_t queues;
  uint64_t seed;
  uint32_t whole_in_32;  // chance in 32 that a step is on every engine
  bool served;  // engines with nothing waiting may start a piece unqueued
  uint32_t push_percent;  // the rest pop
  int steps = 20000;
  // Pops as the simulator's finish does: PopWhole, then PopHeadsInChunks
  // where it declines. Counts the pops PopWhole took.
  size_t* whole_pops = nullptr;
};

// Random pushes and pops (and Served) on `mix.queues` queues: on each
// engine a queue's pieces come in the order they were queued, and the
// queues with pieces waiting take turns, the first after the one the
// engine served last (the NKI DMA overview's round robin), against a
// reference kept per engine and queue.
void RoundRobinAgainstReference(const Mix& mix) {
  SCOPED_TRACE(testing::Message()
               << mix.engines << " engines, " << mix.queues << " queues, seed "
               << mix.seed << ", whole " << mix.whole_in_32 << "/32, push "
               << mix.push_percent << "%");
  constexpr uint32_t kNoQueue = DmaQueues::kNone;
  const size_t engines = mix.engines;
  const uint32_t queues = mix.queues;
  CounterRng rng(mix.seed);
  DmaQueues q(engines);
  // model[e][queue]: the pieces waiting on engine e of that queue.
  std::vector<std::vector<std::deque<Piece>>> model(
      engines, std::vector<std::deque<Piece>>(queues));
  std::vector<uint32_t> last(engines, kNoQueue);
  size_t model_queued = 0;
  uint32_t owner = 0;
  for (int step = 0; step < mix.steps; ++step) {
    auto lo = static_cast<uint32_t>(rng.NextBelow(engines));
    auto count = 1 + static_cast<uint32_t>(rng.NextBelow(engines - lo));
    if (rng.NextBelow(32) < mix.whole_in_32) {
      lo = 0;
      count = static_cast<uint32_t>(engines);
    }
    if (mix.served && rng.NextBelow(8) == 0) {
      // Idle engines with nothing waiting start a piece of a queue.
      bool idle = true;
      for (uint32_t c = 0; c < count; ++c) idle = idle && q.Empty(lo + c);
      if (idle) {
        const auto queue = static_cast<uint32_t>(rng.NextBelow(queues));
        q.Served(lo, count, queue);
        for (uint32_t c = 0; c < count; ++c) last[lo + c] = queue;
      }
      continue;
    }
    if (rng.NextBelow(100) < mix.push_percent) {
      const auto piece = static_cast<uint32_t>(rng.NextBelow(1000));
      const auto queue = static_cast<uint32_t>(rng.NextBelow(queues));
      q.Push(lo, count, piece, ++owner, queue);
      for (uint32_t c = 0; c < count; ++c) {
        model[lo + c][queue].push_back({piece + c, owner});
      }
      model_queued += count;
      continue;
    }
    uint32_t next = lo;
    auto check = [&](uint32_t e, uint32_t n, uint32_t piece, uint32_t who) {
      ASSERT_EQ(e, next);
      next += n;
      for (uint32_t c = 0; c < n; ++c) {
        auto& m = model[e + c];
        // The reference's turn: the queues after the last
        // served, then from the first.
        uint32_t want = kNoQueue;
        const uint32_t from = last[e + c] == kNoQueue ? 0 : last[e + c] + 1;
        for (uint32_t k = 0; k < queues && want == kNoQueue; ++k) {
          const uint32_t qq = (from + k) % queues;
          if (!m[qq].empty()) want = qq;
        }
        if (piece == DmaQueues::kNone) {
          ASSERT_EQ(want, kNoQueue) << e + c;
          continue;
        }
        ASSERT_NE(want, kNoQueue) << e + c;
        ASSERT_EQ(m[want].front(), (Piece{piece + c, who})) << e + c;
        m[want].pop_front();
        last[e + c] = want;
        --model_queued;
      }
    };
    if (mix.whole_pops == nullptr) {
      q.PopHeads(lo, count, check);
    } else {
      uint32_t piece = 0;
      uint32_t who = 0;
      const size_t queued = q.Queued();
      if (q.PopWhole(lo, count, piece, who)) {
        ++*mix.whole_pops;
        check(lo, count, piece, who);
      } else {
        // Declined: nothing taken.
        ASSERT_EQ(q.Queued(), queued);
        q.PopHeadsInChunks(lo, count, check);
      }
    }
    ASSERT_EQ(next, lo + count);
    ASSERT_EQ(q.Queued(), model_queued);
    for (size_t e = 0; e < engines; ++e) {
      bool empty = true;
      for (const auto& waiting : model[e]) empty = empty && waiting.empty();
      ASSERT_EQ(q.Empty(e), empty) << e;
    }
  }
}

// Several queues, with steps anywhere, or (whole) most on every engine
// (a tile loop's, engines in lockstep) and engines that start a piece
// without queueing it (Served).
TEST(DmaQueuesTest, QueuesWithPiecesWaitingAreServedRoundRobin) {
  for (const bool whole : {false, true}) {
    for (uint32_t queues : {2u, 3u, 7u, 70u}) {
      RoundRobinAgainstReference({.engines = 16,
                                  .queues = queues,
                                  .seed = queues + (whole ? 100 : 0),
                                  .whole_in_32 = whole ? 24u : 0u,
                                  .served = whole,
                                  .push_percent = whole ? 34u : 50u});
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

// Tile loops: every step, or all but one in 32, on every engine, so that
// for long stretches every waiting piece is in a run on every engine (the
// pops' shortcut for it, dma_queues.h), on one queue, on a few, and on more
// than 64 (tracked without bits); on 5, 16, 64 and 70 engines (no such
// runs above 64); with pushes as often as pops, and more often (a list
// that never empties and is compacted, its queues' links kept).
TEST(DmaQueuesTest, TileLoopsAreServedRoundRobin) {
  uint64_t seed = 1000;
  for (size_t engines : {size_t{16}, size_t{5}, size_t{64}, size_t{70}}) {
    for (uint32_t queues : {1u, 2u, 3u, 65u}) {
      for (uint32_t whole_in_32 : {32u, 31u}) {
        for (uint32_t push_percent : {50u, 55u}) {
          RoundRobinAgainstReference({.engines = engines,
                                      .queues = queues,
                                      .seed = ++seed,
                                      .whole_in_32 = whole_in_32,
                                      .served = true,
                                      .push_percent = push_percent});
          if (testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// The simulator's pop (kernel_sim.cc, finish): PopWhole where every
// waiting piece is in a run on every engine and the engines are in
// lockstep, PopHeadsInChunks where it declines, against the same reference;
// PopWhole takes most pops of a tile loop (and none above 64 engines).
TEST(DmaQueuesTest, PopWholeThenChunksIsPopHeads) {
  uint64_t seed = 2000;
  for (size_t engines : {size_t{16}, size_t{5}, size_t{64}, size_t{70}}) {
    for (uint32_t queues : {1u, 2u, 3u, 65u}) {
      for (uint32_t whole_in_32 : {32u, 31u, 8u}) {
        size_t whole_pops = 0;
        RoundRobinAgainstReference({.engines = engines,
                                    .queues = queues,
                                    .seed = ++seed,
                                    .whole_in_32 = whole_in_32,
                                    .served = true,
                                    .push_percent = 50,
                                    .steps = 5000,
                                    .whole_pops = &whole_pops});
        if (testing::Test::HasFatalFailure()) return;
        if (engines > 64) {
          EXPECT_EQ(whole_pops, 0u) << engines << " engines";
        } else if (whole_in_32 == 32) {
          EXPECT_GT(whole_pops, 500u)
              << engines << " engines, " << queues << " queues";
        }
      }
    }
  }
}

// Alike pieces queued together on every engine come back as one stretch.
TEST(DmaQueuesTest, ATransferQueuedOnEveryEngineStartsWhole) {
  DmaQueues q(16);
  q.Push(0, 16, 100, 1);
  q.Push(0, 16, 200, 2);
  int calls = 0;
  q.PopHeads(0, 16, [&](uint32_t e, uint32_t n, uint32_t piece, uint32_t who) {
    ++calls;
    EXPECT_EQ(e, 0u);
    EXPECT_EQ(n, 16u);
    EXPECT_EQ(piece, 100u);
    EXPECT_EQ(who, 1u);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(q.Queued(), 16u);
}

}  // namespace
}  // namespace trn
