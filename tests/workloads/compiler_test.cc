// The compiler stage (workloads/compiler/): allocation by liveness, loop
// depth decided by the allocator, engines placed by capability and
// workload, and the validation suite written without hand-picked
// decisions.
#include "workloads/compiler/compiler.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "workloads/compiler/allocation.h"
#include "workloads/spec_catalog.h"
#include "workloads/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// exp over [1024, cols] fp32 in [128, cols] tiles (8 iterations): an input
// tile live from its load to the exp, an output tile from the exp to the
// store, 4 * cols bytes per partition each.
Json Exp(int64_t cols) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "exp_depth", "family": "exp",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 0], "dtype": "fp32"},
      {"name": "y", "shape": [1024, 0], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "exp.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "body": [
        {"id": "in_tile", "op": "load", "tensor": "x", "line": 1},
        {"id": "out_tile", "op": "activation", "func": "exp",
         "inputs": ["in_tile"], "line": 2},
        {"op": "store", "tensor": "y", "inputs": ["out_tile"], "line": 3}]}]}
  })");
  j["tensors"][0]["shape"][1] = cols;
  j["tensors"][1]["shape"][1] = cols;
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

TEST(CompilerTest, DepthIsWhatTheAllocatorFits) {
  // 8192 columns: both tiles live at the exp, 64 KiB per iteration in
  // flight; 3 fit in 192 KiB, 4 do not.
  auto spec = Parse(Exp(8192));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].buffers, 3);
  ASSERT_EQ(spec->compiled.loops.size(), 1u);
  const LoopDecision& d = spec->compiled.loops[0];
  EXPECT_EQ(d.depth, 3);
  EXPECT_EQ(d.by, DecidedBy::kCompiler);
  EXPECT_THAT(d.why, HasSubstr("limited by SBUF: 4 in flight"));
  EXPECT_EQ(spec->compiled.sbuf.used, 3 * 2 * 8192 * 4);
}

TEST(CompilerTest, SmallTilesGetTheCap) {
  auto spec = Parse(Exp(512));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].buffers, kMaxPipelineDepth);
}

TEST(CompilerTest, LivenessFitsWhatAllAliveWouldRefuse) {
  // Three [128, 20480] fp32 tiles (80 KiB each) in a chain: all alive they
  // need 240 KiB, but at most two are live at once (160 KiB).
  Json j = Exp(20480);
  j["kernel"]["loops"][0]["body"] = Json::parse(R"([
    {"id": "a", "op": "load", "tensor": "x", "line": 1},
    {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"], "line": 2},
    {"id": "c", "op": "activation", "func": "exp", "inputs": ["b"], "line": 3},
    {"op": "store", "tensor": "y", "inputs": ["c"], "line": 4}])");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compiled.sbuf.used, 2 * 20480 * 4);
  EXPECT_EQ(spec->kernel->loops[0].buffers, 1);
}

TEST(CompilerTest, RefusalNamesThePointAndTheLiveTiles) {
  auto spec = Parse(Exp(32768));
  ASSERT_FALSE(spec.ok());
  const std::string m(spec.status().message());
  EXPECT_THAT(m, HasSubstr("spec.json: /kernel/loops/0/body/1: SBUF overflow"));
  EXPECT_THAT(m, HasSubstr("need 262144 B per partition"));
  EXPECT_THAT(m, HasSubstr("in_tile 131072 B, out_tile 131072 B"));
}

TEST(CompilerTest, StatedBuffersAreAnOverride) {
  Json j = Exp(512);
  j["kernel"]["loops"][0]["buffers"] = 2;
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].buffers, 2);
  EXPECT_EQ(spec->compiled.loops[0].by, DecidedBy::kSpec);
  // "auto" is omission.
  j["kernel"]["loops"][0]["buffers"] = "auto";
  spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->compiled.loops[0].by, DecidedBy::kCompiler);
}

TEST(CompilerTest, AStatedDepthThatDoesNotFitIsRefused) {
  Json j = Exp(16384);
  j["kernel"]["loops"][0]["buffers"] = 2;
  auto spec = Parse(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("in_tile 65536 B x 2, out_tile 65536 B x 2"));
}

TEST(CompilerTest, APartialLastIterationIsNotPipelined) {
  Json j = Exp(512);
  j["tensors"][0]["shape"][0] = 1000;
  j["tensors"][1]["shape"][0] = 1000;
  j["kernel"]["loops"][0]["body"][0]["affine_mask"] = true;
  j["kernel"]["loops"][0]["body"][2]["affine_mask"] = true;
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].buffers, 1);
  EXPECT_THAT(spec->compiled.loops[0].why, HasSubstr("partial"));
}

TEST(CompilerTest, EnginesByCapabilityAndWorkload) {
  Json j = Exp(512);
  j["kernel"]["loops"][0]["body"] = Json::parse(R"([
    {"id": "a", "op": "load", "tensor": "x", "line": 1},
    {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"], "line": 2},
    {"id": "c", "op": "tensor_tensor", "inputs": ["a", "b"], "line": 3},
    {"id": "d", "op": "tensor_tensor", "engine": "auto", "inputs": ["a", "c"], "line": 4},
    {"id": "e", "op": "tensor_copy", "engine": "gpsimd", "inputs": ["d"], "line": 5},
    {"op": "store", "tensor": "y", "inputs": ["e"], "line": 6}])");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const auto& e = spec->compiled.engines;
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].engine, Engine::kScalar);  // activation: ScalarE only
  EXPECT_EQ(e[1].engine, Engine::kVector);  // nki.isa.tensor_tensor
  // auto, by workload over the whole kernel: VectorE (c) and GpSimd (the
  // stated e) have 512 x 8 element-runs each; a tie goes to VectorE.
  EXPECT_EQ(e[2].engine, Engine::kVector);
  EXPECT_THAT(e[2].why, HasSubstr("vector 4096, gpsimd 4096"));
  EXPECT_EQ(e[3].engine, Engine::kGpSimd);  // stated
  EXPECT_EQ(e[3].by, DecidedBy::kSpec);
  EXPECT_EQ(e[2].by, DecidedBy::kCompiler);
}

TEST(CompilerTest, PsumIsTakenInBanks) {
  // Nine [128, 128] fp32 PSUM tiles alive at once (512 B each, 4.5 KiB in
  // all) fit PSUM's bytes but not its 8 banks.
  Json j = Exp(512);
  Json body = Json::array();
  body.push_back(
      Json::parse(R"({"id": "a", "op": "load", "tensor": "x", "line": 1})"));
  Json ins = Json::array();
  for (int i = 0; i < 9; ++i) {
    const std::string id = "t" + std::to_string(i);
    body.push_back({{"id", id},
                    {"op", "transpose"},
                    {"inputs", {"a"}},
                    {"tile", {128, 128}},
                    {"buffer", "psum"},
                    {"line", 2}});
    ins.push_back(id);
  }
  body.push_back({{"id", "z"},
                  {"op", "tensor_copy"},
                  {"inputs", {"t0"}},
                  {"after", ins},
                  {"line", 3}});
  body.push_back(Json::parse(
      R"({"op": "store", "tensor": "y", "inputs": ["z"], "after": ["t1","t2","t3","t4","t5","t6","t7","t8"], "line": 4})"));
  j["kernel"]["loops"][0]["body"] = body;
  auto spec = Parse(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("PSUM overflow: the live tiles need 9 banks"));
}

// Issue 23: the suite states no depth and no engine its kernels' sources
// leave to the compiler. A stated engine is left only on an op one engine
// alone runs (the sources name no engine=).
TEST(CompilerTest, TheValidationSuiteStatesNoCompilerDecision) {
  auto specs =
      LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/workloads/validation",
                  MemoryLimits{});
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_GT(specs->size(), 10u);
  for (const WorkloadSpec& s : *specs) {
    for (const LoopDecision& l : s.compiled.loops) {
      EXPECT_EQ(l.by, DecidedBy::kCompiler) << s.name << " " << l.json_path;
    }
    for (const EngineDecision& e : s.compiled.engines) {
      if (e.by == DecidedBy::kSpec) {
        EXPECT_THAT(e.why, HasSubstr("stated"));
        EXPECT_TRUE(e.op == "matmul" || e.op == "activation" ||
                    e.op == "iota" || e.op == "tensor_tensor_scan" ||
                    e.op == "bn_stats" || e.op == "bn_aggr" ||
                    e.op == "affine_select")
            << s.name << " " << e.json_path << " states engine on " << e.op;
      }
    }
  }
}

}  // namespace
}  // namespace trn
