// `trnbench profile`'s analysis: the run it shows, the summary, the
// roofline, the what-ifs and the findings, on the shipped workloads.
#include "harness/profile/profile_analysis.h"

#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/loading/shape_override.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::HasSubstr;

struct Fixture {
  DeviceProfile trn1;
  std::vector<WorkloadSpec> specs;
};

const Fixture& Get() {
  static const Fixture* f = [] {
    auto* fx = new Fixture;
    const std::string root = TRNBENCH_SOURCE_DIR;
    fx->trn1 = *LoadDeviceProfile(root + "/device_model/profiles/trn1.json");
    fx->specs = *LoadSpecDir(root + "/workloads/specs", fx->trn1.memory);
    return fx;
  }();
  return *f;
}

const WorkloadSpec& Spec(const std::string& name) {
  for (const auto& s : Get().specs) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << name;
  return Get().specs.front();
}

WorkloadProfile Profile(const std::string& name, int64_t repeat = 50) {
  RunOptions o;
  o.schedule.repeat = repeat;
  auto p = ProfileWorkload(Spec(name), Get().trn1, o);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : WorkloadProfile{};
}

const Finding* Find(const WorkloadProfile& p, const std::string& id) {
  for (const auto& f : p.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(ProfileAnalysisTest, ShowsTheRunClosestToTheMedian) {
  const WorkloadProfile p = Profile("exp_tiled");
  EXPECT_EQ(p.time_metric, "ncl_us");
  const auto& samples = p.result.Find("ncl_us")->samples;
  for (double x : samples) {
    EXPECT_LE(std::abs(p.time_us - p.median_us),
              std::abs(x - p.median_us) + 1e-12);
  }
  EXPECT_EQ(p.repeat_index, 1 + p.recorded_run);  // warmup 1, wait 0
  // The summary is of that very run.
  EXPECT_DOUBLE_EQ(p.summary.total_us, p.time_us);
}

TEST(ProfileAnalysisTest, ExpTiledIsTheSeedsDiagnosisWithAPredictedFix) {
  const WorkloadProfile p = Profile("exp_tiled");
  const DeviceSummary& s = p.summary;
  EXPECT_EQ(s.dma_compute_overlap, 0.0);
  EXPECT_EQ(s.engines_concurrent_us, 0.0);
  EXPECT_EQ(s.engines[0].instructions, 0);  // no TensorE
  EXPECT_EQ(p.cost.dma_transfers, 4);       // 2 loads, 2 stores
  EXPECT_TRUE(p.roofline.memory_bound);
  EXPECT_NEAR(p.roofline.arithmetic_intensity, 0.125, 0.001);
  const Finding* none = Find(p, "no_dma_compute_overlap");
  ASSERT_NE(none, nullptr);
  ASSERT_NE(none->Find("overlap"), nullptr);
  EXPECT_EQ(none->Find("overlap")->value, 0.0);
  EXPECT_EQ(none->Find("overlap")->unit, Unit::kFraction);
  EXPECT_EQ(none->what_if, "double_buffering");
  ASSERT_EQ(p.what_ifs.size(), 1u);
  const WhatIf& w = p.what_ifs[0];
  EXPECT_EQ(w.id, "double_buffering");
  EXPECT_TRUE(w.feasible);
  EXPECT_LT(w.time_us, p.median_us);
  EXPECT_GT(w.dma_compute_overlap, 0.0);
  EXPECT_NE(Find(p, "engines_take_turns"), nullptr);
  // Measured from the run: each of the four dependent transfers waits its
  // whole latency with nothing else running, so the latency-only time is
  // their sum and the finding's share is that over the kernel's time.
  EXPECT_EQ(p.summary.dma.transfers, 4);
  EXPECT_NEAR(p.summary.dma.latency_only_us, 4 * p.summary.dma.mean_latency_us,
              1e-9);
  const Finding* latency = Find(p, "dma_latency_bound");
  ASSERT_NE(latency, nullptr);
  EXPECT_DOUBLE_EQ(latency->Find("latency_share")->value,
                   p.summary.dma.latency_only_us / p.summary.total_us);
}

TEST(ProfileAnalysisTest, LatencyHiddenUnderComputeIsNotAFinding) {
  // The 2048-square matmul streams its loads under 300 us of TensorE work:
  // its transfers' latencies overlap compute and cost nothing.
  const WorkloadProfile p = Profile("matmul_bf16_2048", 5);
  EXPECT_GT(p.summary.dma.transfers, 0);
  EXPECT_LT(p.summary.dma.latency_only_us, 0.25 * p.summary.total_us);
  EXPECT_EQ(Find(p, "dma_latency_bound"), nullptr);
}

TEST(ProfileAnalysisTest, PipelinedExpOverlapsAndMatchesThePrediction) {
  const WorkloadProfile base = Profile("exp_tiled");
  const WorkloadProfile piped = Profile("exp_tiled_pipelined");
  EXPECT_GT(piped.summary.dma_compute_overlap, 0.0);
  EXPECT_LT(piped.median_us, base.median_us);
  // The what-if of exp_tiled is exp_tiled_pipelined; the two draw from
  // different random streams (keyed by name), so they agree within noise.
  EXPECT_NEAR(base.what_ifs.at(0).time_us / piped.median_us, 1.0, 0.01);
  EXPECT_NE(Find(piped, "dma_compute_overlap"), nullptr);
  EXPECT_TRUE(piped.what_ifs.empty());  // nothing single-buffered is left
}

TEST(ProfileAnalysisTest, MatmulIsComputeBoundNearTensorPeak) {
  const WorkloadProfile p = Profile("matmul_bf16_2048", 20);
  EXPECT_FALSE(p.roofline.memory_bound);
  EXPECT_DOUBLE_EQ(p.roofline.flops, 2.0 * 2048 * 2048 * 2048);
  EXPECT_GT(p.roofline.arithmetic_intensity, p.roofline.ridge_point);
  EXPECT_GT(p.flop_utilisation, 0.6);
  EXPECT_LT(p.flop_utilisation, 0.95);
  EXPECT_NE(Find(p, "compute_bound"), nullptr);
  // Its only repeating loop with loads is already double-buffered.
  EXPECT_TRUE(p.what_ifs.empty());
}

TEST(ProfileAnalysisTest, EagerRmsNormIsLaunchOverheadAndCompilingFixesIt) {
  const WorkloadProfile p = Profile("rmsnorm_naive");
  EXPECT_EQ(p.time_metric, "device_time_us");
  EXPECT_EQ(p.summary.hardware_executions, 6);
  EXPECT_GT(p.summary.launch_overhead_us, 0.9 * p.summary.total_us);
  const Finding* f = Find(p, "launch_overhead");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->Find("hardware_executions"), nullptr);
  EXPECT_EQ(f->Find("hardware_executions")->value, 6);
  EXPECT_GT(f->Find("share")->value, 0.9);
  EXPECT_EQ(f->what_if, "compile_graph");
  ASSERT_EQ(p.what_ifs.size(), 1u);
  EXPECT_LT(p.what_ifs[0].relative, -0.5);
}

TEST(ProfileAnalysisTest, AnInfeasibleWhatIfSaysWhy) {
  // Exp's input and output tiles at 512 x 16384 fp32 take 64 KiB per
  // partition each: they fit SBUF's 192 KiB once, not twice.
  WorkloadSpec s = Spec("exp_tiled");
  for (auto& t : s.tensors) t.shape = {512, 16384};
  RunOptions o;
  o.schedule.repeat = 3;
  auto p = ProfileWorkload(s, Get().trn1, o);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->what_ifs.size(), 1u);
  EXPECT_FALSE(p->what_ifs[0].feasible);
  EXPECT_THAT(p->what_ifs[0].why_not, HasSubstr("SBUF overflow"));
  EXPECT_THAT(p->what_ifs[0].why_not, ::testing::StartsWith("/kernel/"));
  const Finding* f = Find(*p, "no_dma_compute_overlap");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->what_if, "double_buffering");
}

TEST(ProfileAnalysisTest, AWhatIfRunsOnASpecAtAnotherShape) {
  // A --shape point is named "exp_tiled[in_tensor,out_tensor=1024x512]",
  // which the spec-name pattern refuses; its what-if used to report that
  // as the reason the variant does not fit. 1000 rows end on a partial
  // tile, so the compiler stage keeps the loop at depth 1 and the
  // double-buffering what-if applies.
  auto shape = ParseShapeOverride("in_tensor,out_tensor=1000x512");
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto points =
      ApplyShapeOverrides({Spec("exp_tiled")}, {*shape}, Get().trn1.memory);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ(points->front().name, "exp_tiled[in_tensor,out_tensor=1000x512]");
  RunOptions o;
  o.schedule.repeat = 3;
  auto p = ProfileWorkload(points->front(), Get().trn1, o);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->what_ifs.size(), 1u);
  EXPECT_TRUE(p->what_ifs[0].feasible) << p->what_ifs[0].why_not;
  EXPECT_LT(p->what_ifs[0].time_us, p->median_us);
}

TEST(ProfileAnalysisTest, DoubleBufferingSkipsLoopsThatCannotPrefetch) {
  bool changed = true;
  const WorkloadSpec same =
      WithDoubleBuffering(Spec("matmul_bf16_2048"), &changed);
  EXPECT_FALSE(changed);
  const WorkloadSpec more = WithDoubleBuffering(Spec("exp_tiled"), &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(more.kernel->loops[0].buffers, 2);
  // The softmax's one loop runs once: nothing to prefetch.
  WithDoubleBuffering(Spec("softmax_nki"), &changed);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace trn
