// Which engine can transpose what (NKI ISA reference, nc_transpose):
// VectorE a tile of at most [32, 32], TensorE one of at most [128, 128],
// into PSUM. A larger transpose in SBUF or stated on VectorE is refused.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// x [n, n] loaded, transposed (line 2), copied back to SBUF, stored.
Json Transpose(int64_t n) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "tr", "family": "tr",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [128, 128], "dtype": "bf16"},
      {"name": "y", "shape": [128, 128], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "tr.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x", "dim": 1, "step": 128,
      "body": [
        {"id": "x_t", "op": "load", "tensor": "x", "index": [":", ":"],
         "line": 1},
        {"id": "t", "op": "transpose", "inputs": ["x_t"], "tile": [128, 128],
         "dtype": "bf16", "line": 2},
        {"id": "c", "op": "tensor_copy", "inputs": ["t"], "tile": [128, 128],
         "dtype": "bf16", "line": 3},
        {"op": "store", "tensor": "y", "inputs": ["c"], "index": [":", ":"],
         "line": 4}]}]}
  })");
  for (const char* t : {"x", "y"}) {
    for (Json& d : j["tensors"]) {
      if (d["name"] == t) d["shape"] = {n, n};
    }
  }
  for (int op : {1, 2}) {
    j["kernel"]["loops"][0]["body"][op]["tile"] = {n, n};
  }
  j["kernel"]["loops"][0]["step"] = n;
  return j;
}

Json& Op(Json& j) { return j["kernel"]["loops"][0]["body"][1]; }

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

TEST(TransposesTest, ALargeTransposeIntoPsumRunsOnThePeArray) {
  Json j = Transpose(128);
  Op(j)["buffer"] = "psum";
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const NkiOp& t = spec->kernel->loops[0].body[1];
  ASSERT_TRUE(t.engine.has_value());
  EXPECT_EQ(*t.engine, Engine::kTensor);
}

TEST(TransposesTest, ALargeTransposeInSbufIsRefused) {
  auto spec = Parse(Transpose(128));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/1/buffer: a [128, 128] "
                        "transpose runs on the PE array only"));
}

TEST(TransposesTest, ALargeTransposeOnVectorEIsRefused) {
  Json j = Transpose(64);
  Op(j)["buffer"] = "psum";
  Op(j)["engine"] = "vector";
  auto spec = Parse(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/1/engine: VectorE transposes "
                        "at most [32, 32]"));
}

TEST(TransposesTest, ASmallTransposeInSbufRunsOnVectorE) {
  auto spec = Parse(Transpose(32));
  ASSERT_TRUE(spec.ok()) << spec.status();
  const NkiOp& t = spec->kernel->loops[0].body[1];
  ASSERT_TRUE(t.engine.has_value());
  EXPECT_EQ(*t.engine, Engine::kVector);
}

}  // namespace
}  // namespace trn
