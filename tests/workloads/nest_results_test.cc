// A nest that fills a block and accumulates another array (NKIBench's
// bmm_softmax: `v11[..., i1, i5] = copy(...)` and `v12[...] =
// nl.loop_reduce(max(v11 slot), loop_indices=[i1, i5])`): the loop's id is
// the block, the accumulation a result that every loop of the nest passes
// on ("results" naming a nested loop's result), read after the nest; the
// block's tile is read in the iteration that writes it.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

// x [768, 512] fp32 in 2 x 3 row tiles: a memset of the running max
// (line 1); the nest a (2) x b (3) loads a tile (line 3), takes its exp
// into the block (line 4, last in the body: the block's tile), that
// tile's row max (line 5) and the running max (line 6, carried); after
// it, an exp of each slot with the max as bias (line 8) and its store
// (line 9).
Json Nest() {
  return Json::parse(R"({
    "schema_version": 1, "name": "n", "family": "n",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [768, 512], "dtype": "fp32"},
      {"name": "out", "shape": [128, 512], "dtype": "fp32"},
      {"name": "iter_a", "shape": [1, 2], "dtype": "int8"},
      {"name": "iter_b", "shape": [1, 3], "dtype": "int8"},
      {"name": "iter_once", "shape": [1, 1], "dtype": "int8"}
    ],
    "kernel": {"source_file": "n.py", "loops": [{
      "var": "once", "range": "affine", "tensor": "iter_once", "dim": 1,
      "step": 1, "body": [
        {"id": "mx", "op": "memset", "tile": [128, 1], "line": 1},
        {"id": "blk", "op": "loop", "var": "a", "range": "affine",
         "tensor": "x", "step": 384, "results": ["mx_sum"], "line": 2,
         "body": [
          {"op": "loop", "var": "b", "range": "affine", "tensor": "x",
           "tile_partitions": 128, "results": ["mx_sum"], "line": 2,
           "body": [
            {"id": "t", "op": "load", "tensor": "x", "index": ["b", ":"],
             "line": 3},
            {"id": "red", "op": "tensor_reduce", "inputs": ["blk_tile"],
             "tile": [128, 1], "line": 5},
            {"id": "mx_sum", "op": "tensor_tensor", "engine": "vector",
             "inputs": ["red", "mx"], "carry": ["mx_sum"],
             "tile": [128, 1], "line": 6},
            {"id": "blk_tile", "op": "activation", "func": "exp",
             "inputs": ["t"], "tile": [128, 512], "line": 4}]}]},
        {"op": "loop", "var": "a2", "range": "affine", "tensor": "iter_a",
         "dim": 1, "step": 1, "line": 7, "body": [
          {"op": "loop", "var": "b2", "range": "affine", "tensor": "iter_b",
           "dim": 1, "step": 1, "line": 7, "body": [
            {"id": "y", "op": "activation", "func": "exp",
             "inputs": ["blk[a2][b2]", "mx_sum"], "tile": [128, 512],
             "line": 8},
            {"op": "store", "tensor": "out", "inputs": ["y"],
             "index": [":", ":"], "line": 9}]}]}]}]}
  })");
}

Json& Outer(Json& j) { return j["kernel"]["loops"][0]["body"][1]; }

TEST(NestResultsTest, TheBlocksTileIsReadInTheIterationThatWritesIt) {
  const Kernel k = LowerOrDie(Nest());
  const std::vector<size_t> exp = AtLine(k, 4);
  const std::vector<size_t> red = AtLine(k, 5);
  ASSERT_EQ(exp.size(), 6u);
  ASSERT_EQ(red.size(), 6u);
  for (size_t i = 0; i < red.size(); ++i) {
    // Program order is the source's: the exp, then its row max.
    EXPECT_LT(exp[i], red[i]) << i;
    EXPECT_TRUE(DependsOn(k, red[i], exp[i])) << i;
  }
}

TEST(NestResultsTest, TheBodyAroundReadsTheAccumulationAfterTheNest) {
  const Kernel k = LowerOrDie(Nest());
  const std::vector<size_t> acc = AtLine(k, 6);
  const std::vector<size_t> y = AtLine(k, 8);
  ASSERT_EQ(acc.size(), 6u);
  ASSERT_EQ(y.size(), 6u);
  // Within a run of b, each update carries the one before.
  EXPECT_TRUE(DependsOn(k, acc[1], acc[0]));
  EXPECT_TRUE(DependsOn(k, acc[2], acc[1]));
  // Every reader after the nest waits for the last iteration's update
  // (the one engine takes the updates in program order).
  for (size_t i : y) EXPECT_TRUE(DependsOn(k, i, acc.back())) << i;
}

TEST(NestResultsTest, ALoopPassesOnOnlyWhatItsNestedLoopGives) {
  Json j = Nest();
  Outer(j)["body"][0].erase("results");
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/1/results/0: \"mx_sum\" is "
                        "not a tile of this loop's body"));
}

TEST(NestResultsTest, WithoutTheResultTheAccumulationIsOutOfScope) {
  Json j = Nest();
  Outer(j).erase("results");
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("unknown tile id \"mx_sum\""));
}

}  // namespace
}  // namespace trn
