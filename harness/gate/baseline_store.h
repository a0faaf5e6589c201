// Stored baselines: one versioned JSON file per workload and device
// (docs/baseline-format.md), with raw samples and provenance.
#ifndef TRNBENCH_HARNESS_GATE_BASELINE_STORE_H_
#define TRNBENCH_HARNESS_GATE_BASELINE_STORE_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/runner/results.h"
#include "support/output_transaction.h"

namespace trn {

inline constexpr int kBaselineSchemaVersion = 1;
// A baseline file larger than this is refused as not one of ours.
inline constexpr int64_t kMaxBaselineBytes = int64_t{64} << 20;

// One workload's recorded samples with everything needed to judge whether a
// later run is comparable: what ran, on what, with which seeds.
struct Baseline {
  int schema_version = kBaselineSchemaVersion;
  std::string workload;
  std::string family;
  std::string mode;
  std::string device;
  std::string device_hash;
  // The profile parameters' medians the baseline ran with, by name
  // (`device.params`); empty in files written before the field was added
  // and in results files.
  std::vector<std::pair<std::string, double>> device_params;
  std::string spec_file;
  std::string spec_hash;
  // The spec's noise_threshold when it set one, else NaN.
  double noise_threshold = NAN;
  std::string trnbench_version;
  std::string model_version;
  uint64_t seed = 0;
  Schedule schedule;
  std::string created;                // ISO 8601 UTC; empty in results files
  std::string git_commit;             // empty when unknown
  std::vector<MetricResult> metrics;  // summaries recomputed from samples
  std::string file;                   // where it was read from
  // "model", or "measured" for an imported measurement (its provenance in
  // `measurement`); a file without the field was written by the model.
  std::string source{kSourceModel};
  Measurement measurement;

  bool measured() const { return source == kSourceMeasured; }
  // The JSON pointer of the workload in `file`: "" for a baseline file,
  // "/workloads/<i>" in a results file.
  std::string pointer;

  const MetricResult* Find(absl::string_view metric) const;
};

// The baselines of every workload of `run`.
std::vector<Baseline> BaselinesFromRun(const RunResult& run,
                                       const std::string& created,
                                       const std::string& git_commit);

std::string BaselineToJsonText(const Baseline& b);

// Reads a baseline file, or a results file (one baseline per workload), so
// `trnbench compare` takes either. Every defect is an InvalidArgument error
// naming `label`, the JSON path and what was expected: besides the shape,
// a unit other than the metric's, a time or rate sample that is not > 0,
// any negative sample, and samples that do not match their
// samples_checksum. Time and memory are linear in the size of `text`:
// fields the reader does not use are never stored.
absl::StatusOr<std::vector<Baseline>> ParseBaselineOrResults(
    absl::string_view text, absl::string_view label, double confidence);
absl::StatusOr<std::vector<Baseline>> LoadBaselineOrResults(
    const std::string& path, double confidence);

std::string BaselinePath(const std::string& dir, const std::string& workload);

// The workloads a baseline folder holds baselines for: the names of its
// `*.json` files (not starting with "."), sorted. So a whole-suite gate of
// a results file can tell what the file lacks.
absl::StatusOr<std::vector<std::string>> BaselineFolderWorkloads(
    const std::string& dir);

// The file names of `baselines` in their folder, for an output plan.
std::vector<std::string> BaselineFileNames(
    const std::vector<Baseline>& baselines);

// Writes one file per workload under `dir` (created if missing), all or
// none (see OutputTransaction): a failure leaves every old baseline as it
// was, and a crash or a concurrent writer never leaves a partial or mixed
// file.
absl::Status SaveBaselines(const std::vector<Baseline>& baselines,
                           const std::string& dir);
// The staging half of SaveBaselines, so that the caller commits the
// baselines with its other outputs; `dir` must be planned as a folder of
// `out`. A baseline whose file already says the same but for `created` and
// `git_commit` is not rewritten (a no-op refresh leaves the folder as it
// was); `unchanged`, when given, counts them.
absl::Status StageBaselines(const std::vector<Baseline>& baselines,
                            const std::string& dir, OutputTransaction& out,
                            int* unchanged = nullptr);

// The current time as ISO 8601 UTC, and the source tree's git commit (or the
// GITHUB_SHA / TRNBENCH_GIT_COMMIT environment variable), empty if unknown.
// Provenance only: neither ever reaches a result or a statistic.
std::string NowUtcIso8601();
std::string CurrentGitCommit(const std::string& source_dir);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_GATE_BASELINE_STORE_H_
