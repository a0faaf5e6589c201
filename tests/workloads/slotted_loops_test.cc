// Slotted loops (NkiLowering::LoopPlan::slotted: a loop whose ops are all
// simple keeps its iterations' tiles and readers by slot, and a compute
// op's form is reused while its inputs' shapes are those it was made of)
// make the program the reference path makes (NkiLoweringOptions::shortcuts
// off), instruction for instruction, on the cases they take: partial last
// tiles along either dim, one to three buffers, nested loops, ops reading
// tiles of the loop around, a loop's results, reductions read whole and
// slot by slot, PSUM inputs.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/nki_lowering.h"

namespace trn {
namespace {

using Json = nlohmann::json;

// Lowers `j` with and without the shortcuts and expects the same program.
void ExpectAsTheReference(const Json& j, const std::string& what) {
  auto profile = ParseDeviceProfile(testing::TestProfile().dump(), "test");
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << what << ": " << spec.status();
  ASSERT_TRUE(CompileSpec(*spec, profile->memory).ok()) << what;
  lowering_internal::NkiLoweringOptions reference;
  reference.shortcuts = false;
  auto fast = lowering_internal::LowerNki(*spec, *profile);
  auto slow = lowering_internal::LowerNki(*spec, *profile, reference);
  ASSERT_TRUE(fast.ok()) << what << ": " << fast.status();
  ASSERT_TRUE(slow.ok()) << what << ": " << slow.status();
  EXPECT_GT(fast->InstructionCount(), 0) << what;
  EXPECT_EQ(lowering_internal::ProgramDifference(*fast, *slow), "") << what;
}

// One loop over x's row tiles (the last partial unless rows divides by
// 128) of `buffers` buffers: exp_tiled's mask, load, exp and store, then
// ops reading two tiles of the iteration (one of them twice), a row sum of
// a tile and its store.
Json Chain(int rows, int buffers) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "c", "family": "c",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [0, 512], "dtype": "fp32"},
      {"name": "out", "shape": [0, 512], "dtype": "fp32"},
      {"name": "sums", "shape": [0, 1], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "c.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "body": [
        {"id": "i_p", "op": "iota", "engine": "gpsimd", "tile": [128, 1],
         "dtype": "int32", "line": 1},
        {"id": "mask", "op": "tensor_scalar", "inputs": ["i_p"],
         "tile": [128, 1], "dtype": "int32", "line": 2},
        {"id": "t", "op": "load", "tensor": "x", "mask": "mask", "line": 3},
        {"id": "e", "op": "activation", "engine": "scalar", "func": "exp",
         "inputs": ["t"], "line": 4},
        {"id": "s", "op": "tensor_tensor", "engine": "vector",
         "inputs": ["e", "t"], "after": ["e"], "line": 5},
        {"id": "r", "op": "tensor_reduce", "engine": "vector",
         "inputs": ["s"], "tile": [128, 1], "line": 6},
        {"op": "store", "tensor": "out", "inputs": ["s"], "mask": "mask",
         "line": 7},
        {"op": "store", "tensor": "sums", "inputs": ["r"], "mask": "mask",
         "line": 8}
      ]}]}
  })");
  for (Json& t : j["tensors"]) t["shape"][0] = rows;
  j["kernel"]["loops"][0]["buffers"] = buffers;
  return j;
}

// Row tiles of x (`outer` buffers; rows a multiple of 128), each loading
// its bias; in each, a loop over 512-column tiles of x (`inner` buffers;
// the last partial unless cols divides by 512) whose exp reads the bias of the
// loop around and whose row max is the loop's result, read after it by the body
// around.
Json Nested(int rows, int cols, int outer, int inner) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "n", "family": "n",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [0, 0], "dtype": "fp32"},
      {"name": "bias", "shape": [0, 1], "dtype": "fp32"},
      {"name": "out", "shape": [0, 0], "dtype": "fp32"},
      {"name": "maxes", "shape": [0, 1], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "n.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "body": [
        {"id": "b", "op": "load", "tensor": "bias", "line": 1},
        {"op": "loop", "var": "c", "range": "affine", "tensor": "x",
         "dim": 1, "step": 512, "results": ["m"], "line": 2, "body": [
          {"id": "i_f", "op": "iota", "engine": "gpsimd", "tile": [1, 512],
           "dtype": "int32", "line": 3},
          {"id": "fmask", "op": "tensor_scalar", "inputs": ["i_f"],
           "tile": [1, 512], "dtype": "int32", "line": 3},
          {"id": "t", "op": "load", "tensor": "x", "index": ["p", "c"],
           "mask": "fmask", "line": 3},
          {"id": "e", "op": "activation", "engine": "scalar", "func": "exp",
           "inputs": ["t", "b"], "tile": [128, 512], "line": 4},
          {"id": "m", "op": "tensor_reduce", "engine": "vector",
           "inputs": ["e"], "tile": [128, 1], "line": 5},
          {"op": "store", "tensor": "out", "inputs": ["e"],
           "index": ["p", "c"], "mask": "fmask", "line": 6}]},
        {"id": "mb", "op": "tensor_tensor", "engine": "vector",
         "inputs": ["m", "b"], "tile": [128, 1], "line": 7},
        {"op": "store", "tensor": "maxes", "inputs": ["mb"], "line": 8}
      ]}]}
  })");
  for (Json& t : j["tensors"]) {
    t["shape"][0] = rows;
    if (t["shape"][1] == 0) t["shape"][1] = cols;
  }
  j["kernel"]["loops"][0]["buffers"] = outer;
  j["kernel"]["loops"][0]["body"][1]["buffers"] = inner;
  return j;
}

// reductions_test's softmax with `rows` rows of q (`buffers` buffers):
// Q @ K^T into a PSUM block, the exp of each slot (a PSUM input) with its
// row sum, the sums' block (a reduction) read by a loop slot by slot and
// whole, and whole after it.
Json Softmax(int rows, int buffers) {
  Json j = trn::testing::QkBlockSpec();
  j["tensors"][0]["shape"][0] = rows;
  j["tensors"][2]["shape"][0] = rows;
  Json& loop = j["kernel"]["loops"][0];
  loop["buffers"] = buffers;
  Json& body = loop["body"];
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
                {"id": "r", "op": "tensor_tensor", "engine": "vector",
                 "inputs": ["sums[kv3]", "sums"], "tile": [128, 1],
                 "dtype": "fp32", "line": 9}]})",
           R"({"id": "total", "op": "tensor_reduce", "engine": "vector",
               "inputs": ["sums"], "after": ["scaled"], "tile": [128, 1],
               "dtype": "fp32", "line": 10})",
           R"({"op": "store", "tensor": "out", "inputs": ["total"],
               "line": 11})"}) {
    body.push_back(Json::parse(op));
  }
  return j;
}

TEST(SlottedLoopsTest, OneLoopLowersAsTheReferenceDoes) {
  for (const int rows : {1024, 1000, 100, 129}) {
    for (const int buffers : {1, 2, 3}) {
      ExpectAsTheReference(Chain(rows, buffers),
                           "chain " + std::to_string(rows) + " rows, " +
                               std::to_string(buffers) + " buffers");
    }
  }
}

TEST(SlottedLoopsTest, NestedLoopsLowerAsTheReferenceDoes) {
  for (const auto& [rows, cols] :
       {std::pair{512, 2048}, std::pair{384, 2000}, std::pair{128, 300}}) {
    for (const int outer : {1, 2}) {
      for (const int inner : {1, 2, 3}) {
        ExpectAsTheReference(Nested(rows, cols, outer, inner),
                             "nested " + std::to_string(rows) + "x" +
                                 std::to_string(cols) + ", buffers " +
                                 std::to_string(outer) + " and " +
                                 std::to_string(inner));
      }
    }
  }
}

TEST(SlottedLoopsTest, ReductionsAndPsumInputsLowerAsTheReferenceDoes) {
  for (const int rows : {128, 512}) {
    for (const int buffers : {1, 2}) {
      ExpectAsTheReference(Softmax(rows, buffers),
                           "softmax " + std::to_string(rows) + " rows, " +
                               std::to_string(buffers) + " buffers");
    }
  }
}

}  // namespace
}  // namespace trn
