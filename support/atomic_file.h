#ifndef TRNBENCH_SUPPORT_ATOMIC_FILE_H_
#define TRNBENCH_SUPPORT_ATOMIC_FILE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace trn {

// Writes `content` to a temporary file in the destination's folder, flushes
// it to disk and renames it over `path`: readers see the old file or the new
// one, never a mix, and a crash leaves no partial file under `path`.
absl::Status WriteFileAtomic(const std::string& path, std::string_view content);

// Several files written all or none. Stage() writes each to a temporary
// file beside its destination and flushes it to disk; Commit() renames them
// all into place, after checking that no destination is a folder (the one
// way a rename can fail once its file is staged). A failure while staging,
// such as a full disk or a folder that cannot be written, leaves every
// destination as it was; the destructor removes whatever was staged and not
// committed. A process killed at any point leaves each destination old or
// new, never partial (it may leave a hidden ".<name>.tmp.XXXXXX" file).
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  absl::Status Stage(const std::string& path, std::string_view content);
  absl::Status Commit();

 private:
  std::vector<std::pair<std::string, std::string>> staged_;  // temp, path
};

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_ATOMIC_FILE_H_
