// How a command's threads are shared between items run at once and each
// item's runs (harness/runner/runner.h, SplitJobs and OptionsForEach):
// RunAll, validate and profile share the rule, so that no command keeps
// more threads busy than --jobs.
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "harness/runner/runner.h"

namespace trn {
namespace {

TEST(JobSplitTest, ItemsTakeTheThreadsAndTheRestGoesToTheirRuns) {
  const JobSplit four_of_two = SplitJobs(4, 2);
  EXPECT_EQ(four_of_two.jobs, 4);
  EXPECT_EQ(four_of_two.outer, 2);
  EXPECT_EQ(four_of_two.inner, 2);
  // More items than threads: one thread each, no nesting.
  const JobSplit two_of_ten = SplitJobs(2, 10);
  EXPECT_EQ(two_of_ten.outer, 2);
  EXPECT_EQ(two_of_ten.inner, 1);
  // One item: every thread goes to its runs.
  const JobSplit eight_of_one = SplitJobs(8, 1);
  EXPECT_EQ(eight_of_one.outer, 1);
  EXPECT_EQ(eight_of_one.inner, 8);
  // Threads not divisible among the items: the remainder is left idle
  // rather than oversubscribing (3 / 2 = 1 each).
  const JobSplit three_of_two = SplitJobs(3, 2);
  EXPECT_EQ(three_of_two.outer, 2);
  EXPECT_EQ(three_of_two.inner, 1);
}

TEST(JobSplitTest, ZeroMeansTheProgramsDefault) {
  SetDefaultJobs(6);
  const JobSplit split = SplitJobs(0, 3);
  EXPECT_EQ(split.jobs, 6);
  EXPECT_EQ(split.outer, 3);
  EXPECT_EQ(split.inner, 2);
  SetDefaultJobs(1);
  EXPECT_EQ(SplitJobs(0, 3).outer, 1);
}

TEST(JobSplitTest, ProgressIsCalledOneAtATimeWhenItemsRunAtOnce) {
  int calls = 0;  // not atomic: OptionsForEach must serialise the calls
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  RunOptions options;
  options.jobs = 4;
  options.on_run = [&] {
    if (inside.fetch_add(1) != 0) overlapped = true;
    ++calls;
    inside.fetch_sub(1);
  };
  std::mutex progress;
  const RunOptions each = OptionsForEach(options, SplitJobs(4, 2), progress);
  EXPECT_EQ(each.jobs, 2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) each.on_run();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(overlapped.load());
  EXPECT_EQ(calls, 40000);
}

TEST(JobSplitTest, OneItemAtATimeKeepsTheCallbackAsItIs) {
  std::mutex progress;
  int calls = 0;
  bool free_inside = false;
  RunOptions options;
  options.jobs = 2;
  options.on_run = [&] {
    ++calls;
    // Not wrapped: the mutex is not held while the callback runs.
    free_inside = progress.try_lock();
    if (free_inside) progress.unlock();
  };
  const RunOptions each = OptionsForEach(options, SplitJobs(2, 1), progress);
  EXPECT_EQ(each.jobs, 2);
  each.on_run();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(free_inside);
}

}  // namespace
}  // namespace trn
