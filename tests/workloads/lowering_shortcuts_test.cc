// Lowering's shortcuts (NkiLoweringOptions::shortcuts: forms reused, ...)
// leave every program as the reference path makes it, instruction for
// instruction: each NKI spec shipped (workloads/specs and the validation
// suite, the tutorials' matmuls among them) on
// both devices and at other shapes (partial tiles), compared field by
// field with ProgramDifference, which is itself checked to see a change.
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/shape_override.h"
#include "workloads/loading/spec_catalog.h"
#include "workloads/lowering/nki_lowering.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn::lowering_internal {
namespace {

DeviceProfile Load(const std::string& name) {
  auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                             "/device_model/profiles/" + name + ".json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

// The NKI specs of `dir` (relative to the source tree) for `profile`,
// compiled; those that do not fit its memory left out.
std::vector<WorkloadSpec> NkiSpecs(const std::string& dir,
                                   const DeviceProfile& profile) {
  auto specs =
      LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/" + dir, profile.memory);
  EXPECT_TRUE(specs.ok()) << specs.status();
  std::vector<WorkloadSpec> out;
  if (!specs.ok()) return out;
  for (WorkloadSpec& spec : *specs) {
    if (spec.mode != ExecMode::kNki) continue;
    if (!CompileSpec(spec, profile.memory).ok()) continue;
    out.push_back(std::move(spec));
  }
  return out;
}

// Lowers `spec` with and without the shortcuts; 1 if both lowered.
int Compare(const WorkloadSpec& spec, const DeviceProfile& profile,
            const std::string& what) {
  NkiLoweringOptions reference;
  reference.shortcuts = false;
  auto fast = LowerNki(spec, profile);
  auto slow = LowerNki(spec, profile, reference);
  EXPECT_EQ(fast.ok(), slow.ok()) << what;
  if (!fast.ok() || !slow.ok()) {
    if (!fast.ok() && !slow.ok()) {
      EXPECT_EQ(fast.status(), slow.status()) << what;
    }
    return 0;
  }
  EXPECT_GT(fast->InstructionCount(), 0) << what;
  EXPECT_EQ(ProgramDifference(*fast, *slow), "") << what;
  return 1;
}

TEST(LoweringShortcutsTest, EveryShippedKernelLowersAsTheReferenceDoes) {
  int compared = 0;
  for (const std::string device : {"trn1", "trn2"}) {
    const DeviceProfile profile = Load(device);
    for (const std::string dir : {"workloads/specs", "workloads/validation"}) {
      for (const WorkloadSpec& spec : NkiSpecs(dir, profile)) {
        compared += Compare(spec, profile, spec.name + " on " + device);
      }
    }
  }
  // The NKI specs shipped and the suite's, on both devices.
  EXPECT_GE(compared, 60);
}

TEST(LoweringShortcutsTest, PartialTilesAndOtherShapesLowerAsTheReference) {
  // Shapes whose last tile is partial in one dim or both change a DMA's
  // block and a compute op's tile from one iteration to the next: the
  // reused forms must follow.
  const DeviceProfile profile = Load("trn1");
  std::vector<WorkloadSpec> specs = NkiSpecs("workloads/specs", profile);
  auto o = ParseShapeOverride(
      "in_tensor,out_tensor=250x512,1000x512,4096x700,129x1,3x3,640x2048");
  ASSERT_TRUE(o.ok()) << o.status();
  auto points = ApplyShapeOverrides(specs, {*o}, profile.memory);
  ASSERT_TRUE(points.ok()) << points.status();
  int compared = 0;
  for (WorkloadSpec& spec : *points) {
    const std::string name = spec.name;
    if (name.find('[') == std::string::npos) continue;  // not a point
    spec.name = SpecNameOfPoint(name);  // as validation names a point
    const absl::Status compiled = CompileSpec(spec, profile.memory);
    if (!compiled.ok()) ADD_FAILURE() << name << compiled;
    if (!compiled.ok()) continue;
    compared += Compare(spec, profile, name);
  }
  EXPECT_GE(compared, 12);
}

TEST(LoweringShortcutsTest, ProgramDifferenceSeesAChangedInstruction) {
  const DeviceProfile profile = Load("trn1");
  std::vector<WorkloadSpec> specs = NkiSpecs("workloads/specs", profile);
  ASSERT_FALSE(specs.empty());
  auto a = LowerNki(specs.front(), profile);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(ProgramDifference(*a, *a), "");
  // The same program but one instruction's iteration, one dependency or
  // one more instruction.
  {
    Program b = *a;
    Kernel& k = b.dispatches[0].kernel;
    Kernel again;
    again.strings = k.strings;
    for (size_t i = 0; i < k.instrs.size(); ++i) {
      Instruction in = k.instrs[i];
      if (i + 1 == k.instrs.size()) in.iteration += 1;
      again.Add(in, k.deps.data() + in.deps_begin, in.deps_end - in.deps_begin);
    }
    k.instrs = again.instrs;
    EXPECT_NE(ProgramDifference(*a, b), "");
  }
  {
    Program b = *a;
    ASSERT_FALSE(b.dispatches[0].kernel.deps.empty());
    b.dispatches[0].kernel.deps.back() += 1;
    EXPECT_NE(ProgramDifference(*a, b), "");
  }
  {
    Program b = *a;
    Kernel& k = b.dispatches[0].kernel;
    k.Add(k.instrs.back(), std::vector<uint32_t>{});
    EXPECT_NE(ProgramDifference(*a, b), "");
  }
}

}  // namespace
}  // namespace trn::lowering_internal
