#include "harness/atomic_file.h"

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
  std::filesystem::path dest(path);
  std::filesystem::path dir = dest.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl =
      (dir / absl::StrCat(".", dest.filename().string(), ".tmp.XXXXXX"))
          .string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot create a file in ", dir.string(), ": ",
                     std::strerror(errno)));
  }
  auto fail = [&](const char* what) {
    int err = errno;
    close(fd);
    unlink(tmpl.c_str());
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", what, ": ", std::strerror(err)));
  };
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed");
    }
    written += static_cast<size_t>(n);
  }
  if (fchmod(fd, 0644) != 0) return fail("chmod failed");
  if (fsync(fd) != 0) return fail("fsync failed");
  if (close(fd) != 0) {
    unlink(tmpl.c_str());
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": close failed: ", std::strerror(errno)));
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmpl.c_str());
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": rename failed: ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace trn
