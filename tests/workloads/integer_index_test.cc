// An index variable that takes one element of a dim per iteration (NKI's
// integer index, `scores_t[k, ...]`) where its loop walks another tensor's
// dim in tiles: accepted when the dim has as many elements as the loop has
// iterations, and moved one element at a time.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using trn::testing::LowerOrDie;

// k walks the 512 columns of x in tiles of 128 (4 iterations); each tile is
// loaded (line 2) and stored as slot k of y (line 3), whose dim 0 has
// `slots` elements.
Json Transposed(int64_t slots) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "t", "family": "t",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [128, 512], "dtype": "fp32"},
      {"name": "y", "shape": [4, 128, 128], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "t.py", "loops": [{
      "var": "k", "range": "affine", "tensor": "x", "dim": 1, "step": 128,
      "body": [
        {"id": "t", "op": "load", "tensor": "x", "index": [":", "k"],
         "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["t"],
         "index": ["k", ":", ":"], "line": 3}]}]}
  })");
  j["tensors"][1]["shape"][0] = slots;
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

TEST(IntegerIndexTest, EachIterationMovesOneElementOfTheDim) {
  const Kernel k = LowerOrDie(Transposed(4));
  int stores = 0;
  for (const Instruction& in : k.instrs) {
    if (in.source_line != 3) continue;
    ++stores;
    // One [128, 128] fp32 slot of y, not 128 of its 4 slots.
    EXPECT_EQ(in.work, 128 * 128 * 4);
  }
  EXPECT_EQ(stores, 4);
}

TEST(IntegerIndexTest, ADimOfAnotherCountIsRefused) {
  auto spec = Parse(Transposed(5));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/1/index/0: loop \"k\" walks dim "
                        "1 of \"x\" (512), but dim 0 of \"y\" is 5"));
}

}  // namespace
}  // namespace trn
