// libFuzzer target: the workload spec parser and validator (ParseSpec), and
// for every spec they accept, lowering and one simulated run. Lowering
// trusts the validator for every bound it does not check itself, so a spec
// that passes validation and then crashes lowering is a validator bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/metrics.h"
#include "device_model/simulator.h"
#include "tests/fuzz/fuzz_check.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec.h"

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

constexpr int64_t kCap = int64_t{1} << 40;

// An upper estimate of the instructions one loop emits, nested loops
// included: every iteration, up to 16 DMA chunks an op.
int64_t LoopInstructions(const WorkloadSpec& spec, const NkiLoop& loop) {
  constexpr int64_t kDmaChunks = 16;
  const TensorDecl* t = spec.FindTensor(loop.tensor);
  const int64_t step = loop.TileSize();
  if (t == nullptr || loop.dim < 0 ||
      static_cast<size_t>(loop.dim) >= t->shape.size() || step < 1) {
    return kCap;
  }
  const int64_t trips =
      (t->shape[static_cast<size_t>(loop.dim)] + step - 1) / step;
  int64_t per_trip = 0;
  for (const NkiOp& op : loop.body) {
    per_trip +=
        op.loop.empty() ? kDmaChunks : LoopInstructions(spec, op.loop.front());
    if (per_trip >= kCap) return kCap;
  }
  return per_trip > kCap / std::max<int64_t>(trips, 1) ? kCap
                                                       : trips * per_trip;
}

// An upper estimate of the instructions lowering emits. Lowering and
// simulation cost time linear in it, and a valid 1 KiB spec can ask for
// millions; the fuzzer skips those to keep each input at milliseconds
// (kMaxInstructions itself is covered by the error catalogue).
int64_t RoughInstructions(const WorkloadSpec& spec) {
  constexpr int64_t kDmaChunks = 16;
  constexpr int64_t kStepsPerOp = 8;
  int64_t total = 0;
  if (spec.kernel.has_value()) {
    for (const NkiLoop& loop : spec.kernel->loops) {
      total += LoopInstructions(spec, loop);
      if (total >= kCap) return kCap;
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
