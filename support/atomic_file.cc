#include "support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"

namespace trn {

absl::Status WriteFileAtomic(const std::string& path,
                             std::string_view content) {
  StagedFiles files;
  if (absl::Status s = files.Stage(path, content); !s.ok()) return s;
  return files.Commit();
}

StagedFiles::~StagedFiles() {
  for (const auto& [temp, path] : staged_) unlink(temp.c_str());
}

absl::Status StagedFiles::Stage(const std::string& path,
                                std::string_view content) {
  std::filesystem::path dest(path);
  std::filesystem::path dir = dest.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl =
      (dir / absl::StrCat(".", dest.filename().string(), ".tmp.XXXXXX"))
          .string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    const int err = errno;
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat(path, ": cannot create a file in ", dir.string(),
                     " (expected an existing folder that can be written): ",
                     std::strerror(err)));
  }
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    unlink(tmpl.c_str());
    // ENOSPC becomes ResourceExhausted, EACCES PermissionDenied: the code
    // says what went wrong, the exit code is the tool's business.
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat(path, ": ", what, ": ", std::strerror(err)));
  };
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed (is the disk full?), the old file is kept");
    }
    written += static_cast<size_t>(n);
  }
  if (fchmod(fd, 0644) != 0) return fail("chmod failed");
  if (fsync(fd) != 0) {
    return fail("fsync failed (is the disk full?), the old file is kept");
  }
  if (close(fd) != 0) {
    const int err = errno;
    unlink(tmpl.c_str());
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat(path, ": close failed: ", std::strerror(err)));
  }
  staged_.emplace_back(std::move(tmpl), path);
  return absl::OkStatus();
}

absl::Status StagedFiles::Commit() {
  // A folder in the way is the one failure left once every file is on disk;
  // finding it before the first rename keeps the set all or none.
  for (const auto& [temp, path] : staged_) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": is a folder; expected a file name to write to"));
    }
  }
  for (size_t i = 0; i < staged_.size(); ++i) {
    const auto& [temp, path] = staged_[i];
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      // The files before this one are in place; the rest are removed by
      // the destructor.
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<long>(i));
      return absl::Status(
          absl::ErrnoToStatusCode(err),
          absl::StrCat(path, ": rename failed: ", std::strerror(err)));
    }
  }
  staged_.clear();
  return absl::OkStatus();
}

}  // namespace trn
