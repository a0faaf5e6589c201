#include "workloads/lowering/lowering.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/lowering/nki_lowering.h"
#include "workloads/lowering/torch_lowering.h"

namespace trn::lowering_internal {

absl::StatusOr<Program> LowerNki(const WorkloadSpec& spec,
                                 const DeviceProfile& profile) {
  Program p;
  p.name = spec.name;
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = spec.name;
  d.kernel.name = spec.name;
  d.kernel.source_file = spec.kernel->source_file;
  NkiLowering lowering(spec, profile, d.kernel);
  // Kernel loops run one after the other.
  Deps previous;
  for (const NkiLoop& loop : spec.kernel->loops) {
    TRN_ASSIGN_OR_RETURN(LoweredLoop l,
                         lowering.Loop(loop, previous, LoopTiles{}));
    if (!l.done.empty()) previous = std::move(l.done);
  }
  p.dispatches.push_back(std::move(d));
  return p;
}

}  // namespace trn::lowering_internal

namespace trn {

using lowering_internal::LowerNki;
using lowering_internal::LowerTorch;

absl::StatusOr<Program> Lower(const WorkloadSpec& spec,
                              const DeviceProfile& profile) {
  if (spec.mode == ExecMode::kNki) {
    if (!spec.kernel.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.file, ": /kernel: an nki spec needs a kernel"));
    }
    // Lowering reads the compiler stage's decisions; a spec built in code
    // and only validated is compiled here, for this device.
    if (!spec.compiled.done) {
      WorkloadSpec compiled = spec;
      TRN_RETURN_IF_ERROR(CompileSpec(compiled, profile.memory));
      return LowerNki(compiled, profile);
    }
    return LowerNki(spec, profile);
  }
  return LowerTorch(spec, profile);
}

}  // namespace trn
