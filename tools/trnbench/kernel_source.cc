#include "tools/trnbench/kernel_source.h"

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
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "device_model/memory_limits.h"
#include "harness/runner/runner.h"
#include "nlohmann/json.hpp"
#include "support/ordered_parallel.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
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
        absl::StrCat("pipe for the NKI front end: ", std::strerror(errno)));
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
      // after whatever the kernel printed.
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

// The traced spec's file name: FILE.py::FUNCTION -> FUNCTION.json.
std::string SpecFileName(const std::string& kernel, size_t index) {
  const size_t sep = kernel.rfind("::");
  std::string fn = sep == std::string::npos ? "kernel" : kernel.substr(sep + 2);
  for (char& c : fn) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  }
  return absl::StrCat(index, "_", fn, ".json");
}

// "NAME=V1,V2": the values, split at commas outside brackets, so that a
// tuple value such as "(3,4)" stays one value.
std::pair<std::string, std::vector<std::string>> SplitKwarg(
    const std::string& kv) {
  const size_t eq = kv.find('=');
  std::vector<std::string> values;
  std::string cur;
  int depth = 0;
  for (char c : kv.substr(eq + 1)) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      values.push_back(cur);
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  values.push_back(cur);
  return {kv.substr(0, eq), values};
}

// The cross product of the --kwarg values, the first flag outermost.
std::vector<SweepPoint> SweepPoints(const std::vector<std::string>& kwargs) {
  std::vector<SweepPoint> points = {{}};
  bool sweep = false;
  for (const auto& kv : kwargs) {
    auto [name, values] = SplitKwarg(kv);
    sweep = sweep || values.size() > 1;
    std::vector<SweepPoint> next;
    for (const auto& p : points) {
      for (const auto& v : values) {
        SweepPoint q = p;
        q.kwargs.push_back(absl::StrCat(name, "=", v));
        absl::StrAppend(&q.suffix, "_", name, "_", v);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  if (!sweep) {
    for (auto& p : points) p.suffix.clear();
  }
  return points;
}

// "LABEL: /json/pointer: what" of a spec at `label` (a refusal the spec
// reader makes before any line is mapped) as "FILE:LINE: what (the traced
// spec's /json/pointer)", the line of the op at or around the pointer.
std::string AtKernelLine(absl::string_view message, const std::string& label,
                         absl::string_view text, const std::string& file) {
  const std::string prefix = label + ": /";
  if (!absl::StartsWith(message, prefix)) return std::string(message);
  const size_t end = message.find(": ", prefix.size());
  if (end == absl::string_view::npos) return std::string(message);
  const std::string pointer(
      message.substr(prefix.size() - 1, end - prefix.size() + 1));
  const nlohmann::json root =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  const nlohmann::json* at = &root;
  int64_t line = 0;
  for (absl::string_view rest = absl::string_view(pointer).substr(1);
       at != nullptr && !at->is_discarded();) {
    if (at->is_object()) {
      if (auto l = at->find("line"); l != at->end() && l->is_number_integer()) {
        line = l->get<int64_t>();
      }
    }
    if (rest.empty()) break;
    const size_t slash = rest.find('/');
    const std::string key(rest.substr(0, slash));
    rest = slash == absl::string_view::npos ? "" : rest.substr(slash + 1);
    if (at->is_object() && at->contains(key)) {
      at = &(*at)[key];
    } else if (at->is_array() && !key.empty() && key.size() < 10 &&
               key.find_first_not_of("0123456789") == std::string::npos &&
               std::stoul(key) < at->size()) {
      at = &(*at)[std::stoul(key)];
    } else {
      at = nullptr;
    }
  }
  const std::string where =
      line > 0 ? absl::StrCat(file, ":", line) : std::string(file);
  return absl::StrCat(where, ": ", message.substr(end + 2),
                      " (the traced spec's ", pointer, ")");
}

// A spec the front end wrote, read as trnbench will read it but with room
// for any device's memory: what is refused then is the front end's bug
// (issue 44: "a bug is a bug"), Internal and named at the kernel's line.
// What only a device's memory refuses (an SBUF or PSUM overflow) is the
// kernel's, refused as bad input when the command loads the spec for its
// device.
absl::Status CheckTracedSpec(const std::string& kernel,
                             const std::string& out) {
  std::ifstream in(out, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) {
    return absl::InternalError(
        absl::StrCat("cannot read the spec the NKI front end wrote: ", out));
  }
  const std::string text = ss.str();
  const std::string file = kernel.substr(0, kernel.rfind("::"));
  if (static_cast<int64_t>(text.size()) > kMaxSpecBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kernel ", kernel, ": ", file, ": the traced spec is ", text.size(),
        " bytes; a spec may be at most 1 MiB (", kMaxSpecBytes,
        " bytes): the kernel unrolls too far (docs/nki-source.md)"));
  }
  MemoryLimits roomy;  // 128 partitions, as every generation's pmax
  roomy.psum_banks = 1 << 28;
  roomy.psum_bytes_per_partition = int64_t{2048} << 28;  // 2 KiB banks
  roomy.sbuf_bytes_per_partition = int64_t{1} << 40;
  auto spec = ParseSpec(text, out, roomy);
  if (spec.ok()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "--kernel ", kernel, ": ",
      AtKernelLine(spec.status().message(), out, text, file),
      ": the NKI front end wrote a spec that trnbench refuses, a bug of the "
      "front end"));
}

}  // namespace

std::string FrontEndPython() {
  if (const char* p = std::getenv("TRNBENCH_PYTHON"); p != nullptr && *p) {
    return p;
  }
  std::error_code ec;
  if (std::filesystem::exists("/usr/bin/python3", ec))
    return "/usr/bin/python3";
  return "python3";
}

std::string FrontEndDir() {
  if (const char* p = std::getenv("TRNBENCH_NKI_FRONTEND");
      p != nullptr && *p) {
    return p;
  }
  return SourceDir() + "/workloads/frontends/nki";
}

TracedKernels::~TracedKernels() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

absl::Status TracedKernels::Trace(Options& o) {
  if (o.kernels.empty()) {
    for (const char* flag : {"args", "kwarg", "emit_spec"}) {
      if (o.Given(flag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            Dashed(flag), ": goes with --kernel FILE.py::FUNCTION"));
      }
    }
    return absl::OkStatus();
  }
  if (o.Given("emit_spec") && o.kernels.size() != 1) {
    return absl::InvalidArgumentError(
        "--emit-spec: writes the spec of one --kernel; give one");
  }
  TRN_RETURN_IF_ERROR(MakeDir());
  const std::string frontend = FrontEndDir();
  std::error_code ec;
  if (!std::filesystem::exists(frontend + "/nki_frontend/__main__.py", ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kernel: the NKI front end is not in ", frontend,
        " (expected nki_frontend/ there; set TRNBENCH_NKI_FRONTEND)"));
  }
  const std::vector<SweepPoint> points = SweepPoints(o.kwargs);
  if (o.Given("emit_spec") && points.size() != 1) {
    return absl::InvalidArgumentError(
        "--emit-spec: writes the spec of one kernel, not of a --kwarg sweep");
  }
  // Every kernel at every point, traced by front ends running side by side
  // on up to DefaultJobs() (each writes a file of its own); the specs are
  // taken in kernel-then-point order, the first error in that order wins.
  const size_t n = o.kernels.size() * points.size();
  TRN_RETURN_IF_ERROR(OrderedParallelMap<Traced>(
      n, DefaultJobs(),
      [&](size_t, size_t k) -> absl::StatusOr<Traced> {
        return TraceOne(o, o.kernels[k / points.size()],
                        points[k % points.size()], k);
      },
      [&](size_t k, Traced t) -> absl::Status {
        const std::string out =
            dir_ + "/" + SpecFileName(o.kernels[k / points.size()], k);
        o.specs.push_back(out);
        traced_[out] = std::move(t);
        return absl::OkStatus();
      }));
  if (o.Given("emit_spec")) emitted_ = o.specs.back();
  args_ = o.kernel_args;
  if (!o.shapes.empty()) {
    o.remake_at_point = [this](const WorkloadSpec& spec,
                               const std::vector<std::string>& point,
                               const MemoryLimits& limits) {
      return TraceAtPoint(spec, point, limits);
    };
  }
  return absl::OkStatus();
}

absl::Status TracedKernels::MakeDir() {
  if (!dir_.empty()) return absl::OkStatus();
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "trnbench-kernel.XXXXXX")
          .string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(absl::StrCat(
        "cannot make a folder for traced specs: ", std::strerror(errno)));
  }
  dir_ = tmpl;
  return absl::OkStatus();
}

absl::StatusOr<std::string> TracedKernels::TraceReference(
    const std::string& dir, const KernelReference& ref, size_t index,
    const std::vector<std::string>& shapes) {
  TRN_RETURN_IF_ERROR(MakeDir());
  const std::string kernel =
      absl::StrCat(dir, "/", ref.file, "::", ref.function);
  const std::string out =
      absl::StrCat(dir_, "/source_", SpecFileName(kernel, index));
  std::vector<std::string> extra;
  for (const std::string& s : shapes) {
    extra.push_back("--shape");
    extra.push_back(s);
  }
  TRN_RETURN_IF_ERROR(RunFrontEnd(kernel, ref.args, ref.kwargs, extra, out));
  return out;
}

absl::StatusOr<TracedKernels::Traced> TracedKernels::TraceOne(
    const Options& o, const std::string& kernel, const SweepPoint& point,
    size_t index) const {
  const std::string out = dir_ + "/" + SpecFileName(kernel, index);
  std::vector<std::string> naming;
  if (!point.suffix.empty()) {
    // Each point of a sweep is a workload of its own, of one family.
    const std::string fn = kernel.substr(kernel.rfind("::") + 2);
    naming = {"--name", fn + point.suffix, "--family", fn};
  }
  TRN_RETURN_IF_ERROR(
      RunFrontEnd(kernel, o.kernel_args, point.kwargs, naming, out));
  return Traced{kernel, point.kwargs, naming};
}

absl::StatusOr<std::optional<WorkloadSpec>> TracedKernels::TraceAtPoint(
    const WorkloadSpec& spec, const std::vector<std::string>& point,
    const MemoryLimits& limits) {
  const auto it = traced_.find(spec.file);
  if (it == traced_.end()) return std::nullopt;
  const Traced& t = it->second;
  const std::string out =
      absl::StrCat(dir_, "/point_", SpecFileName(t.kernel, points_++));
  std::vector<std::string> extra = t.naming;
  for (const std::string& text : point) {
    extra.push_back("--shape");
    extra.push_back(text);
  }
  TRN_RETURN_IF_ERROR(RunFrontEnd(t.kernel, args_, t.kwargs, extra, out));
  TRN_ASSIGN_OR_RETURN(WorkloadSpec s, LoadSpecFile(out, limits));
  return s;
}

absl::Status TracedKernels::RunFrontEnd(const std::string& kernel,
                                        const std::string& args,
                                        const std::vector<std::string>& kwargs,
                                        const std::vector<std::string>& naming,
                                        const std::string& out) const {
  const std::string python = FrontEndPython();
  // Every value as --flag=VALUE and the kernel after "--": a value that
  // starts with '-' is never taken for a flag.
  std::vector<std::string> argv = {python, "-m", "nki_frontend",
                                   "--output=" + out};
  if (!args.empty()) argv.push_back("--args=" + args);
  for (const auto& kw : kwargs) argv.push_back("--kwarg=" + kw);
  for (size_t i = 0; i + 1 < naming.size(); i += 2) {
    argv.push_back(absl::StrCat(naming[i], "=", naming[i + 1]));
  }
  argv.push_back("--");
  argv.push_back(kernel);
  // The front end's own folder first, whatever the user's PYTHONPATH (kept
  // after it, for the modules a kernel imports); PYTHONSAFEPATH keeps the
  // working folder off sys.path, so that no file there shadows a module.
  const char* old_path = std::getenv("PYTHONPATH");
  std::string path = FrontEndDir();
  if (old_path != nullptr && *old_path) absl::StrAppend(&path, ":", old_path);
  auto child = RunChild(argv, {"PYTHONPATH=" + path, "PYTHONSAFEPATH=1",
                               "PYTHONDONTWRITEBYTECODE=1"});
  if (absl::IsNotFound(child.status())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kernel: cannot run ", python, " (", child.status().message(),
        "): the NKI front end needs python3 with numpy "
        "(apt-get install python3 python3-numpy; or set TRNBENCH_PYTHON)"));
  }
  TRN_RETURN_IF_ERROR(child.status());
  if (child->exit_code == 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kernel ", kernel, ": ", FirstLine(child->err)));
  }
  if (child->exit_code != 0) {
    return absl::InternalError(absl::StrCat("the NKI front end failed on ",
                                            kernel, " (exit ", child->exit_code,
                                            "): ", FirstLine(child->err)));
  }
  return CheckTracedSpec(kernel, out);
}

absl::Status TracedKernels::WriteEmitted(const Options& o) const {
  if (emitted_.empty()) return absl::OkStatus();
  std::ifstream in(emitted_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) {
    return absl::InternalError(absl::StrCat("cannot read ", emitted_));
  }
  return WriteFileAtomic(o.emit_spec, text.str());
}

}  // namespace trn
