// Questions the lowering tests ask of a lowered kernel (which instructions
// come from a source line, whether one waits for another), and a kernel
// lowered on the test profile. Shared so each test states only its spec.
#ifndef TRNBENCH_TESTS_WORKLOADS_KERNEL_QUERIES_H_
#define TRNBENCH_TESTS_WORKLOADS_KERNEL_QUERIES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"

namespace trn::testing {

// The instructions from source line `line`, in program order.
inline std::vector<size_t> AtLine(const Kernel& k, int line) {
  std::vector<size_t> out;
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    if (k.instrs[i].source_line == line) out.push_back(i);
  }
  return out;
}

// Whether instruction i lists j among its dependencies.
inline bool DependsOn(const Kernel& k, size_t i, size_t j) {
  const Instruction& in = k.instrs[i];
  for (uint32_t d = in.deps_begin; d < in.deps_end; ++d) {
    if (k.deps[d] == j) return true;
  }
  return false;
}

// The spec's first kernel lowered on TestProfile(); a failed parse or
// lowering fails the test and gives an empty kernel.
inline Kernel LowerOrDie(const nlohmann::json& j) {
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  EXPECT_TRUE(spec.ok()) << spec.status();
  auto profile = ParseDeviceProfile(TestProfile().dump(), "test");
  EXPECT_TRUE(profile.ok()) << profile.status();
  if (!spec.ok() || !profile.ok()) return Kernel{};
  auto p = Lower(*spec, *profile);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? p->dispatches[0].kernel : Kernel{};
}

// Q @ K^T of the 2026-02 attention tutorial, small: q [128, 128] and k
// [128, 2048] bf16, out [128, 1] fp32. One loop over q's row tile, whose
// body loads q (line 1) and fills the PSUM block "qk" with 512-column
// tiles of k (loads at line 3, matmuls that do not accumulate at line 4).
// Tests append the ops that read it.
inline nlohmann::json QkBlockSpec() {
  return nlohmann::json::parse(R"({
    "schema_version": 1, "name": "qk", "family": "qk",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "q", "shape": [128, 128], "dtype": "bf16"},
      {"name": "k", "shape": [128, 2048], "dtype": "bf16"},
      {"name": "out", "shape": [128, 1], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "qk.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "q",
      "tile_partitions": 128, "body": [
        {"id": "q_t", "op": "load", "tensor": "q", "line": 1},
        {"id": "qk", "op": "loop", "var": "kv", "range": "affine",
         "tensor": "k", "dim": 1, "step": 512, "line": 2, "body": [
          {"id": "k_t", "op": "load", "tensor": "k", "index": [":", "kv"],
           "line": 3},
          {"id": "s", "op": "matmul", "engine": "tensor",
           "inputs": ["q_t", "k_t"], "tile": [128, 512], "dtype": "fp32",
           "buffer": "psum", "overwrite": true, "line": 4}]}]}]}
  })");
}

}  // namespace trn::testing

#endif  // TRNBENCH_TESTS_WORKLOADS_KERNEL_QUERIES_H_
