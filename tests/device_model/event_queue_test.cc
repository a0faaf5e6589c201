// The event queue against std::priority_queue: the same pushes, with many
// ties in time, pop in the same order with their payloads, whether the
// queue keeps them sorted (small) or in a heap (large), and as it goes
// from one to the other.
#include "device_model/event_queue.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct RefEv {
  double time;
  uint64_t seq;
  uint64_t payload;
  bool operator>(const RefEv& o) const {
    return time != o.time ? time > o.time : seq > o.seq;
  }
};

// Interleaved pushes and pops at sizes 0 to about `max_sizes`; `times`
// distinct times (few: most orders are decided by seq). `pairs`: half the
// pushes are two events pushed as one (PushPair), the second mostly no
// earlier than the first, sometimes earlier (which PushPair hands to Push).
void PopsAsAStandardHeap(uint64_t key, uint64_t max_sizes, uint64_t times,
                         int steps, bool pairs = false) {
  CounterRng rng(key);
  for (int round = 0; round < 200; ++round) {
    EventQueue q;
    std::priority_queue<RefEv, std::vector<RefEv>, std::greater<>> ref;
    uint64_t seq = 0;
    const uint64_t max_size = 1 + rng.NextBelow(max_sizes);
    auto expect_pop = [&] {
      ASSERT_FALSE(q.Empty());
      EXPECT_EQ(q.TopTime(), ref.top().time);
      const QueuedEvent got = q.Pop();
      EXPECT_EQ(got.time, ref.top().time);
      EXPECT_EQ(got.payload, ref.top().payload);
      ref.pop();
    };
    for (int step = 0; step < steps; ++step) {
      const bool push =
          ref.empty() || (ref.size() < max_size && rng.NextBelow(2) == 0);
      if (push && pairs && rng.NextBelow(2) == 0) {
        const RefEv e{static_cast<double>(rng.NextBelow(times)), seq++,
                      rng.NextU64()};
        const double later =
            rng.NextBelow(8) == 0
                ? e.time - 1
                : e.time + static_cast<double>(rng.NextBelow(times / 2 + 1));
        const RefEv f{later, seq++, rng.NextU64()};
        q.PushPair(e.time, e.payload, f.time, f.payload);
        ref.push(e);
        ref.push(f);
      } else if (push) {
        const RefEv e{static_cast<double>(rng.NextBelow(times)), seq++,
                      rng.NextU64()};
        q.Push(e.time, e.payload);
        ref.push(e);
      } else {
        expect_pop();
      }
      // An empty queue's TopTime is +infinity (the event loop's test of
      // whether an event is due reads it without asking Empty first).
      if (ref.empty()) {
        ASSERT_TRUE(q.Empty());
        ASSERT_EQ(q.TopTime(), kNever);
      }
    }
    while (!ref.empty()) expect_pop();
    EXPECT_TRUE(q.Empty());
    EXPECT_EQ(q.TopTime(), kNever);
  }
}

TEST(EventQueueTest, PopsInTheOrderOfAStandardHeap) {
  PopsAsAStandardHeap(42, 40, 8, 500);
}

// Sizes past what the queue keeps sorted: it turns into a heap and back.
TEST(EventQueueTest, LargeQueuesPopInTheSameOrder) {
  PopsAsAStandardHeap(7, 300, 64, 3000);
}

// Two events pushed as one (a compute instruction's issue end and its
// completion) pop as two pushes would, sorted (the pair's own walk), at
// the edge of the sorted form (two pushes) and as a heap.
TEST(EventQueueTest, PairsPopAsTwoPushes) {
  PopsAsAStandardHeap(5, 40, 8, 500, true);
  PopsAsAStandardHeap(6, 8, 3, 200, true);
  PopsAsAStandardHeap(8, 300, 64, 3000, true);
}

// A queue that stays small but never empties, for many events: what it has
// popped is dropped as it goes, and times that only grow (as a simulation's
// do) keep their order.
TEST(EventQueueTest, ASmallQueueThatNeverEmpties) {
  EventQueue q;
  EXPECT_EQ(q.TopTime(), kNever);  // as constructed
  std::priority_queue<RefEv, std::vector<RefEv>, std::greater<>> ref;
  CounterRng rng(3);
  uint64_t seq = 0;
  double now = 0;
  for (int i = 0; i < 5; ++i) {
    q.Push(now, seq);
    ref.push({now, seq, seq});
    ++seq;
  }
  for (int step = 0; step < 100000; ++step) {
    ASSERT_EQ(q.TopTime(), ref.top().time);
    const QueuedEvent got = q.Pop();
    ASSERT_EQ(got.payload, ref.top().payload);
    now = got.time;
    ref.pop();
    const RefEv e{now + static_cast<double>(rng.NextBelow(4)), seq++,
                  rng.NextU64()};
    q.Push(e.time, e.payload);
    ref.push(e);
  }
}

// A cleared queue is a new one: a simulator reuses its queue run after run,
// and a run may end with events still queued, in either form.
TEST(EventQueueTest, ClearedWithEventsLeftItPopsAsANewQueue) {
  CounterRng rng(11);
  EventQueue q;
  for (int round = 0; round < 50; ++round) {
    // Leave 0 to 99 events behind: sorted up to 64, a heap above.
    const uint64_t left = rng.NextBelow(100);
    for (uint64_t i = 0; i < left + 3; ++i) {
      q.Push(static_cast<double>(rng.NextBelow(16)), i);
    }
    for (int i = 0; i < 3; ++i) q.Pop();
    q.Clear();
    EXPECT_TRUE(q.Empty());
    EXPECT_EQ(q.TopTime(), kNever);
    std::priority_queue<RefEv, std::vector<RefEv>, std::greater<>> ref;
    for (uint64_t i = 0; i < 40; ++i) {
      const RefEv e{static_cast<double>(rng.NextBelow(8)), i, rng.NextU64()};
      q.Push(e.time, e.payload);
      ref.push(e);
    }
    while (!ref.empty()) {
      ASSERT_FALSE(q.Empty());
      const QueuedEvent got = q.Pop();
      EXPECT_EQ(got.time, ref.top().time);
      EXPECT_EQ(got.payload, ref.top().payload);
      ref.pop();
    }
    EXPECT_TRUE(q.Empty());
  }
}

}  // namespace
}  // namespace trn
