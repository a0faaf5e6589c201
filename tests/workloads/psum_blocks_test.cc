// A block of PSUM matmul results: `qk[kv] = nisa.nc_matmul(...)` writes its
// own PSUM tile per iteration ("overwrite": true), so its loop keeps a
// block that a later loop reads slot by slot, one bank per slot; without
// the key a matmul into PSUM accumulates and its loop has no slots.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// The 2026-02 attention tutorial's softmax step, small: Q @ K^T in `kv`
// tiles of 512 columns into the PSUM block "qk" (lines 3-4), then each
// tile's row max (line 6), the max of those (line 7), stored (line 8).
Json Attention(int64_t kv_columns, bool overwrite) {
  Json j = trn::testing::QkBlockSpec();
  Json& body = j["kernel"]["loops"][0]["body"];
  body.push_back(Json::parse(R"({"id": "maxes", "op": "loop", "var": "kv2",
      "range": "affine", "tensor": "k", "dim": 1, "step": 512, "line": 5,
      "body": [
        {"id": "m", "op": "tensor_reduce", "engine": "vector",
         "inputs": ["qk[kv2]"], "tile": [128, 1], "dtype": "fp32",
         "line": 6}]})"));
  body.push_back(Json::parse(R"({"id": "r", "op": "tensor_reduce",
      "engine": "vector", "inputs": ["maxes"], "tile": [128, 1],
      "dtype": "fp32", "line": 7})"));
  body.push_back(Json::parse(
      R"({"op": "store", "tensor": "out", "inputs": ["r"], "line": 8})"));
  j["tensors"][1]["shape"][1] = kv_columns;
  if (!overwrite) body[1]["body"][1].erase("overwrite");
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

TEST(PsumBlocksTest, AnAccumulatingMatmulsLoopHasNoSlots) {
  auto spec = Parse(Attention(2048, /*overwrite=*/false));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("\"qk\" is not a block"));
}

TEST(PsumBlocksTest, EachSlotsReaderWaitsForItsOwnMatmul) {
  const Kernel k = LowerOrDie(Attention(2048, /*overwrite=*/true));
  const std::vector<size_t> mm = AtLine(k, 4);
  const std::vector<size_t> max = AtLine(k, 6);
  ASSERT_EQ(mm.size(), 4u);
  ASSERT_EQ(max.size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    for (size_t s = 0; s < 4; ++s) {
      EXPECT_EQ(DependsOn(k, max[j], mm[s]), s == j) << j << s;
    }
  }
}

TEST(PsumBlocksTest, EverySlotHoldsABankUntilItsReader) {
  // Eight [128, 512] fp32 slots are PSUM's 8 banks; a ninth does not fit.
  EXPECT_TRUE(Parse(Attention(8 * 512, /*overwrite=*/true)).ok());
  auto spec = Parse(Attention(9 * 512, /*overwrite=*/true));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("PSUM overflow: the live tiles need 9 banks"));
}

TEST(PsumBlocksTest, OverwriteIsAMatmulKey) {
  Json j = Attention(2048, /*overwrite=*/true);
  j["kernel"]["loops"][0]["body"][3]["overwrite"] = true;  // tensor_reduce
  auto spec = Parse(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/3"));
}

}  // namespace
}  // namespace trn
