// Lowering of specs to programs: FLOPs per instruction, loop nests and the
// instruction order of multi-buffered loops.
#include "workloads/lowering.h"

#include <algorithm>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "workloads/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;

DeviceProfile Profile() {
  auto p = ParseDeviceProfile(trn::testing::TestProfile().dump(), "test");
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

WorkloadSpec Parse(const Json& j) {
  auto s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : WorkloadSpec{};
}

Program LowerOrDie(const WorkloadSpec& spec) {
  auto p = Lower(spec, Profile());
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : Program{};
}

// The seed's exp kernel on `rows` x 512 fp32 with `buffers` buffers.
Json Exp(int rows, int buffers) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "exp", "family": "exp",
    "description": "test", "mode": "nki",
    "tensors": [{"name": "in_tensor", "shape": [256, 512], "dtype": "fp32"},
                {"name": "out_tensor", "shape": [256, 512], "dtype": "fp32"}],
    "kernel": {"source_file": "exp.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "in_tensor",
      "tile_partitions": 128, "buffers": 1, "body": [
        {"id": "in_tile", "op": "load", "tensor": "in_tensor", "line": 1},
        {"id": "out_tile", "op": "activation", "engine": "scalar",
         "func": "exp", "inputs": ["in_tile"], "line": 2},
        {"op": "store", "tensor": "out_tensor", "inputs": ["out_tile"],
         "line": 3}]}]}
  })");
  j["tensors"][0]["shape"][0] = rows;
  j["tensors"][1]["shape"][0] = rows;
  j["kernel"]["loops"][0]["buffers"] = buffers;
  return j;
}

// "<opcode>/<iteration>" of each transfer's first piece and each compute
// instruction, in program order.
std::vector<std::string> Order(const Kernel& k) {
  std::vector<std::string> out;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind == InstrKind::kDma && in.transfer != i) continue;
    out.push_back(k.strings[in.opcode] + "/" + std::to_string(in.iteration));
  }
  return out;
}

bool DependsOn(const Kernel& k, size_t i, size_t j) {
  const Instruction& in = k.instrs[i];
  for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
    if (k.deps[d] == j) return true;
  }
  return false;
}

TEST(LoweringTest, OneBufferRunsIterationsOneAfterTheOther) {
  const Program p = LowerOrDie(Parse(Exp(384, 1)));
  EXPECT_THAT(
      Order(p.dispatches[0].kernel),
      ::testing::ElementsAre("dma_load/0", "activation.exp/0", "dma_store/0",
                             "dma_load/1", "activation.exp/1", "dma_store/1",
                             "dma_load/2", "activation.exp/2", "dma_store/2"));
}

TEST(LoweringTest, TwoBuffersIssueTheNextLoadBeforeThisCompute) {
  const Program p = LowerOrDie(Parse(Exp(384, 2)));
  const Kernel& k = p.dispatches[0].kernel;
  EXPECT_THAT(Order(k), ::testing::ElementsAre(
                            "dma_load/0", "dma_load/1", "activation.exp/0",
                            "dma_store/0", "dma_load/2", "activation.exp/1",
                            "dma_store/1", "activation.exp/2", "dma_store/2"));
  // Iteration 2 reuses iteration 0's buffers, so its load waits for
  // iteration 0's store; iteration 1's load waits for nothing.
  size_t load1 = 0;
  size_t load2 = 0;
  size_t store0 = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind != InstrKind::kDma || in.transfer != i) continue;
    const std::string& op = k.strings[in.opcode];
    if (op == "dma_load" && in.iteration == 1) load1 = i;
    if (op == "dma_load" && in.iteration == 2) load2 = i;
    if (op == "dma_store" && in.iteration == 0) store0 = i;
  }
  EXPECT_TRUE(DependsOn(k, load2, store0));
  const Instruction& l1 = k.instrs[load1];
  EXPECT_EQ(l1.deps_end, l1.deps_begin);
}

TEST(LoweringTest, FlopsPerInstruction) {
  Json j = Exp(256, 1);
  auto& body = j["kernel"]["loops"][0]["body"];
  body.insert(body.begin(),
              Json::parse(R"({"id": "ix", "op": "iota", "engine": "gpsimd",
                              "tile": [128, 1], "dtype": "int32",
                              "line": 1})"));
  body.push_back(Json::parse(R"({"id": "cp", "op": "tensor_copy",
                                 "engine": "vector", "inputs": ["out_tile"],
                                 "line": 4})"));
  const Program p = LowerOrDie(Parse(j));
  const Kernel& k = p.dispatches[0].kernel;
  for (const Instruction& in : k.instrs) {
    const std::string& op = k.strings[in.opcode];
    if (in.kind == InstrKind::kDma || op == "iota" || op == "tensor_copy") {
      EXPECT_EQ(in.flops, 0) << op;
    } else {
      EXPECT_EQ(in.flops, 128 * 512) << op;  // one per element
    }
  }
}

Json Matmul(int m, int k, int n, int mbuf) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "mm", "family": "mm",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "lhsT", "shape": [256, 256], "dtype": "bf16"},
      {"name": "rhs", "shape": [256, 1024], "dtype": "bf16"},
      {"name": "result", "shape": [256, 1024], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "m", "range": "affine", "tensor": "result",
      "tile_partitions": 128, "buffers": 1, "body": [
        {"id": "rhs_all", "op": "load", "tensor": "rhs", "index": [":", ":"],
         "line": 1},
        {"id": "stripe", "op": "load", "tensor": "lhsT", "index": [":", "m"],
         "line": 2},
        {"id": "row", "op": "loop", "var": "n", "range": "affine",
         "tensor": "result", "dim": 1, "step": 512, "line": 3, "body": [
          {"id": "acc", "op": "loop", "var": "k", "range": "affine",
           "tensor": "lhsT", "tile_partitions": 128, "line": 4, "body": [
            {"id": "part", "op": "matmul", "engine": "tensor",
             "inputs": ["stripe", "rhs_all"], "tile": [128, 512],
             "dtype": "fp32", "buffer": "psum", "line": 5}]},
          {"id": "res", "op": "tensor_copy", "engine": "vector",
           "inputs": ["acc"], "tile": [128, 512], "dtype": "bf16",
           "line": 6},
          {"op": "store", "tensor": "result", "inputs": ["res"],
           "index": ["m", "n"], "line": 7}]}]}]}
  })");
  j["tensors"][0]["shape"] = {k, m};
  j["tensors"][1]["shape"] = {k, n};
  j["tensors"][2]["shape"] = {m, n};
  j["kernel"]["loops"][0]["buffers"] = mbuf;
  return j;
}

TEST(LoweringTest, AMatmulNestCountsTwoKmnFlopsOnBf16Inputs) {
  const int m = 256;
  const int k = 384;
  const int n = 1024;
  const Program p = LowerOrDie(Parse(Matmul(m, k, n, 1)));
  const Kernel& kern = p.dispatches[0].kernel;
  int64_t flops = 0;
  int matmuls = 0;
  int64_t dma_bytes = 0;
  for (const Instruction& in : kern.instrs) {
    if (in.kind == InstrKind::kDma) {
      dma_bytes += in.work;
      continue;
    }
    if (in.engine != Engine::kTensor) continue;
    ++matmuls;
    flops += in.flops;
    EXPECT_EQ(in.dtype, DType::kBf16);  // not PSUM's fp32
    EXPECT_EQ(in.work, 512);            // moving columns streamed
  }
  EXPECT_EQ(matmuls, (m / 128) * (n / 512) * (k / 128));
  EXPECT_EQ(flops, int64_t{2} * m * k * n);
  // rhs once per m tile, the lhsT stripe once per m tile, result once.
  const int64_t rhs = int64_t{k} * n * 2;
  const int64_t lhs = int64_t{k} * m * 2;
  const int64_t out = int64_t{m} * n * 2;
  EXPECT_EQ(dma_bytes, (m / 128) * rhs + lhs + out);
}

TEST(LoweringTest, ACopyWaitsForTheWholeContractionLoop) {
  const Program p = LowerOrDie(Parse(Matmul(128, 512, 512, 1)));
  const Kernel& k = p.dispatches[0].kernel;
  size_t last_matmul = 0;
  size_t copy = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind != InstrKind::kCompute) continue;
    if (in.engine == Engine::kTensor) last_matmul = i;
    if (in.engine == Engine::kVector) copy = i;
  }
  EXPECT_GT(copy, last_matmul);
  EXPECT_TRUE(DependsOn(k, copy, last_matmul));
}

TEST(LoweringTest, TorchMatmulFlops) {
  const Json j = Json::parse(R"({
    "schema_version": 1, "name": "mm", "family": "mm", "description": "t",
    "mode": "compiled",
    "tensors": [{"name": "a", "shape": [256, 64], "dtype": "bf16"},
                {"name": "b", "shape": [64, 32], "dtype": "bf16"},
                {"name": "c", "shape": [256, 32], "dtype": "bf16"}],
    "ops": [{"op": "aten::matmul", "inputs": ["a", "b"], "output": "c"}]
  })");
  const Program p = LowerOrDie(Parse(j));
  int64_t flops = 0;
  for (const Instruction& in : p.dispatches[0].kernel.instrs) {
    flops += in.flops;
  }
  EXPECT_EQ(flops, 2 * 256 * 64 * 32);
}

}  // namespace
}  // namespace trn
