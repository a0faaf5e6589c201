#include "tools/trnbench/frontend_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "device_model/memory_limits.h"
#include "nlohmann/json.hpp"
#include "support/output_transaction.h"
#include "tools/trnbench/command_context.h"
#include "workloads/loading/spec_parser.h"

extern char** environ;

namespace trn {
namespace {

constexpr size_t kKeptStderr = 65536;

struct ChildResult {
  int exit_code = 0;
  std::string err;  // its stderr
};

// Runs argv with `env_extra` added to the environment, stdout to
// /dev/null, stderr captured. NotFound when argv[0] cannot be executed.
absl::StatusOr<ChildResult> RunChild(
    const std::vector<std::string>& argv,
    const std::vector<std::string>& env_extra) {
  int pipe_fd[2];
  // Close-on-exec: a front end spawned by another thread meanwhile must not
  // hold this pipe open (its end would wait for that child too).
  if (pipe2(pipe_fd, O_CLOEXEC) != 0) {
    return absl::InternalError(
        absl::StrCat("pipe for a front end: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // An entry of env_extra replaces the inherited one of its name: a
  // process's getenv takes the first, so an inherited PYTHONPATH would win.
  std::vector<std::string> env_store;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const absl::string_view entry(*e);
    const absl::string_view name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& x : env_extra) {
      replaced = replaced || (!name.empty() && absl::StartsWith(x, name));
    }
    if (!replaced) env_store.emplace_back(entry);
  }
  for (const auto& e : env_extra) env_store.push_back(e);
  std::vector<char*> env;
  for (auto& e : env_store) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fd[1]);
  if (rc != 0) {
    close(pipe_fd[0]);
    return absl::NotFoundError(std::strerror(rc));
  }
  ChildResult out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(pipe_fd[0], buf, sizeof buf);
    if (n > 0) {
      // Bounded, keeping the end: the front end's refusal is its last line,
      // after whatever the traced code printed.
      out.err.append(buf, static_cast<size_t>(n));
      if (out.err.size() > 2 * kKeptStderr) {
        out.err.erase(0, out.err.size() - kKeptStderr);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (!WIFEXITED(status)) out.exit_code = 127;
  return out;
}

std::string FirstLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' ||
                           text.back() == '\r' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  const size_t nl = text.rfind('\n');
  // The front end's refusal is its last line (a warning may come first).
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

// "LABEL: /json/pointer: what" of a spec at `label` (a refusal the spec
// reader makes before any line is mapped) as "FILE:LINE: what (the traced
// spec's /json/pointer)", the line of the op at or around the pointer.
std::string AtSourceLine(absl::string_view message, const std::string& label,
                         absl::string_view text, const std::string& file) {
  const std::string prefix = label + ": /";
  if (!absl::StartsWith(message, prefix)) return std::string(message);
  const size_t end = message.find(": ", prefix.size());
  if (end == absl::string_view::npos) return std::string(message);
  const std::string pointer(
      message.substr(prefix.size() - 1, end - prefix.size() + 1));
  const int64_t line = SourceLineAt(
      nlohmann::json::parse(text.begin(), text.end(), nullptr, false), pointer);
  const std::string where =
      line > 0 ? absl::StrCat(file, ":", line) : std::string(file);
  return absl::StrCat(where, ": ", message.substr(end + 2),
                      " (the traced spec's ", pointer, ")");
}

}  // namespace

std::string SpecFileName(const std::string& kernel, size_t index) {
  const size_t sep = kernel.rfind("::");
  std::string fn = sep == std::string::npos ? "kernel" : kernel.substr(sep + 2);
  for (char& c : fn) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  }
  return absl::StrCat(index, "_", fn, ".json");
}

std::string FrontEndPython() {
  if (const char* p = std::getenv("TRNBENCH_PYTHON"); p != nullptr && *p) {
    return p;
  }
  std::error_code ec;
  if (std::filesystem::exists("/usr/bin/python3", ec))
    return "/usr/bin/python3";
  return "python3";
}

absl::StatusOr<std::string> MakeTempDir(const std::string& stem) {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / (stem + ".XXXXXX")).string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(absl::StrCat(
        "cannot make a folder for traced specs: ", std::strerror(errno)));
  }
  return tmpl;
}

absl::Status RunFrontEnd(const FrontEnd& fe, const std::string& subject,
                         const std::vector<std::string>& flags) {
  const std::string python = FrontEndPython();
  // Every value as --flag=VALUE and the subject after "--": a value that
  // starts with '-' is never taken for a flag.
  std::vector<std::string> argv = {python, "-m", fe.module};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("--");
  argv.push_back(subject);
  // The front end's own folder first, then the front ends' shared package
  // beside it (workloads/frontends/common), whatever the user's PYTHONPATH
  // (kept after them, for the modules traced code imports); PYTHONSAFEPATH
  // keeps the working folder off sys.path, so that no file there shadows a
  // module.
  const char* old_path = std::getenv("PYTHONPATH");
  std::filesystem::path dir(fe.dir);
  if (!dir.has_filename()) dir = dir.parent_path();  // "frontends/nki/"
  std::string path =
      absl::StrCat(fe.dir, ":", (dir.parent_path() / "common").string());
  if (old_path != nullptr && *old_path) absl::StrAppend(&path, ":", old_path);
  auto child = RunChild(argv, {"PYTHONPATH=" + path, "PYTHONSAFEPATH=1",
                               "PYTHONDONTWRITEBYTECODE=1"});
  if (absl::IsNotFound(child.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat(fe.flag, ": cannot run ", python, " (",
                     child.status().message(), "): ", fe.needs));
  }
  if (!child.ok()) return child.status();
  if (child->exit_code == 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(fe.flag, " ", subject, ": ", FirstLine(child->err)));
  }
  if (child->exit_code != 0) {
    return absl::InternalError(absl::StrCat(fe.label, " failed on ", subject,
                                            " (exit ", child->exit_code,
                                            "): ", FirstLine(child->err)));
  }
  return absl::OkStatus();
}

absl::Status CheckTracedSpec(const FrontEnd& fe, const std::string& subject,
                             const std::string& out) {
  std::ifstream in(out, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) {
    return absl::InternalError(
        absl::StrCat("cannot read the spec ", fe.label, " wrote: ", out));
  }
  const std::string text = ss.str();
  const std::string file = subject.substr(0, subject.rfind("::"));
  if (static_cast<int64_t>(text.size()) > kMaxSpecBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(fe.flag, " ", subject, ": ", file, ": the traced spec is ",
                     text.size(), " bytes; a spec may be at most 1 MiB (",
                     kMaxSpecBytes, " bytes): ", fe.too_big));
  }
  MemoryLimits roomy;  // 128 partitions, as every generation's pmax
  roomy.psum_banks = 1 << 28;
  roomy.psum_bytes_per_partition = int64_t{2048} << 28;  // 2 KiB banks
  roomy.sbuf_bytes_per_partition = int64_t{1} << 40;
  auto spec = ParseSpec(text, out, roomy);
  if (spec.ok()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      fe.flag, " ", subject, ": ",
      AtSourceLine(spec.status().message(), out, text, file), ": ", fe.label,
      " wrote a spec that trnbench refuses, a bug of the front end"));
}

std::string FrontEndFolder(const char* env_var, const std::string& subdir) {
  if (const char* p = std::getenv(env_var); p != nullptr && *p) return p;
  return SourceDir() + "/" + subdir;
}

void RemoveTempDir(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

absl::Status WriteEmittedSpec(const std::string& traced,
                              const std::string& to) {
  if (traced.empty()) return absl::OkStatus();
  std::ifstream in(traced, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) {
    return absl::InternalError(absl::StrCat("cannot read ", traced));
  }
  return WriteFileAtomic(to, text.str());
}

}  // namespace trn
