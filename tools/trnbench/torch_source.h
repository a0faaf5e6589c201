// `--torch FILE.py::FUNCTION --args ...`: a command runs the user's PyTorch
// function by tracing it with the torch front end
// (workloads/frontends/torch/torch_frontend/, docs/torch-source.md) into an
// eager and a compiled spec, run as if given with --spec.
#ifndef TRNBENCH_TOOLS_TRNBENCH_TORCH_SOURCE_H_
#define TRNBENCH_TOOLS_TRNBENCH_TORCH_SOURCE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_model/memory_limits.h"
#include "tools/trnbench/options.h"
#include "workloads/spec/spec.h"

namespace trn {

// The specs traced from --torch: files in a private temporary folder,
// removed when this goes out of scope.
class TracedTorch {
 public:
  TracedTorch() = default;
  TracedTorch(const TracedTorch&) = delete;
  TracedTorch& operator=(const TracedTorch&) = delete;
  ~TracedTorch();

  // Traces every --torch of `o` with --args into the --mode variants and
  // appends the spec files to o.specs. With --shape, every sweep point is
  // traced in the same Python process (import torch takes seconds), and
  // o.remake_at_point returns the point's spec. Bad input (an unsupported
  // op, a value read at trace time, no torch) is InvalidArgument with the
  // front end's one line; a failure of the front end itself is Internal.
  absl::Status Trace(Options& o);

  // Writes --emit-spec, once the command has run.
  absl::Status WriteEmitted(const Options& o) const;

 private:
  absl::StatusOr<std::optional<WorkloadSpec>> AtPoint(
      const WorkloadSpec& spec, const std::vector<std::string>& point,
      const MemoryLimits& limits);

  struct Traced {
    std::string function;                  // FILE.py::FUNCTION
    std::string variant;                   // eager, compiled
    std::string prefix;                    // the front end's --output-prefix
    std::map<std::string, size_t> points;  // "a=..;b=.." -> point index
  };
  std::map<std::string, Traced> traced_;  // by spec file
  std::string args_;
  std::string dir_;
  std::string emitted_;
  size_t runs_ = 0;  // front end runs, for file names
};

// The folder that holds torch_frontend/: $TRNBENCH_TORCH_FRONTEND, else the
// source tree's workloads/frontends/torch.
std::string TorchFrontEndDir();

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_TORCH_SOURCE_H_
