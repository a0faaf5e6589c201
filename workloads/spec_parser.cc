#include "workloads/spec_parser.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/exec_mode.h"
#include "device_model/metrics.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "support/input_error.h"
#include "support/input_file.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"
#include "workloads/published_figure.h"
#include "workloads/shape_override.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

using Json = nlohmann::json;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
// As --repeat: more runs than this is a mistake, not a measurement.
constexpr int64_t kMaxPublishedRuns = 1'000'000;
constexpr std::string_view kDimConstraint =
    "a positive integer no larger than 2^40 (1099511627776)";

bool IsVowel(std::string_view word) {
  return !word.empty() &&
         std::string_view("aeiou").find(word[0]) != std::string_view::npos;
}

// Debian's Abseil has its own string_view, which StrCat and StrJoin do not
// take from std::string_view (StrFormat does); hence this join.
std::string Join(std::span<const std::string_view> items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out.append(items[i]);
  }
  return out;
}

std::string Child(std::string_view path, std::string_view key) {
  return JsonChild(path, key);
}

std::string Child(std::string_view path, size_t index) {
  return JsonChild(path, index);
}

absl::Status MakeError(std::string_view label, std::string_view path,
                       std::string_view what) {
  return InputError(label, path, what);
}

// What a JSON value is, for "expected X, got Y" messages; long values are
// cut so that one bad value cannot flood the terminal.
std::string Describe(const Json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_null()) return "null";
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  if (v.is_string()) return "string " + text;
  if (v.is_boolean()) return "boolean " + text;
  return "number " + text;
}

// Turns the JSON tree into a WorkloadSpec, checking keys and JSON types;
// everything that can be said about the struct alone is ValidateSpec's job.
class SpecReader {
 public:
  explicit SpecReader(std::string_view label) : label_(label) {}

  absl::StatusOr<WorkloadSpec> Read(const Json& root) const {
    WorkloadSpec spec;
    if (!root.is_object()) return TypeError("", "an object", root);
    // Before the key check: a newer version may have keys this one lacks,
    // and the version is the more useful message.
    TRN_ASSIGN_OR_RETURN(const Json* version,
                         Require(root, "", "schema_version"));
    TRN_ASSIGN_OR_RETURN(
        int64_t v,
        Int(*version, "/schema_version", std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max(), "an integer"));
    if (v != kSpecSchemaVersion) {
      return Error("/schema_version",
                   absl::StrFormat("unsupported schema_version %d; this "
                                   "trnbench reads %d",
                                   v, kSpecSchemaVersion));
    }
    spec.schema_version = static_cast<int>(v);
    static constexpr std::string_view kTopKeys[] = {
        "schema_version", "name", "family", "description",     "mode",
        "tensors",        "ops",  "kernel", "noise_threshold", "published"};
    TRN_RETURN_IF_ERROR(CheckKeys(root, "", kTopKeys, "a spec"));
    TRN_ASSIGN_OR_RETURN(spec.name, RequiredString(root, "", "name"));
    TRN_ASSIGN_OR_RETURN(spec.family, RequiredString(root, "", "family"));
    TRN_ASSIGN_OR_RETURN(spec.description,
                         RequiredString(root, "", "description"));
    TRN_ASSIGN_OR_RETURN(const Json* mode, Require(root, "", "mode"));
    TRN_ASSIGN_OR_RETURN(spec.mode, Mode(*mode, "/mode"));
    if (const Json* t = Optional(root, "noise_threshold")) {
      // A fraction: 0.02 means changes under 2% are never called.
      if (!t->is_number() || !(t->get<double>() >= 0.0) ||
          !(t->get<double>() < 1.0)) {
        return Error("/noise_threshold",
                     "expected a number in [0, 1), such as 0.02 for 2%");
      }
      spec.noise_threshold = t->get<double>();
    }

    TRN_ASSIGN_OR_RETURN(const Json* tensors, Require(root, "", "tensors"));
    TRN_RETURN_IF_ERROR(ExpectArray(*tensors, "/tensors"));
    for (size_t i = 0; i < tensors->size(); ++i) {
      TRN_ASSIGN_OR_RETURN(TensorDecl t,
                           Tensor((*tensors)[i], Child("/tensors", i)));
      spec.tensors.push_back(std::move(t));
    }

    const std::string mode_name(ExecModeName(spec.mode));
    if (spec.mode == ExecMode::kNki) {
      if (root.contains("ops")) {
        return Error("/ops",
                     "not allowed in mode \"nki\": an nki spec describes its "
                     "work under \"kernel\"");
      }
      TRN_ASSIGN_OR_RETURN(const Json* kernel, Require(root, "", "kernel"));
      TRN_ASSIGN_OR_RETURN(spec.kernel, Kernel(*kernel, "/kernel"));
    } else {
      if (root.contains("kernel")) {
        return Error("/kernel",
                     absl::StrFormat("not allowed in mode \"%s\": \"kernel\" "
                                     "is only for mode \"nki\"; use \"ops\"",
                                     mode_name));
      }
      TRN_ASSIGN_OR_RETURN(const Json* ops, Require(root, "", "ops"));
      TRN_RETURN_IF_ERROR(ExpectArray(*ops, "/ops"));
      for (size_t i = 0; i < ops->size(); ++i) {
        TRN_ASSIGN_OR_RETURN(TorchOp op, Op((*ops)[i], Child("/ops", i)));
        spec.ops.push_back(std::move(op));
      }
    }
    // Last: a figure's "line" names an op of the kernel.
    if (const Json* published = Optional(root, "published")) {
      TRN_ASSIGN_OR_RETURN(spec.published, Published(*published, spec));
    }
    return spec;
  }

 private:
  absl::Status Error(std::string_view path, std::string_view what) const {
    return MakeError(label_, path, what);
  }

  absl::Status TypeError(std::string_view path, std::string_view expected,
                         const Json& got) const {
    return Error(
        path, absl::StrFormat("expected %s, got %s", expected, Describe(got)));
  }

  absl::Status ExpectArray(const Json& v, std::string_view path) const {
    if (!v.is_array()) return TypeError(path, "an array", v);
    return absl::OkStatus();
  }

  // `all_known` lists keys that exist elsewhere in the format, so that
  // "engine" on a load reads as misplaced rather than misspelt.
  absl::Status CheckKeys(
      const Json& obj, std::string_view path,
      std::span<const std::string_view> allowed, std::string_view what,
      std::span<const std::string_view> all_known = {}) const {
    if (!obj.is_object()) return TypeError(path, "an object", obj);
    for (const auto& [key, value] : obj.items()) {
      bool ok = false;
      for (auto a : allowed) ok = ok || a == key;
      if (ok) continue;
      bool known = false;
      for (auto a : all_known) known = known || a == key;
      if (known) {
        return Error(Child(path, key),
                     absl::StrFormat("key \"%s\" does not apply to %s; "
                                     "allowed keys: %s",
                                     key, what, Join(allowed)));
      }
      return Error(Child(path, key),
                   absl::StrFormat("unknown key \"%s\" in %s; allowed keys: "
                                   "%s",
                                   key, what, Join(allowed)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<const Json*> Require(const Json& obj, std::string_view path,
                                      std::string_view key) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      return Error(Child(path, key),
                   absl::StrFormat("required key \"%s\" is missing", key));
    }
    return &*it;
  }

  const Json* Optional(const Json& obj, std::string_view key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  absl::StatusOr<std::string> String(const Json& v,
                                     std::string_view path) const {
    if (!v.is_string()) return TypeError(path, "a string", v);
    return v.get<std::string>();
  }

  absl::StatusOr<std::string> RequiredString(const Json& obj,
                                             std::string_view path,
                                             std::string_view key) const {
    TRN_ASSIGN_OR_RETURN(const Json* v, Require(obj, path, key));
    return String(*v, Child(path, key));
  }

  absl::StatusOr<std::vector<std::string>> StringArray(
      const Json& v, std::string_view path) const {
    if (!v.is_array()) return TypeError(path, "an array of strings", v);
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(std::string s, String(v[i], Child(path, i)));
      out.push_back(std::move(s));
    }
    return out;
  }

  // An integer in [min, max]. A float with no fraction counts as an integer,
  // as in JSON Schema; 1e300 is then out of range rather than "not an
  // integer", which is the more useful thing to say.
  absl::StatusOr<int64_t> Int(const Json& v, std::string_view path, int64_t min,
                              int64_t max, std::string_view constraint) const {
    auto out_of_range = [&] {
      return Error(path, absl::StrFormat("expected %s, got %s", constraint,
                                         Describe(v)));
    };
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(max) ||
          (min > 0 && u < static_cast<uint64_t>(min))) {
        return out_of_range();
      }
      return static_cast<int64_t>(u);
    }
    if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      if (i < min || i > max) return out_of_range();
      return i;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::floor(d) != d) {
        return Error(path, absl::StrFormat("expected %s, got a fractional %s",
                                           constraint, Describe(v)));
      }
      // Comparing in double: max may not be representable, but every value
      // it rounds to is handled by the int64 range of the cast below.
      if (d < static_cast<double>(min) || d >= static_cast<double>(max) + 1.0) {
        return out_of_range();
      }
      return static_cast<int64_t>(d);
    }
    return TypeError(path, constraint, v);
  }

  template <typename T>
  absl::StatusOr<T> Enum(const Json& v, std::string_view path,
                         std::string_view what,
                         std::optional<T> (*parse)(std::string_view),
                         std::span<const std::string_view> names) const {
    const std::string expected = absl::StrFormat("one of %s", Join(names));
    if (!v.is_string()) {
      return TypeError(
          path,
          absl::StrFormat("%s %s string: %s", IsVowel(what) ? "an" : "a", what,
                          expected),
          v);
    }
    const std::string s = v.get<std::string>();
    std::optional<T> parsed = parse(s);
    if (!parsed.has_value()) {
      return Error(path, absl::StrFormat("unknown %s \"%s\"; expected %s", what,
                                         s, expected));
    }
    return *parsed;
  }

  absl::StatusOr<ExecMode> Mode(const Json& v, std::string_view path) const {
    static constexpr std::string_view kNames[] = {"eager", "fused_op",
                                                  "compiled", "nki"};
    return Enum<ExecMode>(v, path, "mode", &ParseExecMode, kNames);
  }

  absl::StatusOr<DType> Dtype(const Json& v, std::string_view path) const {
    static constexpr std::string_view kNames[] = {"bf16", "fp16", "fp32",
                                                  "int8", "int32"};
    return Enum<DType>(v, path, "dtype", &ParseDType, kNames);
  }

  static std::optional<Placement> ParsePlacement(std::string_view s) {
    if (s == "host") return Placement::kHost;
    if (s == "device") return Placement::kDevice;
    return std::nullopt;
  }

  static std::optional<LoopRange> ParseLoopRange(std::string_view s) {
    if (s == "affine") return LoopRange::kAffine;
    if (s == "sequential") return LoopRange::kSequential;
    return std::nullopt;
  }

  absl::StatusOr<TensorDecl> Tensor(const Json& v,
                                    const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"name", "shape", "dtype",
                                                 "placement"};
    TRN_RETURN_IF_ERROR(CheckKeys(v, path, kKeys, "a tensor"));
    TensorDecl t;
    TRN_ASSIGN_OR_RETURN(t.name, RequiredString(v, path, "name"));
    TRN_ASSIGN_OR_RETURN(const Json* shape, Require(v, path, "shape"));
    TRN_ASSIGN_OR_RETURN(t.shape, Dims(*shape, Child(path, "shape")));
    TRN_ASSIGN_OR_RETURN(const Json* dtype, Require(v, path, "dtype"));
    TRN_ASSIGN_OR_RETURN(t.dtype, Dtype(*dtype, Child(path, "dtype")));
    if (const Json* p = Optional(v, "placement")) {
      static constexpr std::string_view kNames[] = {"host", "device"};
      TRN_ASSIGN_OR_RETURN(
          t.placement, Enum<Placement>(*p, Child(path, "placement"),
                                       "placement", &ParsePlacement, kNames));
    }
    return t;
  }

  absl::StatusOr<std::vector<int64_t>> Dims(const Json& v,
                                            const std::string& path) const {
    if (!v.is_array()) return TypeError(path, "an array of dims", v);
    std::vector<int64_t> dims;
    for (size_t i = 0; i < v.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(int64_t d, Int(v[i], Child(path, i), 1,
                                          kMaxTensorElements, kDimConstraint));
      dims.push_back(d);
    }
    return dims;
  }

  absl::StatusOr<TorchOp> Op(const Json& v, const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"op", "inputs", "output"};
    TRN_RETURN_IF_ERROR(CheckKeys(v, path, kKeys, "a torch op"));
    TorchOp op;
    op.json_path = path;
    TRN_ASSIGN_OR_RETURN(op.op, RequiredString(v, path, "op"));
    TRN_ASSIGN_OR_RETURN(const Json* inputs, Require(v, path, "inputs"));
    TRN_ASSIGN_OR_RETURN(op.inputs,
                         StringArray(*inputs, Child(path, "inputs")));
    TRN_ASSIGN_OR_RETURN(op.output, RequiredString(v, path, "output"));
    return op;
  }

  absl::StatusOr<NkiKernel> Kernel(const Json& v,
                                   const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"source_file", "loops"};
    TRN_RETURN_IF_ERROR(CheckKeys(v, path, kKeys, "a kernel"));
    NkiKernel kernel;
    TRN_ASSIGN_OR_RETURN(kernel.source_file,
                         RequiredString(v, path, "source_file"));
    TRN_ASSIGN_OR_RETURN(const Json* loops, Require(v, path, "loops"));
    const std::string loops_path = Child(path, "loops");
    TRN_RETURN_IF_ERROR(ExpectArray(*loops, loops_path));
    for (size_t i = 0; i < loops->size(); ++i) {
      TRN_ASSIGN_OR_RETURN(NkiLoop loop,
                           Loop((*loops)[i], Child(loops_path, i)));
      kernel.loops.push_back(std::move(loop));
    }
    return kernel;
  }

  absl::StatusOr<NkiLoop> Loop(const Json& v, const std::string& path) const {
    static constexpr std::string_view kKeys[] = {
        "var",  "range",   "tensor", "dim", "tile_partitions",
        "step", "buffers", "body"};
    TRN_RETURN_IF_ERROR(CheckKeys(v, path, kKeys, "a loop"));
    NkiLoop loop;
    TRN_RETURN_IF_ERROR(LoopFields(v, path, loop));
    return loop;
  }

  // The keys of a loop, whether it is one of the kernel's loops or an op of
  // kind "loop" nested in a body; the caller has checked which keys exist.
  absl::Status LoopFields(const Json& v, const std::string& path,
                          NkiLoop& loop) const {
    loop.json_path = path;
    TRN_ASSIGN_OR_RETURN(loop.var, RequiredString(v, path, "var"));
    TRN_ASSIGN_OR_RETURN(const Json* range, Require(v, path, "range"));
    static constexpr std::string_view kRanges[] = {"affine", "sequential"};
    TRN_ASSIGN_OR_RETURN(loop.range,
                         Enum<LoopRange>(*range, Child(path, "range"), "range",
                                         &ParseLoopRange, kRanges));
    TRN_ASSIGN_OR_RETURN(loop.tensor, RequiredString(v, path, "tensor"));
    if (const Json* d = Optional(v, "dim")) {
      TRN_ASSIGN_OR_RETURN(int64_t dim, Int(*d, Child(path, "dim"), 0,
                                            kInt32Max, "a dim number >= 0"));
      loop.dim = static_cast<int>(dim);
    }
    // Partitions and free elements are different resources, so the two
    // kinds of loop name their tile differently; a loop over dim 0 that
    // walks blocks of rows rather than partition tiles gives `step`.
    if (loop.dim == 0 && Optional(v, "step") != nullptr) {
      if (Optional(v, "tile_partitions") != nullptr) {
        return Error(Child(path, "step"),
                     "a loop over dim 0 walks tiles of \"tile_partitions\" "
                     "rows or blocks of \"step\" rows; give one of them");
      }
      TRN_ASSIGN_OR_RETURN(loop.step,
                           Int(*Optional(v, "step"), Child(path, "step"), 1,
                               kInt32Max, "a positive integer"));
    } else if (loop.dim == 0) {
      TRN_ASSIGN_OR_RETURN(const Json* tp, Require(v, path, "tile_partitions"));
      TRN_ASSIGN_OR_RETURN(loop.tile_partitions,
                           Int(*tp, Child(path, "tile_partitions"), 1,
                               kInt32Max, "a positive integer"));
    } else {
      if (Optional(v, "tile_partitions") != nullptr) {
        return Error(Child(path, "tile_partitions"),
                     absl::StrFormat("a loop over dim %d walks the free axis "
                                     "in \"step\" elements; "
                                     "\"tile_partitions\" is for loops over "
                                     "dim 0",
                                     loop.dim));
      }
      TRN_ASSIGN_OR_RETURN(const Json* st, Require(v, path, "step"));
      TRN_ASSIGN_OR_RETURN(loop.step, Int(*st, Child(path, "step"), 1,
                                          kInt32Max, "a positive integer"));
    }
    if (const Json* b = Optional(v, "buffers")) {
      TRN_ASSIGN_OR_RETURN(
          int64_t buffers,
          Int(*b, Child(path, "buffers"), 1, kInt32Max, "a positive integer"));
      loop.buffers = static_cast<int>(buffers);
    }
    TRN_ASSIGN_OR_RETURN(const Json* body, Require(v, path, "body"));
    const std::string body_path = Child(path, "body");
    TRN_RETURN_IF_ERROR(ExpectArray(*body, body_path));
    for (size_t j = 0; j < body->size(); ++j) {
      TRN_ASSIGN_OR_RETURN(NkiOp op, KernelOp((*body)[j], Child(body_path, j)));
      loop.body.push_back(std::move(op));
    }
    return absl::OkStatus();
  }

  // The keys each NKI op kind takes (docs/spec-format.md), in the order the
  // docs list them. An empty or unknown kind gets all of them.
  // The optional "published" array: measurements of this workload on real
  // hardware, for the validation suite (docs/validation.md).
  absl::StatusOr<std::vector<PublishedFigure>> Published(
      const Json& v, const WorkloadSpec& spec) const {
    TRN_RETURN_IF_ERROR(ExpectArray(v, "/published"));
    std::vector<PublishedFigure> out;
    for (size_t i = 0; i < v.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(PublishedFigure f,
                           Figure(v[i], Child("/published", i), spec));
      out.push_back(std::move(f));
    }
    return out;
  }

  absl::StatusOr<PublishedFigure> Figure(const Json& v, const std::string& path,
                                         const WorkloadSpec& spec) const {
    static constexpr std::string_view kKeys[] = {
        "metric", "statistic", "line",  "runs",   "figure",
        "unit",   "tolerance", "range", "device", "hardware",
        "method", "source",    "url",   "order",  "shape"};
    TRN_RETURN_IF_ERROR(CheckKeys(v, path, kKeys, "a published figure"));
    PublishedFigure f;
    f.json_path = path;
    TRN_ASSIGN_OR_RETURN(f.metric, RequiredString(v, path, "metric"));
    const std::string metric_unit = MetricUnit(f.metric);
    if (metric_unit.empty()) {
      std::vector<std::string_view> names;
      for (const MetricInfo& m : AllMetrics()) names.push_back(m.name);
      for (std::string_view m : kEventMetrics) names.push_back(m);
      return Error(Child(path, "metric"),
                   absl::StrFormat("unknown metric \"%s\"; expected one of %s",
                                   f.metric, Join(names)));
    }
    TRN_ASSIGN_OR_RETURN(f.statistic, RequiredString(v, path, "statistic"));
    if (!ParseStatistic(f.statistic).has_value()) {
      return Error(Child(path, "statistic"),
                   absl::StrFormat("unknown statistic \"%s\"; expected "
                                   "\"mean\" or \"pN\" with N from 0 to 100 "
                                   "(\"p50\" is the median)",
                                   f.statistic));
    }
    if (const Json* line = Optional(v, "line")) {
      if (!IsEventMetric(f.metric)) {
        return Error(Child(path, "line"),
                     absl::StrFormat("key \"line\" applies only to the event "
                                     "metrics (%s), not to \"%s\"",
                                     Join(kEventMetrics), f.metric));
      }
      TRN_ASSIGN_OR_RETURN(int64_t n, Int(*line, Child(path, "line"), 1,
                                          kInt32Max, "a positive integer"));
      f.line = static_cast<int>(n);
      if (!spec.kernel.has_value() || !HasLine(spec.kernel->loops, f.line)) {
        return Error(
            Child(path, "line"),
            absl::StrFormat("no op of the kernel has line %d", f.line));
      }
    } else if (IsEventMetric(f.metric)) {
      return Error(Child(path, "line"),
                   absl::StrFormat("required key \"line\" is missing: event "
                                   "metric \"%s\" measures the events of one "
                                   "kernel source line",
                                   f.metric));
    }
    if (const Json* runs = Optional(v, "runs")) {
      TRN_ASSIGN_OR_RETURN(f.runs,
                           Int(*runs, Child(path, "runs"), 1, kMaxPublishedRuns,
                               "an integer from 1 to 1000000"));
    }
    TRN_ASSIGN_OR_RETURN(f.unit, RequiredString(v, path, "unit"));
    TRN_ASSIGN_OR_RETURN(const Json* figure, Require(v, path, "figure"));
    if (!figure->is_number() || !(figure->get<double>() > 0) ||
        !std::isfinite(figure->get<double>())) {
      return TypeError(Child(path, "figure"), "a positive number", *figure);
    }
    f.figure = figure->get<double>();
    if (!UnitFactor(f.unit, metric_unit).has_value()) {
      return Error(Child(path, "unit"),
                   absl::StrFormat("unit \"%s\" does not fit metric \"%s\" "
                                   "(in %s); expected one of %s",
                                   f.unit, f.metric, metric_unit,
                                   UnitsFor(metric_unit)));
    }
    const Json* tolerance = Optional(v, "tolerance");
    const Json* range = Optional(v, "range");
    if ((tolerance == nullptr) == (range == nullptr)) {
      return Error(Child(path, tolerance == nullptr ? "tolerance" : "range"),
                   "expected exactly one of \"tolerance\" (a fraction of the "
                   "figure, 0.15 for ±15%) and \"range\" ([low, high] in the "
                   "figure's unit)");
    }
    if (tolerance != nullptr) {
      if (!tolerance->is_number() || !(tolerance->get<double>() > 0) ||
          !(tolerance->get<double>() <= 1)) {
        return TypeError(Child(path, "tolerance"),
                         "a number in (0, 1], such as 0.15 for ±15%",
                         *tolerance);
      }
      f.tolerance = tolerance->get<double>();
    } else {
      const std::string at = Child(path, "range");
      if (!range->is_array() || range->size() != 2 ||
          !(*range)[0].is_number() || !(*range)[1].is_number() ||
          !((*range)[0].get<double>() >= 0) ||
          !((*range)[0].get<double>() <= (*range)[1].get<double>()) ||
          !std::isfinite((*range)[1].get<double>())) {
        return TypeError(at, "[low, high] with 0 <= low <= high", *range);
      }
      f.range = {(*range)[0].get<double>(), (*range)[1].get<double>()};
    }
    TRN_ASSIGN_OR_RETURN(f.device, RequiredString(v, path, "device"));
    TRN_ASSIGN_OR_RETURN(f.hardware, RequiredString(v, path, "hardware"));
    TRN_ASSIGN_OR_RETURN(f.method, RequiredString(v, path, "method"));
    TRN_ASSIGN_OR_RETURN(f.source, RequiredString(v, path, "source"));
    for (auto [key, out] : {std::pair{"device", &f.device},
                            {"hardware", &f.hardware},
                            {"method", &f.method},
                            {"source", &f.source}}) {
      if (out->empty()) {
        return Error(Child(path, key), "expected a non-empty string");
      }
    }
    if (const Json* url = Optional(v, "url")) {
      TRN_ASSIGN_OR_RETURN(f.url, String(*url, Child(path, "url")));
    }
    if (const Json* order = Optional(v, "order")) {
      TRN_ASSIGN_OR_RETURN(f.order, String(*order, Child(path, "order")));
    }
    if (const Json* shape = Optional(v, "shape")) {
      TRN_ASSIGN_OR_RETURN(f.shape, StringArray(*shape, Child(path, "shape")));
      for (size_t i = 0; i < f.shape.size(); ++i) {
        auto parsed = ParseShapeOverride(f.shape[i]);
        if (!parsed.ok()) {
          return Error(Child(Child(path, "shape"), i),
                       std::string(parsed.status().message()));
        }
        if (parsed->shapes.size() != 1) {
          return Error(Child(Child(path, "shape"), i),
                       "expected one shape: a published figure is measured at "
                       "one point");
        }
      }
    }
    return f;
  }

  static bool HasLine(const std::vector<NkiLoop>& loops, int line) {
    for (const NkiLoop& loop : loops) {
      for (const NkiOp& op : loop.body) {
        if (op.source_line == line || HasLine(op.loop, line)) return true;
      }
    }
    return false;
  }

  static std::vector<std::string_view> NkiOpKeys(std::string_view kind) {
    static constexpr std::string_view kAll[] = {
        "id",         "op",        "engine",
        "func",       "inputs",    "tensor",
        "index",      "mask",      "tile",
        "dtype",      "buffer",    "after",
        "carry",      "transpose", "indirect",
        "accumulate", "var",       "range",
        "dim",        "step",      "tile_partitions",
        "buffers",    "body",      "line"};
    std::vector<std::string_view> drop;
    if (kind == "load") {
      drop = {"engine", "func", "inputs", "carry", "accumulate"};
    } else if (kind == "store") {
      drop = {"id",     "engine", "func",     "tile",      "dtype",
              "buffer", "carry",  "indirect", "transpose", "accumulate"};
    } else if (kind == "loop") {
      drop = {"engine", "func",      "inputs",   "index",
              "mask",   "tile",      "dtype",    "buffer",
              "carry",  "transpose", "indirect", "accumulate"};
    } else if (kind == "iota" || kind == "memset") {
      drop = {"func",      "inputs",   "tensor",    "index",
              "transpose", "indirect", "accumulate"};
    } else if (kind == "activation") {
      drop = {"tensor", "index", "transpose", "indirect"};
    } else if (kind == "tensor_scalar") {
      drop = {"func", "tensor", "index", "transpose", "indirect"};
    } else if (IsNkiOpKind(kind)) {
      drop = {"func", "tensor", "index", "transpose", "indirect", "accumulate"};
    }
    if (IsNkiOpKind(kind) && kind != "loop") {
      for (std::string_view key : {"var", "range", "dim", "step",
                                   "tile_partitions", "buffers", "body"}) {
        drop.push_back(key);
      }
    }
    std::vector<std::string_view> keys;
    for (std::string_view key : kAll) {
      bool dropped = false;
      for (std::string_view d : drop) dropped = dropped || d == key;
      if (!dropped) keys.push_back(key);
    }
    return keys;
  }

  absl::StatusOr<NkiOp> KernelOp(const Json& v, const std::string& path) const {
    if (!v.is_object()) return TypeError(path, "an object", v);
    NkiOp op;
    op.json_path = path;
    TRN_ASSIGN_OR_RETURN(op.op, RequiredString(v, path, "op"));
    // An unknown kind gets every key here; ValidateSpec names it as unknown.
    const std::vector<std::string_view> allowed = NkiOpKeys(op.op);
    const std::vector<std::string_view> all_known = NkiOpKeys("");
    TRN_RETURN_IF_ERROR(CheckKeys(
        v, path, allowed,
        absl::StrFormat("%s %s op", IsVowel(op.op) ? "an" : "a", op.op),
        all_known));
    if (const Json* id = Optional(v, "id")) {
      TRN_ASSIGN_OR_RETURN(op.id, String(*id, Child(path, "id")));
    }
    if (const Json* e = Optional(v, "engine")) {
      static constexpr std::string_view kNames[] = {"tensor", "vector",
                                                    "scalar", "gpsimd"};
      TRN_ASSIGN_OR_RETURN(op.engine,
                           Enum<Engine>(*e, Child(path, "engine"), "engine",
                                        &ParseEngine, kNames));
    }
    if (const Json* f = Optional(v, "func")) {
      TRN_ASSIGN_OR_RETURN(op.func, String(*f, Child(path, "func")));
    }
    if (const Json* in = Optional(v, "inputs")) {
      TRN_ASSIGN_OR_RETURN(op.inputs, StringArray(*in, Child(path, "inputs")));
    }
    if (const Json* t = Optional(v, "tensor"); t && op.op != "loop") {
      TRN_ASSIGN_OR_RETURN(op.tensor, String(*t, Child(path, "tensor")));
    }
    if (const Json* ix = Optional(v, "index")) {
      TRN_ASSIGN_OR_RETURN(op.index, StringArray(*ix, Child(path, "index")));
      if (op.index.empty()) {
        return Error(Child(path, "index"),
                     "an index has one entry per dim of the tensor, a loop "
                     "variable or \":\"; got an empty array");
      }
    }
    if (const Json* m = Optional(v, "mask")) {
      TRN_ASSIGN_OR_RETURN(op.mask, String(*m, Child(path, "mask")));
      if (op.mask.empty()) {
        return Error(Child(path, "mask"),
                     "expected the id of a mask tile, got an empty string");
      }
    }
    if (const Json* t = Optional(v, "tile")) {
      const std::string tile_path = Child(path, "tile");
      TRN_ASSIGN_OR_RETURN(op.tile, Dims(*t, tile_path));
      // An empty list would read as "use the default tile".
      if (op.tile.size() != 2) {
        return Error(
            tile_path,
            absl::StrFormat("a tile is [partitions, free], got %d "
                            "dim%s",
                            op.tile.size(), op.tile.size() == 1 ? "" : "s"));
      }
    }
    if (const Json* d = Optional(v, "dtype")) {
      TRN_ASSIGN_OR_RETURN(op.dtype, Dtype(*d, Child(path, "dtype")));
    }
    if (const Json* b = Optional(v, "buffer")) {
      static constexpr std::string_view kNames[] = {"sbuf", "psum"};
      // Returns the static names, not `s`, which dies with Enum's copy.
      auto parse = [](std::string_view s) -> std::optional<std::string_view> {
        for (std::string_view name : kNames) {
          if (name == s) return name;
        }
        return std::nullopt;
      };
      TRN_ASSIGN_OR_RETURN(std::string_view buffer,
                           Enum<std::string_view>(*b, Child(path, "buffer"),
                                                  "buffer", +parse, kNames));
      op.buffer = std::string(buffer);
    }
    if (const Json* a = Optional(v, "after")) {
      TRN_ASSIGN_OR_RETURN(op.after, StringArray(*a, Child(path, "after")));
    }
    if (const Json* a = Optional(v, "carry")) {
      TRN_ASSIGN_OR_RETURN(op.carry, StringArray(*a, Child(path, "carry")));
    }
    if (const Json* t = Optional(v, "transpose")) {
      if (!t->is_boolean()) {
        return TypeError(Child(path, "transpose"), "true or false", *t);
      }
      op.transpose = t->get<bool>();
    }
    if (const Json* a = Optional(v, "accumulate")) {
      if (!a->is_boolean()) {
        return TypeError(Child(path, "accumulate"), "true or false", *a);
      }
      op.accumulate = a->get<bool>();
    }
    if (const Json* ix = Optional(v, "indirect")) {
      TRN_ASSIGN_OR_RETURN(op.indirect, String(*ix, Child(path, "indirect")));
      if (op.indirect.empty()) {
        return Error(Child(path, "indirect"),
                     "expected the id of the index tile, got an empty string");
      }
    }
    if (op.op == "loop") {
      NkiLoop nested;
      TRN_RETURN_IF_ERROR(LoopFields(v, path, nested));
      op.loop.push_back(std::move(nested));
    }
    TRN_ASSIGN_OR_RETURN(const Json* line, Require(v, path, "line"));
    TRN_ASSIGN_OR_RETURN(int64_t line_no,
                         Int(*line, Child(path, "line"), 1, kInt32Max,
                             "a source line number >= 1"));
    op.source_line = static_cast<int>(line_no);
    return op;
  }

  std::string label_;
};

}  // namespace

absl::StatusOr<WorkloadSpec> ParseSpec(std::string_view text,
                                       std::string_view file_label,
                                       const MemoryLimits& limits) {
  const std::string label =
      file_label.empty() ? std::string("<spec>") : std::string(file_label);
  if (static_cast<int64_t>(text.size()) > kMaxSpecBytes) {
    return MakeError(label, "",
                     absl::StrFormat("the spec is %d bytes; a spec may be at "
                                     "most 1 MiB (%d bytes)",
                                     text.size(), kMaxSpecBytes));
  }
  TRN_ASSIGN_OR_RETURN(
      const Json root,
      ParseStrictJson(text, label,
                      "a spec needs 7 plus 2 per nested loop, so this is not "
                      "a spec"));
  TRN_ASSIGN_OR_RETURN(WorkloadSpec spec, SpecReader(label).Read(root));
  spec.file = label;
  spec.content_hash = Fnv1a64Hex(text);
  TRN_RETURN_IF_ERROR(ValidateSpec(spec, limits));
  return spec;
}

absl::StatusOr<WorkloadSpec> LoadSpecFile(const std::string& path,
                                          const MemoryLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Missing, unreadable, a pipe or a device: ReadInputFile says which.
  if (fs::is_directory(fs::status(path, ec))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: is a directory, not a spec file", path));
  }
  if (const uintmax_t size = fs::file_size(path, ec);
      !ec && size > static_cast<uintmax_t>(kMaxSpecBytes)) {
    return MakeError(path, "",
                     absl::StrFormat("the file is %d bytes; a spec may be at "
                                     "most 1 MiB (%d bytes)",
                                     size, kMaxSpecBytes));
  }
  TRN_ASSIGN_OR_RETURN(
      const std::string text,
      ReadInputFile(path, kMaxSpecBytes, "spec file",
                    absl::StrFormat("a spec may be at most 1 MiB (%d bytes)",
                                    kMaxSpecBytes)));
  return ParseSpec(text, path, limits);
}

}  // namespace trn
