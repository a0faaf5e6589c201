// The ready queue against std::priority_queue (a min-heap of indices): the
// same pushes and pops give the same indices, whether the indices arrive
// nearly in order (as a kernel's do) or in any order, and whether the
// queue empties often or never (its storage is then compacted).
#include "device_model/ready_queue.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

using MinHeap =
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>>;

// `spread` 0: indices in ascending order; larger, each index drawn up to
// `spread` below the next fresh one (nearly in order) or anywhere.
void PopsAsAMinHeap(uint64_t key, uint64_t spread, uint64_t max_size,
                    int steps) {
  CounterRng rng(key);
  ReadyQueue q;
  MinHeap ref;
  std::set<uint32_t> queued;
  uint32_t next = 0;
  for (int step = 0; step < steps; ++step) {
    const bool push =
        ref.empty() || (ref.size() < max_size && rng.NextBelow(2) == 0);
    if (push) {
      uint32_t i = next;
      if (spread > 0) i = next + static_cast<uint32_t>(rng.NextBelow(spread));
      if (queued.count(i) > 0) continue;  // an index is queued once
      if (i >= next) next = i + 1;
      queued.insert(i);
      q.push(i);
      ref.push(i);
    } else {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.front(), ref.top());
      const uint32_t got = q.pop();
      ASSERT_EQ(got, ref.top());
      queued.erase(got);
      ref.pop();
    }
    ASSERT_EQ(q.empty(), ref.empty());
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.pop(), ref.top());
    ref.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(ReadyQueueTest, InOrderIndices) { PopsAsAMinHeap(1, 0, 8, 20000); }

TEST(ReadyQueueTest, NearlyInOrderIndices) { PopsAsAMinHeap(2, 4, 16, 20000); }

TEST(ReadyQueueTest, IndicesInAnyOrder) { PopsAsAMinHeap(3, 1000, 300, 20000); }

// A queue that never empties: its head moves on through storage that is
// compacted rather than grown without bound (at most four times the most
// indices it held at once, or its first capacity).
TEST(ReadyQueueTest, AQueueThatNeverEmpties) {
  ReadyQueue q;
  MinHeap ref;
  CounterRng rng(5);
  uint32_t next = 0;
  size_t most = 0;
  for (int k = 0; k < 3; ++k) {
    q.push(next);
    ref.push(next++);
  }
  for (int step = 0; step < 100000; ++step) {
    ASSERT_EQ(q.pop(), ref.top());
    ref.pop();
    const int pushes = static_cast<int>(rng.NextBelow(3));  // 0, 1 or 2
    for (int k = 0; k < pushes || ref.empty(); ++k) {
      q.push(next);
      ref.push(next++);
    }
    most = std::max(most, ref.size());
  }
  EXPECT_GT(next, 90000u);
  EXPECT_LE(q.capacity(),
            std::max<size_t>(ReadyQueue::kFirstCapacity, 4 * most));
  while (!ref.empty()) {
    ASSERT_EQ(q.pop(), ref.top());
    ref.pop();
  }
}

// An engine's queue in a compute-bound run: a few indices at a time, and
// it never empties. Its first storage is large enough that the head's
// moving on costs a compaction only every few hundred pushes (at 16 slots
// it was one every ten, 1% of the fully optimized matmul's run), and a
// cleared queue keeps it, as the next run on the thread reuses it.
TEST(ReadyQueueTest, AFewIndicesAtATimeRarelyCompact) {
  const size_t before = ReadyQueue::CompactionsOnThisThread();
  ReadyQueue q;
  uint32_t next = 0;
  for (int run = 0; run < 2; ++run) {
    q.clear();
    for (int k = 0; k < 8; ++k) q.push(next++);
    for (int step = 0; step < 20000; ++step) {
      ASSERT_EQ(q.pop(), next - 8);
      q.push(next++);
    }
    EXPECT_EQ(q.capacity(), ReadyQueue::kFirstCapacity);
  }
  // 40016 pushes, 8 live: one compaction per kFirstCapacity - 8 pushes
  // (248: 161 in all; at 16 slots, 5002).
  const size_t compactions = ReadyQueue::CompactionsOnThisThread() - before;
  EXPECT_LE(compactions, 200u);
  EXPECT_GT(compactions, 0u);
}

TEST(ReadyQueueTest, ClearedItIsEmptyAndTakesNewIndices) {
  ReadyQueue q;
  for (uint32_t i = 10; i > 0; --i) q.push(i);
  EXPECT_EQ(q.front(), 1u);
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push(7);
  q.push(3);
  EXPECT_EQ(q.pop(), 3u);
  EXPECT_EQ(q.pop(), 7u);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace trn
