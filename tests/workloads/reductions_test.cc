// The second output of an accumulate op: `exp_row[:, j] = nisa.activation(
// exp, qk[j], reduce_res=sums[:, j])` writes a [128, 512] tile and its
// [128, 1] sum in one instruction. A "reduction" op after the loop names
// the block of those sums, read whole or slot by slot, with no instruction
// of its own.
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

// The 2026-02 attention v6 softmax, small: Q @ K^T into a PSUM block (line
// 4), exp of each slot with its row sum (line 6, one instruction), the sums
// as a block (line 7), each slot's sum read on its own (line 9) and all of
// them read whole (line 10), stored (line 11).
Json Softmax() {
  Json j = trn::testing::QkBlockSpec();
  Json& body = j["kernel"]["loops"][0]["body"];
  for (const char* op : {
           R"({"id": "exp_row", "op": "loop", "var": "kv2", "range": "affine",
               "tensor": "k", "dim": 1, "step": 512, "line": 5, "body": [
                {"id": "e", "op": "activation", "func": "exp",
                 "accumulate": true, "inputs": ["qk[kv2]"],
                 "tile": [128, 512], "dtype": "fp32", "line": 6}]})",
           R"({"id": "sums", "op": "reduction", "inputs": ["exp_row"],
               "tile": [128, 1], "dtype": "fp32", "line": 6})",
           R"({"id": "scaled", "op": "loop", "var": "kv3", "range": "affine",
               "tensor": "k", "dim": 1, "step": 512, "line": 8, "body": [
                {"id": "r", "op": "reciprocal", "engine": "vector",
                 "inputs": ["sums[kv3]"], "tile": [128, 1], "dtype": "fp32",
                 "line": 9}]})",
           R"({"id": "total", "op": "tensor_reduce", "engine": "vector",
               "inputs": ["sums"], "after": ["scaled"], "tile": [128, 1],
               "dtype": "fp32", "line": 10})",
           R"({"op": "store", "tensor": "out", "inputs": ["total"],
               "line": 11})"}) {
    body.push_back(Json::parse(op));
  }
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

std::string Refusal(const Json& j) {
  auto spec = Parse(j);
  EXPECT_FALSE(spec.ok());
  return spec.ok() ? std::string() : std::string(spec.status().message());
}

Json& Reduction(Json& j) { return j["kernel"]["loops"][0]["body"][3]; }

using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

TEST(ReductionsTest, IsNoInstruction) {
  const Kernel k = LowerOrDie(Softmax());
  // Line 6 is the four activations only: the reduction adds nothing.
  EXPECT_EQ(AtLine(k, 6).size(), 4u);
}

TEST(ReductionsTest, EachSlotsReaderWaitsForItsOwnActivation) {
  const Kernel k = LowerOrDie(Softmax());
  const std::vector<size_t> act = AtLine(k, 6);
  const std::vector<size_t> rcp = AtLine(k, 9);
  ASSERT_EQ(act.size(), 4u);
  ASSERT_EQ(rcp.size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    for (size_t s = 0; s < 4; ++s) {
      EXPECT_EQ(DependsOn(k, rcp[j], act[s]), s == j) << j << s;
    }
  }
}

TEST(ReductionsTest, AWholeReadWaitsForEveryActivationAtTheSumsShape) {
  const Kernel k = LowerOrDie(Softmax());
  const std::vector<size_t> total = AtLine(k, 10);
  ASSERT_EQ(total.size(), 1u);
  for (size_t a : AtLine(k, 6)) EXPECT_TRUE(DependsOn(k, total[0], a)) << a;
  // Costed over the [128, 1] sums it reads, not the [128, 512] exp tiles.
  EXPECT_EQ(k.instrs[total[0]].work, 1);
}

TEST(ReductionsTest, HoldsOneTilePerIterationUntilItsLastReader) {
  // A [128, 4096] fp32 load after the reduction and before `total` reads
  // it is the SBUF peak; the sums are live there, 4 slots of 4 B.
  Json j = Softmax();
  j["tensors"].push_back(
      Json::parse(R"({"name": "w", "shape": [128, 4096], "dtype": "fp32"})"));
  Json& body = j["kernel"]["loops"][0]["body"];
  body.insert(body.begin() + 4, Json::parse(R"({"id": "big", "op": "load",
      "tensor": "w", "index": [":", ":"], "line": 7})"));
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const MemoryPeak& peak = spec->compiled.sbuf;
  EXPECT_EQ(peak.at, "/kernel/loops/0/body/4");
  bool found = false;
  for (const LiveTile& t : peak.live) {
    if (t.id != "sums") continue;
    found = true;
    EXPECT_EQ(t.bytes * t.copies, 4 * 4);
  }
  EXPECT_TRUE(found);
}

TEST(ReductionsTest, NamesAnAccumulateOp) {
  Json j = Softmax();
  j["kernel"]["loops"][0]["body"][2]["body"][0].erase("accumulate");
  EXPECT_THAT(Refusal(j), HasSubstr("\"e\" is an activation without "
                                    "\"accumulate\": true"));
}

TEST(ReductionsTest, NamesAnOpOfItsOwnBody) {
  Json j = Softmax();
  j["kernel"]["loops"][0]["body"][4]["body"].push_back(Json::parse(
      R"({"id": "again", "op": "reduction", "inputs": ["exp_row"],
          "tile": [128, 1], "line": 9})"));
  EXPECT_THAT(Refusal(j), HasSubstr("a reduction reads an op of its own "
                                    "loop body"));
}

TEST(ReductionsTest, NamesAWholeBlock) {
  Json j = Softmax();
  Reduction(j)["inputs"][0] = "exp_row[i]";
  EXPECT_THAT(Refusal(j), HasSubstr("not one of its slots"));
}

TEST(ReductionsTest, HasATileOfOneColumn) {
  Json j = Softmax();
  Reduction(j)["tile"] = Json::array({128, 2});
  EXPECT_THAT(Refusal(j), HasSubstr("[partitions, 1]"));
}

TEST(ReductionsTest, RunsOnNoEngine) {
  Json j = Softmax();
  Reduction(j)["engine"] = "vector";
  EXPECT_THAT(Refusal(j),
              HasSubstr("key \"engine\" does not apply to a reduction"));
}

}  // namespace
}  // namespace trn
