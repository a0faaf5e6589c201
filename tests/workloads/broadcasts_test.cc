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
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// y = x * row, the [1, cols] row broadcast to every 128-row tile of x
// (2 iterations), as `x_t * row.broadcast_to((128, cols))`.
Json Kernel(const Json& broadcasts, int64_t cols = 512) {
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
  if (cols != 512) {
    for (Json& t : j["tensors"]) t["shape"][1] = cols;
    j["kernel"]["loops"][0]["body"][2]["tile"][1] = cols;
  }
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

// The tests' device profile, parsed once.
const DeviceProfile& TestDeviceProfile() {
  static const DeviceProfile* const profile = [] {
    auto p = ParseDeviceProfile(trn::testing::TestProfile().dump(), "t");
    EXPECT_TRUE(p.ok()) << p.status();
    return new DeviceProfile(*std::move(p));
  }();
  return *profile;
}

// Compiling a compiled spec again expands its broadcasts once; removing
// them gives back the spec as written: `written` ids in the first loop's
// body, and `reader` (the op that reads the broadcast) with its inputs as
// written and no `after` of the compiler's.
void ExpectExpandsOnceAndRestores(WorkloadSpec& spec,
                                  const std::vector<std::string>& written,
                                  const NkiOp& (*reader)(const WorkloadSpec&)) {
  const std::vector<std::string> once = OpIds(spec);
  ASSERT_TRUE(CompileSpec(spec, MemoryLimits{}).ok());
  EXPECT_EQ(OpIds(spec), once);
  RemoveInsertedBroadcasts(spec);
  EXPECT_EQ(OpIds(spec), written);
  EXPECT_EQ(reader(spec).inputs, (std::vector<std::string>{"x_t", "row"}));
  EXPECT_TRUE(reader(spec).after.empty());
}

const NkiOp& ThirdOp(const WorkloadSpec& s) {
  return s.kernel->loops[0].body[2];
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
  ExpectExpandsOnceAndRestores(*spec, {"x_t", "row", "prod", ""}, ThirdOp);
}

TEST(BroadcastsTest, EachIterationRunsOneTensorEMatmulCostedByTheMatmulRule) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]")));
  ASSERT_TRUE(spec.ok()) << spec.status();
  const DeviceProfile* profile = &TestDeviceProfile();
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

// Past 512 columns (nc_matmul's moving limit, one PSUM bank of fp32) the
// broadcast is one matmul per bank, each copied to SBUF; the op reads the
// copies. 1300 columns: 512 + 512 + 276.
TEST(BroadcastsTest, WiderThanOneMatmulIsOneMatmulPerBankCopiedToSbuf) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]"), 1300));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(OpIds(*spec),
            (std::vector<std::string>{
                "ones_128_fp32", "x_t", "row", "row_bcast128_0",
                "row_bcast128_0_sb", "row_bcast128_1", "row_bcast128_1_sb",
                "row_bcast128_2", "row_bcast128_2_sb", "prod", ""}));
  const auto& body = spec->kernel->loops[0].body;
  const int64_t widths[] = {512, 512, 276};
  for (int j = 0; j < 3; ++j) {
    const NkiOp& mm = body[3 + 2 * j];
    const NkiOp& copy = body[4 + 2 * j];
    EXPECT_EQ(mm.op, "matmul");
    EXPECT_EQ(mm.buffer, "psum");
    EXPECT_EQ(mm.tile, (std::vector<int64_t>{128, widths[j]}));
    EXPECT_EQ(mm.inputs, (std::vector<std::string>{"ones_128_fp32", "row"}));
    EXPECT_EQ(copy.op, "tensor_copy");
    EXPECT_EQ(copy.buffer, "sbuf");
    EXPECT_EQ(copy.tile, (std::vector<int64_t>{128, widths[j]}));
    EXPECT_EQ(copy.inputs, (std::vector<std::string>{mm.id}));
    ASSERT_TRUE(copy.engine.has_value());
    EXPECT_NE(*copy.engine, Engine::kGpSimd);  // GpSimd cannot read PSUM
  }
  const NkiOp& prod = body[9];
  EXPECT_EQ(prod.inputs,
            (std::vector<std::string>{"x_t", "row_bcast128_2_sb"}));
  EXPECT_EQ(prod.after, (std::vector<std::string>{"row_bcast128_0_sb",
                                                  "row_bcast128_1_sb"}));
  ExpectExpandsOnceAndRestores(*spec, {"x_t", "row", "prod", ""}, ThirdOp);
}

TEST(BroadcastsTest, AWideBroadcastRunsEachBanksMatmulAndTheOpWaitsForAll) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]"), 1300));
  ASSERT_TRUE(spec.ok()) << spec.status();
  const DeviceProfile* profile = &TestDeviceProfile();
  auto p = Lower(*spec, *profile);
  ASSERT_TRUE(p.ok()) << p.status();
  const auto& k = p->dispatches[0].kernel;
  std::vector<int64_t> works;
  for (const Instruction& in : k.instrs) {
    if (in.kind == InstrKind::kCompute && in.engine == Engine::kTensor) {
      works.push_back(in.work);
    }
  }
  // Three matmuls for each of the two 128-row tiles.
  EXPECT_EQ(works, (std::vector<int64_t>{512, 512, 276, 512, 512, 276}));
  // The multiply (the last line-3 instruction that is neither a matmul nor
  // a copy of one) waits, directly or through the copies, for all three.
  size_t waits_on_copies = 0;
  for (const Instruction& in : k.instrs) {
    if (in.kind != InstrKind::kCompute || in.source_line != 3 ||
        in.engine == Engine::kTensor || in.work != 1300) {
      continue;
    }
    size_t copies = 0;
    for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
      const Instruction& dep = k.instrs[k.deps[d]];
      if (dep.source_line == 3 && dep.engine != Engine::kTensor &&
          dep.work != 1300) {
        ++copies;
      }
    }
    EXPECT_EQ(copies, 3u);
    ++waits_on_copies;
  }
  EXPECT_EQ(waits_on_copies, 2u);
}

// The LayerNorm tutorial's gamma at its script's shape: 8192 fp32 columns
// are 32 KiB per partition, twice all of PSUM. As one PSUM tile it was
// refused (PSUM overflow); staged through SBUF it fits, 16 matmuls a tile.
TEST(BroadcastsTest, ABroadcastWiderThanPsumFitsStagedThroughSbuf) {
  auto spec = Parse(Kernel(Json::parse("[null, 128]"), 8192));
  ASSERT_TRUE(spec.ok()) << spec.status();
  int matmuls = 0;
  int copies = 0;
  for (const NkiOp& op : spec->kernel->loops[0].body) {
    if (!op.compiler_inserted) continue;
    matmuls += op.op == "matmul";
    copies += op.op == "tensor_copy";
  }
  EXPECT_EQ(matmuls, 16);
  EXPECT_EQ(copies, 16);
  EXPECT_LE(spec->compiled.psum.used, spec->compiled.psum.limit);
}

// A row made outside the loop that reads its broadcast (the LayerNorm and
// RMSNorm tutorials load gamma before their row loop): the broadcast is
// made in the reader's body, in each iteration, since the format does not
// say where `broadcast_to` was called (RMSNorm calls it inside the loop,
// LayerNorm before it).
TEST(BroadcastsTest, AnInputMadeOutsideTheLoopIsBroadcastInTheReadersBody) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "bcast", "family": "bcast",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [256, 1300], "dtype": "fp32"},
      {"name": "b", "shape": [1, 1300], "dtype": "fp32"},
      {"name": "y", "shape": [256, 1300], "dtype": "fp32"},
      {"name": "iter_once", "shape": [1, 1], "dtype": "int8"}
    ],
    "kernel": {"source_file": "k.py", "loops": [{
      "var": "once", "range": "affine", "tensor": "iter_once", "dim": 1,
      "step": 1, "body": [
        {"id": "row", "op": "load", "tensor": "b", "index": [":", ":"],
         "tile": [1, 1300], "line": 2},
        {"op": "loop", "var": "p", "range": "affine", "tensor": "x",
         "tile_partitions": 128, "line": 3, "body": [
          {"id": "x_t", "op": "load", "tensor": "x", "index": ["p", ":"],
           "line": 4},
          {"id": "prod", "op": "tensor_tensor", "inputs": ["x_t", "row"],
           "broadcasts": [null, 128], "tile": [128, 1300], "line": 5},
          {"op": "store", "tensor": "y", "inputs": ["prod"],
           "index": ["p", ":"], "line": 6}]}]}]}
  })");
  auto spec = Parse(j);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(OpIds(*spec),
            (std::vector<std::string>{"ones_128_fp32", "row", ""}));
  const auto& inner = spec->kernel->loops[0].body[2].loop.front().body;
  std::vector<std::string> inner_ids;
  for (const NkiOp& op : inner) inner_ids.push_back(op.id);
  EXPECT_EQ(inner_ids, (std::vector<std::string>{
                           "x_t", "row_bcast128_0", "row_bcast128_0_sb",
                           "row_bcast128_1", "row_bcast128_1_sb",
                           "row_bcast128_2", "row_bcast128_2_sb", "prod", ""}));
  ASSERT_EQ(inner.size(), 9u);
  const NkiOp& prod = inner[7];
  EXPECT_EQ(prod.inputs,
            (std::vector<std::string>{"x_t", "row_bcast128_2_sb"}));
  EXPECT_EQ(prod.after, (std::vector<std::string>{"row_bcast128_0_sb",
                                                  "row_bcast128_1_sb"}));
  const DeviceProfile* profile = &TestDeviceProfile();
  auto p = Lower(*spec, *profile);
  ASSERT_TRUE(p.ok()) << p.status();
  int matmuls = 0;
  for (const Instruction& in : p->dispatches[0].kernel.instrs) {
    matmuls += in.kind == InstrKind::kCompute && in.engine == Engine::kTensor;
  }
  EXPECT_EQ(matmuls, 6);  // three for each 128-row tile
  ExpectExpandsOnceAndRestores(
      *spec, {"row", ""}, [](const WorkloadSpec& s) -> const NkiOp& {
        return s.kernel->loops[0].body[1].loop.front().body[1];
      });
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
