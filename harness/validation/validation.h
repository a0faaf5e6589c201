// The validation suite: published hardware measurements of whole kernels
// (specs with a "published" array, workloads/validation/) held against the
// timing model's figures for the same kernels (docs/validation.md).
#ifndef TRNBENCH_HARNESS_VALIDATION_VALIDATION_H_
#define TRNBENCH_HARNESS_VALIDATION_VALIDATION_H_

#include <cmath>
#include <cstdint>
#include <map>
#include <semaphore>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "workloads/spec/published_figure.h"
#include "workloads/spec/spec.h"

namespace trn {

inline constexpr int kValidationSchemaVersion = 1;

struct ValidationOptions {
  uint64_t seed = 1;
  int64_t repeat = 100;  // recorded runs per workload (plus one warm-up)
  // Only the figures published for this device; empty: every device.
  std::string device;
  // Figures (by ValidationRow::key) and order groups ("order <group>") the
  // model is known to miss: reported as known gaps, and a miss among them
  // is not a failure.
  std::vector<std::string> known_gaps;
  // Threads for the runs; 0: DefaultJobs().
  int jobs = 0;
  // When set, each run holds one of these slots while it works (HeldSlot).
  // Work beside the validation that holds slots too (validate's front end
  // process) then keeps the busy threads at the slots' number rather than
  // one above it: two threads and a Python process time-sliced on two
  // cores cost ~10% more CPU than the same work side by side (issue 42).
  // The preparations (~5% of the work, first) take none but go on one
  // thread fewer. Changes no result, only when runs start.
  std::counting_semaphore<>* slots = nullptr;
};

// One of `slots` held from construction to destruction (nothing when
// `slots` is null).
class HeldSlot {
 public:
  explicit HeldSlot(std::counting_semaphore<>* slots) : slots_(slots) {
    if (slots_ != nullptr) slots_->acquire();
  }
  ~HeldSlot() {
    if (slots_ != nullptr) slots_->release();
  }
  HeldSlot(const HeldSlot&) = delete;
  HeldSlot& operator=(const HeldSlot&) = delete;

 private:
  std::counting_semaphore<>* slots_;
};

// One published figure beside the model's.
struct ValidationRow {
  // "<workload> <metric> <statistic> <device>", unique in a suite: what
  // --known-gaps lists.
  std::string key;
  std::string workload;  // with its shape point, as `--shape` names it
  std::string spec_file;
  PublishedFigure published;
  int64_t runs = 0;  // recorded runs the model's statistic is over
  double model = 0;  // in published.unit
  double error = 0;  // model / figure - 1
  double low = 0;    // what passes, in published.unit
  double high = 0;
  bool within = false;
  bool known_gap = false;  // listed in ValidationOptions::known_gaps
  // The model's figure from the spec's upstream kernel traced from source
  // (`validate --sources`), in published.unit; NaN when not traced.
  double from_source = NAN;
  // A training figure whose kernel was not run (docs/validation.md,
  // "Training figures"): "refused: <why>" when the front end or the model
  // refuses it, "skipped: <why>" when its source is not on this machine.
  // Such a row has no model figure and counts in no total.
  std::string not_run;
  // The parameters of the figure's device profile fitted on it (their
  // `fitted_on` names its key), by name: the figure checks
  // a fit, not a prediction. Empty for a prediction.
  std::vector<std::string> fitted_by;
};

// An "order" group: its entries sorted by published figure, largest first,
// and whether the model ranks them the same way.
struct OrderCheck {
  std::string group;
  std::string key;                     // "order <group>"
  std::vector<std::string> workloads;  // largest published figure first
  std::vector<double> published;       // in each figure's unit
  std::vector<double> model;           // the model's, same order and unit
  bool holds = false;
  bool known_gap = false;
};

struct ValidationResult {
  int schema_version = kValidationSchemaVersion;
  std::string model_version;
  uint64_t seed = 0;
  int64_t repeat = 0;
  std::string device;               // the filter, empty for every device
  std::vector<ValidationRow> rows;  // suite order: file name, then entry
  std::vector<OrderCheck> orders;
  // Over the rows with a tolerance (a range has no point figure to miss).
  double mean_abs_error = 0;
  int with_tolerance = 0;
  int within = 0;
  int out = 0;         // out of tolerance, known gaps included
  int known_gaps = 0;  // out of tolerance and listed as known
  // The same totals over the predictions alone: the figures run that no
  // parameter of their device profile was fitted on (ValidationRow::
  // fitted_by empty). `fitted` counts the others.
  int fitted = 0;
  int predictions = 0;
  int predictions_within = 0;
  int predictions_with_tolerance = 0;
  double predictions_mean_abs_error = 0;
  // A known gap that is now within tolerance: the list is stale.
  std::vector<std::string> stale_gaps;
  // Exit status: every row within tolerance or a listed gap, every order
  // group holds, and no listed gap that is not in the suite or now passes.
  bool passed = false;
};

// Device profiles by name, as the command loaded them.
using ProfileSet = std::map<std::string, DeviceProfile>;

// A known-gaps file: one key per line (a figure's "<workload> <metric>
// <statistic> <device>" or "order <group>"); blank lines and lines starting
// with '#' are comments. `label` names the file in messages.
absl::StatusOr<std::vector<std::string>> ParseKnownGaps(std::string_view text,
                                                        std::string_view label);

// The devices `suite` needs under `device` (empty: all), sorted.
std::vector<std::string> SuiteDevices(const std::vector<WorkloadSpec>& suite,
                                      const std::string& device);

// Each row's fitted_by, from the `fitted_on` lists of its device's profile
// in `profiles` (a row whose device has no profile there is a prediction).
void MarkFittedRows(std::vector<ValidationRow>& rows,
                    const ProfileSet& profiles);

// The totals of `result` from its rows, the rows not run counting in none, and
// each row's known_gap: mean |error|, within, out, known gaps, the same over
// the predictions (rows without fitted_by)
// (`gaps`: the known gaps that name its figures), stale gaps and passed.
void SummarizeRows(ValidationResult& result, const std::set<std::string>& gaps);

// Runs every published figure of `suite` for its device (those of
// `options.device` only, when set) and compares. InvalidArgument for a
// suite spec without published figures, a key listed twice, a known gap
// that names no entry, or a shape point that does not apply.
absl::StatusOr<ValidationResult> RunValidation(
    const std::vector<WorkloadSpec>& suite, const ProfileSet& profiles,
    const ValidationOptions& options);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_VALIDATION_VALIDATION_H_
