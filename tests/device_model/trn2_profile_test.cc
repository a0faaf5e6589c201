// The trn2 (NeuronCore-v3) profile: public figures where they exist, every
// other value carried over and said to be, and marked uncalibrated.
#include <fstream>
#include <sstream>
#include <string>

#include "device_model/device_profile.h"
#include "device_model/roofline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::StartsWith;

DeviceProfile Load(const std::string& name) {
  auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                             "/device_model/profiles/" + name + ".json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

TEST(Trn2ProfileTest, IsMarkedUncalibrated) {
  const DeviceProfile p = Load("trn2");
  EXPECT_EQ(p.name, "trn2");
  EXPECT_FALSE(p.calibrated);
  EXPECT_TRUE(Load("trn1").calibrated);
}

TEST(Trn2ProfileTest, HasThePublicNeuronCoreV3Figures) {
  const DeviceProfile p = Load("trn2");
  EXPECT_DOUBLE_EQ(p.engines[0].clock_ghz, 2.4);
  EXPECT_DOUBLE_EQ(p.engines[1].clock_ghz, 0.96);
  EXPECT_DOUBLE_EQ(p.engines[2].clock_ghz, 1.2);
  EXPECT_DOUBLE_EQ(p.engines[3].clock_ghz, 1.2);
  EXPECT_EQ(p.memory.partitions, 128);
  EXPECT_EQ(p.memory.sbuf_bytes_per_partition * 128, 28 << 20);
  EXPECT_EQ(p.memory.psum_bytes_per_partition * 128, 2 << 20);
  EXPECT_EQ(p.dma_queues, 16);
  EXPECT_DOUBLE_EQ(p.hbm_gbps * 8, 2900);
  // 79 dense BF16 TFLOPS per NeuronCore-v3 TensorE, 20 FP32.
  const DevicePeaks peaks = ComputePeaks(p);
  EXPECT_NEAR(peaks.flops_per_s[0] / 1e12, 79, 0.5);
  EXPECT_NEAR(peaks.tensor_fp32_flops_per_s / 1e12, 20, 0.2);
}

TEST(Trn2ProfileTest, EverySourceSaysWhatItIs) {
  for (const auto& [key, param] : Load("trn2").params) {
    const bool public_figure = param.source.rfind("public: ", 0) == 0 ||
                               param.source.rfind("public-derived: ", 0) == 0;
    const bool carried = param.source.rfind("unpinned: ", 0) == 0 &&
                         param.source.find("carried over") != std::string::npos;
    EXPECT_TRUE(public_figure || carried) << key << ": " << param.source;
    // Nothing on trn2 was fitted: no whole-kernel trn2 measurement exists to
    // fit to (its DMA figures are derived from the guides' own numbers).
    EXPECT_THAT(param.source, ::testing::Not(StartsWith("fitted")));
  }
}

// docs/device-profile.md lists every trn2 parameter with its source, as
// docs/calibration.md does for trn1.
TEST(Trn2ProfileTest, DocsListEveryParameterWithItsSource) {
  std::ifstream in(std::string(TRNBENCH_SOURCE_DIR) +
                   "/docs/device-profile.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  ASSERT_FALSE(doc.empty());
  for (const auto& [key, param] : Load("trn2").params) {
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos) << key;
    EXPECT_NE(doc.find(param.source), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace trn
