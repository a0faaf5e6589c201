#include "device_model/simulator.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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
    // A form's fields checked where it first appears (InstructionList::
    // FormOf): the same first error as checking every instruction.
    std::vector<char> checked(k.instrs.forms(), 0);
    for (size_t i = 0; i < k.instrs.size(); ++i) {
      for (uint32_t j = k.instrs.DepsBegin(i); j < k.instrs.DepsEnd(i); ++j) {
        if (k.deps[j] >= i) {
          return absl::InternalError(
              absl::StrCat(program.name, ": kernel ", k.name, " instruction ",
                           i, " depends on a later instruction ", k.deps[j]));
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
        return absl::InternalError(absl::StrCat(program.name, ": instruction ",
                                                i, " names a missing string"));
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
