// Lowering of specs to programs: FLOPs per instruction, loop nests and the
// instruction order of multi-buffered loops.
#include "workloads/lowering/lowering.h"

#include <algorithm>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"

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

// "<opcode>/<iteration>" of each transfer and each compute instruction, in
// program order.
std::vector<std::string> Order(const Kernel& k) {
  std::vector<std::string> out;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    out.push_back(k.strings[in.opcode] + "/" + std::to_string(in.iteration));
  }
  return out;
}

using trn::testing::DependsOn;

TEST(LoweringTest, OneBufferRunsIterationsOneAfterTheOther) {
  const Program p = LowerOrDie(Parse(Exp(384, 1)));
  EXPECT_THAT(
      Order(p.dispatches[0].kernel),
      ::testing::ElementsAre("dma_load/0", "activation.exp/0", "dma_store/0",
                             "dma_load/1", "activation.exp/1", "dma_store/1",
                             "dma_load/2", "activation.exp/2", "dma_store/2"));
  // The next iteration's load waits for this one's store: with one buffer
  // an iteration waits for the whole one before (the seed's exp profile).
  const Kernel& k = p.dispatches[0].kernel;
  EXPECT_TRUE(DependsOn(k, 3, 2));
}

TEST(LoweringTest, TwoBuffersIssueTheNextLoadBeforeThisCompute) {
  const Program p = LowerOrDie(Parse(Exp(384, 2)));
  const Kernel& k = p.dispatches[0].kernel;
  EXPECT_THAT(Order(k), ::testing::ElementsAre(
                            "dma_load/0", "dma_load/1", "activation.exp/0",
                            "dma_store/0", "dma_load/2", "activation.exp/1",
                            "dma_store/1", "activation.exp/2", "dma_store/2"));
  // Iteration 2 reuses iteration 0's buffers tile by tile: its load
  // refills in_tile once iteration 0's exp has read it, not once iteration
  // 0's store is done, and its exp refills out_tile once that store has
  // read it. Iteration 1's load waits for nothing.
  size_t load1 = 0;
  size_t load2 = 0;
  size_t exp0 = 0;
  size_t exp2 = 0;
  size_t store0 = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    const std::string& op = k.strings[in.opcode];
    if (op == "dma_load" && in.iteration == 1) load1 = i;
    if (op == "dma_load" && in.iteration == 2) load2 = i;
    if (op == "activation.exp" && in.iteration == 0) exp0 = i;
    if (op == "activation.exp" && in.iteration == 2) exp2 = i;
    if (op == "dma_store" && in.iteration == 0) store0 = i;
  }
  EXPECT_TRUE(DependsOn(k, load2, exp0));
  EXPECT_FALSE(DependsOn(k, load2, store0));
  EXPECT_TRUE(DependsOn(k, exp2, store0));
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
  // rhs once (a whole input invariant in the m loop, kept in SBUF over
  // it: model 12), the lhsT stripe once per m tile, result once.
  const int64_t rhs = int64_t{k} * n * 2;
  const int64_t lhs = int64_t{k} * m * 2;
  const int64_t out = int64_t{m} * n * 2;
  EXPECT_EQ(dma_bytes, rhs + lhs + out);
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

// The tutorial's hoisted matmul: the k loop "kl" fills a block of K / 128
// lhsT tiles (`lhsT_tiles[k] = nl.load(...)`), then "acc" accumulates one
// matmul per block tile into a PSUM tile, loading a [128, 512] rhs tile per
// k, with `kbuf` buffers.
Json HoistedMatmul(int k, int kbuf) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "mm", "family": "mm",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "lhsT", "shape": [512, 128], "dtype": "bf16"},
      {"name": "rhs", "shape": [512, 512], "dtype": "bf16"},
      {"name": "result", "shape": [128, 512], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "m", "range": "affine", "tensor": "result",
      "tile_partitions": 128, "body": [
        {"id": "lhsT_tiles", "op": "loop", "var": "kl", "range": "affine",
         "tensor": "lhsT", "tile_partitions": 128, "line": 1, "body": [
          {"id": "lhsT_tile", "op": "load", "tensor": "lhsT",
           "index": ["kl", "m"], "line": 2}]},
        {"id": "acc", "op": "loop", "var": "k", "range": "affine",
         "tensor": "lhsT", "tile_partitions": 128, "line": 4, "body": [
          {"id": "rhs_tile", "op": "load", "tensor": "rhs",
           "index": ["k", ":"], "line": 3},
          {"id": "part", "op": "matmul", "engine": "tensor",
           "inputs": ["lhsT_tiles", "rhs_tile"], "tile": [128, 512],
           "dtype": "fp32", "buffer": "psum", "line": 5}]},
        {"id": "res", "op": "tensor_copy", "engine": "vector",
         "inputs": ["acc"], "tile": [128, 512], "dtype": "bf16", "line": 6},
        {"op": "store", "tensor": "result", "inputs": ["res"], "line": 7}]}]}
  })");
  j["tensors"][0]["shape"][0] = k;
  j["tensors"][1]["shape"][0] = k;
  j["kernel"]["loops"][0]["body"][1]["buffers"] = kbuf;
  return j;
}

TEST(BlockLoopTest, AMatmulReadingABlockOfBf16TilesRunsAtTheBf16Rate) {
  const Program p = LowerOrDie(Parse(HoistedMatmul(512, 1)));
  int matmuls = 0;
  for (const Instruction& in : p.dispatches[0].kernel.instrs) {
    if (in.kind != InstrKind::kCompute || in.engine != Engine::kTensor) {
      continue;
    }
    ++matmuls;
    // The block's element is a [128, 128] bf16 tile; PSUM's fp32 would
    // cost four times as much.
    EXPECT_EQ(in.dtype, DType::kBf16);
  }
  EXPECT_EQ(matmuls, 4);
}

TEST(BlockLoopTest, IterationsFillingABlockDoNotWaitForOneAnother) {
  const Program p = LowerOrDie(Parse(HoistedMatmul(512, 1)));
  const Kernel& k = p.dispatches[0].kernel;
  std::vector<size_t> block_loads;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    if (k.instrs[i].kind == InstrKind::kDma && k.instrs[i].source_line == 2) {
      block_loads.push_back(i);
    }
  }
  ASSERT_EQ(block_loads.size(), 4u);
  // Each iteration writes its own slot of lhsT_tiles: with one buffer on
  // "kl" the loads would otherwise run one after the other.
  for (size_t a : block_loads) {
    for (size_t b : block_loads) EXPECT_FALSE(DependsOn(k, a, b)) << a << b;
  }
}

TEST(BlockLoopTest, ABlockHoldsEveryIterationsTileInSbuf) {
  // 769 tiles of [128, 128] bf16 = 769 x 256 B, more than SBUF's 196608 B
  // per partition; one buffer of one tile would be 256 B.
  auto s = ParseSpec(HoistedMatmul(769 * 128, 1).dump(), "spec.json",
                     MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              ::testing::HasSubstr("lhsT_tiles 256 B x 769"));
  EXPECT_TRUE(
      ParseSpec(HoistedMatmul(512 * 128, 1).dump(), "spec.json", MemoryLimits{})
          .ok());
}

TEST(BlockLoopTest, AnAccumulatorIsOnePsumTileWhateverItsLoopsBuffers) {
  // Nine buffers of a 2 KiB PSUM tile would be 18 KiB of PSUM's 16 KiB; the
  // tile every iteration accumulates into is one tile.
  EXPECT_TRUE(
      ParseSpec(HoistedMatmul(512, 9).dump(), "spec.json", MemoryLimits{})
          .ok());
}

// K blocked as the tutorial's fully optimized matmul does it: a sequential
// loop "k" over blocks of `block` rows of x (dim 0 with a step), whose
// nested loop "kk" loads the block's 128-row tiles, and whose id "state"
// names the SBUF sum it updates in place; `kbuf` buffers on "k".
Json BlockedK(int rows, int block, int kbuf) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "bk", "family": "bk",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 512], "dtype": "bf16"},
      {"name": "out", "shape": [128, 512], "dtype": "bf16"}
    ],
    "kernel": {"source_file": "bk.py", "loops": [{
      "var": "n", "range": "affine", "tensor": "out",
      "tile_partitions": 128, "body": [
        {"id": "zero", "op": "memset", "engine": "gpsimd",
         "tile": [128, 512], "dtype": "bf16", "line": 1},
        {"id": "state", "op": "loop", "var": "k", "range": "sequential",
         "tensor": "x", "step": 256, "line": 2, "body": [
          {"id": "blk", "op": "loop", "var": "kk", "range": "affine",
           "tensor": "x", "tile_partitions": 128, "line": 3, "body": [
            {"id": "x_t", "op": "load", "tensor": "x", "index": ["kk", ":"],
             "line": 4}]},
          {"id": "sum", "op": "tensor_tensor", "engine": "vector",
           "inputs": ["blk", "zero"], "tile": [128, 512], "dtype": "bf16",
           "line": 5}]},
        {"op": "store", "tensor": "out", "inputs": ["state"], "line": 6}]}]}
  })");
  j["tensors"][0]["shape"][0] = rows;
  auto& k = j["kernel"]["loops"][0]["body"][1];
  k["step"] = block;
  k["buffers"] = kbuf;
  return j;
}

std::vector<size_t> OnLine(const Kernel& k, int line) {
  std::vector<size_t> out;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    if (k.instrs[i].source_line == line) out.push_back(i);
  }
  return out;
}

TEST(RowBlockLoopTest, AStepOnDimZeroWalksBlocksThatTheNestedLoopTiles) {
  const Program p = LowerOrDie(Parse(BlockedK(1024, 256, 1)));
  const Kernel& k = p.dispatches[0].kernel;
  // 4 blocks of 256 rows, each loaded as 2 tiles of 128 rows, and summed
  // once per block.
  EXPECT_EQ(OnLine(k, 4).size(), 8u);
  EXPECT_EQ(OnLine(k, 5).size(), 4u);
  for (size_t i : OnLine(k, 4)) {
    EXPECT_EQ(k.instrs[i].kind, InstrKind::kDma);
  }
}

TEST(RowBlockLoopTest, ItsOpsNameTheirTile) {
  Json j = BlockedK(1024, 256, 1);
  j["kernel"]["loops"][0]["body"][1]["body"][1].erase("tile");
  auto s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "spec.json: /kernel/loops/0/body/1/body/1/tile: the loop steps "
            "along dim 0, so there is no default tile; give a tensor_tensor "
            "its [partitions, free] tile");
  j = BlockedK(1024, 256, 1);
  j["kernel"]["loops"][0]["body"][1]["tile_partitions"] = 128;
  s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "spec.json: /kernel/loops/0/body/1/step: a loop over dim 0 walks "
            "tiles of \"tile_partitions\" rows or blocks of \"step\" rows; "
            "give one of them");
}

TEST(StateLoopTest, OneBufferWaitsForThePreviousUpdateTwoOverlapIt) {
  for (int kbuf : {1, 2}) {
    const Program p = LowerOrDie(Parse(BlockedK(1024, 256, kbuf)));
    const Kernel& k = p.dispatches[0].kernel;
    const std::vector<size_t> loads = OnLine(k, 4);
    const std::vector<size_t> sums = OnLine(k, 5);
    ASSERT_EQ(loads.size(), 8u);
    ASSERT_EQ(sums.size(), 4u);
    // The second block's first load reuses the first block's buffer with
    // one buffer; with two it loads while the first block is summed.
    EXPECT_EQ(DependsOn(k, loads[2], sums[0]), kbuf == 1) << kbuf;
    // The sums update the state in order whatever the buffers.
    EXPECT_LT(sums[0], sums[1]);
  }
}

TEST(StateLoopTest, ItsTilesAreOneSetNotOnePerIteration) {
  // 200 blocks of 2 tiles of 1 KiB and a 1 KiB sum: 600 KiB of SBUF if
  // every iteration kept its tiles, as a block loop's do; 3 KiB per buffer
  // as state updated in place.
  EXPECT_TRUE(
      ParseSpec(BlockedK(256 * 200, 256, 2).dump(), "spec.json", MemoryLimits{})
          .ok());
  Json affine = BlockedK(256 * 200, 256, 1);
  affine["kernel"]["loops"][0]["body"][1]["range"] = "affine";
  auto s = ParseSpec(affine.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), ::testing::HasSubstr("SBUF overflow"));
}

TEST(BlockLoopTest, AnOpCarryingItsOwnTileMakesAnAccumulatorInSbuf) {
  // scanC_accum += scanC in an affine loop: the loop's id names one SBUF
  // tile updated in place, not a block of 200 [128, 512] tiles (each
  // iteration's 2 x 1 KiB loads and 1 KiB sum would be 600 KiB).
  Json affine = BlockedK(256 * 200, 256, 1);
  Json& k = affine["kernel"]["loops"][0]["body"][1];
  k["range"] = "affine";
  k["body"][1]["carry"] = Json::array({"sum"});
  EXPECT_TRUE(ParseSpec(affine.dump(), "spec.json", MemoryLimits{}).ok());
  k["body"][1].erase("carry");
  EXPECT_FALSE(ParseSpec(affine.dump(), "spec.json", MemoryLimits{}).ok());
}

// An outer loop of two runs over column blocks, and an inner loop without
// an id over row tiles with two buffers: load, exp, store.
Json RotatingNest() {
  return Json::parse(R"({
    "schema_version": 1, "name": "rot", "family": "rot",
    "description": "test", "mode": "nki",
    "tensors": [{"name": "x", "shape": [256, 1024], "dtype": "fp32"},
                {"name": "y", "shape": [256, 1024], "dtype": "fp32"}],
    "kernel": {"source_file": "rot.py", "loops": [{
      "var": "o", "range": "affine", "tensor": "x", "dim": 1, "step": 512,
      "body": [
        {"op": "loop", "var": "p", "range": "affine", "tensor": "x",
         "tile_partitions": 128, "buffers": 2, "line": 1, "body": [
          {"id": "t", "op": "load", "tensor": "x", "index": ["p", "o"],
           "line": 2},
          {"id": "e", "op": "activation", "engine": "scalar", "func": "exp",
           "inputs": ["t"], "tile": [128, 512], "line": 3},
          {"op": "store", "tensor": "y", "inputs": ["e"],
           "index": ["p", "o"], "line": 4}]}]}]}
  })");
}

TEST(RotationTest, AnInnerLoopsBuffersRotateOverItsRuns) {
  const Program p = LowerOrDie(Parse(RotatingNest()));
  const Kernel& k = p.dispatches[0].kernel;
  const std::vector<size_t> loads = OnLine(k, 2);
  const std::vector<size_t> stores = OnLine(k, 4);
  ASSERT_EQ(loads.size(), 4u);
  ASSERT_EQ(stores.size(), 4u);
  // The second run's first load reuses the buffer of the first run's first
  // iteration, two iterations back over both runs: it waits for that
  // iteration's store, not for the whole first run.
  EXPECT_TRUE(DependsOn(k, loads[2], stores[0]));
  EXPECT_FALSE(DependsOn(k, loads[2], stores[1]));
  EXPECT_TRUE(DependsOn(k, loads[3], stores[1]));
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

// A torch-mode spec of the ops given, over the tensors given.
Json TorchSpec(const std::string& mode, const Json& tensors, const Json& ops) {
  Json j = {{"schema_version", 1}, {"name", "t"},  {"family", "t"},
            {"description", "t"},  {"mode", mode}, {"tensors", tensors},
            {"ops", ops}};
  return j;
}

std::vector<std::string> Opcodes(const Kernel& k) {
  std::vector<std::string> out;
  for (const Instruction& in : k.instrs) out.push_back(k.strings[in.opcode]);
  return out;
}

TEST(LoweringTest, TorchViewsAreFree) {
  const Json tensors = Json::parse(R"([
    {"name": "x", "shape": [4, 512], "dtype": "bf16"},
    {"name": "xt", "shape": [2, 1024], "dtype": "bf16"},
    {"name": "y", "shape": [2, 1024], "dtype": "bf16"},
    {"name": "out", "shape": [2048], "dtype": "bf16"}])");
  const Json ops = Json::parse(R"([
    {"op": "aten::view", "inputs": ["x"], "output": "xt"},
    {"op": "aten::exp", "inputs": ["xt"], "output": "y"},
    {"op": "aten::view", "inputs": ["y"], "output": "out"}])");
  // Eager: a view is no dispatch.
  const Program eager = LowerOrDie(Parse(TorchSpec("eager", tensors, ops)));
  ASSERT_EQ(eager.dispatches.size(), 1u);
  EXPECT_EQ(eager.dispatches[0].name, "aten::exp");
  // Compiled: no instruction; the graph's output is stored once.
  const Program graph = LowerOrDie(Parse(TorchSpec("compiled", tensors, ops)));
  ASSERT_EQ(graph.dispatches.size(), 1u);
  const auto codes = Opcodes(graph.dispatches[0].kernel);
  EXPECT_EQ(codes, (std::vector<std::string>{"dma_load", "Activation.exp",
                                             "dma_store"}));
  // The store moves the tile's bytes, whatever shape the view gives them.
  EXPECT_EQ(graph.dispatches[0].kernel.instrs[2].work, 2048 * 2);
  // A view must keep the element count (or broadcast).
  Json bad = TorchSpec("eager", tensors, ops);
  bad["tensors"][1]["shape"] = {2, 1025};
  auto s = ParseSpec(bad.dump(), "v.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("a view keeps the element count"));
}

TEST(LoweringTest, TorchCompiledStoresOnlyTheGraphOutputOfEveryTile) {
  // 384 rows: three row tiles, each running the whole chain. Only the
  // graph's output leaves the chip, once per tile; the intermediate stays.
  const Json tensors = Json::parse(R"([
    {"name": "x", "shape": [384, 512], "dtype": "bf16"},
    {"name": "y", "shape": [384, 512], "dtype": "bf16"},
    {"name": "z", "shape": [384, 512], "dtype": "bf16"}])");
  const Json ops = Json::parse(R"([
    {"op": "aten::exp", "inputs": ["x"], "output": "y"},
    {"op": "aten::exp", "inputs": ["y"], "output": "z"}])");
  const Program graph = LowerOrDie(Parse(TorchSpec("compiled", tensors, ops)));
  ASSERT_EQ(graph.dispatches.size(), 1u);
  const Kernel& k = graph.dispatches[0].kernel;
  const auto codes = Opcodes(k);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "dma_load"), 3);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "dma_store"), 3);
  for (const Instruction& in : k.instrs) {
    if (k.strings[in.opcode] == "dma_store") {
      EXPECT_EQ(k.strings[in.label], "z");
    }
  }
}

TEST(LoweringTest, TorchLinearAddsItsBiasOnlyWhenGiven) {
  const Json tensors = Json::parse(R"([
    {"name": "x", "shape": [4, 64], "dtype": "bf16"},
    {"name": "w", "shape": [32, 64], "dtype": "bf16"},
    {"name": "b", "shape": [32], "dtype": "bf16"},
    {"name": "y", "shape": [4, 32], "dtype": "bf16"}])");
  const Program with = LowerOrDie(Parse(TorchSpec(
      "eager", tensors,
      Json::parse(R"([{"op": "aten::linear", "inputs": ["x", "w", "b"],
                       "output": "y"}])"))));
  const Program without = LowerOrDie(Parse(
      TorchSpec("eager", tensors,
                Json::parse(R"([{"op": "aten::linear", "inputs": ["x", "w"],
                       "output": "y"}])"))));
  const auto a = Opcodes(with.dispatches[0].kernel);
  const auto b = Opcodes(without.dispatches[0].kernel);
  EXPECT_EQ(std::count(a.begin(), a.end(), "TensorTensor.add"), 1);
  EXPECT_EQ(std::count(b.begin(), b.end(), "TensorTensor.add"), 0);
  int64_t flops = 0;
  for (const Instruction& in : without.dispatches[0].kernel.instrs) {
    flops += in.flops;
  }
  EXPECT_EQ(flops, 2 * 4 * 64 * 32);
}

TEST(LoweringTest, TorchBatchedMatmulAndEmbedding) {
  const Program bmm = LowerOrDie(
      Parse(TorchSpec("compiled", Json::parse(R"([
        {"name": "q", "shape": [2, 128, 64], "dtype": "bf16"},
        {"name": "kt", "shape": [2, 64, 128], "dtype": "bf16"},
        {"name": "s", "shape": [2, 128, 128], "dtype": "bf16"}])"),
                      Json::parse(R"([{"op": "aten::bmm", "inputs": ["q", "kt"],
                       "output": "s"}])"))));
  int64_t flops = 0;
  for (const Instruction& in : bmm.dispatches[0].kernel.instrs) {
    flops += in.flops;
  }
  EXPECT_EQ(flops, 2 * 2 * 128 * 64 * 128);
  const Program emb = LowerOrDie(Parse(TorchSpec(
      "eager", Json::parse(R"([
        {"name": "table", "shape": [50000, 64], "dtype": "bf16"},
        {"name": "ids", "shape": [4, 8], "dtype": "int32"},
        {"name": "e", "shape": [4, 8, 64], "dtype": "bf16"}])"),
      Json::parse(R"([{"op": "aten::embedding", "inputs": ["table", "ids"],
                       "output": "e"}])"))));
  const Kernel& k = emb.dispatches[0].kernel;
  // The ids are loaded, 32 table rows gathered (not the table), stored.
  ASSERT_EQ(Opcodes(k),
            (std::vector<std::string>{"dma_load", "dma_gather", "dma_store"}));
  EXPECT_TRUE(k.instrs[1].indirect);
  EXPECT_EQ(k.instrs[1].work, 32 * 64 * 2);
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

// One [128, 512] fp32 tile loaded, run through `ops`, nothing stored.
Json OneTile(const Json& ops, const std::string& range = "affine",
             int rows = 128, int buffers = 1) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "ops", "family": "ops",
    "description": "test", "mode": "nki",
    "tensors": [{"name": "x", "shape": [128, 512], "dtype": "fp32"},
                {"name": "idx", "shape": [128, 1], "dtype": "int32"}],
    "kernel": {"source_file": "ops.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "buffers": 1, "body": [
        {"id": "x_t", "op": "load", "tensor": "x", "line": 1}]}]}
  })");
  j["tensors"][0]["shape"][0] = rows;
  j["tensors"][1]["shape"][0] = rows;
  auto& loop = j["kernel"]["loops"][0];
  loop["range"] = range;
  loop["buffers"] = buffers;
  for (const Json& op : ops) loop["body"].push_back(op);
  return j;
}

Instruction ByOpcode(const Kernel& k, const std::string& opcode,
                     int iteration = 0) {
  for (const Instruction& in : k.instrs) {
    if (k.strings[in.opcode] == opcode && in.iteration == iteration) return in;
  }
  ADD_FAILURE() << "no " << opcode << "/" << iteration;
  static const Instruction kNone;
  return kNone;
}

TEST(NewOpsTest, EachOpGetsItsCostRuleAndN) {
  const Program p = LowerOrDie(Parse(OneTile(Json::parse(R"([
    {"id": "s", "op": "tensor_tensor_scan", "engine": "vector",
     "inputs": ["x_t", "x_t"], "line": 2},
    {"id": "st", "op": "bn_stats", "engine": "vector", "inputs": ["x_t"],
     "tile": [128, 6], "line": 3},
    {"id": "mv", "op": "bn_aggr", "engine": "vector", "inputs": ["st"],
     "tile": [128, 2], "line": 4},
    {"id": "r", "op": "reciprocal", "engine": "vector", "inputs": ["x_t"],
     "line": 5},
    {"id": "t", "op": "transpose", "engine": "tensor", "inputs": ["x_t"],
     "tile": [128, 128], "buffer": "psum", "line": 6},
    {"id": "z", "op": "memset", "engine": "gpsimd", "line": 7},
    {"id": "sel", "op": "select", "engine": "vector",
     "inputs": ["x_t", "r", "s"], "line": 8},
    {"id": "m", "op": "affine_select", "engine": "gpsimd", "inputs": ["x_t"],
     "line": 9},
    {"id": "a", "op": "activation", "engine": "scalar", "func": "exp",
     "inputs": ["x_t"], "accumulate": true, "line": 10},
    {"id": "ts", "op": "tensor_scalar", "engine": "vector",
     "inputs": ["x_t"], "accumulate": true, "line": 11}
  ])"))));
  const Kernel& k = p.dispatches[0].kernel;
  struct Want {
    const char* opcode;
    CostRule rule;
    int64_t work;
  };
  const Want wants[] = {
      {"tensor_tensor_scan", CostRule::kStream2, 512},
      {"bn_stats", CostRule::kStream, 512},  // by its input
      {"bn_aggr", CostRule::kBnAggr, 6},     // its input: bn_stats' tile
      {"reciprocal", CostRule::kReciprocal, 512},
      {"transpose", CostRule::kTransposePe, 128},  // input partitions
      {"memset", CostRule::kStream, 512},
      {"select", CostRule::kStream2, 512},
      {"affine_select", CostRule::kIndexGen, 512},
      {"activation.exp", CostRule::kAccumulate, 512},
      {"tensor_scalar", CostRule::kAccumulate, 512},
  };
  for (const Want& w : wants) {
    const Instruction& in = ByOpcode(k, w.opcode);
    EXPECT_EQ(in.rule, w.rule) << w.opcode;
    EXPECT_EQ(in.work, w.work) << w.opcode;
  }
  EXPECT_EQ(ByOpcode(k, "transpose").aux, 512);  // the input's free size
  EXPECT_EQ(ByOpcode(k, "memset").flops, 0);
  EXPECT_EQ(ByOpcode(k, "transpose").flops, 0);
  EXPECT_EQ(ByOpcode(k, "select").flops, 128 * 512);
}

TEST(NewOpsTest, PsumOperandAndDmaFlags) {
  const Program p = LowerOrDie(Parse(OneTile(Json::parse(R"([
    {"id": "i", "op": "load", "tensor": "idx", "line": 2},
    {"id": "g", "op": "load", "tensor": "x", "indirect": "i", "line": 3},
    {"id": "tr", "op": "load", "tensor": "x", "transpose": true, "line": 4},
    {"id": "t", "op": "transpose", "engine": "tensor", "inputs": ["x_t"],
     "tile": [128, 128], "buffer": "psum", "line": 5},
    {"id": "sum", "op": "tensor_tensor", "engine": "vector",
     "inputs": ["t", "x_t"], "tile": [128, 128], "line": 6}
  ])"))));
  const Kernel& k = p.dispatches[0].kernel;
  EXPECT_TRUE(ByOpcode(k, "tensor_tensor").psum_operand);
  uint32_t idx_load = 0;
  uint32_t gather = 0;
  for (uint32_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind != InstrKind::kDma) continue;
    if (k.strings[in.label] == "idx") idx_load = i;
    if (in.indirect) gather = i;
    if (in.transpose) {
      EXPECT_EQ(in.work, 128 * 512 * 4);
    }
  }
  ASSERT_GT(gather, idx_load);
  EXPECT_TRUE(DependsOn(k, gather, idx_load));
  // A gather's rows come through an index and a transpose writes columns:
  // neither is a block of rows following one another in HBM.
  for (const Instruction& in : k.instrs) {
    if (in.indirect || in.transpose) {
      EXPECT_FALSE(in.contiguous_rows);
    }
  }
}

// A scatter (a store with "indirect") waits for its index tile as a
// gather does, and its rows are not a block following one another.
TEST(NewOpsTest, ScatterWaitsForItsIndexTile) {
  const Program p = LowerOrDie(Parse(OneTile(Json::parse(R"([
    {"id": "i", "op": "load", "tensor": "idx", "line": 2},
    {"id": "v", "op": "load", "tensor": "x", "line": 3},
    {"op": "store", "tensor": "x", "inputs": ["v"], "indirect": "i",
     "line": 4}
  ])"))));
  const Kernel& k = p.dispatches[0].kernel;
  uint32_t idx_load = 0;
  uint32_t scatter = 0;
  int indirect = 0;
  for (uint32_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    if (in.kind != InstrKind::kDma) continue;
    if (k.strings[in.label] == "idx") idx_load = i;
    if (in.indirect) {
      scatter = i;
      ++indirect;
      EXPECT_FALSE(in.contiguous_rows);
    }
  }
  EXPECT_EQ(indirect, 1);
  ASSERT_GT(scatter, idx_load);
  EXPECT_TRUE(DependsOn(k, scatter, idx_load));
}

// Whole rows of a tensor follow one another in HBM; rows cut from wider
// ones do not. The DMA unit may give the first one descriptor per engine
// (DeviceProfile::dma_rows_per_descriptor).
TEST(NewOpsTest, LoadsAndStoresOfWholeRowsAreContiguous) {
  const Program whole = LowerOrDie(Parse(Exp(256, 2)));
  int dmas = 0;
  for (const Instruction& in : whole.dispatches[0].kernel.instrs) {
    if (in.kind != InstrKind::kDma) continue;
    ++dmas;
    EXPECT_TRUE(in.contiguous_rows);
    EXPECT_EQ(in.aux, 128);  // still one run per row, as before
  }
  EXPECT_EQ(dmas, 4);
  // The same tensor in [128, 128] tiles: each row is a quarter of one.
  Json cut = Exp(256, 1);
  Json& loop = cut["kernel"]["loops"][0];
  Json body = loop["body"];
  body[0]["index"] = {"p", "f"};
  body[1]["tile"] = {128, 128};
  body[2]["index"] = {"p", "f"};
  loop["body"] = Json::array({{{"op", "loop"},
                               {"var", "f"},
                               {"range", "affine"},
                               {"tensor", "in_tensor"},
                               {"dim", 1},
                               {"step", 128},
                               {"line", 1},
                               {"body", body}}});
  const Program part = LowerOrDie(Parse(cut));
  dmas = 0;
  for (const Instruction& in : part.dispatches[0].kernel.instrs) {
    if (in.kind != InstrKind::kDma) continue;
    ++dmas;
    EXPECT_FALSE(in.contiguous_rows);
    EXPECT_EQ(in.work, 128 * 128 * 4);
  }
  EXPECT_EQ(dmas, 16);
}

TEST(NewOpsTest, ASequentialLoopIsOrderedByItsCarriedTileOnly) {
  // Four iterations; the accumulator carries over, the loads do not wait.
  const Json ops = Json::parse(R"([
    {"id": "acc", "op": "tensor_tensor", "engine": "vector",
     "inputs": ["x_t", "x_t"], "carry": ["acc"], "line": 2}
  ])");
  const Program p = LowerOrDie(Parse(OneTile(ops, "sequential", 512, 2)));
  const Kernel& k = p.dispatches[0].kernel;
  std::vector<uint32_t> acc;
  std::vector<uint32_t> loads;
  for (uint32_t i = 0; i < k.instrs.size(); ++i) {
    (k.instrs[i].kind == InstrKind::kDma ? loads : acc).push_back(i);
  }
  ASSERT_EQ(acc.size(), 4u);
  ASSERT_EQ(loads.size(), 4u);
  for (size_t i = 1; i < acc.size(); ++i) {
    EXPECT_TRUE(DependsOn(k, acc[i], acc[i - 1])) << i;
  }
  // The load of iteration 1 waits for nothing: with two buffers it reuses
  // iteration -1's tiles.
  EXPECT_EQ(k.instrs[loads[1]].deps_begin, k.instrs[loads[1]].deps_end);
  const Program whole = LowerOrDie(Parse(OneTile(
      Json::parse(R"([{"id": "acc", "op": "tensor_tensor", "engine": "vector",
                       "inputs": ["x_t", "x_t"], "line": 2}])"),
      "sequential", 512, 2)));
  const Kernel& kw = whole.dispatches[0].kernel;
  uint32_t load1 = 0;
  for (uint32_t i = 0, n = 0; i < kw.instrs.size(); ++i) {
    if (kw.instrs[i].kind == InstrKind::kDma && n++ == 1) load1 = i;
  }
  // Without `carry` nothing is carried (model 8): the loop is affine and
  // its second load waits for nothing either.
  EXPECT_EQ(kw.instrs[load1].deps_begin, kw.instrs[load1].deps_end);
}

// `x` [rows, 512] fp32 copied to `y` in HBM by blocks of 128 rows: the exp
// kernel's tensors, renamed, with `copy_op` as its whole body.
Json HbmCopy(const Json& copy_op, int rows = 256) {
  Json j = Exp(rows, 1);
  j["tensors"][0]["name"] = "x";
  j["tensors"][1]["name"] = "y";
  auto& loop = j["kernel"]["loops"][0];
  loop["tensor"] = "x";
  loop.erase("buffers");
  loop["body"] = Json::array({copy_op});
  return j;
}

TEST(NewOpsTest, AnHbmCopyIsOneDmaOfItsBlockBetweenTwoTensors) {
  const Program p = LowerOrDie(Parse(HbmCopy(Json::parse(
      R"({"op": "hbm_copy", "tensor": "y", "from": "x", "line": 3})"))));
  const Kernel& k = p.dispatches[0].kernel;
  ASSERT_EQ(k.instrs.size(), 2u);  // one per block of 128 rows
  for (const Instruction& in : k.instrs) {
    EXPECT_EQ(in.kind, InstrKind::kDma);
    EXPECT_TRUE(in.hbm_to_hbm);
    EXPECT_EQ(in.work, 128 * 512 * 4);
    EXPECT_EQ(in.partitions, 128);  // its rows, dealt to the engines
    EXPECT_EQ(in.aux, 128);         // one descriptor per row
    EXPECT_FALSE(in.contiguous_rows);
    EXPECT_EQ(in.flops, 0);
    EXPECT_EQ(k.strings[in.opcode], "dma_hbm_copy");
    EXPECT_EQ(k.strings[in.label], "y");
  }
  // Loads and stores stay between HBM and SBUF.
  const Program load = LowerOrDie(Parse(OneTile(Json::array())));
  EXPECT_FALSE(load.dispatches[0].kernel.instrs[0].hbm_to_hbm);
}

TEST(NewOpsTest, AnSbufCopyIsOneDmaOfItsTileWithinSbuf) {
  // The exp kernel's load, then a DMA of its tile to another SBUF tile,
  // transposed in the second copy.
  const Program p = LowerOrDie(Parse(OneTile(Json::parse(R"([
    {"id": "c", "op": "sbuf_copy", "inputs": ["x_t"], "tile": [128, 512],
     "dtype": "fp32", "line": 3},
    {"id": "ct", "op": "sbuf_copy", "inputs": ["x_t"], "tile": [128, 128],
     "dtype": "fp32", "transpose": true, "line": 4}
  ])"))));
  const Kernel& k = p.dispatches[0].kernel;
  ASSERT_EQ(k.instrs.size(), 3u);
  const Instruction& load = k.instrs[0];
  const Instruction& copy = k.instrs[1];
  const Instruction& transposed = k.instrs[2];
  EXPECT_FALSE(load.on_chip);
  EXPECT_EQ(copy.kind, InstrKind::kDma);
  EXPECT_TRUE(copy.on_chip);
  EXPECT_FALSE(copy.hbm_to_hbm);
  EXPECT_EQ(copy.work, 128 * 512 * 4);
  EXPECT_EQ(copy.partitions, 128);
  EXPECT_EQ(copy.aux, 128);  // one descriptor per partition
  EXPECT_FALSE(copy.contiguous_rows);
  EXPECT_EQ(copy.flops, 0);
  EXPECT_EQ(k.strings[copy.opcode], "dma_sbuf_copy");
  EXPECT_EQ(k.strings[copy.label], "c");
  EXPECT_EQ(load.deps_end - load.deps_begin, 0u);
  EXPECT_EQ(copy.deps_end - copy.deps_begin, 1u);  // waits for the load
  EXPECT_EQ(k.deps[copy.deps_begin], 0u);
  EXPECT_TRUE(transposed.transpose);
  EXPECT_EQ(transposed.work, 128 * 128 * 4);
}

TEST(NewOpsTest, AnSbufCopyReadsOneTileIntoSbuf) {
  struct Case {
    const char* op;
    const char* want;
  };
  const Case cases[] = {
      {R"({"id": "c", "op": "sbuf_copy", "inputs": [], "tile": [128, 512],
           "line": 3})",
       "/inputs: a sbuf_copy takes 1 input tile, got 0"},
      {R"({"id": "c", "op": "sbuf_copy", "inputs": ["x_t"], "tensor": "x",
           "tile": [128, 512], "line": 3})",
       "/tensor: key \"tensor\" does not apply to a sbuf_copy op"},
      {R"({"id": "c", "op": "sbuf_copy", "inputs": ["x_t"],
           "engine": "vector", "tile": [128, 512], "line": 3})",
       "/engine: key \"engine\" does not apply to a sbuf_copy op"},
      {R"({"id": "c", "op": "sbuf_copy", "inputs": ["x_t"],
           "buffer": "psum", "tile": [128, 512], "line": 3})",
       "/buffer: a sbuf_copy writes its tile to sbuf"},
  };
  for (const Case& c : cases) {
    auto s = ParseSpec(OneTile(Json::array({Json::parse(c.op)})).dump(),
                       "copy.json", MemoryLimits{});
    ASSERT_FALSE(s.ok()) << c.op;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr(c.want))
        << c.op << ": " << s.status().message();
  }
}

TEST(NewOpsTest, AnHbmCopyMovesBetweenTwoAlikeTensors) {
  struct Case {
    const char* op;
    const char* want;
  };
  const Case cases[] = {
      {R"({"op": "hbm_copy", "tensor": "y", "line": 3})",
       "/from: an hbm_copy needs the tensor it copies from"},
      {R"({"op": "hbm_copy", "tensor": "y", "from": "y", "line": 3})",
       "/from: \"y\" is also the tensor copied to"},
      {R"({"op": "hbm_copy", "tensor": "y", "from": "z", "line": 3})",
       "/from: from \"z\" is not declared"},
      {R"({"op": "hbm_copy", "tensor": "y", "from": "x", "id": "c",
           "line": 3})",
       "/id: key \"id\" does not apply to a hbm_copy op"},
      {R"({"id": "t", "op": "load", "tensor": "x", "from": "y", "line": 3})",
       "/from: key \"from\" does not apply to a load op"},
  };
  for (const Case& c : cases) {
    auto s = ParseSpec(HbmCopy(Json::parse(c.op)).dump(), "copy.json",
                       MemoryLimits{});
    ASSERT_FALSE(s.ok()) << c.op;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr(c.want))
        << c.op;
  }
  Json other_dtype = HbmCopy(Json::parse(
      R"({"op": "hbm_copy", "tensor": "y", "from": "x", "line": 3})"));
  other_dtype["tensors"][1]["dtype"] = "bf16";
  auto s = ParseSpec(other_dtype.dump(), "copy.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("\"x\" is fp32 [256, 512] but \"y\" is "
                                   "bf16 [256, 512]"));
}

TEST(NewOpsTest, ValidatorNamesABadCarryAndBadKeys) {
  Json j = OneTile(Json::parse(R"([
    {"id": "acc", "op": "tensor_tensor", "engine": "vector",
     "inputs": ["x_t", "x_t"], "carry": ["nope"], "line": 2}
  ])"));
  auto s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("/carry/0: \"nope\" is not a tile of this "
                                   "loop body"));
  j = OneTile(Json::parse(R"([
    {"id": "t", "op": "transpose", "engine": "tensor", "inputs": ["x_t"],
     "line": 2}
  ])"));
  s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("writes a transpose to PSUM"));
  j = OneTile(Json::parse(R"([
    {"id": "c", "op": "tensor_copy", "engine": "vector", "inputs": ["x_t"],
     "transpose": true, "line": 2}
  ])"));
  s = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("transpose"));
}

}  // namespace
}  // namespace trn
