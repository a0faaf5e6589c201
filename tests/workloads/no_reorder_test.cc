// "no_reorder": a loop whose ops the scheduler may not reorder (NKI's
// no_reorder directive): it and the loops nested in it issue their ops in
// body order, iteration after iteration, with no prefetch stage issued
// ahead.
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

// Four row tiles of x, two in flight: load (line 1), copy (line 2), store
// (line 3); with `nested`, the body is one loop over two column blocks.
Json Rows(bool no_reorder, bool nested = false) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "rows", "family": "rows",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 512], "dtype": "fp32"},
      {"name": "y", "shape": [512, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "rows.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "buffers": 2, "body": [
        {"id": "a", "op": "load", "tensor": "x", "line": 1},
        {"id": "b", "op": "tensor_copy", "engine": "vector", "inputs": ["a"],
         "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["b"], "line": 3}]}]}
  })");
  Json& loop = j["kernel"]["loops"][0];
  if (nested) {
    Json inner = Json::parse(R"({"op": "loop", "var": "j", "range": "affine",
      "tensor": "x", "dim": 1, "step": 256, "buffers": 2, "line": 4,
      "body": [
        {"id": "a", "op": "load", "tensor": "x", "index": ["i", "j"],
         "line": 1},
        {"id": "b", "op": "tensor_copy", "engine": "vector", "inputs": ["a"],
         "tile": [128, 256], "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["b"], "index": ["i", "j"],
         "line": 3}]})");
    loop["body"] = Json::array({inner});
    loop["buffers"] = 1;
  }
  if (no_reorder) loop["no_reorder"] = true;
  return j;
}

using trn::testing::AtLine;
using trn::testing::LowerOrDie;

TEST(NoReorderTest, TheNextLoadIsNotIssuedAhead) {
  const Kernel plain = LowerOrDie(Rows(false));
  const Kernel kept = LowerOrDie(Rows(true));
  // Software-pipelined, iteration 1's load comes before iteration 0's
  // copy in program order; in source order, after iteration 0's store.
  EXPECT_LT(AtLine(plain, 1)[1], AtLine(plain, 2)[0]);
  EXPECT_GT(AtLine(kept, 1)[1], AtLine(kept, 3)[0]);
  EXPECT_EQ(AtLine(kept, 1).size(), AtLine(plain, 1).size());
}

TEST(NoReorderTest, HoldsForTheLoopsNestedInIt) {
  const Kernel plain = LowerOrDie(Rows(false, true));
  const Kernel kept = LowerOrDie(Rows(true, true));
  EXPECT_LT(AtLine(plain, 1)[1], AtLine(plain, 2)[0]);
  EXPECT_GT(AtLine(kept, 1)[1], AtLine(kept, 3)[0]);
}

TEST(NoReorderTest, AnOpMayNotWaitForALaterOne) {
  Json j = Rows(true);
  Json& body = j["kernel"]["loops"][0]["body"];
  // The copy first, reading the load after it: a valid body, out of order.
  std::swap(body[0], body[1]);
  auto plain_spec = Rows(false);
  std::swap(plain_spec["kernel"]["loops"][0]["body"][0],
            plain_spec["kernel"]["loops"][0]["body"][1]);
  EXPECT_TRUE(ParseSpec(plain_spec.dump(), "spec.json", MemoryLimits{}).ok());
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/0: waits for \"a\", made later "
                        "in the body"));
}

TEST(NoReorderTest, IsAKeyOfLoopsOnly) {
  Json j = Rows(false);
  j["kernel"]["loops"][0]["body"][1]["no_reorder"] = true;
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("key \"no_reorder\" does not apply to a tensor_copy"));
}

}  // namespace
}  // namespace trn
