// hyperfine's --export-json output: each command's times[] are its
// samples, keeping only the runs whose exit code was 0.
#ifndef TRNBENCH_HARNESS_IMPORT_HYPERFINE_JSON_H_
#define TRNBENCH_HARNESS_IMPORT_HYPERFINE_JSON_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/import/imported.h"

namespace trn::import {

bool LooksLikeHyperfine(const nlohmann::json& json);

absl::StatusOr<Imported> ReadHyperfine(const std::vector<ParsedInput>& inputs);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_HYPERFINE_JSON_H_
