#include "device_model/simulator.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "device_model/chunks.h"
#include "device_model/timeline_recorder.h"
#include "support/hash.h"

namespace trn {
namespace {

class Kernels : public KernelRunner {
 public:
  explicit Kernels(const std::vector<std::unique_ptr<KernelSim>>& k) : k_(k) {}
  double RunKernel(size_t d, double t0_us, CounterRng& rng,
                   SimListener& out) const override {
    return k_[d]->Run(rng, t0_us, static_cast<int32_t>(d), out);
  }

 private:
  const std::vector<std::unique_ptr<KernelSim>>& k_;
};

// The first instruction of `k` that breaks the program (a dependency on
// itself or a later one, or a bad field of its form), in program order, or
// OK. A form's fields are checked where it first appears
// (InstructionList::FormOf): the same first error as checking every
// instruction.
absl::Status FirstBrokenInstruction(const Program& program, const Kernel& k) {
  std::vector<char> checked(k.instrs.forms(), 0);
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    for (uint32_t j = k.instrs.DepsBegin(i); j < k.instrs.DepsEnd(i); ++j) {
      if (k.deps[j] >= i) {
        return absl::InternalError(
            absl::StrCat(program.name, ": kernel ", k.name, " instruction ", i,
                         " depends on a later instruction ", k.deps[j]));
      }
    }
    const uint32_t f = k.instrs.FormOf(i);
    if (checked[f]) continue;
    checked[f] = 1;
    const Instruction& in = k.instrs.Form(f);
    if (in.kind == InstrKind::kDma && (in.work < 0 || in.aux < 0)) {
      return absl::InternalError(absl::StrCat(
          program.name, ": DMA instruction ", i, " has negative bytes"));
    }
    if (in.opcode >= k.strings.size() || in.label >= k.strings.size()) {
      return absl::InternalError(absl::StrCat(program.name, ": instruction ", i,
                                              " names a missing string"));
    }
  }
  return absl::OkStatus();
}

// Whether `k` may be broken: some dependency not before its instruction, or
// some form with a bad field. Each form once and the dependencies in one
// branch-free pass, not the ordered walk above per instruction (12% of
// Simulator::Create for a tiled kernel, issue 42); only a kernel it flags
// is walked, to name the first bad instruction.
bool MayBeBroken(const Kernel& k, const SimOptions& options) {
  for (size_t f = 0; f < k.instrs.forms(); ++f) {
    const Instruction& in = k.instrs.Form(static_cast<uint32_t>(f));
    if ((in.kind == InstrKind::kDma && (in.work < 0 || in.aux < 0)) ||
        in.opcode >= k.strings.size() || in.label >= k.strings.size()) {
      return true;
    }
  }
  const size_t n = k.instrs.size();
  if (n == 0) return false;
  const uint32_t* deps = k.deps.data();
  // In chunks of program order (chunks.h), each on a thread of its own.
  const std::vector<size_t> chunks =
      ChunkBounds(n, options.threads, options.min_chunk);
  std::vector<char> late_in(chunks.size() - 1, 0);
  ForEachChunk(chunks, [&](size_t c, size_t begin, size_t end) {
    bool late = false;
    uint32_t j = k.instrs.DepsBegin(begin);
    const size_t inner_end = std::min(end, n - 1);
    for (size_t i = begin; i < inner_end; ++i) {
      const uint32_t e = k.instrs.DepsBegin(i + 1);
      for (; j < e; ++j) late |= deps[j] >= i;
    }
    if (end == n) {
      for (const uint32_t e = k.instrs.DepsEnd(n - 1); j < e; ++j) {
        late |= deps[j] >= n - 1;
      }
    }
    late_in[c] = late;
  });
  return std::find(late_in.begin(), late_in.end(), 1) != late_in.end();
}

}  // namespace

Simulator::Simulator(const Program& program, const DeviceProfile& profile)
    : program_(&program),
      profile_(&profile),
      stream_(Fnv1a64(program.name)),
      policy_(MakeDefaultBandwidthPolicy()),
      driver_(MakeHostDriver(program.mode)) {}

absl::StatusOr<Simulator> Simulator::Create(const Program& program,
                                            const DeviceProfile& profile,
                                            SimOptions options) {
  Simulator sim(program, profile);
  for (size_t d = 0; d < program.dispatches.size(); ++d) {
    const Kernel& k = program.dispatches[d].kernel;
    if (MayBeBroken(k, options)) {
      if (absl::Status s = FirstBrokenInstruction(program, k); !s.ok()) {
        return s;
      }
    }
    sim.kernels_.push_back(
        std::make_unique<KernelSim>(k, profile, *sim.policy_, options));
  }
  return sim;
}

void Simulator::Run(uint64_t seed, uint64_t repeat_index,
                    SimListener& out) const {
  CounterRng rng(CounterRng::KeyFor(seed, stream_, repeat_index));
  out.BeginRun(*program_, profile_->dma_queues);
  driver_->Run(*program_, *profile_, Kernels(kernels_), rng, out);
}

Timeline Simulator::Run(uint64_t seed, uint64_t repeat_index) const {
  TimelineRecorder recorder;
  Run(seed, repeat_index, recorder);
  return recorder.Take();
}

}  // namespace trn
