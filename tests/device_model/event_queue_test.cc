// The event queue against std::priority_queue: the same pushes, with many
// ties in time, pop in the same order with their payloads.
#include "device_model/event_queue.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

struct RefEv {
  double time;
  uint64_t seq;
  uint64_t payload;
  bool operator>(const RefEv& o) const {
    return time != o.time ? time > o.time : seq > o.seq;
  }
};

TEST(EventQueueTest, PopsInTheOrderOfAStandardHeap) {
  CounterRng rng(42);
  for (int round = 0; round < 200; ++round) {
    EventQueue q;
    std::priority_queue<RefEv, std::vector<RefEv>, std::greater<>> ref;
    uint64_t seq = 0;
    // Interleaved pushes and pops at sizes 0 to ~40; few distinct times, so
    // most orders are decided by seq.
    const uint64_t max_size = 1 + rng.NextBelow(40);
    auto expect_pop = [&] {
      ASSERT_FALSE(q.Empty());
      EXPECT_EQ(q.TopTime(), ref.top().time);
      const QueuedEvent got = q.Pop();
      EXPECT_EQ(got.time, ref.top().time);
      EXPECT_EQ(got.seq, ref.top().seq);
      EXPECT_EQ(got.payload, ref.top().payload);
      ref.pop();
    };
    for (int step = 0; step < 500; ++step) {
      const bool push =
          ref.empty() || (ref.size() < max_size && rng.NextBelow(2) == 0);
      if (push) {
        const RefEv e{static_cast<double>(rng.NextBelow(8)), seq++,
                      rng.NextU64()};
        q.Push(e.time, e.seq, e.payload);
        ref.push(e);
      } else {
        expect_pop();
      }
    }
    while (!ref.empty()) expect_pop();
    EXPECT_TRUE(q.Empty());
  }
}

}  // namespace
}  // namespace trn
