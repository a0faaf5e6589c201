// libFuzzer target: the workload spec parser and validator (ParseSpec), and
// for every spec they accept, lowering and one simulated run. Lowering
// trusts the validator for every bound it does not check itself, so a spec
// that passes validation and then crashes lowering is a validator bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/metrics.h"
#include "device_model/simulator.h"
#include "tests/fuzz/fuzz_check.h"
#include "workloads/lowering.h"
#include "workloads/spec.h"
#include "workloads/spec_parser.h"

namespace trn::fuzz {
namespace {

constexpr char kLabel[] = "fuzz.json";

const DeviceProfile& Trn1() {
  static const DeviceProfile* profile = [] {
    auto p = LoadDeviceProfile(SourcePath("device_model/profiles/trn1.json"));
    Require(p.ok(), "the shipped profile loads", p.status().ToString());
    return new DeviceProfile(*std::move(p));
  }();
  return *profile;
}

// An upper estimate of the instructions lowering emits. Lowering and
// simulation cost time linear in it, and a valid 1 KiB spec can ask for
// millions; the fuzzer skips those to keep each input at milliseconds
// (kMaxInstructions itself is covered by the error catalogue).
int64_t RoughInstructions(const WorkloadSpec& spec) {
  constexpr int64_t kDmaChunks = 16;
  constexpr int64_t kStepsPerOp = 8;
  constexpr int64_t kCap = int64_t{1} << 40;
  int64_t total = 0;
  if (spec.kernel.has_value()) {
    for (const NkiLoop& loop : spec.kernel->loops) {
      const TensorDecl* t = spec.FindTensor(loop.tensor);
      if (t == nullptr || t->shape.empty()) return kCap;
      const int64_t trips =
          (t->shape[0] + loop.tile_partitions - 1) / loop.tile_partitions;
      if (trips > kCap / 1024) return kCap;
      total += trips * static_cast<int64_t>(loop.body.size()) * kDmaChunks;
      if (total > kCap / 1024) return kCap;
    }
    return total;
  }
  int64_t rows = 1;
  for (const TensorDecl& t : spec.tensors) {
    int64_t r = 1;
    for (size_t i = 0; i + 1 < t.shape.size(); ++i) r *= t.shape[i];
    rows = std::max(rows, r);
  }
  const int64_t tiles = (rows + 127) / 128;
  if (tiles > kCap / 1024) return kCap;
  return tiles * static_cast<int64_t>(spec.ops.size()) *
         (kStepsPerOp + 4 * kDmaChunks);
}

}  // namespace
}  // namespace trn::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trn;        // NOLINT(build/namespaces): a tiny entry point
  using namespace trn::fuzz;  // NOLINT(build/namespaces)
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const DeviceProfile& profile = Trn1();
  absl::StatusOr<WorkloadSpec> spec = ParseSpec(text, kLabel, profile.memory);
  if (!spec.ok()) {
    CheckRefusal(spec.status(), kLabel);
    return 0;
  }
  if (RoughInstructions(*spec) > 2000) return 0;
  absl::StatusOr<Program> program = Lower(*spec, profile);
  if (!program.ok()) {
    CheckRefusal(program.status(), kLabel);
    return 0;
  }
  absl::StatusOr<Simulator> sim = Simulator::Create(*program, profile);
  Require(sim.ok(), "a lowered valid spec simulates", sim.status().ToString());
  const Timeline timeline = sim->Run(/*seed=*/1, /*repeat_index=*/0);
  for (const MetricValue& m : ComputeMetrics(timeline)) {
    CheckFinite(m.value, m.name);
  }
  return 0;
}
