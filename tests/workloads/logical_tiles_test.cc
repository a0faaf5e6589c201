// Block dimensions as logical tiles (the NKI block dimension migration
// guide: "the physical tiles may not be alive in the memory
// simultaneously"): a block read one slot per iteration by the block loop
// that reads it last frees each slot as that loop fills one of its own, so
// the allocator counts the two at most max(n b + r, b + n r) there.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;

// x [512, 4096] fp32: a block of its 4 row tiles (16 KiB per partition
// each, line 2), the exp of each slot into a second block (line 4), each
// slot of which a third loop stores (line 6).
Json TwoBlocks() {
  return Json::parse(R"({
    "schema_version": 1, "name": "b", "family": "b",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 4096], "dtype": "fp32"},
      {"name": "out", "shape": [512, 4096], "dtype": "fp32"},
      {"name": "iter_once", "shape": [1, 1], "dtype": "int8"}
    ],
    "kernel": {"source_file": "b.py", "loops": [{
      "var": "once", "range": "affine", "tensor": "iter_once", "dim": 1,
      "step": 1, "body": [
        {"id": "blk", "op": "loop", "var": "k", "range": "affine",
         "tensor": "x", "tile_partitions": 128, "line": 1, "body": [
          {"id": "t", "op": "load", "tensor": "x", "index": ["k", ":"],
           "line": 2}]},
        {"id": "e", "op": "loop", "var": "k2", "range": "affine",
         "tensor": "x", "tile_partitions": 128, "line": 3, "body": [
          {"id": "e_t", "op": "activation", "func": "exp",
           "inputs": ["blk[k2]"], "tile": [128, 4096], "line": 4}]},
        {"op": "loop", "var": "k3", "range": "affine", "tensor": "out",
         "tile_partitions": 128, "line": 5, "body": [
          {"op": "store", "tensor": "out", "inputs": ["e[k3]"],
           "index": ["k3", ":"], "line": 6}]}]}]}
  })");
}

constexpr int64_t kSlot = 4096 * 4;  // one [128, 4096] fp32 tile

TEST(LogicalTilesTest, ABlockReadSlotBySlotByTheNextBlockFreesItsSlots) {
  auto spec = ParseSpec(TwoBlocks().dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  // At the exp loop: 4 slots of blk and 1 of e, then 3 and 2, ... 1 and
  // 4: at most 5 slots, not 8.
  EXPECT_EQ(spec->compiled.sbuf.used, 5 * kSlot);
  EXPECT_TRUE(spec->compiled.spills.empty());
}

TEST(LogicalTilesTest, ABlockReadAfterwardsStaysWhole) {
  Json j = TwoBlocks();
  // A later op waits for blk whole: it is live across the exp loop.
  j["kernel"]["loops"][0]["body"].push_back(Json::parse(
      R"({"id": "z", "op": "memset", "tile": [128, 1], "after": ["blk"],
          "line": 7})"));
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compiled.sbuf.used, 8 * kSlot);
}

TEST(LogicalTilesTest, AReadOfAnotherSlotThanTheIterationsStaysWhole) {
  Json j = TwoBlocks();
  // Each iteration of the exp loop reads the block whole (a slice of
  // it): not one slot per iteration, so nothing is freed.
  Json& exp = j["kernel"]["loops"][0]["body"][1]["body"][0];
  exp["inputs"] = {"blk"};
  exp["slices"] = {{128, 4096}};
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compiled.sbuf.used, 8 * kSlot);
}

}  // namespace
}  // namespace trn
