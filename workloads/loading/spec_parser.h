// Reads workload spec files (docs/spec-format.md) into WorkloadSpec.
#ifndef TRNBENCH_WORKLOADS_LOADING_SPEC_PARSER_H_
#define TRNBENCH_WORKLOADS_LOADING_SPEC_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/memory_limits.h"
#include "nlohmann/json.hpp"
#include "support/strict_json.h"  // IWYU pragma: export (kMaxJsonDepth)
#include "workloads/spec/published_figure.h"
#include "workloads/spec/spec.h"
#include "workloads/spec/spec_validator.h"  // IWYU pragma: export

namespace trn {

// Specs are a few kilobytes; the caps keep a wrong or hostile file from
// costing much memory or time before it is rejected.
inline constexpr int64_t kMaxSpecBytes = int64_t{1} << 20;

// The "line" of the JSON object at the JSON pointer `pointer` ("/kernel/
// loops/0/body/2") in `root`, or of the nearest object above it that has
// one; 0 when none does or the pointer leaves `root`. A traced spec's ops
// carry the kernel source line that made them, so a refusal at a pointer
// can name the user's line instead of the spec's.
int64_t SourceLineAt(const nlohmann::json& root, std::string_view pointer);

// Parses and validates a spec. `file_label` names the file in messages.
// Every error is absl::InvalidArgumentError("<file_label>: <json pointer,
// '/' for the whole document>: <what was wrong and what was expected>").
// On success `file` is `file_label` and `content_hash` the FNV-1a 64 of
// `text`.
absl::StatusOr<WorkloadSpec> ParseSpec(std::string_view text,
                                       std::string_view file_label,
                                       const MemoryLimits& limits);

// ParseSpec of a file's bytes, labelled with `path`. NotFound when there is
// no such file; InvalidArgument, naming the path, when it is a directory,
// cannot be read, is larger than kMaxSpecBytes or is not a valid spec.
absl::StatusOr<WorkloadSpec> LoadSpecFile(const std::string& path,
                                          const MemoryLimits& limits);

// A "published" array (docs/spec-format.md, published figures) read as a
// spec's, for a file that names its kernel instead of holding it (the
// validation suite's training figures, docs/validation.md): errors as
// ParseSpec's, at "/published/<i>/..." of `file_label`. No figure may
// measure a kernel source line (there is no kernel to check it against).
absl::StatusOr<std::vector<PublishedFigure>> ParsePublishedFigures(
    const nlohmann::json& published, std::string_view file_label);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_LOADING_SPEC_PARSER_H_
