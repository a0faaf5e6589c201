// `"buffers": "auto"`: two buffers where the kernel's tiles fit with two,
// else one, decided at each shape.
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "workloads/lowering.h"
#include "workloads/shape_override.h"
#include "workloads/spec_parser.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// exp over [rows, cols] fp32 in [128, cols] tiles: an input and an output
// tile of 4 * cols bytes per partition each, per buffer. With the default
// 192 KiB per partition, two buffers fit up to 12288 columns, one up to
// 24576.
Json Exp(int64_t cols, const Json& buffers) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "exp_auto", "family": "exp",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 0], "dtype": "fp32"},
      {"name": "y", "shape": [1024, 0], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "exp.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "body": [
        {"id": "in_tile", "op": "load", "tensor": "x", "line": 1},
        {"id": "out_tile", "op": "activation", "engine": "scalar",
         "func": "exp", "inputs": ["in_tile"], "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["out_tile"], "line": 3}]}]}
  })");
  j["tensors"][0]["shape"][1] = cols;
  j["tensors"][1]["shape"][1] = cols;
  j["kernel"]["loops"][0]["buffers"] = buffers;
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

TEST(AutoBuffersTest, TwoWhereTwoFit) {
  auto spec = Parse(Exp(8192, "auto"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->kernel->loops[0].auto_buffers);
  EXPECT_EQ(spec->kernel->loops[0].buffers, 2);
}

TEST(AutoBuffersTest, OneWhereOnlyOneFits) {
  // Two buffers would not fit: the same spec with an explicit 2 is refused.
  ASSERT_FALSE(Parse(Exp(16384, 2)).ok());
  auto spec = Parse(Exp(16384, "auto"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].buffers, 1);
}

TEST(AutoBuffersTest, RefusedWhenNotEvenOneFits) {
  auto spec = Parse(Exp(32768, "auto"));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("SBUF overflow at tile \"out_tile\": fp32 [128, "
                        "32768] x 1 buffer = 131072 B per partition"));
}

TEST(AutoBuffersTest, OtherValuesAreRefusedNamingAuto) {
  for (const Json& bad : {Json("two"), Json("Auto"), Json(0), Json(true)}) {
    auto spec = Parse(Exp(512, bad));
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_THAT(std::string(spec.status().message()),
                HasSubstr("/kernel/loops/0/buffers: expected a positive "
                          "integer or \"auto\""))
        << bad;
  }
}

TEST(AutoBuffersTest, DecidedAgainAtEveryShape) {
  auto spec = Parse(Exp(16384, "auto"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->kernel->loops[0].buffers, 1);
  auto o = ParseShapeOverride("x,y=1024x4096,1024x16384,1024x12288");
  ASSERT_TRUE(o.ok()) << o.status();
  auto points = ApplyShapeOverrides({*spec}, {*o}, MemoryLimits{});
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].kernel->loops[0].buffers, 2);
  EXPECT_EQ((*points)[1].kernel->loops[0].buffers, 1);
  EXPECT_EQ((*points)[2].kernel->loops[0].buffers, 2);
  // A device with less SBUF decides for itself.
  MemoryLimits small;
  small.sbuf_bytes_per_partition = 48 * 1024;
  auto narrow = ParseShapeOverride("x,y=1024x4096");
  ASSERT_TRUE(narrow.ok());
  auto on_small = ApplyShapeOverrides({*spec}, {*narrow}, small);
  ASSERT_TRUE(on_small.ok()) << on_small.status();
  EXPECT_EQ((*on_small)[0].kernel->loops[0].buffers, 1);
}

TEST(AutoBuffersTest, OuterLoopsAreDecidedFirst) {
  // An 80 KiB row per outer iteration, and a nested loop over its columns
  // with a 20 KiB tile of its own: either loop can have two buffers (160 +
  // 20 or 80 + 40 KiB), not both (200 KiB); the outer one, decided first,
  // takes them.
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "nest_auto", "family": "nest",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 20480], "dtype": "fp32"},
      {"name": "y", "shape": [1024, 20480], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "nest.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "buffers": "auto", "body": [
        {"id": "row", "op": "load", "tensor": "x", "line": 1},
        {"op": "loop", "var": "c", "range": "affine", "tensor": "x",
         "dim": 1, "step": 5120, "buffers": "auto", "line": 2, "body": [
          {"id": "part", "op": "activation", "engine": "scalar",
           "func": "exp", "inputs": ["row"], "tile": [128, 5120],
           "line": 3},
          {"op": "store", "tensor": "y", "inputs": ["part"],
           "index": ["p", "c"], "line": 4}]}]}]}
  })");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const NkiLoop& outer = spec->kernel->loops[0];
  const NkiLoop& inner = outer.body[1].loop[0];
  EXPECT_EQ(outer.buffers, 2);
  EXPECT_EQ(inner.buffers, 1);
  // The premise: both at 2 do not fit, the inner one alone at 2 does.
  WorkloadSpec both = *spec;
  both.kernel->loops[0].body[1].loop[0].buffers = 2;
  EXPECT_FALSE(ValidateSpec(both, MemoryLimits{}).ok());
  WorkloadSpec inner_only = both;
  inner_only.kernel->loops[0].buffers = 1;
  EXPECT_TRUE(ValidateSpec(inner_only, MemoryLimits{}).ok());
}

TEST(AutoBuffersTest, LowersAsTheCountItChose) {
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "test");
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto chosen = Parse(Exp(8192, "auto"));
  auto explicit_two = Parse(Exp(8192, 2));
  ASSERT_TRUE(chosen.ok() && explicit_two.ok());
  auto a = Lower(*chosen, *profile);
  auto b = Lower(*explicit_two, *profile);
  ASSERT_TRUE(a.ok() && b.ok());
  const Kernel& ka = a->dispatches[0].kernel;
  const Kernel& kb = b->dispatches[0].kernel;
  ASSERT_EQ(ka.instrs.size(), kb.instrs.size());
  EXPECT_EQ(ka.deps, kb.deps);
  for (size_t i = 0; i < ka.instrs.size(); ++i) {
    EXPECT_EQ(ka.instrs[i].deps_begin, kb.instrs[i].deps_begin) << i;
  }
}

}  // namespace
}  // namespace trn
