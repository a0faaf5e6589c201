#include "tools/trnbench/frontend_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace trn {
namespace {

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
  if (pipe(pipe_fd) != 0) {
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
  std::vector<std::string> env_store;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    // A variable `env_extra` sets replaces the inherited one: with two,
    // getenv reads the first, and PYTHONPATH would lose the front end.
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& x : env_extra) {
      replaced = replaced || entry.substr(0, entry.find('=') + 1) ==
                                 std::string_view(x).substr(0, x.find('=') + 1);
    }
    if (!replaced) env_store.emplace_back(*e);
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
      // Bounded: the front end says one line; a traceback is cut.
      if (out.err.size() < 65536) out.err.append(buf, static_cast<size_t>(n));
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
                         const std::vector<std::string>& args) {
  const std::string python = FrontEndPython();
  std::vector<std::string> argv = {python, "-m", fe.module};
  argv.insert(argv.end(), args.begin(), args.end());
  const char* old_path = std::getenv("PYTHONPATH");
  std::string path = fe.dir;
  if (old_path != nullptr && *old_path) absl::StrAppend(&path, ":", old_path);
  auto child =
      RunChild(argv, {"PYTHONPATH=" + path, "PYTHONDONTWRITEBYTECODE=1"});
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

}  // namespace trn
