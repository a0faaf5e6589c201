// A loop at one iteration in flight (model 13): an innermost loop's
// iteration waits for the whole one before (exp_tiled's seed profile); a
// loop around loops tracks each of its tiles' readers instead, so its next
// iteration does not wait for the stores of the loops inside.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

// Four row tiles of x at one buffer: a = load (line 1), b = exp(a) (line
// 2), stored (line 3). With `nested`, a loop over z's two column halves
// (line 4) follows, each loading a [128, 256] tile c (line 5) and storing
// it to w (line 6).
Json Rows(bool nested) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "rows", "family": "rows",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 512], "dtype": "fp32"},
      {"name": "y", "shape": [512, 512], "dtype": "fp32"},
      {"name": "z", "shape": [512, 512], "dtype": "fp32"},
      {"name": "w", "shape": [512, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "rows.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "buffers": 1, "body": [
        {"id": "a", "op": "load", "tensor": "x", "line": 1},
        {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"],
         "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["b"], "line": 3}]}]}
  })");
  if (nested) {
    j["kernel"]["loops"][0]["body"].push_back(Json::parse(R"({
      "op": "loop", "var": "j", "range": "affine", "tensor": "z", "dim": 1,
      "step": 256, "line": 4, "body": [
        {"id": "c", "op": "load", "tensor": "z", "index": ["i", "j"],
         "line": 5},
        {"op": "store", "tensor": "w", "inputs": ["c"], "index": ["i", "j"],
         "line": 6}]})"));
  }
  return j;
}

TEST(OuterOneBufferTest, AnInnermostLoopWaitsForTheWholeIterationBefore) {
  const Kernel k = LowerOrDie(Rows(false));
  ASSERT_EQ(AtLine(k, 1).size(), 4u);
  // The load of iteration 1 waits for iteration 0's store.
  EXPECT_TRUE(DependsOn(k, AtLine(k, 1)[1], AtLine(k, 3)[0]));
}

TEST(OuterOneBufferTest, ALoopAroundLoopsWaitsOnlyForItsTilesReaders) {
  const Kernel k = LowerOrDie(Rows(true));
  ASSERT_EQ(AtLine(k, 1).size(), 4u);
  ASSERT_EQ(AtLine(k, 6).size(), 8u);
  const size_t load1 = AtLine(k, 1)[1];
  // a's buffer is free once iteration 0's exp has read it ...
  EXPECT_TRUE(DependsOn(k, load1, AtLine(k, 2)[0]));
  // ... and nothing waits for iteration 0's stores, its own or the inner
  // loop's.
  EXPECT_FALSE(DependsOn(k, load1, AtLine(k, 3)[0]));
  for (size_t s : AtLine(k, 6)) EXPECT_FALSE(DependsOn(k, load1, s));
  // b's buffer: iteration 1's exp waits for iteration 0's store of b.
  EXPECT_TRUE(DependsOn(k, AtLine(k, 2)[1], AtLine(k, 3)[0]));
}

}  // namespace
}  // namespace trn
