#include "tools/trnbench/torch_source.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/frontend_process.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

FrontEnd TorchFrontEnd() {
  return {"torch_frontend",
          TorchFrontEndDir(),
          "--torch",
          "the torch front end",
          "--torch needs python3 with PyTorch (apt-get install "
          "python3-torch; or set TRNBENCH_PYTHON)",
          "the function traces too many ops (docs/torch-source.md)",
          /*batch_module=*/""};
}

// The names of --args (NAME=VALUE,...).
std::set<std::string> ArgNames(const std::string& args) {
  std::set<std::string> names;
  for (absl::string_view item : absl::StrSplit(args, ',')) {
    names.insert(std::string(item.substr(0, item.find('='))));
  }
  return names;
}

// The sweep points of the --shape flags that name an argument, each as the
// texts ApplyShapeOverrides hands the remake (shape_override.h): the same
// overrides, the same point count, the same texts. Empty when there is no
// sweep, or when the lists do not line up (ApplyShapeOverrides says why).
std::vector<std::vector<std::string>> Points(
    const std::vector<ShapeOverride>& shapes,
    const std::set<std::string>& args) {
  std::vector<size_t> apply;
  size_t points = 1;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (args.count(shapes[i].tensors.front()) == 0) continue;
    apply.push_back(i);
    points = std::max(points, shapes[i].shapes.size());
  }
  std::vector<std::vector<std::string>> out;
  if (apply.empty()) return out;
  for (size_t i : apply) {
    const size_t n = shapes[i].shapes.size();
    if (n != 1 && n != points) return out;
  }
  for (size_t p = 0; p < points; ++p) {
    std::vector<std::string> texts;
    for (size_t i : apply) texts.push_back(ShapePointText(shapes[i], p));
    out.push_back(std::move(texts));
  }
  return out;
}

}  // namespace

std::string TorchFrontEndDir() {
  return FrontEndFolder("TRNBENCH_TORCH_FRONTEND", "workloads/frontends/torch");
}

TracedTorch::~TracedTorch() { RemoveTempDir(dir_); }

absl::Status TracedTorch::Trace(Options& o) {
  if (o.torch.empty()) {
    if (o.Given("mode")) {
      return absl::InvalidArgumentError(
          "--mode: goes with --torch FILE.py::FUNCTION");
    }
    return absl::OkStatus();
  }
  if (!o.kernels.empty() && o.Given("args")) {
    return absl::InvalidArgumentError(
        "--args: --kernel and --torch each take their own; run them in two "
        "commands");
  }
  const std::vector<std::string> variants =
      o.torch_mode == "all" ? std::vector<std::string>{"eager", "compiled"}
                            : std::vector<std::string>{o.torch_mode};
  if (o.Given("emit_spec") && (o.torch.size() != 1 || variants.size() != 1)) {
    return absl::InvalidArgumentError(
        "--emit-spec: writes one spec; give one --torch and --mode eager or "
        "--mode compiled");
  }
  std::error_code ec;
  if (!std::filesystem::exists(
          TorchFrontEndDir() + "/torch_frontend/__main__.py", ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--torch: the torch front end is not in ", TorchFrontEndDir(),
        " (expected torch_frontend/ there; set TRNBENCH_TORCH_FRONTEND)"));
  }
  TRN_ASSIGN_OR_RETURN(dir_, MakeTempDir("trnbench-torch"));
  args_ = o.kernel_args;
  const auto points = Points(o.shapes, ArgNames(args_));
  for (const std::string& function : o.torch) {
    const std::string prefix = absl::StrCat(dir_, "/run", runs_++);
    // Every value as --flag=VALUE, the function after "--"
    // (frontend_process.h).
    std::vector<std::string> argv = {"--mode=" + o.torch_mode,
                                     "--output-prefix=" + prefix};
    if (!args_.empty()) argv.push_back("--args=" + args_);
    Traced t{function, "", prefix, {}};
    for (size_t p = 0; p < points.size(); ++p) {
      const std::string key = absl::StrJoin(points[p], ";");
      argv.push_back("--point=" + key);
      t.points[key] = p + 1;
    }
    TRN_RETURN_IF_ERROR(RunFrontEnd(TorchFrontEnd(), function, argv));
    for (const std::string& v : variants) {
      const std::string file = absl::StrCat(prefix, "_0_", v, ".json");
      TRN_RETURN_IF_ERROR(CheckTracedSpec(TorchFrontEnd(), function, file));
      o.specs.push_back(file);
      t.variant = v;
      traced_[file] = t;
    }
  }
  if (o.Given("emit_spec")) emitted_ = o.specs.back();
  if (!o.shapes.empty()) {
    RemakeAtPoint before = std::move(o.remake_at_point);
    o.remake_at_point = [this, before](const WorkloadSpec& spec,
                                       const std::vector<std::string>& point,
                                       const MemoryLimits& limits)
        -> absl::StatusOr<std::optional<WorkloadSpec>> {
      TRN_ASSIGN_OR_RETURN(auto mine, AtPoint(spec, point, limits));
      if (mine.has_value() || !before) return mine;
      return before(spec, point, limits);
    };
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<WorkloadSpec>> TracedTorch::AtPoint(
    const WorkloadSpec& spec, const std::vector<std::string>& point,
    const MemoryLimits& limits) {
  const auto it = traced_.find(spec.file);
  if (it == traced_.end()) return std::nullopt;
  const Traced& t = it->second;
  const auto p = t.points.find(absl::StrJoin(point, ";"));
  std::string file;
  if (p != t.points.end()) {
    file = absl::StrCat(t.prefix, "_", p->second, "_", t.variant, ".json");
  } else {
    // A point the sweep did not foresee (a --shape naming an op's
    // output): traced on its own.
    const std::string prefix = absl::StrCat(dir_, "/run", runs_++);
    std::vector<std::string> argv = {"--mode=" + t.variant,
                                     "--output-prefix=" + prefix};
    if (!args_.empty()) argv.push_back("--args=" + args_);
    for (const std::string& text : point) argv.push_back("--shape=" + text);
    TRN_RETURN_IF_ERROR(RunFrontEnd(TorchFrontEnd(), t.function, argv));
    file = absl::StrCat(prefix, "_0_", t.variant, ".json");
  }
  TRN_RETURN_IF_ERROR(CheckTracedSpec(TorchFrontEnd(), t.function, file));
  TRN_ASSIGN_OR_RETURN(WorkloadSpec s, LoadSpecFile(file, limits));
  return s;
}

absl::Status TracedTorch::WriteEmitted(const Options& o) const {
  return WriteEmittedSpec(emitted_, o.emit_spec);
}

}  // namespace trn
