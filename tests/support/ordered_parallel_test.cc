#include "support/ordered_parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trn {
namespace {

// Items consumed in index order, whatever the number of jobs; the result of
// an order-sensitive reduction (a floating-point sum) is the same to the bit.
TEST(OrderedParallelMapTest, ConsumesInIndexOrderForAnyJobs) {
  for (int jobs : {1, 2, 3, 4, 8}) {
    std::vector<size_t> order;
    double sum = 0;
    const absl::Status s = OrderedParallelMap<double>(
        100, jobs,
        [](size_t, size_t k) -> absl::StatusOr<double> {
          // Uneven work, so items finish out of order.
          volatile double x = 0;
          for (size_t i = 0; i < (k % 7) * 2000; ++i) x = x + 1e-3;
          return 1.0 / static_cast<double>(k + 3);
        },
        [&](size_t k, double v) {
          order.push_back(k);
          sum += v;
          return absl::OkStatus();
        });
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(order.size(), 100u);
    for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(order[k], k);
    double serial = 0;
    for (size_t k = 0; k < 100; ++k) serial += 1.0 / static_cast<double>(k + 3);
    EXPECT_EQ(sum, serial) << jobs;
  }
}

// The first failure in index order is returned, and nothing after it is
// consumed, as a serial loop would stop.
TEST(OrderedParallelMapTest, StopsAtTheFirstErrorInIndexOrder) {
  for (int jobs : {1, 4}) {
    std::vector<size_t> consumed;
    const absl::Status s = OrderedParallelMap<int>(
        50, jobs,
        [](size_t, size_t k) -> absl::StatusOr<int> {
          if (k == 17 || k == 30) {
            return absl::InvalidArgumentError("item " + std::to_string(k));
          }
          return static_cast<int>(k);
        },
        [&](size_t k, int) {
          consumed.push_back(k);
          return absl::OkStatus();
        });
    EXPECT_EQ(s, absl::InvalidArgumentError("item 17")) << jobs;
    EXPECT_EQ(consumed.size(), 17u) << jobs;
  }
}

// A consumer's error stops the map too.
TEST(OrderedParallelMapTest, AConsumersErrorStops) {
  size_t last = 0;
  const absl::Status s = OrderedParallelMap<int>(
      1000, 3,
      [](size_t, size_t k) -> absl::StatusOr<int> {
        return static_cast<int>(k);
      },
      [&](size_t k, int) {
        last = k;
        return k == 5 ? absl::InternalError("five") : absl::OkStatus();
      });
  EXPECT_EQ(s, absl::InternalError("five"));
  EXPECT_EQ(last, 5u);
}

// Each worker index is used by one thread at a time (workers may keep
// state), and at most `window` items wait to be consumed.
TEST(OrderedParallelMapTest, WorkersAreExclusiveAndTheWindowHolds) {
  constexpr int kJobs = 4;
  constexpr size_t kWindow = 6;
  std::vector<std::atomic<int>> in_use(kJobs);
  std::atomic<int64_t> produced{0};
  int64_t consumed = 0;
  bool overlap = false;
  int64_t most_waiting = 0;
  std::mutex mu;
  const absl::Status s = OrderedParallelMap<int>(
      200, kJobs,
      [&](size_t worker, size_t k) -> absl::StatusOr<int> {
        if (in_use[worker].fetch_add(1) != 0) {
          std::lock_guard<std::mutex> lock(mu);
          overlap = true;
        }
        volatile int x = 0;
        for (int i = 0; i < 1000; ++i) x = x + 1;
        in_use[worker].fetch_sub(1);
        ++produced;
        return static_cast<int>(k);
      },
      [&](size_t, int) {
        ++consumed;
        most_waiting = std::max(most_waiting, produced.load() - consumed);
        return absl::OkStatus();
      },
      kWindow);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(overlap);
  EXPECT_EQ(consumed, 200);
  EXPECT_LT(most_waiting, static_cast<int64_t>(kWindow));
}

}  // namespace
}  // namespace trn
