// A loop pipelined by hand (the 2026-02 attention v11): its ops read, in
// its body or in a loop nested in it, what the previous iteration left
// ("carry" naming a tile of a body around, or a block's slot), the
// prologue's version being the first iteration's input; the body around
// reads what the last iteration left ("results"); a slot two loops pick
// ("blk[a*4+b]"); and stores of a constant block ("768:1024") and of a
// loop over the first tiles of a dim.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/nki_lowering.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

// x [128, 1024] fp32 in four 256-column tiles. A prologue copies tile 0
// (line 2) and takes its row max (line 3); three iterations of a
// sequential loop each take the exp of what the iteration before left
// (line 5), store it (line 6) and copy and reduce the next tile (lines 7,
// 8); the epilogue takes the exp of what the last iteration left (line 9)
// and stores it (line 10).
Json Pipelined() {
  return Json::parse(R"({
    "schema_version": 1, "name": "p", "family": "p",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [128, 1024], "dtype": "fp32"},
      {"name": "out", "shape": [128, 1024], "dtype": "fp32"},
      {"name": "iter_i", "shape": [1, 768], "dtype": "int8"},
      {"name": "halves", "shape": [1, 2], "dtype": "int8"},
      {"name": "iter_once", "shape": [1, 1], "dtype": "int8"}
    ],
    "kernel": {"source_file": "p.py", "loops": [{
      "var": "once", "range": "affine", "tensor": "iter_once", "dim": 1,
      "step": 1, "body": [
        {"id": "xs", "op": "load", "tensor": "x", "index": [":", ":"],
         "line": 1},
        {"id": "buf0", "op": "tensor_copy", "inputs": ["xs"],
         "slices": [[128, 256]], "tile": [128, 256], "line": 2},
        {"id": "peak0", "op": "tensor_reduce", "inputs": ["buf0"],
         "tile": [128, 1], "line": 3},
        {"op": "loop", "var": "i", "range": "sequential", "tensor": "iter_i",
         "dim": 1, "step": 256, "no_reorder": true,
         "results": ["buf_n", "peak_n"], "line": 4, "body": [
          {"id": "y", "op": "activation", "func": "exp",
           "inputs": ["buf0", "peak0"], "carry": ["buf_n", "peak_n"],
           "tile": [128, 256], "line": 5},
          {"op": "store", "tensor": "out", "inputs": ["y"],
           "index": [":", "i"], "line": 6},
          {"id": "buf_n", "op": "tensor_copy", "inputs": ["xs"],
           "slices": [[128, 256]], "tile": [128, 256], "tile_buffers": 2,
           "line": 7},
          {"id": "peak_n", "op": "tensor_reduce", "inputs": ["buf_n"],
           "tile": [128, 1], "line": 8}]},
        {"id": "y_last", "op": "activation", "func": "exp",
         "inputs": ["buf_n", "peak_n"], "tile": [128, 256], "line": 9},
        {"op": "store", "tensor": "out", "inputs": ["y_last"],
         "index": [":", "768:1024"], "line": 10}]}]}
  })");
}

Json& Once(Json& j) { return j["kernel"]["loops"][0]; }
Json& Loop(Json& j) { return Once(j)["body"][3]; }

std::string Refusal(const Json& j) {
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  EXPECT_FALSE(spec.ok());
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(PipelinedLoopsTest, LaterIterationsReadWhatThePreviousOneLeft) {
  const Kernel k = LowerOrDie(Pipelined());
  const std::vector<size_t> exp = AtLine(k, 5);
  const std::vector<size_t> copy = AtLine(k, 7);
  const std::vector<size_t> max = AtLine(k, 8);
  const std::vector<size_t> prologue = AtLine(k, 3);
  ASSERT_EQ(exp.size(), 3u);
  ASSERT_EQ(max.size(), 3u);
  ASSERT_EQ(prologue.size(), 1u);
  // The first reads the prologue's tiles; each later one the previous
  // iteration's copy and max, not its own iteration's (made after it).
  EXPECT_TRUE(DependsOn(k, exp[0], prologue[0]));
  for (size_t i = 1; i < exp.size(); ++i) {
    EXPECT_TRUE(DependsOn(k, exp[i], max[i - 1])) << i;
    EXPECT_TRUE(DependsOn(k, exp[i], copy[i - 1])) << i;
    EXPECT_FALSE(DependsOn(k, exp[i], max[i])) << i;
  }
  EXPECT_FALSE(DependsOn(k, exp[0], max[0]));
}

TEST(PipelinedLoopsTest, TheBodyAroundReadsTheLastIterationsResults) {
  const Kernel k = LowerOrDie(Pipelined());
  const std::vector<size_t> last = AtLine(k, 9);
  const std::vector<size_t> copy = AtLine(k, 7);
  const std::vector<size_t> max = AtLine(k, 8);
  const std::vector<size_t> store = AtLine(k, 6);
  ASSERT_EQ(last.size(), 1u);
  ASSERT_EQ(store.size(), 3u);
  EXPECT_TRUE(DependsOn(k, last[0], max.back()));
  EXPECT_TRUE(DependsOn(k, last[0], copy.back()));
  // Only those ops: not the whole loop, whose last store may still run.
  EXPECT_FALSE(DependsOn(k, last[0], store.back()));
}

TEST(PipelinedLoopsTest, ConstantBlocksAndPrefixLoopsMoveTheirTiles) {
  const Kernel k = LowerOrDie(Pipelined());
  // The loop walks 768 columns of an iteration tensor and indexes out's
  // 1024 by its 256-column tile; the epilogue stores columns 768 to 1023.
  for (int line : {6, 10}) {
    for (size_t i : AtLine(k, line)) {
      EXPECT_EQ(k.instrs[i].work, 128 * 256 * 4) << line;
    }
  }
  EXPECT_EQ(AtLine(k, 6).size() + AtLine(k, 10).size(), 4u);
}

// A carried block read slot by slot from a loop nested in the pipelined
// one: the copy is a block loop of two 128-column halves (line 7), read
// by an exp loop over the same halves (line 5).
Json BySlot() {
  Json j = Pipelined();
  Json& body = Once(j)["body"];
  body[1] = Json::parse(R"({"id": "buf0", "op": "loop", "var": "h0",
    "range": "affine", "tensor": "halves", "dim": 1, "step": 1,
    "line": 2, "body": [
      {"id": "b0", "op": "tensor_copy", "inputs": ["xs"],
       "slices": [[128, 128]], "tile": [128, 128], "line": 2}]})");
  body[2]["inputs"] = {"xs"};
  Json& loop = Loop(j);
  loop["results"] = {"buf_n"};
  loop["body"][0] = Json::parse(R"({"id": "ys", "op": "loop", "var": "h",
    "range": "affine", "tensor": "halves", "dim": 1, "step": 1,
    "line": 4, "body": [
      {"id": "y", "op": "activation", "func": "exp",
       "inputs": ["buf0[h]"], "carry": ["buf_n[h]"], "tile": [128, 128],
       "line": 5}]})");
  loop["body"][1]["inputs"] = {"ys"};
  loop["body"][2] = Json::parse(R"({"id": "buf_n", "op": "loop", "var": "h2",
    "range": "affine", "tensor": "halves", "dim": 1, "step": 1,
    "one_buffer": true, "line": 7, "body": [
      {"id": "bn", "op": "tensor_copy", "inputs": ["xs"],
       "slices": [[128, 128]], "tile": [128, 128], "line": 7}]})");
  loop["body"][3]["inputs"] = {"xs"};
  body[4]["inputs"] = {"buf_n"};
  return j;
}

TEST(PipelinedLoopsTest, ACarriedSlotWaitsForThatSlotOfThePreviousIteration) {
  const Kernel k = LowerOrDie(BySlot());
  const std::vector<size_t> exp = AtLine(k, 5);
  const std::vector<size_t> copy = AtLine(k, 7);
  ASSERT_EQ(exp.size(), 6u);  // 3 iterations x 2 halves
  ASSERT_EQ(copy.size(), 6u);
  for (size_t i = 1; i < 3; ++i) {
    for (size_t h = 0; h < 2; ++h) {
      const size_t reader = exp[2 * i + h];
      EXPECT_TRUE(DependsOn(k, reader, copy[2 * (i - 1) + h])) << i << h;
      EXPECT_FALSE(DependsOn(k, reader, copy[2 * (i - 1) + 1 - h])) << i << h;
    }
  }
}

// A block of 8 slots (line 2) read by a nest of 2 x 4 iterations by the
// slot a * 4 + b (line 4).
Json SlotSum(const std::string& slot) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "s", "family": "s",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [128, 512], "dtype": "fp32"},
      {"name": "out", "shape": [128, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "s.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "body": [
        {"id": "blk", "op": "loop", "var": "j", "range": "affine",
         "tensor": "x", "dim": 1, "step": 64, "line": 1, "body": [
          {"id": "t", "op": "load", "tensor": "x", "index": ["p", "j"],
           "line": 2}]},
        {"op": "loop", "var": "a", "range": "affine", "tensor": "x",
         "dim": 1, "step": 256, "line": 3, "body": [
          {"op": "loop", "var": "b", "range": "affine", "tensor": "x",
           "dim": 1, "step": 64, "line": 3, "body": [
            {"id": "y", "op": "activation", "func": "exp",
             "inputs": ["blk[a*4+b]"], "tile": [128, 64], "line": 4},
            {"op": "store", "tensor": "out", "inputs": ["y"],
             "index": ["p", "b"], "line": 5}]}]}]}]}
  })");
  j["kernel"]["loops"][0]["body"][1]["body"][0]["body"][0]["inputs"] = {
      "blk[" + slot + "]"};
  return j;
}

TEST(PipelinedLoopsTest, ASlotTwoLoopsPickWaitsForThatSlot) {
  const Kernel k = LowerOrDie(SlotSum("a*4+b"));
  const std::vector<size_t> load = AtLine(k, 2);
  const std::vector<size_t> exp = AtLine(k, 4);
  ASSERT_EQ(load.size(), 8u);
  ASSERT_EQ(exp.size(), 8u);
  for (size_t s = 0; s < 8; ++s) {
    for (size_t l = 0; l < 8; ++l) {
      EXPECT_EQ(DependsOn(k, exp[s], load[l]), s == l) << s << " " << l;
    }
  }
}

TEST(PipelinedLoopsTest, RefusalsNameTheEntry) {
  EXPECT_THAT(Refusal(SlotSum("a*5+b")),
              HasSubstr("/kernel/loops/0/body/1/body/0/body/0/inputs/0: slot "
                        "\"a*5+b\" in \"blk[a*5+b]\" reaches slot 8, but that "
                        "level of the block has 8 slots"));
  EXPECT_THAT(Refusal(SlotSum("a*+b")),
              HasSubstr("slot \"a*+b\" in \"blk[a*+b]\" is not a loop "
                        "variable or a sum of loop variables"));
  EXPECT_THAT(Refusal(SlotSum("a*4+q")),
              HasSubstr("slot variable \"q\" in \"blk[a*4+q]\" is not the "
                        "variable of a loop around this op"));
  Json j = Pipelined();
  Loop(j)["body"][0]["carry"] = {"nope"};
  EXPECT_THAT(Refusal(j),
              HasSubstr("/kernel/loops/0/body/3/body/0/carry/0: \"nope\" is "
                        "not a tile of this loop body or of one around it"));
  j = Pipelined();
  Loop(j)["results"] = {"nope"};
  EXPECT_THAT(Refusal(j),
              HasSubstr("/kernel/loops/0/body/3/results/0: \"nope\" is not a "
                        "tile of this loop's body"));
  j = Pipelined();
  Loop(j)["body"][2]["id"] = "buf_x";
  Loop(j)["body"][3]["inputs"] = {"buf_x"};
  Loop(j)["body"][0]["carry"] = {"buf_x", "peak_n"};
  Loop(j)["results"] = {"peak_n", "peak_n"};
  Once(j)["body"][4]["inputs"] = {"peak_n", "peak_n"};
  EXPECT_THAT(Refusal(j),
              HasSubstr("/kernel/loops/0/body/3/results/1: \"peak_n\" is "
                        "already an id of the body around the loop"));
  j = Pipelined();
  Once(j)["body"][5]["index"] = {":", "768:1100"};
  EXPECT_THAT(Refusal(j),
              HasSubstr("/kernel/loops/0/body/5/index/1: the constant block "
                        "\"768:1100\" of dim 1 of \"out\" (1024 elements)"));
  j = Pipelined();
  Once(j)["results"] = {"xs"};
  EXPECT_THAT(Refusal(j), HasSubstr("/kernel/loops/0"));
  // Without results the loop's tiles are out of the epilogue's scope.
  j = Pipelined();
  Loop(j).erase("results");
  EXPECT_THAT(Refusal(j),
              HasSubstr("/kernel/loops/0/body/4/inputs/0: unknown tile id "
                        "\"buf_n\""));
}

// Slot indices read from the terms kept in OpFacts (the shortcuts) make
// the program that parsing each index at every read makes (the
// reference): a carried slot, and a block read at a*4+b by a nest.
TEST(PipelinedLoopsTest, SlotReadsLowerAsTheReferenceDoes) {
  auto profile = ParseDeviceProfile(testing::TestProfile().dump(), "test");
  ASSERT_TRUE(profile.ok()) << profile.status();
  for (const Json& j : {BySlot(), SlotSum("a*4+b")}) {
    auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
    ASSERT_TRUE(spec.ok()) << spec.status();
    ASSERT_TRUE(CompileSpec(*spec, profile->memory).ok());
    lowering_internal::NkiLoweringOptions reference;
    reference.shortcuts = false;
    auto fast = lowering_internal::LowerNki(*spec, *profile);
    auto slow = lowering_internal::LowerNki(*spec, *profile, reference);
    ASSERT_TRUE(fast.ok()) << fast.status();
    ASSERT_TRUE(slow.ok()) << slow.status();
    EXPECT_GT(fast->InstructionCount(), 0);
    EXPECT_EQ(lowering_internal::ProgramDifference(*fast, *slow), "");
  }
}

}  // namespace
}  // namespace trn
