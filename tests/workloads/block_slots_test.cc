// Reading a block one slot at a time ("rhs_tiles[k]"): what a reader waits
// for, when a later run refills a slot, and what the validator refuses.
#include <algorithm>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// The tutorial's hoisted matmul, small: for the one m tile, the 4 lhsT
// tiles of K = 512 are loaded into the block "lhsT_tiles" (line 2); for each
// of the 2 n tiles (one buffer) the 4 rhs tiles into "rhs_tiles" (line 4);
// then "acc" accumulates one matmul per k (line 6), which reads the two
// blocks as `lhs` and `rhs`; the result is copied (line 7) and stored
// (line 8).
Json Hoisted(const std::string& lhs, const std::string& rhs) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "mm", "family": "mm",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "lhsT", "shape": [512, 128], "dtype": "bf16"},
      {"name": "rhs", "shape": [512, 1024], "dtype": "bf16"},
      {"name": "result", "shape": [128, 1024], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "m", "range": "affine", "tensor": "result",
      "tile_partitions": 128, "body": [
        {"id": "lhsT_tiles", "op": "loop", "var": "kl", "range": "affine",
         "tensor": "lhsT", "tile_partitions": 128, "line": 1, "body": [
          {"id": "lhsT_tile", "op": "load", "tensor": "lhsT",
           "index": ["kl", "m"], "line": 2}]},
        {"op": "loop", "var": "n", "range": "affine", "buffers": 1, "tensor": "result",
         "dim": 1, "step": 512, "line": 3, "body": [
          {"id": "rhs_tiles", "op": "loop", "var": "kr", "range": "affine",
           "tensor": "rhs", "tile_partitions": 128, "line": 4, "body": [
            {"id": "rhs_tile", "op": "load", "tensor": "rhs",
             "index": ["kr", "n"], "line": 4}]},
          {"id": "acc", "op": "loop", "var": "k", "range": "affine",
           "tensor": "lhsT", "tile_partitions": 128, "line": 5, "body": [
            {"id": "part", "op": "matmul", "engine": "tensor",
             "inputs": ["LHS", "RHS"], "tile": [128, 512],
             "dtype": "fp32", "buffer": "psum", "line": 6}]},
          {"id": "res", "op": "tensor_copy", "engine": "vector",
           "inputs": ["acc"], "tile": [128, 512], "dtype": "bf16", "line": 7},
          {"op": "store", "tensor": "result", "inputs": ["res"],
           "index": ["m", "n"], "line": 8}]}]}]}
  })");
  Json& matmul =
      j["kernel"]["loops"][0]["body"][1]["body"][1]["body"][0]["inputs"];
  matmul = {lhs, rhs};
  return j;
}

Json& CopyOp(Json& j) { return j["kernel"]["loops"][0]["body"][1]["body"][2]; }

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

TEST(BlockSlotsTest, AReaderOfASlotWaitsForThatSlotOnly) {
  const Kernel k = LowerOrDie(Hoisted("lhsT_tiles[k]", "rhs_tiles[k]"));
  const std::vector<size_t> lhs = AtLine(k, 2);
  const std::vector<size_t> rhs = AtLine(k, 4);
  const std::vector<size_t> mm = AtLine(k, 6);
  ASSERT_EQ(lhs.size(), 4u);
  ASSERT_EQ(rhs.size(), 8u);
  ASSERT_EQ(mm.size(), 8u);
  for (size_t n = 0; n < 2; ++n) {
    for (size_t j = 0; j < 4; ++j) {
      for (size_t s = 0; s < 4; ++s) {
        const size_t m = mm[4 * n + j];
        EXPECT_EQ(DependsOn(k, m, lhs[s]), s == j) << n << j << s;
        EXPECT_EQ(DependsOn(k, m, rhs[4 * n + s]), s == j) << n << j << s;
      }
    }
  }
}

TEST(BlockSlotsTest, AReaderOfTheWholeBlockWaitsForEverySlot) {
  const Kernel k = LowerOrDie(Hoisted("lhsT_tiles", "rhs_tiles"));
  const std::vector<size_t> rhs = AtLine(k, 4);
  const std::vector<size_t> mm = AtLine(k, 6);
  ASSERT_EQ(mm.size(), 8u);
  for (size_t s = 0; s < 4; ++s) EXPECT_TRUE(DependsOn(k, mm[0], rhs[s]));
}

TEST(BlockSlotsTest, ALaterRunRefillsASlotOnceItsReadersAreDone) {
  const Kernel k = LowerOrDie(Hoisted("lhsT_tiles[k]", "rhs_tiles[k]"));
  const std::vector<size_t> rhs = AtLine(k, 4);
  const std::vector<size_t> mm = AtLine(k, 6);
  const std::vector<size_t> store = AtLine(k, 8);
  ASSERT_EQ(store.size(), 2u);
  // With one buffer on n, the second n's load of slot j reuses the first
  // n's slot j: it waits for that slot's matmul, not for the other
  // matmuls or the first n's copy and store.
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_FALSE(DependsOn(k, rhs[4 + j], store[0])) << j;
    for (size_t s = 0; s < 4; ++s) {
      EXPECT_EQ(DependsOn(k, rhs[4 + j], mm[s]), s == j) << j << s;
    }
  }
}

TEST(BlockSlotsTest, ABlockAlsoReadWholeIsRefilledWhole) {
  Json j = Hoisted("lhsT_tiles[k]", "rhs_tiles[k]");
  CopyOp(j)["after"] = {"rhs_tiles"};
  const Kernel k = LowerOrDie(j);
  const std::vector<size_t> rhs = AtLine(k, 4);
  const std::vector<size_t> store = AtLine(k, 8);
  ASSERT_EQ(rhs.size(), 8u);
  // The first n's iteration (its store among it) frees the buffers.
  for (size_t s = 4; s < 8; ++s) EXPECT_TRUE(DependsOn(k, rhs[s], store[0]));
}

// Two levels, as the tutorial's blocked matmul holds lhsT_tiles[bm][k]: a
// block loop over 2 column tiles, each filled by a loop without an id over
// the 4 K tiles; the matmul at (om, k) reads the slot [om][k].
Json Blocked(const std::string& lhs) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "mm", "family": "mm",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "lhsT", "shape": [512, 256], "dtype": "bf16"},
      {"name": "rhs", "shape": [512, 512], "dtype": "bf16"},
      {"name": "result", "shape": [256, 512], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "m", "range": "affine", "tensor": "lhsT", "dim": 1,
      "step": 256, "body": [
        {"id": "lhsT_tiles", "op": "loop", "var": "bm", "range": "affine",
         "tensor": "lhsT", "dim": 1, "step": 128, "line": 1, "body": [
          {"op": "loop", "var": "kl", "range": "affine", "tensor": "lhsT",
           "tile_partitions": 128, "line": 1, "body": [
            {"id": "lhsT_tile", "op": "load", "tensor": "lhsT",
             "index": ["kl", "bm"], "line": 2}]}]},
        {"op": "loop", "var": "om", "range": "affine", "tensor": "lhsT",
         "dim": 1, "step": 128, "line": 3, "body": [
          {"id": "acc", "op": "loop", "var": "k", "range": "affine",
           "tensor": "lhsT", "tile_partitions": 128, "line": 4, "body": [
            {"id": "rhs_tile", "op": "load", "tensor": "rhs",
             "index": ["k", ":"], "line": 5},
            {"id": "part", "op": "matmul", "engine": "tensor",
             "inputs": ["LHS", "rhs_tile"], "tile": [128, 512],
             "dtype": "fp32", "buffer": "psum", "line": 6}]},
          {"id": "res", "op": "tensor_copy", "engine": "vector",
           "inputs": ["acc"], "tile": [128, 512], "dtype": "bf16", "line": 7},
          {"op": "store", "tensor": "result", "inputs": ["res"],
           "index": ["om", ":"], "line": 8}]}]}]}
  })");
  j["kernel"]["loops"][0]["body"][1]["body"][0]["body"][1]["inputs"][0] = lhs;
  return j;
}

TEST(BlockSlotsTest, ASlotOfABlockOfBlocksIsOneTile) {
  const Kernel k = LowerOrDie(Blocked("lhsT_tiles[om][k]"));
  const std::vector<size_t> lhs = AtLine(k, 2);  // bm-major: [bm][kl]
  const std::vector<size_t> mm = AtLine(k, 6);   // om-major: [om][k]
  ASSERT_EQ(lhs.size(), 8u);
  ASSERT_EQ(mm.size(), 8u);
  for (size_t m = 0; m < 8; ++m) {
    for (size_t s = 0; s < 8; ++s) {
      EXPECT_EQ(DependsOn(k, mm[m], lhs[s]), s == m) << m << s;
    }
  }
  // One level down from the whole block: a column tile's 4 K tiles.
  const Kernel coarse = LowerOrDie(Blocked("lhsT_tiles[om]"));
  const std::vector<size_t> mm2 = AtLine(coarse, 6);
  const std::vector<size_t> lhs2 = AtLine(coarse, 2);
  for (size_t s = 0; s < 8; ++s) {
    EXPECT_EQ(DependsOn(coarse, mm2[5], lhs2[s]), s >= 4) << s;
  }
}

std::string Refusal(const Json& j) {
  auto s = Parse(j);
  EXPECT_FALSE(s.ok());
  return s.ok() ? std::string() : std::string(s.status().message());
}

TEST(BlockSlotsTest, TheParserNamesAMalformedSlot) {
  for (const char* bad : {"rhs_tiles[k", "rhs_tiles[]", "[k]", "rhs_tiles]",
                          "rhs_tiles[k]x", "rhs_tiles[[k]]"}) {
    EXPECT_THAT(Refusal(Hoisted("lhsT_tiles[k]", bad)),
                HasSubstr("/inputs/1: expected a tile id, or a block's id "
                          "and the loop variables of one of its slots"))
        << bad;
  }
}

TEST(BlockSlotsTest, TheValidatorNamesABadSlot) {
  EXPECT_THAT(Refusal(Hoisted("lhsT_tiles[q]", "rhs_tiles[k]")),
              HasSubstr("/inputs/0: slot variable \"q\" in "
                        "\"lhsT_tiles[q]\" is not the variable of a loop "
                        "around this op; expected one of m, n, k"));
  // n walks 2 tiles; the block has 4 slots.
  EXPECT_THAT(Refusal(Hoisted("lhsT_tiles[n]", "rhs_tiles[k]")),
              HasSubstr("slot variable \"n\" in \"lhsT_tiles[n]\" walks 2 "
                        "iterations, but that level of the block has 4 "
                        "slots (loop \"kl\")"));
  EXPECT_THAT(Refusal(Hoisted("lhsT_tiles[k][k]", "rhs_tiles[k]")),
              HasSubstr("\"lhsT_tiles\" has 1 level of slots"));
  Json j = Hoisted("lhsT_tiles[k]", "rhs_tiles[k]");
  CopyOp(j)["inputs"] = {"acc[n]"};
  EXPECT_THAT(Refusal(j), HasSubstr("/inputs/0: \"acc\" is not a block"));
  CopyOp(j)["inputs"] = {"nope[n]"};
  EXPECT_THAT(Refusal(j), HasSubstr("unknown tile id \"nope\""));
}

}  // namespace
}  // namespace trn
