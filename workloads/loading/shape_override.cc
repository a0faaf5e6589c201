#include "workloads/loading/shape_override.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "support/hash.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

absl::Status Bad(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", text, what));
}

// Debian's Abseil has its own string_view, which StrSplit and SimpleAtoi
// do not take from std::string_view.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool ParseDim(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 13) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrJoin(dims, "x");
}

// The output shape an op's rule gives, or nullopt when the inputs do not
// fit the rule (the validator then says why). A view keeps its declared
// shape, which must still fit its input.
std::optional<std::vector<int64_t>> OutputShape(
    const AtenOpInfo& info, const std::vector<std::vector<int64_t>>& in,
    const std::vector<int64_t>& declared) {
  return AtenOutputShape(info, in, declared, nullptr);
}

TensorDecl* MutableTensor(WorkloadSpec& spec, const std::string& name) {
  for (auto& t : spec.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

void InferTorchOutputs(WorkloadSpec& spec, const std::set<std::string>& given) {
  for (const TorchOp& op : spec.ops) {
    if (given.count(op.output) != 0) continue;
    const AtenOpInfo* info = FindAtenOp(op.op);
    TensorDecl* out = MutableTensor(spec, op.output);
    if (info == nullptr || out == nullptr) continue;
    std::vector<std::vector<int64_t>> in;
    for (const auto& name : op.inputs) {
      const TensorDecl* t = spec.FindTensor(name);
      if (t == nullptr) return;
      in.push_back(t->shape);
    }
    if (auto shape = OutputShape(*info, in, out->shape)) {
      out->shape = *std::move(shape);
    }
  }
}

}  // namespace

absl::StatusOr<ShapeOverride> ParseShapeOverride(std::string_view text) {
  ShapeOverride o;
  o.text = std::string(text);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return Bad(text,
               "expected TENSOR[,TENSOR...]=DIMS[,DIMS...], such as "
               "in_tensor,out_tensor=1024x512,4096x512");
  }
  for (std::string_view name : Split(text.substr(0, eq), ',')) {
    if (name.empty()) return Bad(text, "an empty tensor name");
    if (std::find(o.tensors.begin(), o.tensors.end(), name) !=
        o.tensors.end()) {
      return Bad(text, absl::StrFormat("tensor %s is named twice", name));
    }
    o.tensors.emplace_back(name);
  }
  for (std::string_view dims : Split(text.substr(eq + 1), ',')) {
    std::vector<int64_t> shape;
    for (std::string_view d : Split(dims, 'x')) {
      int64_t v = 0;
      if (!ParseDim(d, &v) || v < 1 || v > kMaxTensorElements) {
        return Bad(text,
                   absl::StrFormat("shape \"%s\": expected dims separated by "
                                   "x, each from 1 to 2^40, such as 250x512",
                                   dims));
      }
      shape.push_back(v);
    }
    o.shapes.push_back(std::move(shape));
  }
  return o;
}

std::string ShapePointText(const ShapeOverride& o, size_t point) {
  const auto& shape = o.shapes[o.shapes.size() == 1 ? 0 : point];
  return absl::StrFormat("%s=%s", absl::StrJoin(o.tensors, ","),
                         DimsText(shape));
}

absl::StatusOr<std::vector<WorkloadSpec>> ApplyShapeOverrides(
    const std::vector<WorkloadSpec>& specs,
    const std::vector<ShapeOverride>& overrides, const MemoryLimits& limits,
    const RemakeAtPoint& remake) {
  std::vector<char> used(overrides.size(), 0);
  std::vector<WorkloadSpec> out;
  for (const WorkloadSpec& spec : specs) {
    std::vector<size_t> apply;
    for (size_t i = 0; i < overrides.size(); ++i) {
      const ShapeOverride& o = overrides[i];
      if (spec.FindTensor(o.tensors.front()) == nullptr) continue;
      for (const auto& name : o.tensors) {
        if (spec.FindTensor(name) == nullptr) {
          return Bad(o.text,
                     absl::StrFormat("workload %s declares %s but not %s",
                                     spec.name, o.tensors.front(), name));
        }
      }
      apply.push_back(i);
      used[i] = 1;
    }
    if (apply.empty()) {
      out.push_back(spec);
      continue;
    }
    size_t points = 1;
    for (size_t i : apply)
      points = std::max(points, overrides[i].shapes.size());
    for (size_t i : apply) {
      const size_t n = overrides[i].shapes.size();
      if (n != 1 && n != points) {
        return Bad(overrides[i].text,
                   absl::StrFormat("%d shapes, but another override for "
                                   "workload %s sweeps %d; sweeps run point "
                                   "by point, so give one shape or %d",
                                   n, spec.name, points, points));
      }
    }
    for (size_t p = 0; p < points; ++p) {
      std::vector<std::string> texts;
      for (size_t i : apply) texts.push_back(ShapePointText(overrides[i], p));
      const std::string point = absl::StrJoin(texts, ";");
      std::optional<WorkloadSpec> remade;
      if (remake) {
        auto r = remake(spec, texts, limits);
        if (!r.ok()) {
          return absl::Status(
              r.status().code(),
              absl::StrFormat("%s: %s", point, r.status().message()));
        }
        remade = *std::move(r);
      }
      WorkloadSpec s = remade.has_value() ? *std::move(remade) : spec;
      std::set<std::string> given;
      for (size_t i : apply) {
        const ShapeOverride& o = overrides[i];
        const auto& shape = o.shapes[o.shapes.size() == 1 ? 0 : p];
        for (const auto& name : o.tensors) {
          TensorDecl* t = MutableTensor(s, name);
          if (!remade.has_value()) {
            t->shape = shape;
          } else if (t == nullptr || t->shape.size() < shape.size() ||
                     !std::equal(shape.begin(), shape.end(),
                                 t->shape.end() - shape.size())) {
            return Bad(o.text,
                       absl::StrFormat(
                           "made again at %s, workload %s has %s %s, not "
                           "%s (a traced kernel makes its outputs from its "
                           "arguments)",
                           point, spec.name, name,
                           t == nullptr ? "no tensor" : DimsText(t->shape),
                           DimsText(shape)));
          }
          given.insert(name);
        }
      }
      if (s.mode != ExecMode::kNki) InferTorchOutputs(s, given);
      s.name = absl::StrFormat("%s[%s]", spec.name, point);
      s.family = spec.family;
      s.content_hash = Fnv1a64Hex(s.content_hash + "|--shape " + point);
      // The name is ours, not the file's: validate under the original name,
      // whose pattern the new one deliberately breaks.
      std::string name = std::move(s.name);
      s.name = SpecNameOfPoint(name);
      // The compiler stage decides again at the new shape.
      if (absl::Status st = CompileSpec(s, limits); !st.ok()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: %s", point, st.message()));
      }
      s.name = std::move(name);
      out.push_back(std::move(s));
    }
  }
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (!used[i]) {
      std::vector<std::string> names;
      for (const auto& s : specs) names.push_back(s.name);
      return Bad(overrides[i].text,
                 absl::StrFormat("no selected workload (%s) has a tensor %s",
                                 absl::StrJoin(names, ", "),
                                 overrides[i].tensors.front()));
    }
  }
  return out;
}

std::string SpecNameOfPoint(const std::string& name) {
  return name.substr(0, name.find('['));
}

}  // namespace trn
