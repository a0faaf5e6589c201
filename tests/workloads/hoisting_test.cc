// Loop-invariant loads (model 12, workloads/compiler/hoisting.h): a load
// that covers a whole input over the loops inside a loop whose variable its
// address does not use is loaded once per run of that loop and kept in
// SBUF, when the kernel fits with it.
#include "workloads/compiler/hoisting.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// y[i] = x[i] + sum over k of w[k] (tensor_tensor), i over 4 row tiles of
// x, k over the `wk` row tiles of w: w's load does not use i.
Json Kernel(int64_t wk, int64_t cols) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "hoist", "family": "hoist",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 0], "dtype": "fp32"},
      {"name": "w", "shape": [0, 0], "dtype": "fp32"},
      {"name": "y", "shape": [512, 0], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "hoist.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "body": [
        {"id": "x_t", "op": "load", "tensor": "x", "index": ["i", ":"],
         "line": 1},
        {"op": "loop", "var": "k", "range": "affine", "tensor": "w",
         "tile_partitions": 128, "line": 2, "body": [
          {"id": "w_t", "op": "load", "tensor": "w", "index": ["k", ":"],
           "line": 3},
          {"id": "s", "op": "tensor_tensor", "inputs": ["x_t", "w_t"],
           "line": 4},
          {"op": "store", "tensor": "y", "inputs": ["s"], "index": ["i", ":"],
           "line": 5}]}]}]}
  })");
  j["tensors"][0]["shape"][1] = cols;
  j["tensors"][1]["shape"] = {wk * 128, cols};
  j["tensors"][2]["shape"][1] = cols;
  return j;
}

// The DMAs lowered for kernel line `line`.
int Dmas(const WorkloadSpec& spec, int line) {
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  EXPECT_TRUE(profile.ok());
  if (!profile.ok()) return -1;
  auto program = Lower(spec, *profile);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return -1;
  int n = 0;
  for (const Instruction& in : program->dispatches[0].kernel.instrs) {
    n += in.kind == InstrKind::kDma && in.source_line == line;
  }
  return n;
}

TEST(HoistingTest, AWholeInputInvariantInALoopIsLoadedOnceAndKept) {
  auto spec = ParseSpec(Kernel(3, 512).dump(), "hoist.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  const auto& h = spec->compiled.hoists;
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].id, "w_t");
  EXPECT_EQ(h[0].var, "i");
  EXPECT_EQ(h[0].copies, 3);  // one tile per k
  EXPECT_EQ(h[0].bytes, 512 * 4);
  EXPECT_THAT(h[0].why, HasSubstr("does not use i"));
  // w's 3 tiles once, not once per i (12); x's 4 tiles as before.
  EXPECT_EQ(Dmas(*spec, 3), 3);
  EXPECT_EQ(Dmas(*spec, 1), 4);
  // The kept tiles are live over i's body: in the SBUF peak.
  bool kept = false;
  for (const LiveTile& t : spec->compiled.sbuf.live) {
    kept = kept || (t.id == "w_t.hoisted" && t.copies == 3);
  }
  EXPECT_TRUE(kept);
}

TEST(HoistingTest, WhatDoesNotFitIsLoadedInEveryIteration) {
  // w: 100 tiles of 2 KiB per partition, 200 KiB: more than SBUF's 192.
  auto spec = ParseSpec(Kernel(100, 512).dump(), "hoist.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.hoists.empty());
  EXPECT_EQ(Dmas(*spec, 3), 400);
}

TEST(HoistingTest, NotATensorTheKernelWritesNorPartOfAnInput) {
  // The kernel stores into w: its loads are not invariant.
  Json written = Kernel(3, 512);
  written["kernel"]["loops"][0]["body"][1]["body"][2]["tensor"] = "w";
  written["kernel"]["loops"][0]["body"][1]["body"][2]["index"] = {"k", ":"};
  auto spec = ParseSpec(written.dump(), "hoist.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.hoists.empty());
  // w twice as tall as the k loop walks (k over y's 4 tiles, w has 8):
  // the tiles kept over i would be half of w, not a whole input.
  Json half = Kernel(8, 512);
  half["kernel"]["loops"][0]["body"][1]["tensor"] = "y";
  auto partial = ParseSpec(half.dump(), "hoist.json", MemoryLimits{});
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_TRUE(partial->compiled.hoists.empty());
}

}  // namespace
}  // namespace trn
