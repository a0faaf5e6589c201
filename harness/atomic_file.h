#ifndef TRNBENCH_HARNESS_ATOMIC_FILE_H_
#define TRNBENCH_HARNESS_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace trn {

// Writes `content` to a temporary file in the destination's folder, flushes
// it to disk and renames it over `path`: readers see the old file or the new
// one, never a mix, and a crash leaves no partial file under `path`.
absl::Status WriteFileAtomic(const std::string& path, std::string_view content);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_ATOMIC_FILE_H_
