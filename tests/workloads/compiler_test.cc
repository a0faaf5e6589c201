// The compiler stage (workloads/compiler/): allocation by liveness, loop
// depth decided by the allocator, engines placed by capability and
// workload, and the validation suite written without hand-picked
// decisions.
#include "workloads/compiler/compiler.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/counter_rng.h"
#include "tests/device_model/test_profile.h"
#include "workloads/compiler/allocation.h"
#include "workloads/loading/spec_catalog.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"
#include "workloads/lowering/nki_lowering.h"
#include "workloads/spec/nki_loops.h"

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
    {"id": "f", "op": "tensor_scalar", "inputs": ["d"], "line": 5},
    {"id": "e", "op": "tensor_copy", "engine": "gpsimd", "inputs": ["f"], "line": 6},
    {"op": "store", "tensor": "y", "inputs": ["e"], "line": 7}])");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const auto& e = spec->compiled.engines;
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].engine, Engine::kScalar);  // activation: ScalarE only
  // tensor_tensor, nki.isa or nl.* ("auto"): VectorE, never GpSimd unless
  // the source names it (VectorE and GpSimdE share SBUF access).
  EXPECT_EQ(e[1].engine, Engine::kVector);
  EXPECT_EQ(e[2].engine, Engine::kVector);
  EXPECT_THAT(e[2].why, HasSubstr("GpSimd only where the source names it"));
  // tensor_scalar, by workload between VectorE and ScalarE in the ISA
  // reference's cycles over the whole kernel: VectorE has c and d (2N
  // each, 512 x 2 x 8 runs), ScalarE the exp (512 x 8).
  EXPECT_EQ(e[3].engine, Engine::kScalar);
  EXPECT_THAT(e[3].why, HasSubstr("vector 16384, scalar 4096"));
  EXPECT_EQ(e[4].engine, Engine::kGpSimd);  // stated
  EXPECT_EQ(e[4].by, DecidedBy::kSpec);
  EXPECT_EQ(e[3].by, DecidedBy::kCompiler);
}

// Model 13: a reduction weighs on its engine by what it reads (the ISA
// reference's tensor_reduce cost is by its input's N, as the lowering
// costs it), not by its [128, 1] result: model 12 counted 1 cycle a row.
TEST(CompilerTest, AReductionWeighsByItsInput) {
  Json j = Exp(512);
  j["kernel"]["loops"][0]["body"] = Json::parse(R"([
    {"id": "a", "op": "load", "tensor": "x", "line": 1},
    {"id": "r", "op": "tensor_reduce", "inputs": ["a"], "tile": [128, 1],
     "line": 2},
    {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"],
     "tile": [128, 256], "line": 3},
    {"id": "f", "op": "tensor_scalar", "inputs": ["a"], "line": 4},
    {"op": "store", "tensor": "y", "inputs": ["f"], "line": 5}])");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const auto& e = spec->compiled.engines;
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].engine, Engine::kVector);  // tensor_reduce
  EXPECT_EQ(e[1].engine, Engine::kScalar);  // activation
  // VectorE: the reduction's 512 elements x 8 runs; ScalarE: the exp's
  // 256 x 8. (Counted by its result, VectorE's 8 would have taken it.)
  EXPECT_EQ(e[2].engine, Engine::kScalar);
  EXPECT_THAT(e[2].why, HasSubstr("vector 4096, scalar 2048"));
}

TEST(CompilerTest, ATensorScalarOfScalarEsOperatorsRunsOnScalarE) {
  // Model 14: a tensor_scalar whose operators the spec states ("alu")
  // runs on ScalarE when they are add, subtract and multiply only (affine
  // in the data: ScalarE's scale and bias), even where the workload
  // balance would give it to VectorE; any other operator keeps it off
  // ScalarE; without "alu", by workload as before.
  auto placed = [](const Json& alu) {
    Json j = Exp(512);
    j["kernel"]["loops"][0]["body"] = Json::parse(R"([
      {"id": "a", "op": "load", "tensor": "x", "line": 1},
      {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"],
       "line": 2},
      {"id": "f", "op": "tensor_scalar", "inputs": ["b"], "line": 3},
      {"op": "store", "tensor": "y", "inputs": ["f"], "line": 4}])");
    if (!alu.is_null()) j["kernel"]["loops"][0]["body"][2]["alu"] = alu;
    auto spec = Parse(j);
    EXPECT_TRUE(spec.ok()) << spec.status();
    EngineDecision d;
    if (!spec.ok()) return d;
    for (const EngineDecision& e : spec->compiled.engines) {
      if (e.id == "f") d = e;
    }
    return d;
  };
  // Balanced: ScalarE already holds the exp, so VectorE takes it.
  const EngineDecision balanced = placed(Json());
  EXPECT_EQ(balanced.engine, Engine::kVector);
  EXPECT_THAT(balanced.why, HasSubstr("by engine workload"));
  for (const char* alu :
       {R"(["multiply"])", R"(["add"])", R"(["multiply", "add"])",
        R"(["subtract"])", R"(["subtract", "multiply"])",
        R"(["add", "multiply"])"}) {
    const EngineDecision d = placed(Json::parse(alu));
    EXPECT_EQ(d.engine, Engine::kScalar) << alu;
    EXPECT_EQ(d.by, DecidedBy::kCompiler);
    EXPECT_THAT(d.why, HasSubstr("ScalarE's multiply-add")) << alu;
  }
  for (const char* alu :
       {R"(["maximum", "multiply"])", R"(["multiply", "maximum"])",
        R"(["divide"])", R"(["greater_equal"])"}) {
    const EngineDecision d = placed(Json::parse(alu));
    EXPECT_EQ(d.engine, Engine::kVector) << alu;
    EXPECT_THAT(d.why, HasSubstr("not affine in the data")) << alu;
  }
}

TEST(CompilerTest, AnAccumulationGoesToGpSimdOnlyWhereItFinishesSooner) {
  // Model 12: an NKI-language accumulation ("auto" with a carried tile)
  // goes to GpSimd when GpSimd finishes it sooner than VectorE by the ISA
  // reference's estimates in each engine's time, GpSimd's with its
  // startup overhead (GPSIMD_START ~150 cycles): a [128, 512] sum, 2N =
  // 1024 cycles, is 839 ns on GpSimd (1.4 GHz) against 914 ns on VectorE
  // (1.12 GHz); a [128, 1] running sum, 64 cycles at the minimum interval,
  // is 57 ns on VectorE against 109 ns on GpSimd.
  auto placed = [](int64_t cols, const MemoryLimits& limits) {
    Json j = Exp(512);
    j["kernel"]["loops"][0]["range"] = "sequential";
    j["kernel"]["loops"][0]["body"] = Json::parse(R"([
      {"id": "a", "op": "load", "tensor": "x", "line": 1},
      {"id": "s", "op": "tensor_copy", "engine": "vector", "inputs": ["a"],
       "tile": [128, 0], "line": 2},
      {"id": "acc", "op": "tensor_tensor", "engine": "auto",
       "inputs": ["s", "s"], "carry": ["acc"], "tile": [128, 0],
       "line": 3},
      {"op": "store", "tensor": "y", "inputs": ["a"], "line": 4}])");
    j["kernel"]["loops"][0]["body"][1]["tile"][1] = cols;
    j["kernel"]["loops"][0]["body"][2]["tile"][1] = cols;
    auto spec = ParseSpec(j.dump(), "spec.json", limits);
    EXPECT_TRUE(spec.ok()) << spec.status();
    EngineDecision d;
    if (!spec.ok()) return d;
    for (const EngineDecision& e : spec->compiled.engines) {
      if (e.id == "acc") d = e;
    }
    return d;
  };
  const EngineDecision wide = placed(512, MemoryLimits{});
  EXPECT_EQ(wide.engine, Engine::kGpSimd);
  EXPECT_EQ(wide.by, DecidedBy::kCompiler);
  EXPECT_THAT(wide.why, HasSubstr("839 ns"));
  EXPECT_THAT(wide.why, HasSubstr("VectorE 914 ns"));
  const EngineDecision narrow = placed(1, MemoryLimits{});
  EXPECT_EQ(narrow.engine, Engine::kVector);
  EXPECT_THAT(narrow.why, HasSubstr("GpSimd only where the source names it"));
  EXPECT_THAT(narrow.why, HasSubstr("VectorE finishes sooner (57 ns, GpSimd "
                                    "109 ns with its ~150-cycle startup)"));
  // The clocks decide: with GpSimd no faster than VectorE it never pays.
  MemoryLimits slow;
  slow.gpsimd_clock_ghz = slow.vector_clock_ghz;
  EXPECT_EQ(placed(512, slow).engine, Engine::kVector);
}

TEST(CompilerTest, AMaskOnAComputeOpIsAPredicateThatCostsNothing) {
  // NKI's mask= on a compute op (model 11): "affine_mask", no tile, no
  // instruction; the op lowers to what it lowers to unmasked.
  auto lowered = [](bool masked) {
    Json j = Exp(512);
    if (masked) j["kernel"]["loops"][0]["body"][1]["affine_mask"] = true;
    std::vector<std::pair<int64_t, int>> out;
    auto spec = Parse(j);
    EXPECT_TRUE(spec.ok()) << spec.status();
    auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
    EXPECT_TRUE(profile.ok());
    if (!spec.ok() || !profile.ok()) return out;
    auto program = Lower(*spec, *profile);
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return out;
    for (const Instruction& in : program->dispatches[0].kernel.instrs) {
      out.emplace_back(in.work, static_cast<int>(in.engine));
    }
    return out;
  };
  EXPECT_EQ(lowered(true), lowered(false));
  EXPECT_EQ(lowered(true).size(), 8u * 3u);
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

// The device time of a compiled spec on the test profile (one run).
double DeviceUs(const WorkloadSpec& spec) {
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  EXPECT_TRUE(profile.ok()) << profile.status();
  auto program = Lower(spec, *profile);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return 0;
  FairShareHbmPolicy policy;
  KernelSim sim(program->dispatches.at(0).kernel, *profile, policy);
  CounterRng rng(1);
  SimListener none;
  return sim.Run(rng, 0.0, 0, none);
}

// A loop over 8 small tiles of x, copied to y, whose VectorE op `acc` adds
// a large tile w loaded once outside it: `acc` is the busiest engine's
// work. `range` is the inner loop's kind; `carry` makes acc carried from
// one iteration to the next (`acc += w`); `buffers` > 0 states a depth.
Json Accumulate(const std::string& range, bool carry, int buffers = 0) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "acc", "family": "acc",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 64], "dtype": "fp32"},
      {"name": "y", "shape": [1024, 64], "dtype": "fp32"},
      {"name": "w", "shape": [128, 8192], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "acc.py", "loops": [{
      "var": "o", "range": "affine", "tensor": "w", "tile_partitions": 128,
      "body": [
        {"id": "w_t", "op": "load", "tensor": "w", "line": 1},
        {"op": "loop", "var": "p", "range": "affine", "tensor": "x",
         "tile_partitions": 128, "line": 2, "body": [
          {"id": "x_t", "op": "load", "tensor": "x", "line": 3},
          {"id": "c", "op": "tensor_copy", "inputs": ["x_t"], "line": 4},
          {"op": "store", "tensor": "y", "inputs": ["c"], "line": 5},
          {"id": "acc", "op": "tensor_tensor", "inputs": ["w_t", "w_t"],
           "tile": [128, 8192], "line": 6}]}]}]}
  })");
  Json& inner = j["kernel"]["loops"][0]["body"][1];
  inner["range"] = range;
  if (carry) inner["body"][3]["carry"] = {"acc"};
  if (buffers > 0) inner["buffers"] = buffers;
  return j;
}

TEST(SequentialTest, ACarriedAccumulatorLiesBetweenWholeIterationsAndAffine) {
  // Model 8: a sequential loop orders only what it carries. The affine
  // loop's acc instructions run back to back; the sequential loop's wait
  // each for the one before (its carried tile), while its loads and
  // copies still run ahead; whole iterations in order (model 7's
  // sequential without a carry, the same as one buffer) also hold every
  // load behind the iteration before.
  auto affine = Parse(Accumulate("affine", false));
  auto carried = Parse(Accumulate("sequential", true));
  auto whole = Parse(Accumulate("sequential", false, 1));
  ASSERT_TRUE(affine.ok()) << affine.status();
  ASSERT_TRUE(carried.ok()) << carried.status();
  ASSERT_TRUE(whole.ok()) << whole.status();
  const double a = DeviceUs(*affine);
  const double c = DeviceUs(*carried);
  const double w = DeviceUs(*whole);
  EXPECT_LT(a, c);
  EXPECT_LT(c, w);
  std::printf("affine %.3f us, carried %.3f us, whole %.3f us\n", a, c, w);
  EXPECT_GT(carried->kernel->loops[0].body[1].loop[0].buffers, 1);
}

TEST(SequentialTest, WithoutACarriedDependencyItIsAffine) {
  auto affine = Parse(Accumulate("affine", false));
  auto seq = Parse(Accumulate("sequential", false));
  ASSERT_TRUE(affine.ok()) << affine.status();
  ASSERT_TRUE(seq.ok()) << seq.status();
  EXPECT_EQ(DeviceUs(*affine), DeviceUs(*seq));
  ASSERT_EQ(affine->compiled.loops.size(), seq->compiled.loops.size());
  for (size_t i = 0; i < seq->compiled.loops.size(); ++i) {
    EXPECT_EQ(affine->compiled.loops[i].depth, seq->compiled.loops[i].depth);
    EXPECT_EQ(affine->compiled.loops[i].why, seq->compiled.loops[i].why);
  }
}

// A Python `range` that fills a list of tiles (`tiles.append(nl.load(..))`)
// is a sequential loop whose id names a block, not a state: each
// iteration keeps its own tile. One that updates a tile made before it
// (`acc = acc + x`) names a state: one set of tiles.
Json FillOrUpdate(bool update) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "fill", "family": "fill",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [1024, 512], "dtype": "fp32"},
      {"name": "y", "shape": [128, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "fill.py", "loops": [{
      "var": "n", "range": "affine", "tensor": "y", "tile_partitions": 128,
      "body": [
        {"id": "zero", "op": "memset", "tile": [128, 512], "line": 1},
        {"id": "tiles", "op": "loop", "var": "k", "range": "sequential",
         "tensor": "x", "tile_partitions": 128, "line": 2, "body": [
          {"id": "x_t", "op": "load", "tensor": "x", "index": ["k", ":"],
           "line": 3},
          {"id": "sum", "op": "tensor_tensor", "inputs": ["x_t", "x_t"],
           "tile": [128, 512], "line": 4}]},
        {"id": "out", "op": "tensor_copy", "inputs": ["tiles"],
         "tile": [128, 512], "line": 5},
        {"op": "store", "tensor": "y", "inputs": ["out"], "line": 6}]}]}
  })");
  if (update) {
    j["kernel"]["loops"][0]["body"][1]["body"][1]["inputs"] = {"x_t", "zero"};
  }
  return j;
}

TEST(SequentialTest, ARangeThatFillsTilesIsABlockOneThatUpdatesIsAState) {
  auto fill = Parse(FillOrUpdate(false));
  auto update = Parse(FillOrUpdate(true));
  ASSERT_TRUE(fill.ok()) << fill.status();
  ASSERT_TRUE(update.ok()) << update.status();
  const NkiOp& fill_loop = fill->kernel->loops[0].body[1];
  const NkiOp& update_loop = update->kernel->loops[0].body[1];
  EXPECT_EQ(LoopResultOf(fill_loop.loop[0]), LoopResultKind::kBlock);
  EXPECT_EQ(LoopResultOf(update_loop.loop[0]), LoopResultKind::kState);
  // The block holds its 8 tiles of 2 KiB for `out`; the state one.
  auto copies_of_tiles = [](const WorkloadSpec& s) {
    int64_t n = 0;
    for (const LiveTile& t : s.compiled.sbuf.live) {
      if (t.id == "tiles") n += t.copies;
    }
    return n;
  };
  EXPECT_EQ(copies_of_tiles(*fill), 8);
  // The state is `zero` updated in place: no bytes of its own, and `zero`
  // is held to the state's last reader.
  EXPECT_EQ(copies_of_tiles(*update), 0);
  // Its peak is in the k loop: `zero` and 8 loads of 2 KiB in flight.
  EXPECT_EQ(update->compiled.sbuf.at, "/kernel/loops/0/body/1");
  EXPECT_EQ(update->compiled.sbuf.used, 2048 + 8 * 2048);
  bool zero_live = false;
  for (const LiveTile& t : update->compiled.sbuf.live) {
    zero_live = zero_live || t.id == "zero";
  }
  EXPECT_TRUE(zero_live);
}

// c[128, 512] = a[128, K] @ b[K, 512] with nl.matmul(a_t, b_t) over 8 K
// tiles: a_t is [M, K] = [128, 128], as the source holds it, so the
// compiler transposes it before each matmul when `insert` is set.
Json NlMatmul(bool insert, int64_t m = 128) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "nl_matmul", "family": "mm",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "a", "shape": [128, 1024], "dtype": "bf16"},
      {"name": "b", "shape": [1024, 512], "dtype": "bf16"},
      {"name": "c", "shape": [128, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "mm.py", "loops": [{
      "var": "m", "range": "affine", "tensor": "c", "tile_partitions": 128,
      "body": [
        {"id": "acc", "op": "loop", "var": "k", "range": "affine",
         "tensor": "a", "dim": 1, "step": 128, "line": 1, "body": [
          {"id": "a_t", "op": "load", "tensor": "a", "index": ["m", "k"],
           "line": 2},
          {"id": "b_t", "op": "load", "tensor": "b", "index": ["k", ":"],
           "line": 3},
          {"id": "p", "op": "matmul", "inputs": ["a_t", "b_t"],
           "tile": [128, 512], "buffer": "psum", "line": 4}]},
        {"id": "out", "op": "tensor_copy", "engine": "vector",
         "inputs": ["acc"], "tile": [128, 512], "line": 5},
        {"op": "store", "tensor": "c", "inputs": ["out"], "line": 6}]}]}
  })");
  Json& mm = j["kernel"]["loops"][0]["body"][0]["body"][2];
  if (insert) mm["insert_transpose"] = true;
  j["tensors"][0]["shape"][1] = 1024;
  if (m != 128) j["kernel"]["loops"][0]["body"][0]["step"] = m;
  return j;
}

TEST(InsertTransposeTest, TheCompilerAddsATransposeAndACopyBeforeEachMatmul) {
  auto plain = Parse(NlMatmul(false));
  auto inserted = Parse(NlMatmul(true));
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*inserted, *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  const Kernel& k = program->dispatches[0].kernel;
  int transposes = 0, copies = 0, matmuls = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    const std::string label(k.strings[in.label]);
    if (label == "p.transpose") {
      ++transposes;
      EXPECT_EQ(in.engine, Engine::kTensor);
      EXPECT_EQ(in.rule, CostRule::kTransposePe);
      EXPECT_EQ(in.work, 128);
    } else if (label == "p.transpose_copy") {
      ++copies;
      EXPECT_TRUE(in.engine == Engine::kVector || in.engine == Engine::kScalar);
      // It reads the transpose.
      ASSERT_EQ(in.deps_end - in.deps_begin, 1u);
      EXPECT_EQ(k.strings[k.instrs[k.deps[in.deps_begin]].label],
                "p.transpose");
    } else if (label == "p") {
      ++matmuls;
      bool after_copy = false;
      for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
        after_copy = after_copy ||
                     k.strings[k.instrs[k.deps[d]].label] == "p.transpose_copy";
      }
      EXPECT_TRUE(after_copy);
      EXPECT_EQ(in.flops, 2 * 128 * 128 * 512);
    }
  }
  EXPECT_EQ(transposes, 8);
  EXPECT_EQ(copies, 8);
  EXPECT_EQ(matmuls, 8);
  // DMA-bound: the inserted instructions may hide under the loads.
  EXPECT_GE(DeviceUs(*inserted), DeviceUs(*plain));
  // The profile's record: the copy's engine is the compiler's.
  int recorded = 0;
  for (const EngineDecision& e : inserted->compiled.engines) {
    if (e.id == "p.transpose_copy" || e.id == "p.transpose") {
      ++recorded;
      EXPECT_EQ(e.by, DecidedBy::kCompiler);
      EXPECT_THAT(e.why, HasSubstr("transpose_x=False"));
    }
  }
  EXPECT_EQ(recorded, 2);
  // Its two tiles are live at the matmul: one more PSUM bank for each
  // iteration in flight.
  EXPECT_GT(inserted->compiled.psum.used, plain->compiled.psum.used);
  EXPECT_GT(inserted->compiled.psum.used, 1);
}

TEST(InsertTransposeTest, OnlyAMatmulTakesItAndXMustFitThePeArray) {
  Json j = NlMatmul(false);
  j["kernel"]["loops"][0]["body"][1]["insert_transpose"] = true;
  auto copy = Parse(j);
  ASSERT_FALSE(copy.ok());
  EXPECT_THAT(std::string(copy.status().message()),
              HasSubstr("/kernel/loops/0/body/1/insert_transpose"));
  auto wide = Parse(NlMatmul(true, 256));
  ASSERT_TRUE(wide.ok()) << wide.status();
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*wide, *profile);
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(std::string(program.status().message()),
              HasSubstr("/insert_transpose: x is [128, 256]"));
}

// nl.matmul of a [128, 128] slice of a wider x (NKIBench's
// `nl.matmul(x_tiles[:, k * 128:(k + 1) * 128], w)`): the transpose the
// compiler inserts is of the slice, not of the whole tile.
TEST(InsertTransposeTest, AStationarySliceIsTransposedAsTheSlice) {
  Json j = NlMatmul(true, 256);
  j["kernel"]["loops"][0]["body"][0]["body"][2]["slices"] =
      Json::parse("[[128, 128], null]");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*spec, *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  const Kernel& k = program->dispatches[0].kernel;
  int transposes = 0;
  for (const Instruction& in : k.instrs) {
    const std::string label(k.strings[in.label]);
    if (label == "p.transpose") {
      ++transposes;
      EXPECT_EQ(in.work, 128);
      EXPECT_EQ(in.aux, 128);  // the slice's free size, not 256
    } else if (label == "p") {
      EXPECT_EQ(in.flops, 2 * 128 * 128 * 512);
    }
  }
  EXPECT_GT(transposes, 0);
}

// x [1024, 18432] fp32 in 8 tiles of 72 KiB per partition: a = load,
// b = exp(a), c = exp(b) stored, then e = a reduced. At c, a, b and c are
// live, 216 KiB of SBUF's 192: a is live across c, read next by e.
Json Spilling() {
  Json j = Exp(18432);
  j["tensors"].push_back(
      {{"name", "z"}, {"shape", {1024, 1}}, {"dtype", "fp32"}});
  j["kernel"]["loops"][0]["body"] = Json::parse(R"([
    {"id": "a", "op": "load", "tensor": "x", "line": 1},
    {"id": "b", "op": "activation", "func": "exp", "inputs": ["a"], "line": 2},
    {"id": "c", "op": "activation", "func": "exp", "inputs": ["b"], "line": 3},
    {"op": "store", "tensor": "y", "inputs": ["c"], "line": 4},
    {"id": "e", "op": "tensor_reduce", "inputs": ["a"], "tile": [128, 1],
     "line": 5},
    {"op": "store", "tensor": "z", "inputs": ["e"], "line": 6}])");
  return j;
}

TEST(SpillTest, ALiveSetOverSbufSpillsTheTileReadFurthestAhead) {
  auto spec = Parse(Spilling());
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->compiled.spills.size(), 1u);
  const SpillDecision& s = spec->compiled.spills[0];
  EXPECT_EQ(s.id, "a");
  EXPECT_EQ(s.json_path, "/kernel/loops/0/body/0");
  EXPECT_EQ(s.reload_before, "/kernel/loops/0/body/4");
  EXPECT_EQ(s.bytes, 18432 * 4);
  EXPECT_EQ(s.partitions, 128);
  EXPECT_EQ(s.runs, 8);
  EXPECT_EQ(s.SaveBytes(), int64_t{8} * 128 * 18432 * 4);
  EXPECT_EQ(s.ReloadBytes(), s.SaveBytes());
  // Without a, the peak is b and c at the second exp.
  EXPECT_EQ(spec->compiled.sbuf.used, 2 * 18432 * 4);
  // Two iterations in flight would need twice b and c (and a's reload).
  EXPECT_EQ(spec->kernel->loops[0].buffers, 1);
  EXPECT_THAT(spec->compiled.loops[0].why, HasSubstr("limited by SBUF"));
  // Lowered: each iteration saves a after its load and reloads it for e.
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*spec, *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  const Kernel& k = program->dispatches[0].kernel;
  int saves = 0, reloads = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    const std::string opcode(k.strings[in.opcode]);
    if (opcode == "dma_spill_save") ++saves;
    if (opcode == "dma_spill_reload") {
      ++reloads;
      EXPECT_EQ(in.work, 128 * 18432 * 4);
      ASSERT_EQ(in.deps_end - in.deps_begin, 1u);
      EXPECT_EQ(k.strings[k.instrs[k.deps[in.deps_begin]].opcode],
                "dma_spill_save");
    }
    if (opcode == "tensor_reduce") {
      ASSERT_EQ(in.deps_end - in.deps_begin, 1u);
      EXPECT_EQ(k.strings[k.instrs[k.deps[in.deps_begin]].opcode],
                "dma_spill_reload");
    }
  }
  EXPECT_EQ(saves, 8);
  EXPECT_EQ(reloads, 8);
}

// Model 13: a kernel that spills still pipelines where it has room. After
// Spilling()'s loop, a second loop of [128, 512] fp32 tiles (2 KiB per
// partition each) is far from the peak: it grows to the innermost cap, as
// in a kernel that does not spill, while the spilling loop, whose peak has
// no room for a second iteration, stays at one.
TEST(SpillTest, ALoopAwayFromThePeakIsPipelinedWithTheSpills) {
  Json j = Spilling();
  j["tensors"].push_back(
      {{"name", "u"}, {"shape", {1024, 512}}, {"dtype", "fp32"}});
  j["tensors"].push_back(
      {{"name", "v"}, {"shape", {1024, 512}}, {"dtype", "fp32"}});
  j["kernel"]["loops"].push_back(Json::parse(R"({
    "var": "q", "range": "affine", "tensor": "u", "tile_partitions": 128,
    "body": [
      {"id": "ut", "op": "load", "tensor": "u", "line": 7},
      {"id": "vt", "op": "activation", "func": "exp", "inputs": ["ut"],
       "line": 8},
      {"op": "store", "tensor": "v", "inputs": ["vt"], "line": 9}]})"));
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->compiled.spills.size(), 1u);
  EXPECT_EQ(spec->compiled.spills[0].id, "a");
  ASSERT_EQ(spec->compiled.loops.size(), 2u);
  EXPECT_EQ(spec->kernel->loops[0].buffers, 1);
  EXPECT_THAT(spec->compiled.loops[0].why, HasSubstr("limited by SBUF"));
  EXPECT_EQ(spec->kernel->loops[1].buffers, 8);
  EXPECT_THAT(spec->compiled.loops[1].why, HasSubstr("with its spills"));
  // The peak is still the spilling loop's: b and c at the second exp.
  EXPECT_EQ(spec->compiled.sbuf.used, 2 * 18432 * 4);
}

// A block of 16 [128, 4096] fp32 slots (16 KiB each, 256 KiB in all) that
// a k loop reads one slot at a time, twice (an r loop around it), as the
// block-free matmul reads its rhs block in fp32: the block alone exceeds
// SBUF, and no whole tile is live across the peak without a use there.
Json SlotSpilling() {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "slot_spill", "family": "spill",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [2048, 4096], "dtype": "fp32"},
      {"name": "y", "shape": [128, 4096], "dtype": "fp32"},
      {"name": "iter_r", "shape": [1, 2], "dtype": "int8"}
    ],
    "kernel": {"source_file": "slots.py", "loops": [{
      "var": "n", "range": "affine", "tensor": "y", "tile_partitions": 128,
      "body": [
        {"id": "blk", "op": "loop", "var": "k", "range": "affine",
         "tensor": "x", "tile_partitions": 128, "line": 1, "body": [
          {"id": "t", "op": "load", "tensor": "x", "index": ["k", ":"],
           "line": 2}]},
        {"op": "loop", "var": "r", "range": "affine", "tensor": "iter_r",
         "dim": 1, "step": 1, "line": 3, "body": [
          {"op": "loop", "var": "k2", "range": "affine", "tensor": "x",
           "tile_partitions": 128, "line": 4, "body": [
            {"id": "e", "op": "tensor_reduce", "inputs": ["blk[k2]"],
             "tile": [128, 1], "line": 5}]}]},
        {"id": "z", "op": "memset", "tile": [128, 1], "after": ["blk"],
         "line": 6}]}]}
  })");
  return j;
}

TEST(SpillTest, ABlockReadBySlotSpillsItsLastSlotsAndReloadsEachRead) {
  Json j = SlotSpilling();
  // The memset waiting for the whole block would make it unspillable by
  // slot; without it every read takes one slot.
  j["kernel"]["loops"][0]["body"].erase(2);
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->compiled.spills.size(), 1u);
  const SpillDecision& s = spec->compiled.spills[0];
  EXPECT_EQ(s.id, "blk");
  EXPECT_EQ(s.block_slots, 16);
  EXPECT_EQ(s.bytes, 4096 * 4);
  EXPECT_EQ(s.partitions, 128);
  // SBUF is 192 KiB in the test limits: the slots left, the 8 reload
  // buffers and the reduction's 4 B need (16 - s) * 16 KiB + 8 * 16 KiB + 4
  // <= 192 KiB, so s = 13, the fewest.
  EXPECT_EQ(s.slots, 13);
  // The spills are chosen at one iteration in flight; then the k2 loop,
  // which has room, is pipelined with them (model 13): 8 reductions of
  // 4 B in flight.
  EXPECT_EQ(spec->compiled.sbuf.used, (16 - 13) * 16384 + 8 * 16384 + 8 * 4);
  // Read twice a run (r), 13 of 16 slots spilled: 26 reloads, 13 saves.
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(s.reloads, 26);
  EXPECT_EQ(s.SaveBytes(), int64_t{13} * 128 * 16384);
  EXPECT_EQ(s.ReloadBytes(), int64_t{26} * 128 * 16384);
  // Lowered: the saves follow the last 13 loads; each read of a spilled
  // slot waits for a reload, which waits for that slot's save.
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*spec, *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  const Kernel& k = program->dispatches[0].kernel;
  int saves = 0, reloads = 0, from_reload = 0, reads = 0;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const Instruction& in = k.instrs[i];
    const std::string opcode(k.strings[in.opcode]);
    if (opcode == "dma_spill_save") ++saves;
    if (opcode == "dma_spill_reload") {
      ++reloads;
      EXPECT_EQ(in.work, 128 * 16384);
      bool after_save = false;
      for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
        after_save = after_save ||
                     k.strings[k.instrs[k.deps[d]].opcode] == "dma_spill_save";
      }
      EXPECT_TRUE(after_save);
    }
    if (opcode == "tensor_reduce") ++reads;
    // The read a reload is for is the next reduction, which waits for it.
    if (opcode != "dma_spill_reload") continue;
    for (size_t r = i + 1; r < k.instrs.size(); ++r) {
      const Instruction& next = k.instrs[r];
      if (k.strings[next.opcode] != "tensor_reduce") continue;
      for (uint32_t d = next.deps_begin; d < next.deps_end; ++d) {
        from_reload += k.deps[d] == i ? 1 : 0;
      }
      break;
    }
  }
  EXPECT_EQ(saves, 13);
  EXPECT_EQ(reloads, 26);
  EXPECT_EQ(reads, 32);
  EXPECT_EQ(from_reload, 26);
}

TEST(CompilerTest, ABlockFilledOverTwoLoopsHoldsEachSlotOnce) {
  // blk[k][j]: 4 x 2 slots of [128, 1024] fp32 (4 KiB per partition each),
  // filled by the k loop (the block's id) and the j loop without an id in
  // its result position (one level of the block). The slot a load writes
  // is one of the block's 8, held once (the NKI block dimension migration
  // guide: a block's logical tiles are its physical tiles); counted both
  // as the block's and as the j loop's own tile, the peak was a 9th slot
  // higher.
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "two_level_block", "family": "block",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 2048], "dtype": "fp32"},
      {"name": "y", "shape": [128, 2048], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "blocks.py", "loops": [{
      "var": "n", "range": "affine", "tensor": "y", "tile_partitions": 128,
      "body": [
        {"id": "blk", "op": "loop", "var": "k", "range": "affine",
         "tensor": "x", "tile_partitions": 128, "line": 1, "body": [
          {"op": "loop", "var": "j", "range": "affine", "tensor": "x",
           "dim": 1, "step": 1024, "line": 2, "body": [
            {"id": "t", "op": "load", "tensor": "x", "index": ["k", "j"],
             "tile": [128, 1024], "line": 3}]}]},
        {"op": "loop", "var": "k2", "range": "affine", "tensor": "x",
         "tile_partitions": 128, "line": 4, "body": [
          {"op": "loop", "var": "j2", "range": "affine", "tensor": "x",
           "dim": 1, "step": 1024, "line": 5, "body": [
            {"id": "e", "op": "tensor_reduce", "inputs": ["blk[k2][j2]"],
             "tile": [128, 1], "line": 6}]}]}]}]}
  })");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.spills.empty());
  // The block's 8 slots and the reductions in flight (4 B each): never a
  // 9th slot.
  EXPECT_GE(spec->compiled.sbuf.used, 8 * 4096);
  EXPECT_LT(spec->compiled.sbuf.used, 9 * 4096);
}

TEST(SpillTest, ABlockAlsoReadWholeIsNotSpilledBySlot) {
  // The memset waits for `blk` whole: its slots cannot go one by one, and
  // nothing else can be spilled at the peak.
  auto spec = Parse(SlotSpilling());
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("SBUF overflow"));
}

TEST(SpillTest, WhatCannotFitEvenSpilledIsRefusedNamingThePoint) {
  // Two 128 KiB tiles both used by the exp: nothing live there can go.
  auto spec = Parse(Exp(32768));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("/kernel/loops/0/body/1: SBUF overflow"));
}

TEST(EngineTest, NothingOnAPsumTileGoesToGpSimd) {
  // The copy out of the matmul's PSUM accumulator: by workload it would
  // go to the idle GpSimd (VectorE has the inserted transposes' copies),
  // which cannot access PSUM.
  Json j = NlMatmul(true);
  j["kernel"]["loops"][0]["body"][1].erase("engine");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  bool seen = false;
  for (const EngineDecision& e : spec->compiled.engines) {
    if (e.id != "out") continue;
    seen = true;
    EXPECT_NE(e.engine, Engine::kGpSimd);
  }
  EXPECT_TRUE(seen);
}

TEST(EngineTest, ACopyOutOfPsumGoesToScalarEEvenWithVectorEIdle) {
  // Model 12: the eviction of the matmul's accumulator (and the inserted
  // transpose's copy) go to ScalarE whatever the workload: here nothing
  // else runs on VectorE, so the workload rule would pick it. A copy of an
  // SBUF tile is still placed by workload.
  Json j = NlMatmul(true);
  Json& body = j["kernel"]["loops"][0]["body"];
  body[1].erase("engine");
  body[2]["inputs"] = {"out2"};
  body.insert(body.begin() + 2,
              Json::parse(R"({"id": "out2", "op": "tensor_copy",
                              "inputs": ["out"], "tile": [128, 512],
                              "line": 5})"));
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  int seen = 0;
  for (const EngineDecision& e : spec->compiled.engines) {
    if (e.id == "out" || e.id == "p.transpose_copy") {
      ++seen;
      EXPECT_EQ(e.engine, Engine::kScalar) << e.id;
      EXPECT_THAT(e.why, HasSubstr("PSUM")) << e.id;
    }
    if (e.id == "out2") {
      ++seen;
      // ScalarE has the evictions: the SBUF copy goes to VectorE.
      EXPECT_EQ(e.engine, Engine::kVector);
      EXPECT_THAT(e.why, HasSubstr("by engine workload"));
    }
  }
  EXPECT_EQ(seen, 3);
}

TEST(PartialTileTest, ALastTileAlongAFreeDimIsCostedAtItsRealSize) {
  // x [128, 1000] walked by 512 columns: 512, then 488.
  Json j = Exp(1000);
  j["tensors"][0]["shape"] = {128, 1000};
  j["tensors"][1]["shape"] = {128, 1000};
  Json& loop = j["kernel"]["loops"][0];
  loop["tensor"] = "x";
  loop.erase("tile_partitions");
  loop["dim"] = 1;
  loop["step"] = 512;
  loop["var"] = "f";
  loop["body"] = Json::parse(R"([
    {"id": "in_tile", "op": "load", "tensor": "x", "index": [":", "f"],
     "affine_mask": true, "line": 1},
    {"id": "out_tile", "op": "activation", "func": "exp",
     "inputs": ["in_tile"], "tile": [128, 512], "line": 2},
    {"op": "store", "tensor": "y", "inputs": ["out_tile"], "index": [":", "f"],
     "affine_mask": true, "line": 3}])");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok());
  auto program = Lower(*spec, *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  const Kernel& k = program->dispatches[0].kernel;
  std::vector<int64_t> exp_work, dma_bytes;
  for (const Instruction& in : k.instrs) {
    if (in.kind == InstrKind::kDma) {
      dma_bytes.push_back(in.work);
    } else {
      exp_work.push_back(in.work);
    }
  }
  EXPECT_EQ(exp_work, (std::vector<int64_t>{512, 488}));
  EXPECT_EQ(dma_bytes, (std::vector<int64_t>{128 * 512 * 4, 128 * 512 * 4,
                                             128 * 488 * 4, 128 * 488 * 4}));
  // The shortcuts find the loop the free size follows once per op
  // (OpFacts::partial_free_frame); the reference, PartialFree, per
  // iteration.
  lowering_internal::NkiLoweringOptions reference;
  reference.shortcuts = false;
  auto slow = lowering_internal::LowerNki(*spec, *profile, reference);
  ASSERT_TRUE(slow.ok()) << slow.status();
  EXPECT_EQ(lowering_internal::ProgramDifference(*program, *slow), "");
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

namespace trn {
namespace {

// Rematerialized input blocks (workloads/compiler/rematerialization.h): a
// block `blk` of 8 [128, w_cols] fp32 slots of input w (w_cols / 32 KiB
// per partition), the 1024 rows of w of each of the 2 iterations of n
// (so not one block kept over the whole kernel, a loop-invariant load),
// read slot by slot in each of 4 iterations of r, whose own tile is
// [128, cols] fp32.
Json Remat(int64_t cols, int64_t w_cols = 4096) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "remat", "family": "remat",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "w", "shape": [2048, 4096], "dtype": "fp32"},
      {"name": "x", "shape": [512, 0], "dtype": "fp32"},
      {"name": "y", "shape": [512, 0], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "remat.py", "loops": [{
      "var": "n", "range": "affine", "tensor": "w", "step": 1024,
      "body": [
        {"id": "blk", "op": "loop", "var": "k", "range": "affine",
         "tensor": "w", "tile_partitions": 128, "line": 1, "body": [
          {"id": "t", "op": "load", "tensor": "w", "index": ["k", ":"],
           "line": 2}]},
        {"op": "loop", "var": "r", "range": "affine", "tensor": "x",
         "tile_partitions": 128, "line": 3, "body": [
          {"id": "xt", "op": "load", "tensor": "x", "line": 4},
          {"op": "loop", "var": "k2", "range": "affine", "tensor": "w",
           "tile_partitions": 128, "line": 5, "body": [
            {"id": "e", "op": "tensor_reduce", "inputs": ["blk[k2]"],
             "tile": [128, 1], "line": 6}]},
          {"op": "store", "tensor": "y", "inputs": ["xt"], "line": 7}]}]}]}
  })");
  j["tensors"][0]["shape"][1] = w_cols;
  j["tensors"][1]["shape"][1] = cols;
  j["tensors"][2]["shape"][1] = cols;
  return j;
}

// The loads of w in the lowered program (a load is labelled with its tensor).
int LoadsOfW(const WorkloadSpec& spec) {
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  EXPECT_TRUE(profile.ok());
  auto program = Lower(spec, *profile);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return -1;
  const Kernel& k = program->dispatches[0].kernel;
  int loads = 0;
  for (const Instruction& in : k.instrs) {
    if (in.kind == InstrKind::kDma && k.strings[in.label] == "w") ++loads;
  }
  return loads;
}

TEST(RematTest, AnInputBlockThatKeepsALoopSerialIsLoadedInEachIteration) {
  // r's [128, 12288] tile is 48 KiB: kept, the block leaves room for one
  // iteration of r (176 KiB), not two (224 KiB of 192); without it two fit.
  auto spec = Parse(Remat(12288));
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->compiled.remats.size(), 1u);
  const RematDecision& r = spec->compiled.remats[0];
  EXPECT_EQ(r.id, "blk");
  EXPECT_EQ(r.var, "r");
  EXPECT_EQ(r.bytes, 8 * 4096 * 4);
  EXPECT_EQ(r.kept_loads, 2);
  EXPECT_EQ(r.loads, 8);
  EXPECT_THAT(r.why, HasSubstr("unmodified copy of an input"));
  // No spill: the block is loaded again from w, nothing is saved.
  EXPECT_TRUE(spec->compiled.spills.empty());
  // The block now runs at the start of r's body: 8 slots in each of the
  // 2 x 4 iterations of r, where kept it was 8 in each of the 2 of n.
  const NkiLoop& n = spec->kernel->loops[0];
  ASSERT_EQ(n.body.size(), 1u);
  EXPECT_EQ(n.body[0].loop.front().body[0].id, "blk");
  EXPECT_EQ(LoadsOfW(*spec), 64);
  // Compiled again (another shape, device or --set): the block goes back
  // where the source has it first, and the same decision is made.
  ASSERT_TRUE(CompileSpec(*spec, MemoryLimits{}).ok());
  ASSERT_EQ(spec->compiled.remats.size(), 1u);
  EXPECT_EQ(spec->kernel->loops[0].body.size(), 1u);
  EXPECT_EQ(LoadsOfW(*spec), 64);
}

TEST(RematTest, ABlockThatLeavesRoomForTwoIterationsIsKept) {
  // [128, 4096] tiles: 128 + 2 x 16 KiB fit with the block kept.
  auto spec = Parse(Remat(4096));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.remats.empty());
  EXPECT_EQ(spec->kernel->loops[0].body[0].id, "blk");
  EXPECT_EQ(LoadsOfW(*spec), 16);
}

TEST(RematTest, ABlockOfATensorTheKernelWritesIsNotAnInputCopy) {
  // The kernel also writes w (a loop after n): a load of it is not an
  // unmodified copy of an input, so the block is kept (and r stays at one
  // iteration).
  Json j = Remat(12288);
  j["kernel"]["loops"].push_back(Json::parse(R"({
      "var": "m", "range": "affine", "tensor": "w", "tile_partitions": 128,
      "body": [
        {"id": "u", "op": "memset", "tile": [128, 4096], "line": 8},
        {"op": "store", "tensor": "w", "inputs": ["u"], "line": 9}]})"));
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.remats.empty());
}

TEST(RematTest, TwoIterationsThatDoNotFitEvenWithoutTheBlockKeepIt) {
  // A 32 KiB block and [128, 25600] tiles (100 KiB): one iteration of r
  // fits beside the block, two do not fit even without it, so dropping it
  // buys nothing (as the matmul tutorial's fp32 hoisted kernel on trn2
  // keeps its lhsT block).
  auto spec = Parse(Remat(25600, 1024));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->compiled.remats.empty());
  EXPECT_EQ(LoadsOfW(*spec), 16);
}

}  // namespace
}  // namespace trn
