#include "tools/trnbench/frontend_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
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

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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
// /dev/null, stderr captured (`err`). With `input` (a batch of front end
// runs), that text is its stdin and its stdout is captured instead of its
// stderr (`err` then holds the stdout, stderr goes to /dev/null).
// NotFound when argv[0] cannot be executed.
absl::StatusOr<ChildResult> RunChild(const std::vector<std::string>& argv,
                                     const std::vector<std::string>& env_extra,
                                     const std::string* input = nullptr) {
  int pipe_fd[2];
  // Close-on-exec: a front end spawned by another thread meanwhile must not
  // hold this pipe open (its end would wait for that child too).
  if (pipe2(pipe_fd, O_CLOEXEC) != 0) {
    return absl::InternalError(
        absl::StrCat("pipe for a front end: ", std::strerror(errno)));
  }
  // The input through a socket pair rather than a pipe: send() with
  // MSG_NOSIGNAL to a batch that ended early is an error (EPIPE), not a
  // SIGPIPE that would end trnbench.
  int in_fd[2] = {-1, -1};
  if (input != nullptr &&
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_fd) != 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    return absl::InternalError(
        absl::StrCat("pipe for a front end: ", std::strerror(errno)));
  }
  const int captured = input != nullptr ? 1 : 2;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 3 - captured, "/dev/null",
                                   O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], captured);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[1]);
  if (input != nullptr) {
    posix_spawn_file_actions_adddup2(&actions, in_fd[0], 0);
    posix_spawn_file_actions_addclose(&actions, in_fd[0]);
    posix_spawn_file_actions_addclose(&actions, in_fd[1]);
  }
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
  if (input != nullptr) close(in_fd[0]);
  if (rc != 0) {
    close(pipe_fd[0]);
    if (input != nullptr) close(in_fd[1]);
    return absl::NotFoundError(std::strerror(rc));
  }
  if (input != nullptr) {
    // The whole input first: the batch reads all of its stdin before it
    // writes a line, so this cannot wait on a full stdout pipe. A batch
    // that ended early is seen by its missing lines.
    std::string_view rest = *input;
    while (!rest.empty()) {
      const ssize_t n = send(in_fd[1], rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      rest.remove_prefix(static_cast<size_t>(n));
    }
    close(in_fd[1]);
  }
  ChildResult out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(pipe_fd[0], buf, sizeof buf);
    if (n > 0) {
      // Bounded, keeping the end: the front end's refusal is its last line,
      // after whatever the traced code printed (a batch bounds each job's
      // stderr itself).
      out.err.append(buf, static_cast<size_t>(n));
      if (input == nullptr && out.err.size() > 2 * kKeptStderr) {
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

namespace {

// The environment a front end runs in: its own folder first on PYTHONPATH,
// then the front ends' shared package beside it
// (workloads/frontends/common), whatever the user's PYTHONPATH (kept after
// them, for the modules traced code imports); PYTHONSAFEPATH keeps the
// working folder off sys.path, so that no file there shadows a module.
std::vector<std::string> FrontEndEnv(const FrontEnd& fe) {
  const char* old_path = std::getenv("PYTHONPATH");
  std::filesystem::path dir(fe.dir);
  if (!dir.has_filename()) dir = dir.parent_path();  // "frontends/nki/"
  std::string path =
      absl::StrCat(fe.dir, ":", (dir.parent_path() / "common").string());
  if (old_path != nullptr && *old_path) absl::StrAppend(&path, ":", old_path);
  return {"PYTHONPATH=" + path, "PYTHONSAFEPATH=1",
          "PYTHONDONTWRITEBYTECODE=1"};
}

absl::Status NoPython(const FrontEnd& fe, const std::string& python,
                      const absl::Status& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      fe.flag, ": cannot run ", python, " (", why.message(), "): ", fe.needs));
}

// A front end run's outcome from its exit code and stderr (RunFrontEnd).
absl::Status StatusOfRun(const FrontEnd& fe, const std::string& subject,
                         int exit_code, const std::string& err) {
  if (exit_code == 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(fe.flag, " ", subject, ": ", FirstLine(err)));
  }
  if (exit_code != 0) {
    return absl::InternalError(absl::StrCat(fe.label, " failed on ", subject,
                                            " (exit ", exit_code,
                                            "): ", FirstLine(err)));
  }
  return absl::OkStatus();
}

std::vector<std::string> JobArgv(const FrontEndJob& job) {
  // Every value as --flag=VALUE and the subject after "--": a value that
  // starts with '-' is never taken for a flag.
  std::vector<std::string> argv = job.flags;
  argv.push_back("--");
  argv.push_back(job.subject);
  return argv;
}

}  // namespace

absl::Status RunFrontEnd(const FrontEnd& fe, const std::string& subject,
                         const std::vector<std::string>& flags) {
  const std::string python = FrontEndPython();
  std::vector<std::string> argv = {python, "-m", fe.module};
  for (std::string& a : JobArgv({subject, flags})) argv.push_back(a);
  auto child = RunChild(argv, FrontEndEnv(fe));
  if (absl::IsNotFound(child.status())) {
    return NoPython(fe, python, child.status());
  }
  if (!child.ok()) return child.status();
  return StatusOfRun(fe, subject, child->exit_code, child->err);
}

std::vector<absl::Status> RunFrontEndBatch(
    const FrontEnd& fe, const std::vector<FrontEndJob>& jobs) {
  std::vector<absl::Status> out;
  out.reserve(jobs.size());
  if (jobs.size() >= 2 && !fe.batch_module.empty()) {
    // Each argument base64, as bytes: a path need not be UTF-8.
    std::string input = "trnbench-batch 1\n";
    for (const FrontEndJob& job : jobs) {
      const std::vector<std::string> argv = JobArgv(job);
      for (size_t a = 0; a < argv.size(); ++a) {
        absl::StrAppend(&input, a > 0 ? " " : "", absl::Base64Escape(argv[a]));
      }
      input.push_back('\n');
    }
    const std::string python = FrontEndPython();
    auto child =
        RunChild({python, "-m", fe.batch_module}, FrontEndEnv(fe), &input);
    if (absl::IsNotFound(child.status())) {
      out.assign(jobs.size(), NoPython(fe, python, child.status()));
      return out;
    }
    // Each job's line, "EXIT BASE64-OF-STDERR" (frontend_common/batch.py);
    // the jobs after the last whole line (a batch that died, or none
    // started) run on their own below, with the same outcome.
    absl::string_view text = child.ok() ? absl::string_view(child->err) : "";
    while (out.size() < jobs.size()) {
      const size_t nl = text.find('\n');
      if (nl == absl::string_view::npos) break;
      const absl::string_view line = text.substr(0, nl);
      text.remove_prefix(nl + 1);
      const size_t sp = line.find(' ');
      int code = -1;
      std::string err;
      if (sp == absl::string_view::npos || sp == 0 || sp > 3 ||
          !absl::SimpleAtoi(line.substr(0, sp), &code) ||
          !absl::Base64Unescape(line.substr(sp + 1), &err)) {
        break;
      }
      out.push_back(StatusOfRun(fe, jobs[out.size()].subject, code, err));
    }
  }
  for (size_t k = out.size(); k < jobs.size(); ++k) {
    out.push_back(RunFrontEnd(fe, jobs[k].subject, jobs[k].flags));
  }
  return out;
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
