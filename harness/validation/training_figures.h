// The validation suite's training figures (docs/validation.md, "Training
// figures"): measured profiles of third-party kernels that the project may
// not copy. Each file of workloads/validation/training/ names its kernel
// (`traced_from`, relative to the measurements' folder) and carries the
// figures; `trnbench validate` traces the kernel from that folder when it
// is there and runs its figures beside the suite's.
#ifndef TRNBENCH_HARNESS_VALIDATION_TRAINING_FIGURES_H_
#define TRNBENCH_HARNESS_VALIDATION_TRAINING_FIGURES_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/validation/validation.h"
#include "workloads/spec/kernel_provenance.h"
#include "workloads/spec/published_figure.h"

namespace trn {

inline constexpr int kTrainingSchemaVersion = 1;

// One training kernel: its figures and where its source is.
struct TrainingKernel {
  std::string file;  // the figure file, as read
  std::string name;  // the workload name its figures' keys use
  std::string family;
  std::string description;
  KernelReference traced_from;
  std::vector<PublishedFigure> published;
};

// Every *.json of `dir`, sorted by file name. A malformed file is
// InvalidArgument naming it and the JSON pointer; a name used twice too.
// A missing folder is an empty list.
absl::StatusOr<std::vector<TrainingKernel>> LoadTrainingKernels(
    const std::string& dir);

// The rows of a kernel whose figures were not run: each figure with
// `not_run` set to `why` ("refused: ..." or "skipped: ..."), keyed as a run
// figure would be.
std::vector<ValidationRow> NotRunRows(const TrainingKernel& kernel,
                                      const std::string& device,
                                      const std::string& why);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_VALIDATION_TRAINING_FIGURES_H_
