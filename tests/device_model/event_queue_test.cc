// The event queue against std::priority_queue: the same pushes, with many
// ties in time, pop in the same order.
#include "device_model/event_queue.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

struct TestEv {
  double time;
  uint64_t seq;
  bool operator<(const TestEv& o) const {
    return time != o.time ? time < o.time : seq < o.seq;
  }
  bool operator>(const TestEv& o) const { return o < *this; }
};

TEST(EventQueueTest, PopsInTheOrderOfAStandardHeap) {
  CounterRng rng(42);
  for (int round = 0; round < 200; ++round) {
    EventQueue<TestEv> q;
    std::priority_queue<TestEv, std::vector<TestEv>, std::greater<>> ref;
    uint64_t seq = 0;
    // Interleaved pushes and pops at sizes 0 to ~40; few distinct times, so
    // most orders are decided by seq.
    const uint64_t max_size = 1 + rng.NextBelow(40);
    for (int step = 0; step < 500; ++step) {
      const bool push =
          ref.empty() || (ref.size() < max_size && rng.NextBelow(2) == 0);
      if (push) {
        const TestEv e{static_cast<double>(rng.NextBelow(8)), seq++};
        q.Push(e);
        ref.push(e);
      } else {
        ASSERT_FALSE(q.Empty());
        EXPECT_EQ(q.Top().seq, ref.top().seq);
        const TestEv got = q.Pop();
        EXPECT_EQ(got.time, ref.top().time);
        EXPECT_EQ(got.seq, ref.top().seq);
        ref.pop();
      }
    }
    while (!ref.empty()) {
      ASSERT_FALSE(q.Empty());
      EXPECT_EQ(q.Pop().seq, ref.top().seq);
      ref.pop();
    }
    EXPECT_TRUE(q.Empty());
  }
}

}  // namespace
}  // namespace trn
