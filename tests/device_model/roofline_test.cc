// Peaks derived from a profile, a program's cost, and its roofline.
#include "device_model/roofline.h"

#include <cmath>
#include <limits>
#include <string>

#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "gtest/gtest.h"
#include "tests/device_model/test_profile.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

DeviceProfile TestDevice() {
  auto p = ParseDeviceProfile(trn::testing::TestProfile().dump(), "test");
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

TEST(RooflineTest, PeaksComeFromTheProfile) {
  const DevicePeaks p = ComputePeaks(TestDevice());
  // TensorE: 2 x 128 x 128 PEs x 1 column/cycle x 1 GHz.
  EXPECT_DOUBLE_EQ(p.flops_per_s[0], 2.0 * 128 * 128 * 1e9);
  EXPECT_DOUBLE_EQ(p.tensor_fp32_flops_per_s, 0.25 * 2.0 * 128 * 128 * 1e9);
  // VectorE 1 GHz x 2, ScalarE 2 GHz x 1, GpSimdE 0.5 GHz x 4, x 128 lanes.
  EXPECT_DOUBLE_EQ(p.flops_per_s[1], 128 * 2e9);
  EXPECT_DOUBLE_EQ(p.flops_per_s[2], 128 * 2e9);
  EXPECT_DOUBLE_EQ(p.flops_per_s[3], 128 * 2e9);
  EXPECT_DOUBLE_EQ(p.hbm_bytes_per_s, 20e9);
  // 4 queues x 10 GB/s exceed HBM's 20 GB/s: HBM is the DMA peak.
  EXPECT_DOUBLE_EQ(p.dma_bytes_per_s, 20e9);
}

TEST(RooflineTest, Trn1TensorPeakIsThePublishedBf16Figure) {
  auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                             "/device_model/profiles/trn1.json");
  ASSERT_TRUE(p.ok()) << p.status();
  // ~92 TFLOPS bf16 per NeuronCore-v2 (190 per two-core chip).
  EXPECT_NEAR(ComputePeaks(*p).flops_per_s[0] / 1e12, 91.75, 0.01);
}

Program OneKernel(std::vector<Instruction> instrs) {
  Program prog;
  prog.dispatches.emplace_back();
  Kernel& k = prog.dispatches[0].kernel;
  k.Intern("op");
  for (auto& in : instrs) k.Add(in, {});
  return prog;
}

Instruction Compute(Engine e, DType t, int64_t work, int64_t flops) {
  Instruction in;
  in.kind = InstrKind::kCompute;
  in.engine = e;
  in.rule = e == Engine::kTensor ? CostRule::kMatmul : CostRule::kStream;
  in.aux = 128;  // a matmul's stationary columns
  in.dtype = t;
  in.work = work;
  in.flops = flops;
  return in;
}

Instruction Dma(int64_t bytes, int32_t partitions) {
  Instruction in;
  in.kind = InstrKind::kDma;
  in.work = bytes;
  in.partitions = partitions;
  in.aux = partitions;
  return in;
}

TEST(RooflineTest, ProgramCostSumsWorkFlopsAndBytes) {
  const DeviceProfile d = TestDevice();
  // A full-size bf16 matmul (K = M = 128, N = 512), an fp32 one, and a
  // 64-partition vector op; one transfer over all four DMA engines and one
  // on a single partition.
  const Program prog = OneKernel(
      {Compute(Engine::kTensor, DType::kBf16, 512, 2 * 128 * 128 * 512),
       Compute(Engine::kTensor, DType::kFp32, 512, 2 * 128 * 128 * 512),
       Compute(Engine::kVector, DType::kBf16, 1000, 64 * 1000), Dma(8000, 128),
       Dma(2000, 1)});
  const ProgramCost c = ComputeProgramCost(prog, d);
  EXPECT_EQ(c.flops, 2 * (2 * 128 * 128 * 512) + 64 * 1000);
  EXPECT_EQ(c.dma_bytes, 10000);
  EXPECT_EQ(c.dma_chunks, 5);
  EXPECT_EQ(c.dma_transfers, 2);
  const EngineCost& t = c.engines[0];
  EXPECT_EQ(t.instructions, 2);
  // 512 columns at 1e3/us, and 4x longer in fp32.
  EXPECT_NEAR(t.work_us, 0.512 + 2.048, 1e-12);
  // Both are above the minimum initiation interval: no padding.
  EXPECT_NEAR(t.overhead_us, 0.0, 1e-12);
  EXPECT_NEAR(t.peak_us, t.work_us, 1e-12);  // full tiles: at peak
  // Half the partitions idle: the vector op takes twice its peak time.
  const EngineCost& v = c.engines[1];
  EXPECT_NEAR(v.work_us, 0.5, 1e-12);
  EXPECT_NEAR(v.peak_us, 0.25, 1e-12);
  EXPECT_NEAR(c.compute_floor_us, t.peak_us, 1e-12);
  EXPECT_NEAR(c.memory_floor_us, 10000 / 2e4, 1e-12);
}

TEST(RooflineTest, AnHbmCopyIsTwiceItsBytesOfHbmTraffic) {
  const DeviceProfile d = TestDevice();
  Instruction copy = Dma(8000, 128);
  copy.hbm_to_hbm = true;
  const ProgramCost c = ComputeProgramCost(OneKernel({copy, Dma(2000, 1)}), d);
  EXPECT_EQ(c.dma_bytes, 10000);  // what the engines move
  EXPECT_EQ(c.hbm_bytes, 18000);  // what HBM serves: the copy reads and writes
  // HBM (2e4 B/us) is the tighter bound: 18000 B of traffic.
  EXPECT_NEAR(c.memory_floor_us, 18000 / 2e4, 1e-12);
  const Roofline r = ComputeRoofline(c, ComputePeaks(d), 1.0);
  EXPECT_DOUBLE_EQ(r.hbm_bytes, 18000);
}

TEST(RooflineTest, AnSbufCopyIsNoHbmTraffic) {
  const DeviceProfile d = TestDevice();
  Instruction copy = Dma(8000, 128);
  copy.on_chip = true;
  const ProgramCost c = ComputeProgramCost(OneKernel({copy, Dma(2000, 1)}), d);
  EXPECT_EQ(c.dma_bytes, 10000);  // what the engines move
  EXPECT_EQ(c.hbm_bytes, 2000);   // the load alone reads HBM
}

TEST(RooflineTest, ClassifiesByTheLargerFloor) {
  const DevicePeaks peaks = ComputePeaks(TestDevice());
  ProgramCost c;
  c.flops = 1'000'000;
  c.dma_bytes = 1'000'000;
  c.hbm_bytes = 1'000'000;
  c.compute_floor_us = 2.0;
  c.memory_floor_us = 50.0;
  Roofline r = ComputeRoofline(c, peaks, 100.0);
  EXPECT_TRUE(r.memory_bound);
  EXPECT_DOUBLE_EQ(r.arithmetic_intensity, 1.0);
  EXPECT_DOUBLE_EQ(r.compute_roof_flops_per_s, 1e6 / 2e-6);
  EXPECT_DOUBLE_EQ(r.ridge_point, 5e11 / 20e9);
  EXPECT_DOUBLE_EQ(r.attainable_flops_per_s, 1.0 * 20e9);
  EXPECT_DOUBLE_EQ(r.achieved_flops_per_s, 1e6 / 100e-6);
  EXPECT_DOUBLE_EQ(r.attained_fraction, 1e10 / 20e9);
  c.compute_floor_us = 60.0;
  r = ComputeRoofline(c, peaks, 100.0);
  EXPECT_FALSE(r.memory_bound);
  EXPECT_LT(r.compute_roof_flops_per_s,
            r.arithmetic_intensity * r.memory_roof_bytes_per_s);
}

TEST(RooflineTest, NoBytesIsInfiniteIntensityAndNoFlopsUsesTheDevicePeak) {
  const DevicePeaks peaks = ComputePeaks(TestDevice());
  ProgramCost c;
  c.flops = 100;
  c.compute_floor_us = 1;
  Roofline r = ComputeRoofline(c, peaks, 2);
  EXPECT_TRUE(std::isinf(r.arithmetic_intensity));
  EXPECT_FALSE(r.memory_bound);
  ProgramCost copy;
  copy.dma_bytes = 100;
  copy.hbm_bytes = 100;
  copy.memory_floor_us = 1;
  r = ComputeRoofline(copy, peaks, 2);
  EXPECT_EQ(r.arithmetic_intensity, 0.0);
  EXPECT_EQ(r.compute_roof_flops_per_s, peaks.flops_per_s[0]);
  EXPECT_TRUE(r.memory_bound);
  EXPECT_EQ(r.attainable_flops_per_s, 0.0);
}

}  // namespace
}  // namespace trn
