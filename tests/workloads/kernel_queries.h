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
#include "workloads/lowering.h"
#include "workloads/spec_parser.h"

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

}  // namespace trn::testing

#endif  // TRNBENCH_TESTS_WORKLOADS_KERNEL_QUERIES_H_
