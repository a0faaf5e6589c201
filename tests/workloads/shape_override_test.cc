// --shape: parsing, sweeps, renaming and re-validation.
#include "workloads/loading/shape_override.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::vector<WorkloadSpec>& Shipped() {
  static const auto* specs = [] {
    auto s = LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/workloads/specs",
                         MemoryLimits{});
    EXPECT_TRUE(s.ok()) << s.status();
    return new std::vector<WorkloadSpec>(*std::move(s));
  }();
  return *specs;
}

WorkloadSpec Shipped(const std::string& name) {
  for (const auto& s : Shipped()) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << name;
  return {};
}

ShapeOverride Parse(const std::string& text) {
  auto o = ParseShapeOverride(text);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *std::move(o) : ShapeOverride{};
}

TEST(ShapeOverrideTest, ParsesNamesAndASweep) {
  const ShapeOverride o = Parse("in_tensor,out_tensor=250x512,4096x512,7");
  EXPECT_THAT(o.tensors, ElementsAre("in_tensor", "out_tensor"));
  ASSERT_EQ(o.shapes.size(), 3u);
  EXPECT_THAT(o.shapes[1], ElementsAre(4096, 512));
  EXPECT_THAT(o.shapes[2], ElementsAre(7));
  EXPECT_EQ(ShapePointText(o, 1), "in_tensor,out_tensor=4096x512");
}

TEST(ShapeOverrideTest, RejectsMalformedText) {
  for (const char* bad : {"x", "=4x4", "x=", "x=4xx4", "x=0x4", "x=-1", "x,x=4",
                          "x=4x2199023255553", ",x=4"}) {
    auto o = ParseShapeOverride(bad);
    EXPECT_FALSE(o.ok()) << bad;
    EXPECT_THAT(std::string(o.status().message()),
                StartsWith(std::string(bad) + ": "))
        << bad;
  }
}

TEST(ShapeOverrideTest, ASweepGivesOneRenamedSpecPerShapeInOrder) {
  auto out = ApplyShapeOverrides(
      {Shipped("exp_tiled")},
      {Parse("in_tensor,out_tensor=4096x512,250x512,1024x512")},
      MemoryLimits{});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].name, "exp_tiled[in_tensor,out_tensor=4096x512]");
  EXPECT_EQ((*out)[1].name, "exp_tiled[in_tensor,out_tensor=250x512]");
  EXPECT_THAT((*out)[0].FindTensor("out_tensor")->shape,
              ElementsAre(4096, 512));
  EXPECT_EQ((*out)[0].family, "exp");
  // Each point is its own workload for baselines: its hash differs from
  // the file's and from the other points'.
  EXPECT_NE((*out)[1].content_hash, Shipped("exp_tiled").content_hash);
  EXPECT_NE((*out)[0].content_hash, (*out)[1].content_hash);
}

TEST(ShapeOverrideTest, OverridesOfOneSpecSweepTogether) {
  auto out = ApplyShapeOverrides(
      {Shipped("rmsnorm_fused")},
      {Parse("x=8x1024,64x1024"), Parse("weight=1024")}, MemoryLimits{});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[1].name, "rmsnorm_fused[x=64x1024;weight=1024]");
  auto bad = ApplyShapeOverrides(
      {Shipped("rmsnorm_fused")},
      {Parse("x=8x1024,64x1024"), Parse("weight=1024,2048,4096")},
      MemoryLimits{});
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("x=8x1024,64x1024: 2 shapes, but another "
                        "override for workload rmsnorm_fused sweeps 3"));
}

TEST(ShapeOverrideTest, TorchOutputsFollowTheirInputs) {
  auto out = ApplyShapeOverrides(
      {Shipped("rmsnorm_naive")},
      {Parse("x,x_sq=16x2048"), Parse("weight=2048")}, MemoryLimits{});
  ASSERT_TRUE(out.ok()) << out.status();
  const WorkloadSpec& s = out->front();
  EXPECT_THAT(s.FindTensor("mean_sq")->shape, ElementsAre(16, 1));
  EXPECT_THAT(s.FindTensor("x_norm")->shape, ElementsAre(16, 2048));
  EXPECT_THAT(s.FindTensor("out")->shape, ElementsAre(16, 2048));
  EXPECT_TRUE(s.FindTensor("eps")->shape.empty());
}

TEST(ShapeOverrideTest, SpecsWithoutTheTensorRunAsTheyAre) {
  auto out = ApplyShapeOverrides(
      {Shipped("exp_tiled"), Shipped("rmsnorm_fused")},
      {Parse("in_tensor,out_tensor=512x512")}, MemoryLimits{});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[1].name, "rmsnorm_fused");
}

TEST(ShapeOverrideTest, AnOverrideNoSpecTakesIsAnError) {
  auto out = ApplyShapeOverrides({Shipped("exp_tiled")}, {Parse("q=4")},
                                 MemoryLimits{});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("no selected workload (exp_tiled) has a tensor q"));
  out = ApplyShapeOverrides({Shipped("exp_tiled")}, {Parse("in_tensor,q=4x4")},
                            MemoryLimits{});
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("declares in_tensor but not q"));
}

TEST(ShapeOverrideTest, ARemadeSpecIsTheRemakesAndItsOutputsAreChecked) {
  // A stand-in for tracing a kernel again: the remake gives both tensors
  // the input's new dims (as a kernel makes its output from its input),
  // except that it makes out_tensor 512 wide whatever it is asked.
  std::vector<std::vector<std::string>> asked;
  const RemakeAtPoint remake =
      [&](const WorkloadSpec& spec, const std::vector<std::string>& point,
          const MemoryLimits&) -> absl::StatusOr<std::optional<WorkloadSpec>> {
    asked.push_back(point);
    if (spec.name != "exp_tiled") return std::nullopt;
    WorkloadSpec s = spec;
    const int64_t rows =
        point.front().find("=1024x") != std::string::npos ? 1024 : 2048;
    for (auto& t : s.tensors) t.shape = {rows, 512};
    s.content_hash = "remade";
    return s;
  };
  auto out = ApplyShapeOverrides(
      {Shipped("exp_tiled"), Shipped("exp_tiled_pipelined")},
      {Parse("in_tensor,out_tensor=1024x512")}, MemoryLimits{}, remake);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(asked.front(), ElementsAre("in_tensor,out_tensor=1024x512"));
  EXPECT_EQ((*out)[0].name, "exp_tiled[in_tensor,out_tensor=1024x512]");
  EXPECT_NE((*out)[0].content_hash, Shipped("exp_tiled").content_hash);
  // A spec the remake leaves (nullopt) is reshaped as any spec.
  EXPECT_THAT((*out)[1].FindTensor("out_tensor")->shape,
              ElementsAre(1024, 512));
  // Asked for 4096 rows, the remade spec has 2048: the named output is not
  // what was asked, an error.
  out = ApplyShapeOverrides({Shipped("exp_tiled")},
                            {Parse("in_tensor,out_tensor=4096x512")},
                            MemoryLimits{}, remake);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("has in_tensor 2048x512, not 4096x512"));
}

TEST(ShapeOverrideTest, EachPointIsValidatedAgain) {
  // Only the input changes, so the store no longer moves the loop's rows.
  auto out = ApplyShapeOverrides({Shipped("exp_tiled")},
                                 {Parse("in_tensor=1024x512")}, MemoryLimits{});
  EXPECT_THAT(std::string(out.status().message()),
              StartsWith("in_tensor=1024x512: "));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("must move a tensor with the same dim 0"));
  // A tile that no longer fits SBUF.
  out = ApplyShapeOverrides({Shipped("exp_tiled")},
                            {Parse("in_tensor,out_tensor=256x60000")},
                            MemoryLimits{});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("SBUF overflow"));
}

}  // namespace
}  // namespace trn
