// libFuzzer target: the device profile loader (ParseDeviceProfile). Every
// profile it accepts must give finite, non-negative times for the shipped
// workloads: a value the loader lets through but the timing model cannot
// use would turn into a crash, or into results nobody can read back.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device_model/device_profile.h"
#include "device_model/metrics.h"
#include "device_model/simulator.h"
#include "tests/fuzz/fuzz_check.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec.h"

namespace trn::fuzz {
namespace {

constexpr char kLabel[] = "fuzz_profile.json";

// The shipped specs small enough to simulate on every input (at most 500
// instructions on trn1), parsed against the largest memory limits so that
// each can be checked against whatever limits a fuzzed profile has.
const std::vector<WorkloadSpec>& ShippedSpecs() {
  static const auto* specs = [] {
    MemoryLimits roomy;
    roomy.partitions = 1 << 20;
    roomy.sbuf_bytes_per_partition = int64_t{1} << 40;
    roomy.psum_bytes_per_partition = int64_t{1} << 40;
    auto trn1 =
        LoadDeviceProfile(SourcePath("device_model/profiles/trn1.json"));
    Require(trn1.ok(), "the shipped profile loads", trn1.status().ToString());
    auto* out = new std::vector<WorkloadSpec>;
    for (const auto& entry :
         std::filesystem::directory_iterator(SourcePath("workloads/specs"))) {
      auto spec = LoadSpecFile(entry.path().string(), roomy);
      Require(spec.ok(), "a shipped spec loads", spec.status().ToString());
      auto program = Lower(*spec, *trn1);
      if (program.ok() && program->InstructionCount() <= 500) {
        out->push_back(*std::move(spec));
      }
    }
    Require(!out->empty(), "there are shipped specs", "workloads/specs");
    return out;
  }();
  return *specs;
}

}  // namespace
}  // namespace trn::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trn;        // NOLINT(build/namespaces): a tiny entry point
  using namespace trn::fuzz;  // NOLINT(build/namespaces)
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<DeviceProfile> profile = ParseDeviceProfile(text, kLabel);
  if (!profile.ok()) {
    CheckRefusal(profile.status(), kLabel);
    return 0;
  }
  for (const WorkloadSpec& spec : ShippedSpecs()) {
    // A profile with less on-chip memory may rightly refuse a spec.
    if (!ValidateSpec(spec, profile->memory).ok()) continue;
    absl::StatusOr<Program> program = Lower(spec, *profile);
    if (!program.ok()) {
      CheckRefusal(program.status(), spec.file);
      continue;
    }
    absl::StatusOr<Simulator> sim = Simulator::Create(*program, *profile);
    Require(sim.ok(), "a shipped spec simulates on an accepted profile",
            sim.status().ToString());
    const Timeline timeline = sim->Run(/*seed=*/1, /*repeat_index=*/0);
    for (const MetricValue& m : ComputeMetrics(timeline)) {
      CheckFinite(m.value, spec.name + ": " + m.name);
      Require(m.value >= 0, "metrics are non-negative",
              spec.name + ": " + m.name);
    }
  }
  return 0;
}
