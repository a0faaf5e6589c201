// "one_buffer": a tile every iteration of its loop overwrites in a single
// buffer (an NKI tensor allocated outside the loop, no block dimension):
// counted once whatever the depth, and each iteration's write waits for
// the previous iteration's readers.
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

// Four row tiles of x, two in flight: load (line 1), copy to b (line 2),
// copy of b to c (line 3), store (line 4). `shared` marks op `which` (1:
// the load, 2: b) one_buffer.
Json Rows(int which = 0) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "rows", "family": "rows",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 512], "dtype": "fp32"},
      {"name": "y", "shape": [512, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "rows.py", "loops": [{
      "var": "i", "range": "sequential", "tensor": "x",
      "tile_partitions": 128, "buffers": 2, "body": [
        {"id": "a", "op": "load", "tensor": "x", "line": 1},
        {"id": "b", "op": "tensor_copy", "engine": "vector", "inputs": ["a"],
         "line": 2},
        {"id": "c", "op": "tensor_copy", "engine": "scalar", "inputs": ["b"],
         "line": 3},
        {"op": "store", "tensor": "y", "inputs": ["c"], "line": 4}]}]}
  })");
  if (which > 0) {
    j["kernel"]["loops"][0]["body"][which - 1]["one_buffer"] = true;
  }
  return j;
}

using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

TEST(OneBufferTest, TheNextWriteWaitsForThisIterationsReader) {
  const Kernel plain = LowerOrDie(Rows());
  const Kernel shared = LowerOrDie(Rows(2));
  // b of iteration 1 and c (b's reader) of iteration 0.
  EXPECT_FALSE(DependsOn(plain, AtLine(plain, 2)[1], AtLine(plain, 3)[0]));
  EXPECT_TRUE(DependsOn(shared, AtLine(shared, 2)[1], AtLine(shared, 3)[0]));
}

TEST(OneBufferTest, ASharedLoadIsNotIssuedAhead) {
  const Kernel plain = LowerOrDie(Rows());
  const Kernel shared = LowerOrDie(Rows(1));
  // Prefetched, the load of iteration 1 comes before iteration 0's copy;
  // into one buffer, after the copy that reads it, and it waits for it.
  EXPECT_LT(AtLine(plain, 1)[1], AtLine(plain, 2)[0]);
  EXPECT_GT(AtLine(shared, 1)[1], AtLine(shared, 2)[0]);
  EXPECT_TRUE(DependsOn(shared, AtLine(shared, 1)[1], AtLine(shared, 2)[0]));
}

TEST(OneBufferTest, IsCountedOnce) {
  auto plain = ParseSpec(Rows().dump(), "spec.json", MemoryLimits{});
  auto shared = ParseSpec(Rows(2).dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(shared.ok()) << shared.status();
  // b is [128, 512] fp32, 2 KiB per partition: two copies, or one.
  EXPECT_EQ(plain->compiled.sbuf.used - shared->compiled.sbuf.used, 2048);
}

// Rows() with the copy in a block loop "blk" over 4 column tiles of 128
// (load line 2, copy line 3, its result), read whole by c (line 5).
Json BlockRows(bool shared) {
  Json j = Rows();
  Json& body = j["kernel"]["loops"][0]["body"];
  body[1] = Json::parse(R"({"id": "blk", "op": "loop", "var": "j",
      "range": "affine", "tensor": "x", "dim": 1, "step": 128, "line": 2,
      "body": [
        {"id": "w", "op": "load", "tensor": "x", "index": ["i", "j"],
         "line": 2},
        {"id": "bj", "op": "tensor_copy", "engine": "vector",
         "inputs": ["w"], "tile": [128, 128], "line": 3}]})");
  body[2]["inputs"] = {"blk"};
  body[2]["line"] = 5;
  if (shared) body[1]["one_buffer"] = true;
  return j;
}

TEST(OneBufferTest, InALoopOnlyTheOpThatWritesTheTileWaits) {
  const Kernel plain = LowerOrDie(BlockRows(false));
  const Kernel shared = LowerOrDie(BlockRows(true));
  // Iteration 1's copies (4 to 7 at line 3) wait for iteration 0's reader
  // of the block (the first c, line 5); its loads (line 2) do not.
  for (size_t j = 4; j < 8; ++j) {
    EXPECT_TRUE(DependsOn(shared, AtLine(shared, 3)[j], AtLine(shared, 5)[0]))
        << j;
    EXPECT_FALSE(DependsOn(plain, AtLine(plain, 3)[j], AtLine(plain, 5)[0]))
        << j;
    EXPECT_FALSE(DependsOn(shared, AtLine(shared, 2)[j], AtLine(shared, 5)[0]))
        << j;
  }
}

TEST(OneBufferTest, NamesATile) {
  Json j = Rows();
  j["kernel"]["loops"][0]["body"][3]["one_buffer"] = true;  // the store
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("key \"one_buffer\" does not apply to a store"));
}

}  // namespace
}  // namespace trn
