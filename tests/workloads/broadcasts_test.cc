// Partition broadcasts ("broadcasts" on an op): the compiler stage makes
// each one a TensorE matmul of a row of ones into PSUM, which the op reads;
// its cost is the matmul rule; bad entries are refused naming the entry.
#include "workloads/compiler/broadcasts.h"

#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "device_model/instruction_cost.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "workloads/compiler/compiler.h"
#include "workloads/lowering.h"
#include "workloads/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// y = x * row, the [1, 512] row broadcast to every 128-row tile of x
// (2 iterations), as `x_t * row.broadcast_to((128, 512))`.
Json Kernel(const Json& broadcasts) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "bcast", "family": "bcast",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [256, 512], "dtype": "fp32"},
      {"name": "b", "shape": [1, 512], "dtype": "fp32"},
      {"name": "y", "shape": [256, 512], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "k.py", "loops": [{
      "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
      "body": [
        {"id": "x_t", "op": "load", "tensor": "x", "line": 1},
        {"id": "row", "op": "load", "tensor": "b", "index": [":", ":"],
         "line": 2},
        {"id": "prod", "op": "tensor_tensor", "inputs": ["x_t", "row"],
         "tile": [128, 512], "line": 3},
        {"op": "store", "tensor": "y", "inputs": ["prod"], "line": 4}]}]}
  })");
  j["kernel"]["loops"][0]["body"][2]["broadcasts"] = broadcasts;
  return j;
}

absl::StatusOr<WorkloadSpec> Parse(const Json& j) {
  return ParseSpec(j.dump(), "spec.json", MemoryLimits{});
}

std::vector<std::string> OpIds(const WorkloadSpec& spec) {
  std::vector<std::string> ids;
  for (const NkiOp& op : spec.kernel->loops[0].body) ids.push_back(op.id);
  return ids;
}

TEST(BroadcastsTest, TheCompilerInsertsAMatmulOfARowOfOnes) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]")));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(OpIds(*spec),
            (std::vector<std::string>{"ones_128_fp32", "x_t", "row",
                                      "row_bcast128", "prod", ""}));
  const NkiOp& ones = spec->kernel->loops[0].body[0];
  EXPECT_EQ(ones.op, "memset");
  EXPECT_EQ(ones.tile, (std::vector<int64_t>{1, 128}));
  const NkiOp& mm = spec->kernel->loops[0].body[3];
  EXPECT_EQ(mm.op, "matmul");
  EXPECT_EQ(mm.inputs, (std::vector<std::string>{"ones_128_fp32", "row"}));
  EXPECT_EQ(mm.tile, (std::vector<int64_t>{128, 512}));
  EXPECT_EQ(mm.buffer, "psum");
  EXPECT_EQ(mm.engine, Engine::kTensor);  // placed: TensorE only
  EXPECT_EQ(mm.source_line, 3);
  EXPECT_EQ(spec->kernel->loops[0].body[4].inputs,
            (std::vector<std::string>{"x_t", "row_bcast128"}));
}

TEST(BroadcastsTest, CompilingAgainExpandsOnce) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]")));
  ASSERT_TRUE(spec.ok()) << spec.status();
  const std::vector<std::string> once = OpIds(*spec);
  ASSERT_TRUE(CompileSpec(*spec, MemoryLimits{}).ok());
  EXPECT_EQ(OpIds(*spec), once);
  RemoveInsertedBroadcasts(*spec);
  EXPECT_EQ(OpIds(*spec), (std::vector<std::string>{"x_t", "row", "prod", ""}));
  EXPECT_EQ(spec->kernel->loops[0].body[2].inputs,
            (std::vector<std::string>{"x_t", "row"}));
}

TEST(BroadcastsTest, EachIterationRunsOneTensorEMatmulCostedByTheMatmulRule) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]")));
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto profile = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto p = Lower(*spec, *profile);
  ASSERT_TRUE(p.ok()) << p.status();
  const auto& k = p->dispatches[0].kernel;
  std::vector<size_t> mms;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    if (k.instrs[i].kind == InstrKind::kCompute &&
        k.instrs[i].engine == Engine::kTensor) {
      mms.push_back(i);
    }
  }
  ASSERT_EQ(mms.size(), 2u);  // one per 128-row tile
  for (size_t i : mms) {
    const Instruction& in = k.instrs[i];
    EXPECT_EQ(in.rule, CostRule::kMatmul);
    EXPECT_EQ(in.work, 512);  // the moving row's columns
    EXPECT_EQ(in.aux, 128);   // the partitions it is broadcast to
    EXPECT_EQ(in.dtype, DType::kFp32);
    EXPECT_EQ(in.source_line, 3);
    // The published rule: max(64, N) cycles, 4x for fp32 inputs.
    const InstructionTiming t = ComputeTiming(in, *profile);
    const EngineParams& e =
        profile->engines[static_cast<size_t>(Engine::kTensor)];
    EXPECT_NEAR(t.interval_us * e.clock_ghz * 1e3,
                512.0 / profile->tensor_fp32_rate, 1e-6);
  }
  // The multiply reads the broadcast: it waits for the matmul.
  size_t readers = 0;
  for (const Instruction& in : k.instrs) {
    if (in.source_line != 3 || in.engine == Engine::kTensor) continue;
    for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
      if (k.instrs[k.deps[d]].engine == Engine::kTensor &&
          k.instrs[k.deps[d]].source_line == 3) {
        ++readers;
      }
    }
  }
  EXPECT_EQ(readers, 2u);
}

TEST(BroadcastsTest, BadEntriesAreRefusedNamingThem) {
  struct Case {
    const char* broadcasts;
    const char* want;
  };
  const Case cases[] = {
      {"[128]",
       "/kernel/loops/0/body/2/broadcasts: has 1 entries; "
       "expected one per input (2)"},
      {"[null, 256]",
       "/kernel/loops/0/body/2/broadcasts/1: a broadcast to "
       "256 partitions; SBUF has 128"},
      {"[null, 0]",
       "/kernel/loops/0/body/2/broadcasts/1: expected null or "
       "a partition count"},
      {"[128, null]",
       "/kernel/loops/0/body/2/broadcasts/0: \"x_t\" is a "
       "tile of 128 partitions; a partition broadcast reads "
       "a tile of one"},
      {"[null, 64]",
       "/kernel/loops/0/body/2/broadcasts/1: broadcasts "
       "\"row\" to 64 partitions, but the op's tile has 128"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.broadcasts);
    auto spec = Parse(Kernel(Json::parse(c.broadcasts)));
    ASSERT_FALSE(spec.ok());
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.want));
    EXPECT_THAT(spec.status().message(), HasSubstr("spec.json: "));
  }
}

}  // namespace
}  // namespace trn
