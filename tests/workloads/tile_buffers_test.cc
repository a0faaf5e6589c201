// "tile_buffers": a tile held to n physical buffers across the iterations
// of its loop (NKI `qk_sbuf[:, i % 2, ...]`, or mod_alloc's physical tile
// count): counted n times whatever the depth, and iteration i's write
// waits for iteration i - n's readers when the loop keeps more than n in
// flight.
#include <cstdint>
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

// Eight row tiles of x, three in flight: load (line 1), copy to b (line 2),
// copy of b to c (line 3), store (line 4). Op `which` (1: the load, 2: b)
// gets `buffers` tile buffers.
Json Rows(int which = 0, int buffers = 2) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "rows", "family": "rows",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 512], "dtype": "fp32"},
      {"name": "y", "shape": [1024, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "rows.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "buffers": 3, "body": [
        {"id": "a", "op": "load", "tensor": "x", "line": 1},
        {"id": "b", "op": "tensor_copy", "engine": "vector", "inputs": ["a"],
         "line": 2},
        {"id": "c", "op": "tensor_copy", "engine": "scalar", "inputs": ["b"],
         "line": 3},
        {"op": "store", "tensor": "y", "inputs": ["c"], "line": 4}]}]}
  })");
  if (which > 0) {
    j["kernel"]["loops"][0]["body"][which - 1]["tile_buffers"] = buffers;
  }
  return j;
}

TEST(TileBuffersTest, AWriteWaitsForTheReadersOfTheIterationItsBufferHeld) {
  const Kernel plain = LowerOrDie(Rows());
  const Kernel two = LowerOrDie(Rows(2, 2));
  // b of iteration 2 reuses iteration 0's buffer of b: it waits for c of
  // iteration 0 with two buffers, not with the loop's three.
  EXPECT_FALSE(DependsOn(plain, AtLine(plain, 2)[2], AtLine(plain, 3)[0]));
  EXPECT_TRUE(DependsOn(two, AtLine(two, 2)[2], AtLine(two, 3)[0]));
  // Iteration 1 has the other buffer: no wait for iteration 0's reader.
  EXPECT_FALSE(DependsOn(two, AtLine(two, 2)[1], AtLine(two, 3)[0]));
}

std::vector<uint32_t> Deps(const Kernel& k, size_t i) {
  return {k.deps.begin() + k.instrs[i].deps_begin,
          k.deps.begin() + k.instrs[i].deps_end};
}

TEST(TileBuffersTest, AsManyAsTheDepthChangesNoOrder) {
  const Kernel plain = LowerOrDie(Rows());
  const Kernel three = LowerOrDie(Rows(2, 3));
  ASSERT_EQ(plain.instrs.size(), three.instrs.size());
  for (size_t i = 0; i < plain.instrs.size(); ++i) {
    EXPECT_EQ(Deps(plain, i), Deps(three, i)) << i;
  }
}

TEST(TileBuffersTest, ALoadHeldToFewerBuffersThanTheDepthIsNotIssuedAhead) {
  const Kernel plain = LowerOrDie(Rows());
  const Kernel two = LowerOrDie(Rows(1, 2));
  const Kernel three = LowerOrDie(Rows(1, 3));
  // Prefetched two ahead, the load of iteration 2 comes before iteration
  // 0's copy; held to two buffers it waits for that copy, so it comes after.
  EXPECT_LT(AtLine(plain, 1)[2], AtLine(plain, 2)[0]);
  EXPECT_LT(AtLine(three, 1)[2], AtLine(three, 2)[0]);
  EXPECT_GT(AtLine(two, 1)[2], AtLine(two, 2)[0]);
  EXPECT_TRUE(DependsOn(two, AtLine(two, 1)[2], AtLine(two, 2)[0]));
}

TEST(TileBuffersTest, IsCountedItsNumberOfTimes) {
  auto plain = ParseSpec(Rows().dump(), "spec.json", MemoryLimits{});
  auto two = ParseSpec(Rows(2, 2).dump(), "spec.json", MemoryLimits{});
  auto five = ParseSpec(Rows(2, 5).dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_TRUE(five.ok()) << five.status();
  // b is [128, 512] fp32, 2 KiB per partition: three copies, two or five.
  EXPECT_EQ(plain->compiled.sbuf.used - two->compiled.sbuf.used, 2048);
  EXPECT_EQ(five->compiled.sbuf.used - plain->compiled.sbuf.used, 2 * 2048);
}

std::string Refusal(const Json& j) {
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  return spec.ok() ? "accepted" : std::string(spec.status().message());
}

TEST(TileBuffersTest, Refusals) {
  Json one = Rows(2, 1);
  EXPECT_THAT(Refusal(one), HasSubstr("/tile_buffers: expected an integer >= "
                                      "2 (one buffer is \"one_buffer\": "
                                      "true)"));
  Json both = Rows(2, 2);
  both["kernel"]["loops"][0]["body"][1]["one_buffer"] = true;
  EXPECT_THAT(Refusal(both), HasSubstr("not both"));
  Json store = Rows();
  store["kernel"]["loops"][0]["body"][3]["tile_buffers"] = 2;
  EXPECT_THAT(Refusal(store),
              HasSubstr("key \"tile_buffers\" does not apply to a store"));
}

}  // namespace
}  // namespace trn
