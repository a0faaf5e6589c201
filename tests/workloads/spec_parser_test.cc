// Tests of the spec parser and validator: the shipped specs, one bad file
// per rule (tests/workloads/bad_specs/), and inputs too big to ship.
#include "workloads/loading/spec_parser.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "device_model/memory_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/hash.h"
#include "workloads/compiler/compiler.h"
#include "workloads/spec/spec.h"
#include "workloads/spec/spec_validator.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string SourcePath(std::string_view relative) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/" + std::string(relative);
}

// Debian's Abseil returns its own string_view, which gmock cannot match.
std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

WorkloadSpec LoadShipped(std::string_view name) {
  const std::string path =
      SourcePath("workloads/specs/" + std::string(name) + ".json");
  absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(path, MemoryLimits{});
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : WorkloadSpec{};
}

std::vector<std::string> OpNames(const WorkloadSpec& spec) {
  std::vector<std::string> names;
  for (const auto& op : spec.ops) names.push_back(op.op);
  return names;
}

// A small valid spec, for tests that change one thing.
constexpr std::string_view kSmallEager = R"({
  "schema_version": 1, "name": "small", "family": "test",
  "description": "d", "mode": "eager",
  "tensors": [{"name": "x", "shape": [4, 8], "dtype": "fp32"},
              {"name": "y", "shape": [4, 8], "dtype": "fp32"}],
  "ops": [{"op": "aten::exp", "inputs": ["x"], "output": "y"}]
})";

TEST(ShippedSpecTest, RmsnormNaiveHasSixEagerOpsAndAHostEpsilon) {
  const std::string path = SourcePath("workloads/specs/rmsnorm_naive.json");
  const WorkloadSpec spec = LoadShipped("rmsnorm_naive");
  EXPECT_EQ(spec.name, "rmsnorm_naive");
  EXPECT_EQ(spec.family, "rmsnorm");
  EXPECT_EQ(spec.mode, ExecMode::kEager);
  EXPECT_EQ(spec.file, path);
  EXPECT_EQ(spec.content_hash, Fnv1a64Hex(ReadFile(path)));
  EXPECT_EQ(spec.content_hash.size(), 16u);
  EXPECT_FALSE(spec.description.empty());
  EXPECT_THAT(OpNames(spec),
              ::testing::ElementsAre("aten::mul", "aten::mean", "aten::add",
                                     "aten::rsqrt", "aten::mul", "aten::mul"));
  EXPECT_EQ(spec.tensors.size(), 9u);
  const TensorDecl* eps = spec.FindTensor("eps");
  ASSERT_NE(eps, nullptr);
  EXPECT_EQ(eps->placement, Placement::kHost);
  EXPECT_TRUE(eps->shape.empty());
  EXPECT_EQ(eps->dtype, DType::kFp32);
  const TensorDecl* x = spec.FindTensor("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->shape, (std::vector<int64_t>{4, 512}));
  EXPECT_EQ(x->dtype, DType::kBf16);
  EXPECT_EQ(x->placement, Placement::kDevice);
  EXPECT_EQ(spec.ops[2].inputs, (std::vector<std::string>{"mean_sq", "eps"}));
  EXPECT_EQ(spec.ops[2].json_path, "/ops/2");
  EXPECT_FALSE(spec.kernel.has_value());
}

TEST(ShippedSpecTest, RmsnormFusedIsOneOp) {
  const WorkloadSpec spec = LoadShipped("rmsnorm_fused");
  EXPECT_EQ(spec.mode, ExecMode::kFusedOp);
  EXPECT_THAT(OpNames(spec), ::testing::ElementsAre("aten::rms_norm"));
  EXPECT_EQ(spec.ops[0].inputs, (std::vector<std::string>{"x", "weight"}));
  EXPECT_EQ(spec.ops[0].output, "out");
  EXPECT_EQ(spec.FindTensor("eps"), nullptr);
}

TEST(ShippedSpecTest, RmsnormCompiledFoldsEpsilon) {
  const WorkloadSpec spec = LoadShipped("rmsnorm_compiled");
  EXPECT_EQ(spec.mode, ExecMode::kCompiled);
  EXPECT_THAT(OpNames(spec),
              ::testing::ElementsAre("aten::mul", "aten::mean", "aten::rsqrt",
                                     "aten::mul", "aten::mul"));
  EXPECT_EQ(spec.FindTensor("eps"), nullptr);
  EXPECT_EQ(spec.FindTensor("var_eps"), nullptr);
  for (const auto& t : spec.tensors) {
    EXPECT_EQ(t.placement, Placement::kDevice) << t.name;
  }
}

TEST(ShippedSpecTest, ExpTiledIsOneMaskedLoop) {
  const WorkloadSpec spec = LoadShipped("exp_tiled");
  EXPECT_EQ(spec.family, "exp");
  EXPECT_EQ(spec.mode, ExecMode::kNki);
  EXPECT_TRUE(spec.ops.empty());
  ASSERT_TRUE(spec.kernel.has_value());
  EXPECT_EQ(spec.kernel->source_file, "exp.py");
  ASSERT_EQ(spec.kernel->loops.size(), 1u);
  const NkiLoop& loop = spec.kernel->loops[0];
  EXPECT_EQ(loop.var, "p");
  EXPECT_EQ(loop.range, LoopRange::kAffine);
  EXPECT_EQ(loop.tensor, "in_tensor");
  EXPECT_EQ(loop.tile_partitions, 128);
  EXPECT_EQ(loop.buffers, 1);
  EXPECT_EQ(loop.json_path, "/kernel/loops/0");
  ASSERT_EQ(loop.body.size(), 5u);
  std::vector<std::string> kinds;
  std::vector<int> lines;
  for (const auto& op : loop.body) {
    kinds.push_back(op.op);
    lines.push_back(op.source_line);
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("iota", "tensor_scalar", "load",
                                            "activation", "store"));
  EXPECT_THAT(lines, ::testing::ElementsAre(21, 24, 24, 26, 29));
  EXPECT_EQ(loop.body[0].engine, Engine::kGpSimd);
  EXPECT_EQ(loop.body[1].engine, Engine::kVector);
  EXPECT_FALSE(loop.body[2].engine.has_value());
  EXPECT_EQ(loop.body[2].mask, "mask");
  EXPECT_EQ(loop.body[3].engine, Engine::kScalar);
  EXPECT_EQ(loop.body[3].func, "exp");
  EXPECT_TRUE(loop.body[4].id.empty());
  EXPECT_EQ(loop.body[4].mask, "mask");
  EXPECT_EQ(loop.body[4].json_path, "/kernel/loops/0/body/4");

  // Defaults: a load takes its tensor's free size and dtype; an explicit
  // tile and dtype win.
  const NkiTile in_tile = ResolveNkiTile(spec, loop, loop.body[2]);
  EXPECT_EQ(in_tile.partitions, 128);
  EXPECT_EQ(in_tile.free, 512);
  EXPECT_EQ(in_tile.dtype, DType::kFp32);
  EXPECT_EQ(in_tile.BytesPerPartition(), 2048);
  const NkiTile mask = ResolveNkiTile(spec, loop, loop.body[1]);
  EXPECT_EQ(mask.free, 1);
  EXPECT_EQ(mask.dtype, DType::kInt32);
}

TEST(ShippedSpecTest, RevalidatingAParsedSpecPasses) {
  for (const char* name :
       {"rmsnorm_naive", "rmsnorm_fused", "rmsnorm_compiled", "exp_tiled"}) {
    EXPECT_TRUE(ValidateSpec(LoadShipped(name), MemoryLimits{}).ok()) << name;
  }
}

struct BadSpecCase {
  const char* file;
  const char* path;      // JSON pointer the message must name
  const char* fragment;  // what the message must say
};

// One file per rule; every file in bad_specs/ must be listed here.
constexpr BadSpecCase kBadSpecs[] = {
    {"malformed_json.json", "/",
     R"(malformed JSON: parse error at line 4, column 1)"},
    {"truncated.json", "/", R"(unexpected end of input)"},
    {"empty_object.json", "/schema_version",
     R"(required key "schema_version" is missing)"},
    {"not_an_object.json", "/", R"(expected an object, got an array)"},
    {"duplicate_key.json", "/name", R"(duplicate key "name")"},
    {"number_overflow.json", "/",
     R"(malformed JSON: number overflow parsing '1e400')"},
    {"schema_version_2.json", "/schema_version",
     R"(unsupported schema_version 2; this trnbench reads 1)"},
    {"schema_version_string.json", "/schema_version",
     R"(expected an integer, got string "1")"},
    {"name_wrong_type.json", "/name", R"(expected a string, got number 5)"},
    {"name_bad_pattern.json", "/name",
     R"(name "RMSNorm" must match ^[a-z][a-z0-9_]*$)"},
    {"unknown_mode.json", "/mode",
     R"(unknown mode "lazy"; expected one of eager, fused_op, compiled, nki)"},
    {"unknown_top_key.json", "/colour",
     R"(unknown key "colour" in a spec; allowed keys: schema_version, name, family, description, mode, tensors, ops, kernel)"},
    {"unknown_tensor_key.json", "/tensors/1/layout",
     R"(unknown key "layout" in a tensor; allowed keys: name, shape, dtype, placement)"},
    {"unknown_op_key.json", "/ops/0/alpha",
     R"(unknown key "alpha" in a torch op)"},
    {"unknown_nki_op_key.json", "/kernel/loops/0/body/1/engnie",
     R"(unknown key "engnie" in an activation op)"},
    {"misplaced_nki_key.json", "/kernel/loops/0/body/0/engine",
     R"(key "engine" does not apply to a load op)"},
    {"unknown_loop_key.json", "/kernel/loops/0/unroll",
     R"(unknown key "unroll" in a loop)"},
    {"shape_wrong_type.json", "/tensors/0/shape",
     R"(expected an array of dims, got string "4x8")"},
    {"inputs_wrong_type.json", "/ops/0/inputs",
     R"(expected an array of strings, got string "x")"},
    {"tensors_wrong_type.json", "/tensors",
     R"(expected an array, got an object)"},
    {"unknown_placement.json", "/tensors/2/placement",
     R"(unknown placement "gpu"; expected one of host, device)"},
    {"unknown_dtype.json", "/tensors/0/dtype",
     R"(unknown dtype "bf32"; expected one of bf16, fp16, fp32, int8, int32)"},
    {"unknown_engine.json", "/kernel/loops/0/body/1/engine",
     R"(unknown engine "dma"; expected one of tensor, vector, scalar, gpsimd)"},
    {"unknown_range.json", "/kernel/loops/0/range",
     R"(unknown range "parallel"; expected one of affine, sequential)"},
    {"zero_dim.json", "/tensors/0/shape/1",
     R"(expected a positive integer no larger than 2^40 (1099511627776), got number 0)"},
    {"negative_dim.json", "/tensors/0/shape/0", R"(got number -4)"},
    {"fractional_dim.json", "/tensors/0/shape/0",
     R"(got a fractional number 4.5)"},
    {"huge_dim.json", "/tensors/0/shape/0",
     R"(no larger than 2^40 (1099511627776), got number 1e+300)"},
    {"elements_overflow_int64.json", "/tensors/0/shape",
     R"(the element count of [1099511627776, 1099511627776] overflows int64; a tensor may have at most 2^40)"},
    {"elements_over_limit.json", "/tensors/0/shape",
     R"(has 2199023255552 elements; a tensor may have at most 2^40 (1099511627776) elements)"},
    {"empty_tensors.json", "/tensors", R"(a spec needs at least one tensor)"},
    {"duplicate_tensor.json", "/tensors/3/name",
     R"(tensor "x" is declared twice (first at /tensors/0))"},
    {"tensor_bad_name.json", "/tensors/1/name",
     R"(tensor name "w-1" must match)"},
    {"unknown_op.json", "/ops/0/op",
     R"(unknown op "aten::gemm"; supported ops: aten::mul, aten::add)"},
    {"undeclared_tensor.json", "/ops/0/inputs/1",
     R"(input "bias" is not declared in /tensors)"},
    {"use_before_produce.json", "/ops/0/inputs/1",
     R"(tensor "t" is used before it is produced (by /ops/1))"},
    {"produced_twice.json", "/ops/1/output",
     R"(tensor "y" is produced twice (first by /ops/0))"},
    {"arity_wrong.json", "/ops/0/inputs", R"(aten::mul takes 2 inputs, got 1)"},
    {"broadcast_mismatch.json", "/ops/0/inputs",
     R"(aten::mul: input shapes [4, 8] and [3] do not broadcast: dim -1 is 8 in one and 3 in the other)"},
    {"reduce_shape_wrong.json", "/ops/0/output",
     R"(aten::mean of [4, 8] gives [4, 1], but output "y" is declared [4, 8])"},
    {"matmul_shape.json", "/ops/0/inputs",
     R"(aten::matmul multiplies [..., m, k] by [k, n]; got [4, 8] and [4, 8])"},
    {"output_on_host.json", "/ops/0/output",
     R"(output "y" has placement host)"},
    {"fused_two_ops.json", "/ops",
     R"(mode "fused_op" runs exactly one op, got 2)"},
    {"eager_no_ops.json", "/ops", R"(mode "eager" needs at least one op)"},
    {"eager_missing_ops.json", "/ops", R"(required key "ops" is missing)"},
    {"eager_with_kernel.json", "/kernel",
     R"(not allowed in mode "eager": "kernel" is only for mode "nki")"},
    {"nki_with_ops.json", "/ops", R"(not allowed in mode "nki")"},
    {"nki_missing_kernel.json", "/kernel",
     R"(required key "kernel" is missing)"},
    {"nki_no_loops.json", "/kernel/loops",
     R"(a kernel needs at least one loop)"},
    {"nki_empty_body.json", "/kernel/loops/0/body",
     R"(a loop body needs at least one op)"},
    {"unknown_nki_op.json", "/kernel/loops/0/body/1/op",
     R"(unknown NKI op "exp"; expected one of load, store, iota)"},
    {"hbm_copy_other_dtype.json", "/kernel/loops/0/body/0/from",
     R"("in_tensor" is fp32 [256, 512] but "out_tensor" is bf16 [256, 512]; an hbm_copy moves a block between tensors of one shape and dtype)"},
    {"hbm_copy_without_from.json", "/kernel/loops/0/body/1/from",
     R"(an hbm_copy needs the tensor it copies from)"},
    {"buffers_word.json", "/kernel/loops/0/buffers",
     R"(expected a positive integer or "auto", got string "double")"},
    {"block_slot_other_trips.json",
     "/kernel/loops/0/body/1/body/1/body/0/inputs/0",
     R"(slot variable "n" in "lhsT_tiles[n]" walks 2 iterations, but that level of the block has 4 slots (loop "kl"); a slot variable walks its level's slots one for one)"},
    {"carry_outside_scope.json", "/kernel/loops/0/body/3/body/0/carry/0",
     R"("nope" is not a tile of this loop body or of one around it; a carried tile comes from the previous iteration of the loop whose body makes it)"},
    {"results_not_in_body.json", "/kernel/loops/0/body/3/results/2",
     R"("nope" is not a tile of this loop's body; a loop's result is the tile an op of its own body makes in the last iteration (ids there: y, buf_n, peak_n))"},
    {"slot_sum_past_slots.json",
     "/kernel/loops/0/body/1/body/0/body/0/inputs/0",
     R"(slot "a*5+b" in "blk[a*5+b]" reaches slot 8, but that level of the block has 8 slots (loop "j"))"},
    {"constant_block_past_dim.json", "/kernel/loops/0/body/5/index/1",
     R"(the constant block "768:1100" of dim 1 of "out" (1024 elements) must be START:STOP with START < STOP <= 1024)"},
    {"tile_too_many_partitions.json", "/kernel/loops/0/body/1/tile/0",
     R"(tile [256, 512] has 256 partitions; SBUF has 128)"},
    {"tile_one_dim.json", "/kernel/loops/0/body/1/tile",
     R"(a tile is [partitions, free], got 1 dim)"},
    {"tile_partitions_over_limit.json", "/kernel/loops/0/tile_partitions",
     R"(must be between 1 and 128 (the SBUF partitions), got 256)"},
    {"sbuf_overflow.json", "/kernel/loops/0/body/1",
     R"(SBUF overflow: the live tiles need 480000 B per partition here, the limit is 196608 B per partition (live: in_tile 240000 B, out_tile 240000 B))"},
    {"sbuf_overflow_buffers.json", "/kernel/loops/0/body/1",
     R"(SBUF overflow: the live tiles need 262144 B per partition here, the limit is 196608 B per partition (live: in_tile 32768 B x 4, out_tile 32768 B x 4))"},
    {"psum_overflow.json", "/kernel/loops/0/body/2",
     R"(PSUM overflow: the live tiles need 16 banks of 2048 B per partition here, the limit is 8 banks (live: acc 32768 B))"},
    {"matmul_not_psum.json", "/kernel/loops/0/body/2/buffer",
     R"(the Tensor engine writes matmul results to PSUM; set "buffer": "psum" (got "sbuf"))"},
    {"missing_mask_load.json", "/kernel/loops/0/body/0/mask",
     R"(the last tile is partial (250 rows, tile 128): load needs a mask)"},
    {"missing_mask_store.json", "/kernel/loops/0/body/4/mask",
     R"(the last tile is partial (250 rows, tile 128): store needs a mask)"},
    {"cycle_after.json", "/kernel/loops/0/body/0",
     R"(dependency cycle through inputs, mask and after: in_tile -> out_tile -> in_tile)"},
    {"cycle_self.json", "/kernel/loops/0/body/1",
     R"(dependency cycle through inputs, mask and after: out_tile -> out_tile)"},
    {"unknown_id_in_inputs.json", "/kernel/loops/0/body/1/inputs/0",
     R"(unknown tile id "in_tle"; ids defined in this loop body: in_tile, out_tile)"},
    {"unknown_id_in_mask.json", "/kernel/loops/0/body/2/mask",
     R"(unknown tile id "msk")"},
    {"duplicate_id.json", "/kernel/loops/0/body/1/id",
     R"(id "in_tile" is already defined at /kernel/loops/0/body/0)"},
    {"missing_id.json", "/kernel/loops/0/body/1/id",
     R"(an activation defines a tile and needs an id)"},
    {"wrong_engine_for_op.json", "/kernel/loops/0/body/1/engine",
     R"(an activation cannot run on the vector engine; expected scalar)"},
    {"unknown_func.json", "/kernel/loops/0/body/1/func",
     R"(unknown func "cube"; expected one of exp, rsqrt)"},
    {"unknown_alu.json", "/kernel/loops/0/body/1/alu/1",
     R"(unknown operator "cube"; expected one of add, subtract, multiply)"},
    {"alu_not_on_scalar.json", "/kernel/loops/0/body/1/alu",
     R"(ScalarE runs a tensor_scalar of multiply then add, multiply, or add only (NKI ISA reference, nki.isa.tensor_scalar), not maximum)"},
    {"alu_on_activation.json", "/kernel/loops/0/body/1/alu",
     R"(key "alu" does not apply to an activation op)"},
    {"load_dim0_mismatch.json", "/kernel/loops/0/body/0/tensor",
     R"(tensor "weight" has dim 0 = 512, but the loop tiles dim 0 of "in_tensor" = 256)"},
    {"store_two_inputs.json", "/kernel/loops/0/body/2/inputs",
     R"(a store takes 1 input tile, got 2)"},
    {"store_with_id.json", "/kernel/loops/0/body/2/id",
     R"(key "id" does not apply to a store op)"},
    {"missing_line.json", "/kernel/loops/0/body/1/line",
     R"(required key "line" is missing)"},
    {"zero_line.json", "/kernel/loops/0/body/1/line",
     R"(expected a source line number >= 1, got number 0)"},
    {"loop_tensor_on_host.json", "/kernel/loops/0/tensor",
     R"(loop tensor "in_tensor" has placement host)"},
    {"loop_tensor_undeclared.json", "/kernel/loops/0/tensor",
     R"(loop tensor "missing" is not declared in /tensors)"},
};

class BadSpecTest : public ::testing::TestWithParam<BadSpecCase> {};

TEST_P(BadSpecTest, IsRejectedWithFilePathAndReason) {
  const BadSpecCase& c = GetParam();
  const std::string file =
      SourcePath(std::string("tests/workloads/bad_specs/") + c.file);
  absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(file, MemoryLimits{});
  ASSERT_FALSE(spec.ok()) << c.file << " was accepted";
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message = Message(spec.status());
  EXPECT_THAT(message, StartsWith(file + ": " + c.path + ": "));
  EXPECT_THAT(message, HasSubstr(c.fragment));
  EXPECT_THAT(message, Not(HasSubstr("json.exception")));
}

INSTANTIATE_TEST_SUITE_P(
    AllFiles, BadSpecTest, ::testing::ValuesIn(kBadSpecs),
    [](const ::testing::TestParamInfo<BadSpecCase>& param_info) {
      std::string name = param_info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(BadSpecFilesTest, EveryFileHasAnExpectation) {
  std::set<std::string> listed;
  for (const auto& c : kBadSpecs) listed.insert(c.file);
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(
           SourcePath("tests/workloads/bad_specs"))) {
    on_disk.insert(entry.path().filename().string());
  }
  EXPECT_EQ(listed, on_disk);
  EXPECT_GE(on_disk.size(), 30u);
}

TEST(ParseSpecTest, SetsFileLabelAndContentHash) {
  absl::StatusOr<WorkloadSpec> spec =
      ParseSpec(kSmallEager, "inline.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->file, "inline.json");
  EXPECT_EQ(spec->content_hash, Fnv1a64Hex(kSmallEager));
}

TEST(ParseSpecTest, ErrorsStartWithTheLabel) {
  absl::StatusOr<WorkloadSpec> spec =
      ParseSpec("{}", "my/label.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(Message(spec.status()),
              StartsWith("my/label.json: /schema_version: "));
}

TEST(ParseSpecTest, EmptyInputIsMalformed) {
  absl::StatusOr<WorkloadSpec> spec = ParseSpec("", "e.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(Message(spec.status()), StartsWith("e.json: /: malformed JSON"));
}

TEST(ParseSpecTest, RejectsDeepNestingWithoutRecursing) {
  constexpr int kLevels = 10000;
  std::string text = R"({"schema_version": 1, "name": )";
  text += std::string(kLevels, '[') + std::string(kLevels, ']') + "}";
  absl::StatusOr<WorkloadSpec> spec =
      ParseSpec(text, "deep.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(spec.status()), StartsWith("deep.json: /name/0/0/0"));
  EXPECT_THAT(Message(spec.status()),
              HasSubstr("JSON nested deeper than 64 levels"));
}

TEST(ParseSpecTest, NestingUpToTheLimitIsNotADepthError) {
  // Root object + 63 arrays = 64 levels: allowed, so the complaint is about
  // the key, not the depth.
  std::string text = R"({"schema_version": 1, "extra": )";
  text += std::string(63, '[') + std::string(63, ']') + "}";
  absl::StatusOr<WorkloadSpec> spec = ParseSpec(text, "d.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(Message(spec.status()),
              StartsWith("d.json: /extra: unknown key \"extra\""));
}

TEST(ParseSpecTest, RejectsAMultiMegabyteSpec) {
  std::string text(kSmallEager);
  text.replace(text.find(R"("d")"), 3, "\"" + std::string(3 << 20, 'a') + "\"");
  absl::StatusOr<WorkloadSpec> spec =
      ParseSpec(text, "big.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(spec.status()), StartsWith("big.json: /: the spec is "));
  EXPECT_THAT(Message(spec.status()),
              HasSubstr("a spec may be at most 1 MiB (1048576 bytes)"));
}

TEST(ParseSpecTest, IntegralFloatDimsCountAsIntegers) {
  // As in JSON Schema, 4.0 is an integer.
  std::string text(kSmallEager);
  text.replace(text.find("[4, 8]"), 6, "[4.0, 8]");
  absl::StatusOr<WorkloadSpec> spec = ParseSpec(text, "f.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->tensors[0].shape, (std::vector<int64_t>{4, 8}));
}

TEST(ParseSpecTest, EscapesKeysInPaths) {
  std::string text(kSmallEager);
  text.replace(text.find(R"("mode")"), 0, R"("a/b~c": 1, )");
  absl::StatusOr<WorkloadSpec> spec = ParseSpec(text, "k.json", MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(Message(spec.status()), StartsWith("k.json: /a~1b~0c: "));
}

TEST(ParseSpecTest, ReferenceToALaterIdIsNotACycle) {
  // The activation names a tile that a later op defines: only a cycle is an
  // error, not the order of the body.
  constexpr std::string_view kText = R"({
    "schema_version": 1, "name": "later", "family": "test",
    "description": "d", "mode": "nki",
    "tensors": [{"name": "a", "shape": [128, 4], "dtype": "fp32"},
                {"name": "b", "shape": [128, 4], "dtype": "fp32"}],
    "kernel": {"source_file": "k.py", "loops": [{
      "var": "i", "range": "sequential", "tensor": "a",
      "tile_partitions": 128, "buffers": 2, "body": [
        {"id": "t1", "op": "activation", "engine": "scalar", "func": "relu",
         "inputs": ["t0"], "line": 3},
        {"id": "t0", "op": "load", "tensor": "a", "line": 2},
        {"op": "store", "tensor": "b", "inputs": ["t1"], "after": ["t0"],
         "line": 4}]}]}
  })";
  absl::StatusOr<WorkloadSpec> spec =
      ParseSpec(kText, "later.json", MemoryLimits{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kernel->loops[0].range, LoopRange::kSequential);
  EXPECT_EQ(spec->kernel->loops[0].buffers, 2);
}

TEST(LoadSpecFileTest, MissingFileIsNotFound) {
  const std::string path = SourcePath("workloads/specs/no_such_spec.json");
  absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(path, MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(spec.status()), StartsWith(path + ": "));
}

TEST(LoadSpecFileTest, DirectoryIsInvalid) {
  const std::string path = SourcePath("workloads/specs");
  absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(path, MemoryLimits{});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(spec.status()), StartsWith(path + ": "));
}

TEST(LoadSpecFileTest, RejectsFilesOverOneMebibyte) {
  const std::string path = ::testing::TempDir() + "/spec_parser_test_big.json";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string((1 << 20) + 1, ' ');
  }
  absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(path, MemoryLimits{});
  std::filesystem::remove(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(spec.status()),
              StartsWith(path + ": /: the file is 1048577 bytes"));
}

TEST(ValidateSpecTest, UsesTheGivenMemoryLimits) {
  const WorkloadSpec spec = LoadShipped("exp_tiled");
  MemoryLimits small;
  small.sbuf_bytes_per_partition = 4000;  // in 2048 + out 2048 + mask 4
  // The compiler stage checks memory; at the exp, mask, in_tile and
  // out_tile are live (i_p is dead once the mask is made). The mask, read
  // later by the store, is spilled (model 8); in_tile and out_tile, both
  // read or written by the exp, cannot be.
  WorkloadSpec copy = spec;
  absl::Status status = CompileSpec(copy, small);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(
      Message(status),
      StartsWith(spec.file + ": /kernel/loops/0/body/3: SBUF overflow"));
  EXPECT_THAT(Message(status), HasSubstr("need 4096 B per partition"));

  MemoryLimits narrow;
  narrow.partitions = 64;
  status = ValidateSpec(spec, narrow);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status),
              HasSubstr("/kernel/loops/0/tile_partitions: must be between 1 "
                        "and 64"));
}

TEST(ValidateSpecTest, ChecksSpecsBuiltInCode) {
  WorkloadSpec spec;
  spec.name = "coded";
  spec.family = "test";
  spec.mode = ExecMode::kCompiled;
  spec.tensors = {{"a", {2, 3}, DType::kFp32, Placement::kDevice},
                  {"b", {3, 5}, DType::kFp32, Placement::kDevice},
                  {"c", {2, 5}, DType::kFp32, Placement::kDevice}};
  spec.ops = {{"aten::matmul", {"a", "b"}, "c", ""}};
  EXPECT_TRUE(ValidateSpec(spec, MemoryLimits{}).ok());

  spec.tensors[2].shape = {2, 3};
  absl::Status status = ValidateSpec(spec, MemoryLimits{});
  ASSERT_FALSE(status.ok());
  // With no file, the name labels the message.
  EXPECT_THAT(Message(status),
              StartsWith("coded: /ops/0/output: aten::matmul of [2, 3], "
                         "[3, 5] gives [2, 5]"));

  spec.tensors[2].shape = {2, 5};
  spec.tensors[0].shape = {2, 0};
  status = ValidateSpec(spec, MemoryLimits{});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), StartsWith("coded: /tensors/0/shape/1: "));
}

TEST(ValidateSpecTest, NkiStoreTakesNoTile) {
  WorkloadSpec spec = LoadShipped("exp_tiled");
  spec.kernel->loops[0].body[4].buffer = "psum";
  absl::Status status = ValidateSpec(spec, MemoryLimits{});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status),
              HasSubstr("/kernel/loops/0/body/4: a store defines no tile"));
}

}  // namespace
}  // namespace trn
