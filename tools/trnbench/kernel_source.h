// `--kernel FILE.py::FUNCTION`: a command runs the user's NKI kernel by
// tracing it into a spec with the Python front end
// (workloads/frontends/nki/nki_frontend/, docs/nki-source.md) and running that
// spec as if given with --spec.
#ifndef TRNBENCH_TOOLS_TRNBENCH_KERNEL_SOURCE_H_
#define TRNBENCH_TOOLS_TRNBENCH_KERNEL_SOURCE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_model/memory_limits.h"
#include "tools/trnbench/options.h"
#include "workloads/spec/kernel_provenance.h"
#include "workloads/spec/spec.h"

namespace trn {

// One point of a --kwarg sweep: the flags and a name suffix.
struct SweepPoint {
  std::vector<std::string> kwargs;  // NAME=VALUE each
  std::string suffix;               // "_tiles_in_block_m_4", "" if no sweep
};

// The traced specs of one command: files in a private temporary folder,
// removed when this goes out of scope.
class TracedKernels {
 public:
  TracedKernels() = default;
  TracedKernels(const TracedKernels&) = delete;
  TracedKernels& operator=(const TracedKernels&) = delete;
  ~TracedKernels();

  // Traces every --kernel of `o` (with its --args and --kwarg) and appends
  // the spec files to o.specs; with --shape, sets o.remake_at_point. Bad input
  // (an unknown API, an untraceable construct, a bad argument, no python3
  // or numpy) is InvalidArgument with the front end's one line; a failure
  // of the front end itself is Internal.
  absl::Status Trace(Options& o);

  // --shape on a --kernel: a spec this traced, traced again with the
  // point's --shape texts (the front end gives the named tensor arguments
  // those dims as their last dims; a text naming none of them is bad
  // input) and loaded as a spec; nullopt for any other spec. Trace sets
  // o.remake_at_point to this.
  absl::StatusOr<std::optional<WorkloadSpec>> TraceAtPoint(
      const WorkloadSpec& spec, const std::vector<std::string>& point,
      const MemoryLimits& limits);

  // Writes --emit-spec, once the command has run (so that bad input
  // anywhere writes nothing).
  absl::Status WriteEmitted(const Options& o) const;

  // Traces a validation spec's upstream kernel, `dir`/ref.file, into a
  // spec file of this folder (`validate --sources DIR`); errors as Trace's.
  // `shapes` are a figure's --shape texts: the front end gives the named
  // tensor arguments those dims (docs/nki-source.md).
  absl::StatusOr<std::string> TraceReference(
      const std::string& dir, const KernelReference& ref, size_t index,
      const std::vector<std::string>& shapes = {});

  // Traces each of `refs` as TraceReference(dir, refs[i], i) would, each
  // kernel's outcome its own (one refused is not the others' error),
  // through front end batches (RunFrontEndBatch) side by side on up to
  // DefaultJobs() processes (up to `batches` when not 0): one Python
  // start-up per batch, not per kernel.
  std::vector<absl::StatusOr<std::string>> TraceReferences(
      const std::string& dir, const std::vector<KernelReference>& refs,
      int batches = 0);
  // Makes the folder the traced specs go to (once). TraceReference makes
  // it too; call this first to trace from several threads at once, after
  // which TraceReference with distinct indices is safe to call side by side.
  absl::Status MakeDir();

 private:
  // What each traced spec file was traced from, for TraceAtPoint.
  struct Traced {
    std::string kernel;
    std::vector<std::string> kwargs;
    std::vector<std::string> naming;
  };

  // Runs the front end on `kernel` with its arguments into `out`.
  absl::Status RunFrontEnd(const std::string& kernel, const std::string& args,
                           const std::vector<std::string>& kwargs,
                           const std::vector<std::string>& naming,
                           const std::string& out) const;

  std::map<std::string, Traced> traced_;
  std::string args_;   // --args
  size_t points_ = 0;  // specs traced at --shape points
  std::string dir_;
  std::string emitted_;  // the traced spec --emit-spec copies
};

// The folder that holds nki_frontend/: $TRNBENCH_NKI_FRONTEND, else the
// source tree's workloads/frontends/nki/.
std::string FrontEndDir();

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_KERNEL_SOURCE_H_
