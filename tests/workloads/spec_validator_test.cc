// The validator's rules for loop nests: nested loops, loops over free dims,
// indexed loads and stores, scoping and memory summed over the nest.
#include "workloads/spec/spec_validator.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

// A small blocked matmul in the shape of the shipped one: a block loop over
// columns, row tiles, column steps and a contraction loop.
Json Nest() {
  return Json::parse(R"({
    "schema_version": 1, "name": "nest", "family": "nest",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "lhsT", "shape": [256, 256], "dtype": "bf16"},
      {"name": "rhs", "shape": [256, 1024], "dtype": "bf16"},
      {"name": "result", "shape": [256, 1024], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "nb", "range": "affine", "tensor": "result", "dim": 1,
      "step": 1024,
      "body": [
        {"id": "rhs_block", "op": "load", "tensor": "rhs",
         "index": [":", "nb"], "line": 1},
        {"op": "loop", "var": "m", "range": "affine", "tensor": "result",
         "tile_partitions": 128, "buffers": 2, "line": 2, "body": [
          {"id": "stripe", "op": "load", "tensor": "lhsT",
           "index": [":", "m"], "line": 3},
          {"id": "row", "op": "loop", "var": "n", "range": "affine",
           "tensor": "result", "dim": 1, "step": 512, "buffers": 2,
           "line": 4, "body": [
            {"id": "acc", "op": "loop", "var": "k", "range": "affine",
             "tensor": "lhsT", "tile_partitions": 128, "line": 5, "body": [
              {"id": "part", "op": "matmul", "engine": "tensor",
               "inputs": ["stripe", "rhs_block"], "tile": [128, 512],
               "dtype": "fp32", "buffer": "psum", "line": 6}]},
            {"id": "res", "op": "tensor_copy", "engine": "vector",
             "inputs": ["acc"], "tile": [128, 512], "dtype": "bf16",
             "line": 7}]},
          {"op": "store", "tensor": "result", "inputs": ["row"],
           "index": ["m", "nb"], "line": 8}]}
      ]}]}
  })");
}

// Path shorthands into Nest().
Json& MLoop(Json& j) { return j["kernel"]["loops"][0]["body"][1]; }
Json& NLoop(Json& j) { return MLoop(j)["body"][1]; }

absl::Status Check(const Json& j) {
  return ParseSpec(j.dump(), "nest.json", MemoryLimits{}).status();
}

TEST(SpecValidatorTest, AcceptsTheNest) {
  auto spec = ParseSpec(Nest().dump(), "nest.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  const NkiLoop& nb = spec->kernel->loops[0];
  EXPECT_EQ(nb.dim, 1);
  EXPECT_EQ(nb.step, 1024);
  ASSERT_EQ(nb.body[1].loop.size(), 1u);
  EXPECT_EQ(nb.body[1].loop[0].var, "m");
  EXPECT_EQ(nb.body[0].index, (std::vector<std::string>{":", "nb"}));
}

TEST(SpecValidatorTest, InnerOpsSeeOuterIdsButNotTheOtherWayRound) {
  Json j = Nest();
  // The store may not read the matmul's tile two loops down.
  MLoop(j)["body"][2]["inputs"] = {"part"};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("/kernel/loops/0/body/1/body/2/inputs/0: unknown "
                        "tile id \"part\""));
}

TEST(SpecValidatorTest, AnInnerIdMayNotHideAnOuterOne) {
  Json j = Nest();
  NLoop(j)["body"][1]["id"] = "stripe";
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("may not hide an outer one"));
}

TEST(SpecValidatorTest, ALoopVariableMayNotRepeatAnEnclosingOne) {
  Json j = Nest();
  NLoop(j)["var"] = "m";
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("is already the variable of the enclosing loop"));
}

TEST(SpecValidatorTest, IndexEntriesAreEnclosingVarsOfTheRightSize) {
  Json j = Nest();
  MLoop(j)["body"][2]["index"] = {"m", "q"};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("\"q\" is not the variable of an enclosing loop"));
  j = Nest();
  // k walks lhsT's 256 rows; result's dim 1 has 1024 columns.
  MLoop(j)["body"][0]["index"] = {":", "nb"};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("loop \"nb\" walks dim 1 of \"result\" (1024), but "
                        "dim 1 of \"lhsT\" is 256"));
  j = Nest();
  MLoop(j)["body"][2]["index"] = {"m"};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("has rank 2, so the index needs 2 entries, got 1"));
}

TEST(SpecValidatorTest, ALoopOverAFreeDimTakesAStepNotPartitions) {
  Json j = Nest();
  NLoop(j)["tile_partitions"] = 128;
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("\"tile_partitions\" is for loops over dim 0"));
  j = Nest();
  NLoop(j).erase("step");
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("required key \"step\" is missing"));
  j = Nest();
  NLoop(j)["dim"] = 2;
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("has rank 2, so dim is 0 to 1, got 2"));
}

TEST(SpecValidatorTest, ComputeInAFreeDimLoopNeedsAnExplicitTile) {
  Json j = Nest();
  NLoop(j)["body"][1].erase("tile");
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("no default tile; give a tensor_copy its"));
}

TEST(SpecValidatorTest, AStepThatLeavesAPartialTileNeedsAMask) {
  Json j = Nest();
  // n's tiles are only computed on, never moved: no mask needed.
  NLoop(j)["step"] = 384;
  ASSERT_TRUE(Check(j).ok()) << Check(j);
  // The rhs block follows nb, whose 1024 columns are 768 + 256.
  j["kernel"]["loops"][0]["step"] = 768;
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("/kernel/loops/0/body/0/mask: loop \"nb\" has a "
                        "partial last tile (tile 768 does not divide 1024): "
                        "load needs a mask"));
}

TEST(SpecValidatorTest, MemoryMultipliesBuffersThroughTheNest) {
  Json j = Nest();
  // PSUM by liveness, in banks: "acc" (one 2 KiB bank) is live in each of
  // the iterations of "m" in flight; "n" is a block, whose transient tiles
  // count once. 8 of m fit PSUM's 8 banks, 9 do not.
  MLoop(j)["buffers"] = 8;
  ASSERT_TRUE(Check(j).ok()) << Check(j);
  MLoop(j)["buffers"] = 9;
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("PSUM overflow: the live tiles need 9 banks of 2048 B "
                        "per partition here, the limit is 8 banks (live: acc "
                        "2048 B x 9)"));
}

TEST(SpecValidatorTest, ALoopWithoutAnIdHoldsItsOwnBuffersOnly) {
  // "m" inside a loop of 9 buffers: with an id it is a block, held for
  // each of the 9 (its transient PSUM tile once per block: 9 banks);
  // without one its 2 buffers rotate over its runs (2 banks).
  Json j = Nest();
  j["kernel"]["loops"][0]["buffers"] = 9;
  EXPECT_TRUE(Check(j).ok()) << Check(j);
  MLoop(j)["id"] = "rows";
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("PSUM overflow: the live tiles need 9 banks"));
}

TEST(SpecValidatorTest, ALoadBlockTallerThanThePartitionsFolds) {
  Json j = Nest();
  j["tensors"][0]["shape"] = {8192, 256};
  j["tensors"][1]["shape"] = {8192, 1024};
  // The rhs block [8192, 1024] bf16 folds to 64 x 1024 elements per
  // partition: 128 KiB, plus the stripe's 64 x 128 x 2 B x 2 buffers.
  ASSERT_TRUE(Check(j).ok()) << Check(j);
  j["tensors"][1]["shape"] = {16384, 1024};
  j["tensors"][0]["shape"] = {16384, 256};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("SBUF overflow: the live tiles need 331776 B per "
                        "partition here, the limit is 196608 B per partition "
                        "(live: rhs_block 262144 B"));
}

TEST(SpecValidatorTest, ACycleThroughANestedLoopIsFound) {
  Json j = Nest();
  // The stripe waits for the loop that reads it.
  MLoop(j)["body"][0]["after"] = {"row"};
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("dependency cycle through inputs, mask and after"));
}

TEST(SpecValidatorTest, KeysOfOtherKindsAreMisplacedOnALoop) {
  Json j = Nest();
  NLoop(j)["engine"] = "vector";
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("key \"engine\" does not apply to a loop op"));
  j = Nest();
  MLoop(j)["body"][0]["step"] = 4;
  EXPECT_THAT(std::string(Check(j).message()),
              HasSubstr("key \"step\" does not apply to a load op"));
}

}  // namespace
}  // namespace trn
