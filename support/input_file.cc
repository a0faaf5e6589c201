#include "support/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trn {
namespace {

std::string SizeText(int64_t bytes) {
  if (bytes % (int64_t{1} << 20) == 0) {
    return absl::StrCat(bytes >> 20, " MiB");
  }
  return absl::StrCat(bytes, " bytes");
}

// An anonymous pipe, such as bash's `<(command)`, shows in /proc as
// "pipe:[inode]"; a named FIFO shows as its path.
bool IsAnonymousPipe(int fd) {
  char target[64] = {0};
  const std::string link = absl::StrCat("/proc/self/fd/", fd);
  const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
  return n > 0 && absl::StartsWith(absl::string_view(target, n), "pipe:");
}

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

absl::StatusOr<std::string> ReadInputFile(const std::string& path,
                                          int64_t max_bytes,
                                          absl::string_view what,
                                          absl::string_view too_large) {
  const std::string larger =
      too_large.empty()
          ? absl::StrCat(path, ": /: file is larger than ", SizeText(max_bytes))
          : absl::StrCat(path, ": /: ", too_large);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, forever if there is none.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(path, ": no such ", what));
    }
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat(
          path, ": cannot read the ", what, ": ", std::strerror(err)));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot open the ", what, ": ", std::strerror(err)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 ||
      !(S_ISREG(st.st_mode) || (S_ISFIFO(st.st_mode) && IsAnonymousPipe(fd)))) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": is ", KindOf(st.st_mode), "; expected a regular ", what));
  }
  if (S_ISREG(st.st_mode) && st.st_size > max_bytes) {
    close(fd);
    return absl::InvalidArgumentError(larger);
  }
  // Blocking reads from here: a pipe's writer is still working.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  // At most one byte past the limit: a pipe has no size to check first.
  while (static_cast<int64_t>(text.size()) <= max_bytes) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": cannot read the ", what, ": ", std::strerror(err)));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  if (static_cast<int64_t>(text.size()) > max_bytes) {
    return absl::InvalidArgumentError(larger);
  }
  return text;
}

}  // namespace trn
