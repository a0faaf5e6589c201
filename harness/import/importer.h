// `trnbench import`: measured files -> a results document marked
// "source": "measured", so that compare, gate, baselines and reports treat
// a measurement exactly as they treat the model's samples.
#ifndef TRNBENCH_HARNESS_IMPORT_IMPORTER_H_
#define TRNBENCH_HARNESS_IMPORT_IMPORTER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"
#include "harness/import/measured_file.h"
#include "harness/runner/results.h"

namespace trn::import {

enum class MeasuredFormat {
  kKineto,
  kNeuronBench,
  kNeuronProfile,
  kNkiBenchmark,
  kGoogleBenchmark,
  kHyperfine,
};

struct FormatInfo {
  MeasuredFormat format;
  absl::string_view name;  // what --format takes
  absl::string_view what;  // for messages and help
};

// Every format, in the order help and messages list them.
const std::vector<FormatInfo>& MeasuredFormats();
absl::string_view MeasuredFormatName(MeasuredFormat format);
// `name` as --format gives it; an error listing the names otherwise.
absl::StatusOr<MeasuredFormat> ParseMeasuredFormat(absl::string_view name);

// The format of one file from its content; an error naming the file when
// it is none of them.
absl::StatusOr<MeasuredFormat> DetectFormat(const MeasuredFile& file);

struct ImportRequest {
  std::optional<MeasuredFormat> format;  // detected when empty
  ImportOptions options;
  // The device the measurement ran on; empty: the instance type's family
  // (trn1.32xlarge -> trn1) when the files name one, "host" for Google
  // Benchmark and hyperfine, else "unknown".
  std::string device;
  std::string trnbench_version;
  double confidence = 0.95;
};

// Imports `files` (all of one format) as one results document.
absl::StatusOr<RunResult> ImportMeasured(const std::vector<MeasuredFile>& files,
                                         const ImportRequest& request);

// A workload name that is safe as a baseline file name: every character
// other than letters, digits, '_', '-' and '.' becomes '_'.
std::string SafeWorkloadName(absl::string_view name);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_IMPORTER_H_
