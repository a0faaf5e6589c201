#include "workloads/lowering/lowering.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/lowering/nki_lowering.h"
#include "workloads/lowering/torch_lowering.h"

namespace trn::lowering_internal {

absl::StatusOr<Program> LowerNki(const WorkloadSpec& spec,
                                 const DeviceProfile& profile,
                                 NkiLoweringOptions options) {
  Program p;
  p.name = spec.name;
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = spec.name;
  d.kernel.name = spec.name;
  d.kernel.source_file = spec.kernel->source_file;
  NkiLowering lowering(spec, profile, d.kernel, options);
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

std::string ProgramDifference(const Program& a, const Program& b) {
  if (a.name != b.name || a.mode != b.mode) return "name or mode";
  if (a.dispatches.size() != b.dispatches.size()) return "dispatches";
  for (size_t d = 0; d < a.dispatches.size(); ++d) {
    const Dispatch& x = a.dispatches[d];
    const Dispatch& y = b.dispatches[d];
    const std::string at = absl::StrCat("dispatch ", d, ": ");
    if (x.name != y.name || x.kernel.name != y.kernel.name ||
        x.kernel.source_file != y.kernel.source_file) {
      return absl::StrCat(at, "names");
    }
    if (x.kernel.strings != y.kernel.strings)
      return absl::StrCat(at, "strings");
    if (x.kernel.deps != y.kernel.deps) return absl::StrCat(at, "deps");
    const InstructionList& p = x.kernel.instrs;
    const InstructionList& q = y.kernel.instrs;
    if (p.size() != q.size()) {
      return absl::StrCat(at, p.size(), " instructions against ", q.size());
    }
    if (p.forms() != q.forms()) return absl::StrCat(at, "form count");
    for (size_t i = 0; i < p.size(); ++i) {
      if (!(p[i] == q[i]) || p.FormOf(i) != q.FormOf(i)) {
        return absl::StrCat(at, "instruction ", i);
      }
    }
  }
  return "";
}

}  // namespace trn::lowering_internal

namespace trn {

using lowering_internal::LowerNki;
using lowering_internal::LowerTorch;

namespace {

// LowerNki, and with TRNBENCH_CHECK_LOWERING set in the environment, again
// without its shortcuts, failing if the two programs differ: how the
// corpus and the random kernels hold the shortcuts to the reference
// (bench/README.md, lower42c). Off, one getenv per spec.
absl::StatusOr<Program> LowerNkiChecked(const WorkloadSpec& spec,
                                        const DeviceProfile& profile) {
  absl::StatusOr<Program> p = LowerNki(spec, profile);
  static const bool check = std::getenv("TRNBENCH_CHECK_LOWERING") != nullptr;
  if (!check || !p.ok()) return p;
  lowering_internal::NkiLoweringOptions reference;
  reference.shortcuts = false;
  TRN_ASSIGN_OR_RETURN(Program q, LowerNki(spec, profile, reference));
  const std::string diff = lowering_internal::ProgramDifference(*p, q);
  if (!diff.empty()) {
    return absl::InternalError(absl::StrCat(
        spec.file, ": lowering's shortcuts changed the program (", diff, ")"));
  }
  return p;
}

}  // namespace

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
      return LowerNkiChecked(compiled, profile);
    }
    return LowerNkiChecked(spec, profile);
  }
  return LowerTorch(spec, profile);
}

}  // namespace trn
