// An accumulator over two nested loops: a loop with an id whose result is
// a loop without an id whose last op is a matmul into PSUM (NKI's
// `res += nc_matmul(...)` inside `for kb: for ki:`). Every iteration of
// both loops accumulates into the one tile the id stands for.
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
using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

// res [128, 512] fp32 = a[2048, 128]^T b[2048, 512] over 4 blocks of 4
// row tiles: loads at lines 2 and 3, matmuls at line 4, the copy of res
// at line 5. `inner_buffers`: the ki loop's stated depth.
Json Blocked(int inner_buffers) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "blocked", "family": "blocked",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "a", "shape": [2048, 128], "dtype": "bf16"},
      {"name": "b", "shape": [2048, 512], "dtype": "bf16"},
      {"name": "out", "shape": [128, 512], "dtype": "fp32"},
      {"name": "iter_once", "shape": [1, 1], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "blocked.py", "loops": [{
      "var": "once", "range": "affine", "tensor": "iter_once", "dim": 1,
      "step": 1, "body": [
        {"id": "res", "op": "loop", "var": "kb", "range": "affine",
         "tensor": "a", "step": 512, "buffers": 2, "line": 1, "body": [
          {"op": "loop", "var": "ki", "range": "affine", "tensor": "a",
           "tile_partitions": 128, "line": 1, "body": [
            {"id": "a_t", "op": "load", "tensor": "a", "index": ["ki", ":"],
             "line": 2},
            {"id": "b_t", "op": "load", "tensor": "b", "index": ["ki", ":"],
             "line": 3},
            {"id": "mm", "op": "matmul", "engine": "tensor",
             "inputs": ["a_t", "b_t"], "tile": [128, 512], "dtype": "fp32",
             "buffer": "psum", "line": 4}]}]},
        {"id": "o", "op": "tensor_copy", "engine": "vector",
         "inputs": ["res"], "tile": [128, 512], "dtype": "fp32", "line": 5},
        {"op": "store", "tensor": "out", "inputs": ["o"],
         "index": [":", ":"], "line": 6}]}]}
  })");
  j["kernel"]["loops"][0]["body"][0]["body"][0]["buffers"] = inner_buffers;
  return j;
}

TEST(NestedAccumulatorTest, IsOnePsumTileWhateverTheInnerDepth) {
  for (int depth : {1, 4}) {
    auto spec = ParseSpec(Blocked(depth).dump(), "spec.json", MemoryLimits{});
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->compiled.psum.used, 1) << depth;
  }
}

TEST(NestedAccumulatorTest, TheReaderWaitsForTheLastMatmul) {
  const Kernel k = LowerOrDie(Blocked(4));
  const std::vector<size_t> mm = AtLine(k, 4);
  ASSERT_EQ(mm.size(), 16u);
  const std::vector<size_t> copy = AtLine(k, 5);
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_GT(copy[0], mm.back());
  EXPECT_TRUE(DependsOn(k, copy[0], mm.back()));
}

}  // namespace
}  // namespace trn
