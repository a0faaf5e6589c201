// `--jobs N` runs repeats and workloads on N threads; every output must be
// the same to the byte as on one thread (docs: README, "--jobs").
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using test::Outcome;
using test::RunTrnbench;

void ExpectSameBytes(const std::string& args) {
  const Outcome one = RunTrnbench(args + " --jobs 1");
  const Outcome four = RunTrnbench(args + " --jobs 4");
  ASSERT_TRUE(one.code == 0 || one.code == 1) << args << "\n" << one.err;
  EXPECT_EQ(one.code, four.code) << args;
  EXPECT_GT(one.out.size(), 1000u) << args;
  EXPECT_TRUE(one.out == four.out) << args << ": outputs differ";
  EXPECT_EQ(one.err, four.err) << args;
}

// The whole shipped suite: workloads on threads, and their repeats.
TEST(CliJobsTest, TheShippedSuiteIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes(
      "--workload all --repeat 24 --warmup 2 --seed 7 "
      "--format json");
}

// validate: its figures' runs on threads, each run's repeats on what is
// left; rows scored in suite order.
TEST(CliJobsTest, ValidateIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes("validate --format json");
}

// validate: the same on two threads, and as text with the known gaps.
TEST(CliJobsTest, ValidateWithKnownGapsIsTheSameOnOneThreadAndOnTwo) {
  const std::string args = "validate --known-gaps " +
                           std::string(TRNBENCH_SOURCE_DIR) +
                           "/workloads/validation/known_gaps.txt";
  const Outcome one = RunTrnbench(args + " --jobs 1");
  const Outcome two = RunTrnbench(args + " --jobs 2");
  EXPECT_EQ(one.code, two.code);
  EXPECT_GT(one.out.size(), 1000u);
  EXPECT_TRUE(one.out == two.out) << "outputs differ";
  EXPECT_EQ(one.err, two.err);
}

// profile repeats each workload.
TEST(CliJobsTest, ProfileIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes("profile --workload rmsnorm --repeat 12 --format json");
}

// profile: workloads on threads, and each one's what-if beside its runs.
TEST(CliJobsTest, ProfileOfEveryWorkloadIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes("profile --workload all --repeat 4 --format json");
}

// A --shape sweep: its points are workloads of their own, run side by
// side, and ranked (by median) the same whatever finished first.
TEST(CliJobsTest, AShapeSweepIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes(
      "--workload exp_tiled --shape "
      "in_tensor,out_tensor=250x512,4096x512,32768x512,1280x512 --repeat 8");
}

// A --kwarg sweep: the front end traces its points side by side, and the
// points run side by side.
TEST(CliJobsTest, AKwargSweepIsTheSameOnOneThreadAndOnFour) {
  ExpectSameBytes("--kernel " + std::string(TRNBENCH_SOURCE_DIR) +
                  "/tests/nki_frontend/kernels/explicit_engines.py::exp_rows "
                  "--args x=512x512:float32 --kwarg ROWS=32,64,128 "
                  "--repeat 8");
}

// A --kernel list is traced through front end batches (one Python process
// for the list on one thread, docs/nki-source.md "Several kernels"): a bad
// kernel in the middle of one is refused with the line, exit code and
// empty output it has alone, whatever the batch holds around it.
TEST(CliJobsTest, ABadKernelInABatchIsRefusedAsAlone) {
  const std::string kernels =
      std::string(TRNBENCH_SOURCE_DIR) + "/tests/nki_frontend/kernels/";
  const std::string bad = " --kernel " + std::string(TRNBENCH_SOURCE_DIR) +
                          "/tests/errors/kernels/bad.py::raises";
  const std::string good = " --kernel " + kernels + "explicit_engines.py::";
  const Outcome alone =
      RunTrnbench(bad + " --args x=128x512:float32 --repeat 2");
  ASSERT_EQ(alone.code, 2) << alone.err;
  EXPECT_THAT(alone.err, ::testing::HasSubstr("bad.py:19: running the kernel"));
  for (const char* jobs : {" --jobs 1", " --jobs 2"}) {
    const Outcome batch =
        RunTrnbench(good + "exp_rows" + bad + good + "exp_rows" +
                    " --args x=128x512:float32 --repeat 2" + jobs);
    EXPECT_EQ(batch.code, alone.code) << jobs;
    EXPECT_EQ(batch.err, alone.err) << jobs;
    EXPECT_EQ(batch.out, alone.out) << jobs;
  }
}

TEST(CliJobsTest, ZeroJobsIsRefused) {
  const Outcome o = RunTrnbench("--workload exp_tiled --jobs 0");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err,
              ::testing::HasSubstr("expected an integer from 1 to 1024"));
  EXPECT_TRUE(o.out.empty());
}

}  // namespace
}  // namespace trn
