#include "tools/trnbench/kernel_source.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "device_model/memory_limits.h"
#include "harness/runner/runner.h"
#include "support/ordered_parallel.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/frontend_process.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

FrontEnd NkiFrontEnd() {
  return {"nki_frontend",
          FrontEndDir(),
          "--kernel",
          "the NKI front end",
          "the NKI front end needs python3 with numpy "
          "(apt-get install python3 python3-numpy; or set TRNBENCH_PYTHON)",
          "the kernel unrolls too far (docs/nki-source.md)",
          "nki_frontend.batch"};
}

// The front end's flags for one trace into `out`. Every value as
// --flag=VALUE (frontend_process.h puts the kernel after "--"), so that a
// value starting with '-' is never taken for a flag.
std::vector<std::string> TraceFlags(const std::string& args,
                                    const std::vector<std::string>& kwargs,
                                    const std::vector<std::string>& naming,
                                    const std::string& out) {
  std::vector<std::string> flags = {"--output=" + out};
  if (!args.empty()) flags.push_back("--args=" + args);
  for (const auto& kw : kwargs) flags.push_back("--kwarg=" + kw);
  for (size_t i = 0; i + 1 < naming.size(); i += 2) {
    flags.push_back(absl::StrCat(naming[i], "=", naming[i + 1]));
  }
  return flags;
}

// Each job's outcome as RunFrontEnd's then CheckTracedSpec's (the flags'
// first is --output=FILE): the jobs cut into up to DefaultJobs() runs of
// consecutive jobs, each one front end batch (RunFrontEndBatch), side by
// side. One Python start-up and import per batch, not per kernel: that was
// most of a short trace's time (issue 42). `most`, when not 0, caps the
// batches.
std::vector<absl::Status> TraceJobs(const std::vector<FrontEndJob>& jobs,
                                    int most = 0) {
  const size_t n = jobs.size();
  const size_t batches = std::min(
      n, static_cast<size_t>(std::max(most > 0 ? most : DefaultJobs(), 1)));
  std::vector<absl::Status> out(n);
  const absl::Status s = OrderedParallelMap<std::vector<absl::Status>>(
      batches, static_cast<int>(batches),
      [&](size_t, size_t b) -> absl::StatusOr<std::vector<absl::Status>> {
        const size_t from = b * n / batches;
        const size_t to = (b + 1) * n / batches;
        std::vector<FrontEndJob> mine(jobs.begin() + from, jobs.begin() + to);
        std::vector<absl::Status> r = RunFrontEndBatch(NkiFrontEnd(), mine);
        for (size_t k = 0; k < r.size(); ++k) {
          if (!r[k].ok()) continue;
          const std::string& flag = mine[k].flags.front();
          r[k] = CheckTracedSpec(NkiFrontEnd(), mine[k].subject,
                                 flag.substr(flag.find('=') + 1));
        }
        return r;
      },
      [&](size_t b, std::vector<absl::Status> r) -> absl::Status {
        const size_t from = b * n / batches;
        for (size_t k = 0; k < r.size(); ++k) out[from + k] = std::move(r[k]);
        return absl::OkStatus();
      });
  if (!s.ok()) out.assign(n, s);
  return out;
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

}  // namespace

std::string FrontEndDir() {
  return FrontEndFolder("TRNBENCH_NKI_FRONTEND", "workloads/frontends/nki");
}

TracedKernels::~TracedKernels() { RemoveTempDir(dir_); }

absl::Status TracedKernels::Trace(Options& o) {
  if (o.kernels.empty()) {
    for (const std::string_view flag : {"args", "kwarg", "emit_spec"}) {
      const bool torch_takes_it = flag != "kwarg";
      // --torch's --args and --emit-spec are torch_source.h's.
      if (!o.Given(flag) || (torch_takes_it && !o.torch.empty())) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(Dashed(flag), ": goes with --kernel FILE.py::FUNCTION",
                       torch_takes_it ? " or --torch FILE.py::FUNCTION" : ""));
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
  // Every kernel at every point, traced by front end batches running side
  // by side (each job writes a file of its own); the specs are taken in
  // kernel-then-point order, the first error in that order wins.
  const size_t n = o.kernels.size() * points.size();
  std::vector<FrontEndJob> jobs;
  std::vector<Traced> what;
  for (size_t k = 0; k < n; ++k) {
    const std::string& kernel = o.kernels[k / points.size()];
    const SweepPoint& point = points[k % points.size()];
    std::vector<std::string> naming;
    if (!point.suffix.empty()) {
      // Each point of a sweep is a workload of its own, of one family.
      const std::string fn = kernel.substr(kernel.rfind("::") + 2);
      naming = {"--name", fn + point.suffix, "--family", fn};
    }
    const std::string out = dir_ + "/" + SpecFileName(kernel, k);
    jobs.push_back(
        {kernel, TraceFlags(o.kernel_args, point.kwargs, naming, out)});
    what.push_back(Traced{kernel, point.kwargs, naming});
  }
  const std::vector<absl::Status> done = TraceJobs(jobs);
  for (size_t k = 0; k < n; ++k) {
    TRN_RETURN_IF_ERROR(done[k]);
    const std::string out =
        dir_ + "/" + SpecFileName(o.kernels[k / points.size()], k);
    o.specs.push_back(out);
    traced_[out] = std::move(what[k]);
  }
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
  TRN_ASSIGN_OR_RETURN(dir_, MakeTempDir("trnbench-kernel"));
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
  TRN_RETURN_IF_ERROR(trn::RunFrontEnd(NkiFrontEnd(), kernel,
                                       TraceFlags(args, kwargs, naming, out)));
  return CheckTracedSpec(NkiFrontEnd(), kernel, out);
}

std::vector<absl::StatusOr<std::string>> TracedKernels::TraceReferences(
    const std::string& dir, const std::vector<KernelReference>& refs,
    int batches) {
  std::vector<absl::StatusOr<std::string>> out;
  if (const absl::Status made = MakeDir(); !made.ok()) {
    out.assign(refs.size(), made);
    return out;
  }
  std::vector<FrontEndJob> jobs;
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string kernel =
        absl::StrCat(dir, "/", refs[i].file, "::", refs[i].function);
    const std::string file =
        absl::StrCat(dir_, "/source_", SpecFileName(kernel, i));
    jobs.push_back(
        {kernel, TraceFlags(refs[i].args, refs[i].kwargs, {}, file)});
    out.emplace_back(file);
  }
  const std::vector<absl::Status> done = TraceJobs(jobs, batches);
  for (size_t i = 0; i < refs.size(); ++i) {
    if (!done[i].ok()) out[i] = done[i];
  }
  return out;
}

absl::Status TracedKernels::WriteEmitted(const Options& o) const {
  return WriteEmittedSpec(emitted_, o.emit_spec);
}

}  // namespace trn
