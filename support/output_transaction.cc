#include "support/output_transaction.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status_macros.h"

namespace trn {
namespace {

namespace fs = std::filesystem;

std::string Where(absl::string_view label, absl::string_view path) {
  return label.empty() ? std::string(path) : absl::StrCat(label, " ", path);
}

std::string Errno(int err) { return std::strerror(err); }

// The folder that holds `path` ("." for a bare name).
fs::path ParentOf(const fs::path& path) {
  fs::path dir = path.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// "out/" names the folder "out", not an empty name inside it. Otherwise
// the path is kept as given, so that messages name it as the user wrote it.
fs::path FolderPath(absl::string_view dir) {
  std::string p(dir);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return fs::path(p);
}

// What identifies a file: its inode when it exists, else its absolute path
// with the symbolic links of its existing part resolved.
struct Identity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;
};

Identity IdentityOf(const fs::path& path) {
  Identity id;
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(fs::absolute(path, ec), ec);
  id.path = (ec ? fs::absolute(path, ec) : canon).lexically_normal().string();
  while (id.path.size() > 1 && id.path.back() == '/') id.path.pop_back();
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  return id;
}

bool Same(const Identity& a, const Identity& b) {
  if (a.exists && b.exists) return a.dev == b.dev && a.ino == b.ino;
  return a.path == b.path;
}

// `inner` is `outer` or lies below it.
bool Within(const Identity& inner, const Identity& outer) {
  return inner.path == outer.path ||
         (inner.path.size() > outer.path.size() &&
          inner.path.compare(0, outer.path.size(), outer.path) == 0 &&
          (outer.path == "/" || inner.path[outer.path.size()] == '/'));
}

// A folder a file can be created in, or the reason why not.
absl::Status CheckWritableFolder(const std::string& where,
                                 const fs::path& dir) {
  struct stat st {};
  const bool found = stat(dir.c_str(), &st) == 0;
  const int err = errno;
  if (!found || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": cannot create a file in ", dir.string(),
                     " (expected an existing folder that can be written): ",
                     found ? "not a folder" : Errno(err)));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    const int denied = errno;
    return absl::PermissionDeniedError(absl::StrCat(
        where, ": cannot create a file in ", dir.string(),
        " (expected an existing folder that can be written): ", Errno(denied)));
  }
  return absl::OkStatus();
}

// In a sticky folder (/tmp, a shared CI folder) only a file's owner, the
// folder's owner or root may replace it: the rename would fail half-way
// through a commit, so it is refused up front.
absl::Status CheckReplaceable(const std::string& where, const fs::path& dest) {
  struct stat file {};
  struct stat dir {};
  if (lstat(dest.c_str(), &file) != 0) return absl::OkStatus();
  if (stat(ParentOf(dest).c_str(), &dir) != 0) return absl::OkStatus();
  const uid_t me = geteuid();
  if ((dir.st_mode & S_ISVTX) != 0 && me != 0 && file.st_uid != me &&
      dir.st_uid != me) {
    return absl::PermissionDeniedError(absl::StrCat(
        where, ": belongs to another user in the sticky folder ",
        ParentOf(dest).string(),
        ", where only its owner may replace it; expected a file of yours or "
        "a new name"));
  }
  return absl::OkStatus();
}

// A destination that must be a regular file or not exist yet.
absl::Status CheckFileDestination(const std::string& where,
                                  const fs::path& dest) {
  struct stat st {};
  if (stat(dest.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": is a folder; expected a file name"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       ": is not a regular file (a device, pipe or socket); "
                       "expected a file name"));
    }
  }
  TRN_RETURN_IF_ERROR(CheckWritableFolder(where, ParentOf(dest)));
  return CheckReplaceable(where, dest);
}

// A folder that exists, or can be made where its first missing ancestor
// would go.
absl::Status CheckFolderDestination(const std::string& where,
                                    const fs::path& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": exists and is not a folder"));
    }
    return absl::OkStatus();
  }
  // The first ancestor that exists is where the folders would be made.
  fs::path p = ParentOf(dir);
  while (stat(p.c_str(), &st) != 0) {
    const fs::path up = ParentOf(p);
    if (up == p) break;
    p = up;
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": cannot create the folder: ", p.string(), " is not a folder"));
  }
  if (access(p.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    return absl::PermissionDeniedError(absl::StrCat(
        where, ": cannot create a folder in ", p.string(), ": ", Errno(err)));
  }
  return absl::OkStatus();
}

// A full disk or a file-size limit is ResourceExhausted, everything else
// the code that fits the errno.
absl::Status WriteError(int err, const std::string& message) {
  if (err == ENOSPC || err == EFBIG || err == EDQUOT) {
    return absl::ResourceExhaustedError(message);
  }
  if (err == EACCES || err == EPERM || err == EROFS) {
    return absl::PermissionDeniedError(message);
  }
  return absl::InvalidArgumentError(message);
}

// Writes all of `content` and flushes it to disk; returns 0 or the errno.
int WriteAllAndSync(int fd, absl::string_view content) {
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n =
        write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    written += static_cast<size_t>(n);
  }
  return fsync(fd) == 0 ? 0 : errno;
}

// Writes `content` to a new hidden temporary in `dir`; returns its path.
absl::StatusOr<std::string> WriteTemporary(const std::string& where,
                                           const fs::path& dir,
                                           const std::string& name,
                                           absl::string_view content) {
  std::string tmpl = (dir / absl::StrCat(".", name, ".tmp.XXXXXX")).string();
  const int fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return WriteError(
        err, absl::StrCat(where, ": cannot create a file in ", dir.string(),
                          " (expected an existing folder that can be "
                          "written): ",
                          Errno(err)));
  }
  int err = WriteAllAndSync(fd, content);
  if (err == 0 && fchmod(fd, 0644) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    unlink(tmpl.c_str());
    return WriteError(err, absl::StrCat(where,
                                        ": write failed (is the disk full?), "
                                        "the old file is kept: ",
                                        Errno(err)));
  }
  return tmpl;
}

// Keeps the old version of `dest` under `backup` for a rollback: a hard
// link when the file system allows it (no copy, no space), else a copy.
absl::Status KeepBackup(const std::string& where, const std::string& dest,
                        const std::string& backup) {
  if (link(dest.c_str(), backup.c_str()) == 0) return absl::OkStatus();
  const int in = open(dest.c_str(), O_RDONLY | O_CLOEXEC);
  const int out = in < 0 ? -1
                         : open(backup.c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  int err = in < 0 || out < 0 ? errno : 0;
  char buf[1 << 16];
  while (err == 0) {
    const ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    err = WriteAllAndSync(out, absl::string_view(buf, static_cast<size_t>(n)));
  }
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  if (err != 0) {
    unlink(backup.c_str());
    return WriteError(err, absl::StrCat(where,
                                        ": cannot keep the old file for a "
                                        "rollback (is the disk full?), the "
                                        "old file is kept: ",
                                        Errno(err)));
  }
  return absl::OkStatus();
}

void SyncFolder(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

// Creates the missing folders of `dir`, recording each in `created`
// (outermost first).
absl::Status MakeFolders(const std::string& where, const fs::path& dir,
                         std::vector<std::string>& created) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) {
      const int err = errno;
      return WriteError(err, absl::StrCat(where, ": cannot create the folder ",
                                          it->string(), ": ", Errno(err)));
    }
    created.push_back(it->string());
  }
  return absl::OkStatus();
}

}  // namespace

bool IsTemporaryName(absl::string_view name) {
  if (name.size() < 2 || name[0] != '.') return false;
  if (name.size() > 4 && name.substr(name.size() - 4) == ".old") {
    name.remove_suffix(4);
  }
  if (name.size() < 12) return false;
  const absl::string_view tail = name.substr(name.size() - 11);
  if (tail.substr(0, 5) != ".tmp.") return false;
  return std::all_of(tail.begin() + 5, tail.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
  });
}

namespace {

// Removes this program's temporaries of this user in `dir` (not below it),
// whatever their age: the caller holds the folder's lock exclusively, so
// no live transaction is staging there and every one of them was left by a
// killed run.
int RemoveTemporariesOf(const std::string& dir) {
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path& p = it->path();
    if (!IsTemporaryName(p.filename().string())) continue;
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || st.st_uid != geteuid()) continue;
    std::error_code rm;
    if (fs::remove_all(p, rm) > 0 && !rm) ++removed;
  }
  return removed;
}

// The folder's lock, exclusive if no live transaction holds it (then its
// temporaries are cleared), then shared: returns the open folder (-1 when
// it cannot be opened; staging goes on without the lock).
int LockFolder(const std::string& dir, bool hold) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) RemoveTemporariesOf(dir);
  if (!hold) {
    close(fd);
    return -1;
  }
  // Blocks only while another run clears the folder, for as long as that
  // takes. flock() is released when the process ends, however it ends.
  while (flock(fd, LOCK_SH) != 0 && errno == EINTR) {
  }
  return fd;
}

}  // namespace

int RemoveStaleTemporaries(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  const int removed =
      flock(fd, LOCK_EX | LOCK_NB) == 0 ? RemoveTemporariesOf(dir) : 0;
  close(fd);
  return removed;
}

void OutputTransaction::HoldFolder(const std::string& dir) {
  for (const auto& [held, fd] : held_dirs_) {
    if (held == dir) return;
  }
  held_dirs_.emplace_back(dir, LockFolder(dir, /*hold=*/true));
}

void OutputTransaction::ReleaseFolders() {
  for (auto& [dir, fd] : held_dirs_) {
    if (fd >= 0) close(fd);
  }
  held_dirs_.clear();
}

OutputTransaction::~OutputTransaction() {
  if (!committed_) Discard();
  ReleaseFolders();
}

void OutputTransaction::AddInput(absl::string_view label,
                                 absl::string_view path, bool replaceable) {
  inputs_.push_back({std::string(label), std::string(path), replaceable});
}

void OutputTransaction::PlanFile(absl::string_view label,
                                 absl::string_view path) {
  plan_.push_back({Kind::kFile, std::string(label), std::string(path), {}});
}

void OutputTransaction::PlanFolder(absl::string_view label,
                                   absl::string_view dir,
                                   std::vector<std::string> names) {
  plan_.push_back(
      {Kind::kFolder, std::string(label), std::string(dir), std::move(names)});
}

void OutputTransaction::PlanAppend(absl::string_view label,
                                   absl::string_view path) {
  plan_.push_back({Kind::kAppend, std::string(label), std::string(path), {}});
}

absl::Status OutputTransaction::Check() const {
  // Each destination on its own.
  for (const Planned& p : plan_) {
    const std::string where = Where(p.label, p.path);
    if (p.path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          p.label, ": expected ",
          p.kind == Kind::kFolder ? "a folder name" : "a file name",
          ", got an empty value"));
    }
    if (p.kind == Kind::kFolder) {
      const fs::path dir = FolderPath(p.path);
      TRN_RETURN_IF_ERROR(CheckFolderDestination(where, dir));
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) continue;
      // Named after the first file, as a save of one file would be.
      const std::string first =
          p.names.empty() ? where
                          : Where(p.label, (dir / p.names.front()).string());
      TRN_RETURN_IF_ERROR(CheckWritableFolder(first, dir));
      for (const std::string& name : p.names) {
        if (!name.empty() && name.back() == '/') continue;
        const fs::path dest = dir / name;
        struct stat st {};
        if (stat(dest.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(p.label, dest.string()),
              S_ISDIR(st.st_mode) ? ": is a folder; expected a file name"
                                  : ": is not a regular file; expected a "
                                    "file name"));
        }
        TRN_RETURN_IF_ERROR(
            CheckReplaceable(Where(p.label, dest.string()), dest));
      }
      continue;
    }
    const fs::path dest(p.path);
    if (p.kind == Kind::kAppend) {
      struct stat st {};
      if (stat(dest.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": is not a regular file; expected a file to append to"));
        }
        if (access(dest.c_str(), W_OK) != 0) {
          const int err = errno;
          return absl::PermissionDeniedError(
              absl::StrCat(where, ": cannot append: ", Errno(err)));
        }
        continue;
      }
    }
    TRN_RETURN_IF_ERROR(CheckFileDestination(where, dest));
  }
  // Destinations against each other and against the inputs.
  std::vector<Identity> ids;
  for (const Planned& p : plan_) {
    ids.push_back(IdentityOf(p.kind == Kind::kFolder ? FolderPath(p.path)
                                                     : fs::path(p.path)));
  }
  // An identity that `plan_[i]` writes: the file itself, or one of the
  // files of a folder.
  auto writes = [&](size_t i, const Identity& other) -> std::string {
    const Planned& p = plan_[i];
    if (p.kind != Kind::kFolder) return Same(ids[i], other) ? p.path : "";
    if (Same(ids[i], other)) return p.path;
    for (const std::string& name : p.names) {
      const bool folder = !name.empty() && name.back() == '/';
      const Identity named = IdentityOf(FolderPath(p.path) / name);
      if (Same(named, other) || (folder && Within(other, named))) {
        return (FolderPath(p.path) / name).string();
      }
    }
    return "";
  };
  for (size_t i = 0; i < plan_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const bool both_folders =
          plan_[i].kind == Kind::kFolder && plan_[j].kind == Kind::kFolder;
      // The message names the output that is in the way of the other.
      const Planned* writer = &plan_[j];
      const Planned* other = &plan_[i];
      std::string clash = writes(j, ids[i]);
      if (clash.empty() && !both_folders) {
        clash = writes(i, ids[j]);
        std::swap(writer, other);
      }
      if (!clash.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(other->label, other->path), ": ", writer->label, " writes ",
            clash, " too; expected a different place for each output"));
      }
    }
  }
  for (const Input& in : inputs_) {
    if (in.path.empty()) continue;
    const Identity id = IdentityOf(in.path);
    for (size_t i = 0; i < plan_.size(); ++i) {
      const std::string clash = writes(i, id);
      // A save refreshes the baselines it was compared with.
      if (clash.empty() || (in.replaceable && plan_[i].kind == Kind::kFolder)) {
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          Where(plan_[i].label, plan_[i].path), ": would overwrite ", clash,
          ", which is the input ", Where(in.label, in.path),
          "; expected an output that is not read by this command"));
    }
  }
  return absl::OkStatus();
}

const OutputTransaction::Planned* OutputTransaction::FindPlan(
    Kind kind, absl::string_view path) const {
  for (const Planned& p : plan_) {
    if (p.kind == kind && p.path == path) return &p;
  }
  return nullptr;
}

absl::Status OutputTransaction::StageOne(const std::string& label,
                                         const std::string& dest,
                                         absl::string_view content) {
  const fs::path d(dest);
  const std::string where = Where(label, dest);
  struct stat st {};
  if (stat(dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": is a folder; expected a file name"));
  }
  HoldFolder(ParentOf(d).string());
  TRN_ASSIGN_OR_RETURN(
      std::string temp,
      WriteTemporary(where, ParentOf(d), d.filename().string(), content));
  Move m;
  m.label = label;
  m.temp = std::move(temp);
  m.dest = dest;
  if (lstat(dest.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    m.existed = true;
    m.backup = m.temp + ".old";
    if (absl::Status s = KeepBackup(where, dest, m.backup); !s.ok()) {
      unlink(m.temp.c_str());
      return s;
    }
  }
  moves_.push_back(std::move(m));
  return absl::OkStatus();
}

absl::Status OutputTransaction::StageFile(absl::string_view path,
                                          absl::string_view content) {
  const Planned* p = FindPlan(Kind::kFile, path);
  if (p == nullptr) {
    return absl::InternalError(
        absl::StrCat(path, ": staged but not planned as an output file"));
  }
  return StageOne(p->label, p->path, content);
}

absl::Status OutputTransaction::StageFolder(
    absl::string_view dir, const std::vector<OutputFile>& files) {
  const Planned* p = FindPlan(Kind::kFolder, dir);
  if (p == nullptr) {
    return absl::InternalError(
        absl::StrCat(dir, ": staged but not planned as an output folder"));
  }
  const std::string where = Where(p->label, p->path);
  const fs::path target = FolderPath(p->path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    for (const OutputFile& f : files) {
      const fs::path dest = target / f.path;
      TRN_RETURN_IF_ERROR(MakeFolders(where, ParentOf(dest), created_dirs_));
      TRN_RETURN_IF_ERROR(StageOne(p->label, dest.string(), f.content));
    }
    return absl::OkStatus();
  }
  // A new folder is written whole beside its final name and renamed into
  // place: it appears complete or not at all.
  const fs::path parent = ParentOf(target);
  TRN_RETURN_IF_ERROR(MakeFolders(where, parent, created_dirs_));
  HoldFolder(parent.string());
  std::string tmpl =
      (parent / absl::StrCat(".", target.filename().string(), ".tmp.XXXXXX"))
          .string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    const int err = errno;
    return WriteError(err, absl::StrCat(where, ": cannot create a folder in ",
                                        parent.string(), ": ", Errno(err)));
  }
  // mkdtemp makes it private; an output folder is as readable as a file.
  chmod(tmpl.c_str(), 0755);
  Move whole;
  whole.label = p->label;
  whole.temp = tmpl;
  whole.dest = target.string();
  whole.folder = true;
  moves_.push_back(std::move(whole));
  for (const OutputFile& f : files) {
    const fs::path dest = fs::path(tmpl) / f.path;
    std::vector<std::string> inner;  // removed with the staging folder
    TRN_RETURN_IF_ERROR(MakeFolders(where, ParentOf(dest), inner));
    const int fd =
        open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = fd < 0 ? errno : WriteAllAndSync(fd, f.content);
    if (fd >= 0 && close(fd) != 0 && err == 0) err = errno;
    if (err != 0) {
      return WriteError(err, absl::StrCat(where, ": write of ", f.path,
                                          " failed (is the disk full?), "
                                          "nothing is written: ",
                                          Errno(err)));
    }
  }
  return absl::OkStatus();
}

absl::Status OutputTransaction::StageAppend(absl::string_view path,
                                            absl::string_view text) {
  const Planned* p = FindPlan(Kind::kAppend, path);
  if (p == nullptr) {
    return absl::InternalError(
        absl::StrCat(path, ": staged but not planned for appending"));
  }
  const std::string where = Where(p->label, p->path);
  Append a;
  a.label = p->label;
  a.path = p->path;
  a.text = std::string(text);
  struct stat st {};
  a.created = lstat(a.path.c_str(), &st) != 0;
  a.fd = open(a.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (a.fd < 0) {
    const int err = errno;
    return WriteError(err,
                      absl::StrCat(where, ": cannot append: ", Errno(err)));
  }
  if (fstat(a.fd, &st) == 0) a.old_size = st.st_size;
  // Reserving the blocks now means the append itself cannot meet a full
  // disk; where the file system cannot reserve, a failed append is cut
  // back to the old length instead.
  if (!a.text.empty() &&
      fallocate(a.fd, FALLOC_FL_KEEP_SIZE, a.old_size,
                static_cast<off_t>(a.text.size())) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) {
    const int err = errno;
    close(a.fd);
    if (a.created) unlink(a.path.c_str());
    return WriteError(
        err, absl::StrCat(where, ": cannot reserve ", a.text.size(),
                          " bytes to append (is the disk full?), the file is "
                          "kept as it was: ",
                          Errno(err)));
  }
  appends_.push_back(std::move(a));
  return absl::OkStatus();
}

std::vector<std::string> OutputTransaction::Rollback() {
  std::vector<std::string> kept_new;
  for (auto it = moves_.rbegin(); it != moves_.rend(); ++it) {
    Move& m = *it;
    if (!m.done) continue;
    bool undone = false;
    if (m.folder) {
      undone = std::rename(m.dest.c_str(), m.temp.c_str()) == 0;
    } else if (m.existed) {
      undone = !m.backup.empty() &&
               std::rename(m.backup.c_str(), m.dest.c_str()) == 0;
      if (undone) m.backup.clear();
    } else {
      undone = unlink(m.dest.c_str()) == 0;
    }
    if (undone) {
      m.done = false;
      touched_dirs_.push_back(ParentOf(fs::path(m.dest)).string());
    } else {
      kept_new.push_back(m.dest);
    }
  }
  for (const std::string& dir : touched_dirs_) SyncFolder(dir);
  return kept_new;
}

absl::Status OutputTransaction::CommitFailure(const Move* failed, int err,
                                              const std::string& what) {
  std::vector<std::string> not_written;
  bool after = failed == nullptr;
  for (const Move& m : moves_) {
    if (&m == failed) after = true;
    if (after && !m.done && &m != failed) not_written.push_back(m.dest);
  }
  const std::vector<std::string> kept_new = Rollback();
  std::string account;
  if (kept_new.empty()) {
    account =
        "nothing was written: every output already put in place was "
        "restored";
  } else {
    account = absl::StrCat(
        "written and could not be undone: ", absl::StrJoin(kept_new, ", "),
        "; every other output is as it was");
  }
  Discard();
  committed_ = true;  // nothing left to clean up
  return WriteError(err, absl::StrCat(what, "; ", account));
}

absl::Status OutputTransaction::Commit() {
  if (committed_) return absl::InternalError("output committed twice");
  // A folder put where a file goes after Check() (another process) is the
  // one failure a rename could still meet that can be found before the
  // first rename.
  for (const Move& m : moves_) {
    struct stat st {};
    if (!m.folder && stat(m.dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(m.label, m.dest), ": is a folder; expected a file name"));
    }
  }
  for (size_t i = 0; i < moves_.size(); ++i) {
    Move& m = moves_[i];
    int err = 0;
    if (static_cast<int>(i) == fail_rename_) {
      err = EIO;
    } else if (std::rename(m.temp.c_str(), m.dest.c_str()) != 0) {
      err = errno;
    }
    if (m.folder && (err == ENOTEMPTY || err == EEXIST)) {
      // Another run made the folder since it was staged: its files go in
      // one by one, each replacing its old version, as for a folder that
      // existed. The moves are inserted after this one.
      if (absl::Status s = SplitFolderMove(i); !s.ok()) {
        return CommitFailure(&moves_[i], EIO, std::string(s.message()));
      }
      continue;
    }
    if (err != 0) {
      const std::string what =
          absl::StrCat(Where(m.label, m.dest), ": rename failed: ", Errno(err));
      // Copied: CommitFailure() discards the moves.
      return CommitFailure(&m, err, what);
    }
    m.done = true;
    touched_dirs_.push_back(ParentOf(fs::path(m.dest)).string());
  }
  for (size_t i = 0; i < appends_.size(); ++i) {
    Append& a = appends_[i];
    const int err = WriteAllAndSync(a.fd, a.text);
    if (err != 0) {
      // Cut back to the old length: a full disk leaves no cut row.
      for (size_t k = 0; k <= i; ++k) {
        (void)!ftruncate(appends_[k].fd, appends_[k].old_size);
      }
      const std::string what =
          absl::StrCat(Where(a.label, a.path),
                       ": append failed (is the disk full?): ", Errno(err),
                       "; the file is cut back to its old length");
      return CommitFailure(nullptr, err, what);
    }
  }
  std::sort(touched_dirs_.begin(), touched_dirs_.end());
  touched_dirs_.erase(std::unique(touched_dirs_.begin(), touched_dirs_.end()),
                      touched_dirs_.end());
  for (const std::string& dir : touched_dirs_) SyncFolder(dir);
  for (const std::string& dir : created_dirs_) {
    SyncFolder(ParentOf(fs::path(dir)).string());
  }
  std::error_code ec;
  for (Move& m : moves_) {
    if (!m.backup.empty()) unlink(m.backup.c_str());
    if (m.folder && !m.done) fs::remove_all(m.temp, ec);  // emptied by a split
  }
  for (Append& a : appends_) {
    close(a.fd);
    a.fd = -1;
  }
  committed_ = true;
  // Nothing of this run is left in its folders: another may clear them.
  ReleaseFolders();
  return absl::OkStatus();
}

absl::Status OutputTransaction::SplitFolderMove(size_t i) {
  const std::string label = moves_[i].label;
  const fs::path staging(moves_[i].temp);
  const fs::path target(moves_[i].dest);
  std::vector<Move> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(staging, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const fs::path dest = target / fs::relative(it->path(), staging);
    TRN_RETURN_IF_ERROR(MakeFolders(Where(label, target.string()),
                                    dest.parent_path(), created_dirs_));
    Move m;
    m.label = label;
    m.temp = it->path().string();
    m.dest = dest.string();
    struct stat st {};
    if (lstat(m.dest.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      m.existed = true;
      // Kept in our own staging folder: a name no other run can take.
      m.backup = m.temp + ".old";
      TRN_RETURN_IF_ERROR(KeepBackup(Where(label, m.dest), m.dest, m.backup));
    }
    files.push_back(std::move(m));
  }
  if (ec) {
    return absl::InternalError(absl::StrCat(
        Where(label, target.string()), ": cannot list the staged folder ",
        staging.string(), ": ", ec.message()));
  }
  moves_.insert(moves_.begin() + static_cast<long>(i) + 1,
                std::make_move_iterator(files.begin()),
                std::make_move_iterator(files.end()));
  return absl::OkStatus();
}

void OutputTransaction::Discard() {
  std::error_code ec;
  for (Move& m : moves_) {
    if (!m.done) {
      if (m.folder) {
        fs::remove_all(m.temp, ec);
      } else {
        unlink(m.temp.c_str());
      }
    }
    if (!m.backup.empty()) unlink(m.backup.c_str());
  }
  moves_.clear();
  for (Append& a : appends_) {
    if (a.fd >= 0) close(a.fd);
    if (a.created) unlink(a.path.c_str());
  }
  appends_.clear();
  for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) {
    fs::remove(*it, ec);  // only if empty: another run may use it now
  }
  created_dirs_.clear();
  ReleaseFolders();
}

absl::Status WriteFileAtomic(const std::string& path,
                             absl::string_view content) {
  OutputTransaction out;
  out.PlanFile("", path);
  TRN_RETURN_IF_ERROR(out.Check());
  TRN_RETURN_IF_ERROR(out.StageFile(path, content));
  return out.Commit();
}

absl::Status WriteFolderAtomic(absl::string_view label, const std::string& dir,
                               const std::vector<OutputFile>& files) {
  OutputTransaction out;
  std::vector<std::string> names;
  for (const OutputFile& f : files) names.push_back(f.path);
  out.PlanFolder(label, dir, std::move(names));
  TRN_RETURN_IF_ERROR(out.Check());
  TRN_RETURN_IF_ERROR(out.StageFolder(dir, files));
  return out.Commit();
}

}  // namespace trn
