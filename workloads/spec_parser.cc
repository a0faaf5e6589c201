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
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/exec_mode.h"
#include "device_model/metrics.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "support/input_error.h"
#include "support/input_file.h"
#include "support/json_reader.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"
#include "workloads/compiler/compiler.h"
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
constexpr NumberBounds kNoiseThresholdBounds{
    .min = 0, .max = 1, .max_open = true};
constexpr std::string_view kNoiseThresholdExpected =
    "a number in [0, 1), such as 0.02 for 2%";

bool IsVowel(std::string_view word) {
  return !word.empty() &&
         std::string_view("aeiou").find(word[0]) != std::string_view::npos;
}

// Turns the JSON tree into a WorkloadSpec, checking keys and JSON types;
// everything that can be said about the struct alone is ValidateSpec's job.
class SpecReader {
 public:
  explicit SpecReader(std::string_view label) : r_(label) {}

  absl::StatusOr<WorkloadSpec> Read(const Json& root) const {
    WorkloadSpec spec;
    TRN_RETURN_IF_ERROR(r_.Object(root, ""));
    // Before the key check: a newer version may have keys this one lacks,
    // and the version is the more useful message.
    TRN_RETURN_IF_ERROR(r_.SchemaVersion(root, "", kSpecSchemaVersion));
    spec.schema_version = kSpecSchemaVersion;
    static constexpr std::string_view kTopKeys[] = {"schema_version",
                                                    "name",
                                                    "family",
                                                    "description",
                                                    "mode",
                                                    "tensors",
                                                    "ops",
                                                    "kernel",
                                                    "noise_threshold",
                                                    "published",
                                                    "kernel_source",
                                                    "traced_from"};
    TRN_RETURN_IF_ERROR(r_.CheckKeys(root, "", kTopKeys, "a spec"));
    TRN_ASSIGN_OR_RETURN(spec.name, r_.RequiredString(root, "", "name"));
    TRN_ASSIGN_OR_RETURN(spec.family, r_.RequiredString(root, "", "family"));
    TRN_ASSIGN_OR_RETURN(spec.description,
                         r_.RequiredString(root, "", "description"));
    TRN_ASSIGN_OR_RETURN(const Json* mode, r_.Required(root, "", "mode"));
    TRN_ASSIGN_OR_RETURN(spec.mode, Mode(*mode, "/mode"));
    if (const Json* t = JsonReader::Optional(root, "noise_threshold")) {
      // A fraction: 0.02 means changes under 2% are never called.
      TRN_ASSIGN_OR_RETURN(
          spec.noise_threshold,
          r_.Number(*t, "/noise_threshold", kNoiseThresholdBounds,
                    kNoiseThresholdExpected));
    }

    TRN_ASSIGN_OR_RETURN(const Json* tensors, r_.Required(root, "", "tensors"));
    TRN_RETURN_IF_ERROR(r_.Array(*tensors, "/tensors"));
    for (size_t i = 0; i < tensors->size(); ++i) {
      TRN_ASSIGN_OR_RETURN(TensorDecl t,
                           Tensor((*tensors)[i], JsonChild("/tensors", i)));
      spec.tensors.push_back(std::move(t));
    }

    const std::string mode_name(ExecModeName(spec.mode));
    if (spec.mode == ExecMode::kNki) {
      if (root.contains("ops")) {
        return r_.Error(
            "/ops",
            "not allowed in mode \"nki\": an nki spec describes its "
            "work under \"kernel\"");
      }
      TRN_ASSIGN_OR_RETURN(const Json* kernel, r_.Required(root, "", "kernel"));
      TRN_ASSIGN_OR_RETURN(spec.kernel, Kernel(*kernel, "/kernel"));
    } else {
      if (root.contains("kernel")) {
        return r_.Error(
            "/kernel", absl::StrFormat("not allowed in mode \"%s\": \"kernel\" "
                                       "is only for mode \"nki\"; use \"ops\"",
                                       mode_name));
      }
      TRN_ASSIGN_OR_RETURN(const Json* ops, r_.Required(root, "", "ops"));
      TRN_RETURN_IF_ERROR(r_.Array(*ops, "/ops"));
      for (size_t i = 0; i < ops->size(); ++i) {
        TRN_ASSIGN_OR_RETURN(TorchOp op, Op((*ops)[i], JsonChild("/ops", i)));
        spec.ops.push_back(std::move(op));
      }
    }
    // Last: a figure's "line" names an op of the kernel.
    if (const Json* published = JsonReader::Optional(root, "published")) {
      TRN_ASSIGN_OR_RETURN(spec.published, Published(*published, spec));
    }
    TRN_ASSIGN_OR_RETURN(spec.kernel_source, ReadKernelSource(root, r_));
    TRN_ASSIGN_OR_RETURN(spec.traced_from, ReadKernelReference(root, r_));
    return spec;
  }

  // A "published" array alone, for a file without a kernel
  // (ParsePublishedFigures).
  absl::StatusOr<std::vector<PublishedFigure>> PublishedOnly(
      const Json& v) const {
    return Published(v, WorkloadSpec{});
  }

 private:
  // The value of `v`, one of `names`, as `parse` reads it.
  template <typename T>
  absl::StatusOr<T> Enum(const Json& v, const JsonLocation& at,
                         std::string_view what,
                         std::optional<T> (*parse)(std::string_view),
                         std::span<const std::string_view> names) const {
    TRN_ASSIGN_OR_RETURN(const size_t i, r_.Enum(v, at, what, names));
    return *parse(names[i]);
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
    if (s == "static") return LoopRange::kStatic;
    return std::nullopt;
  }

  absl::StatusOr<TensorDecl> Tensor(const Json& v,
                                    const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"name", "shape", "dtype",
                                                 "placement"};
    TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a tensor"));
    TensorDecl t;
    TRN_ASSIGN_OR_RETURN(t.name, r_.RequiredString(v, path, "name"));
    TRN_ASSIGN_OR_RETURN(const Json* shape, r_.Required(v, path, "shape"));
    TRN_ASSIGN_OR_RETURN(t.shape, Dims(*shape, JsonChild(path, "shape")));
    TRN_ASSIGN_OR_RETURN(const Json* dtype, r_.Required(v, path, "dtype"));
    TRN_ASSIGN_OR_RETURN(t.dtype, Dtype(*dtype, JsonChild(path, "dtype")));
    if (const Json* p = JsonReader::Optional(v, "placement")) {
      static constexpr std::string_view kNames[] = {"host", "device"};
      TRN_ASSIGN_OR_RETURN(
          t.placement, Enum<Placement>(*p, JsonChild(path, "placement"),
                                       "placement", &ParsePlacement, kNames));
    }
    return t;
  }

  absl::StatusOr<std::vector<int64_t>> Dims(const Json& v,
                                            const std::string& path) const {
    if (!v.is_array()) return r_.Expected(path, "an array of dims", v);
    std::vector<int64_t> dims;
    for (size_t i = 0; i < v.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(
          int64_t d, r_.Int(v[i], JsonChild(path, i), 1, kMaxTensorElements,
                            kDimConstraint));
      dims.push_back(d);
    }
    return dims;
  }

  absl::StatusOr<TorchOp> Op(const Json& v, const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"op", "inputs", "output"};
    TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a torch op"));
    TorchOp op;
    op.json_path = path;
    TRN_ASSIGN_OR_RETURN(op.op, r_.RequiredString(v, path, "op"));
    TRN_ASSIGN_OR_RETURN(const Json* inputs, r_.Required(v, path, "inputs"));
    TRN_ASSIGN_OR_RETURN(op.inputs,
                         r_.StringArray(*inputs, JsonChild(path, "inputs")));
    TRN_ASSIGN_OR_RETURN(op.output, r_.RequiredString(v, path, "output"));
    return op;
  }

  absl::StatusOr<NkiKernel> Kernel(const Json& v,
                                   const std::string& path) const {
    static constexpr std::string_view kKeys[] = {"source_file", "loops"};
    TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a kernel"));
    NkiKernel kernel;
    TRN_ASSIGN_OR_RETURN(kernel.source_file,
                         r_.RequiredString(v, path, "source_file"));
    TRN_ASSIGN_OR_RETURN(const Json* loops, r_.Required(v, path, "loops"));
    const std::string loops_path = JsonChild(path, "loops");
    TRN_RETURN_IF_ERROR(r_.Array(*loops, loops_path));
    for (size_t i = 0; i < loops->size(); ++i) {
      TRN_ASSIGN_OR_RETURN(NkiLoop loop,
                           Loop((*loops)[i], JsonChild(loops_path, i)));
      kernel.loops.push_back(std::move(loop));
    }
    return kernel;
  }

  absl::StatusOr<NkiLoop> Loop(const Json& v, const std::string& path) const {
    static constexpr std::string_view kKeys[] = {
        "var",  "range",   "tensor",     "dim", "tile_partitions",
        "step", "buffers", "no_reorder", "body"};
    TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a loop"));
    NkiLoop loop;
    TRN_RETURN_IF_ERROR(LoopFields(v, path, loop));
    return loop;
  }

  // The keys of a loop, whether it is one of the kernel's loops or an op of
  // kind "loop" nested in a body; the caller has checked which keys exist.
  absl::Status LoopFields(const Json& v, const std::string& path,
                          NkiLoop& loop) const {
    loop.json_path = path;
    TRN_ASSIGN_OR_RETURN(loop.var, r_.RequiredString(v, path, "var"));
    TRN_ASSIGN_OR_RETURN(const Json* range, r_.Required(v, path, "range"));
    static constexpr std::string_view kRanges[] = {"affine", "sequential",
                                                   "static"};
    TRN_ASSIGN_OR_RETURN(
        loop.range, Enum<LoopRange>(*range, JsonChild(path, "range"), "range",
                                    &ParseLoopRange, kRanges));
    TRN_ASSIGN_OR_RETURN(loop.tensor, r_.RequiredString(v, path, "tensor"));
    if (const Json* d = JsonReader::Optional(v, "dim")) {
      TRN_ASSIGN_OR_RETURN(int64_t dim, r_.Int(*d, JsonChild(path, "dim"), 0,
                                               kInt32Max, "a dim number >= 0"));
      loop.dim = static_cast<int>(dim);
    }
    // Partitions and free elements are different resources, so the two
    // kinds of loop name their tile differently; a loop over dim 0 that
    // walks blocks of rows rather than partition tiles gives `step`.
    if (loop.dim == 0 && JsonReader::Optional(v, "step") != nullptr) {
      if (JsonReader::Optional(v, "tile_partitions") != nullptr) {
        return r_.Error(JsonChild(path, "step"),
                        "a loop over dim 0 walks tiles of \"tile_partitions\" "
                        "rows or blocks of \"step\" rows; give one of them");
      }
      TRN_ASSIGN_OR_RETURN(loop.step, r_.Int(*JsonReader::Optional(v, "step"),
                                             JsonChild(path, "step"), 1,
                                             kInt32Max, "a positive integer"));
    } else if (loop.dim == 0) {
      TRN_ASSIGN_OR_RETURN(const Json* tp,
                           r_.Required(v, path, "tile_partitions"));
      TRN_ASSIGN_OR_RETURN(loop.tile_partitions,
                           r_.Int(*tp, JsonChild(path, "tile_partitions"), 1,
                                  kInt32Max, "a positive integer"));
    } else {
      if (JsonReader::Optional(v, "tile_partitions") != nullptr) {
        return r_.Error(
            JsonChild(path, "tile_partitions"),
            absl::StrFormat("a loop over dim %d walks the free axis "
                            "in \"step\" elements; "
                            "\"tile_partitions\" is for loops over "
                            "dim 0",
                            loop.dim));
      }
      TRN_ASSIGN_OR_RETURN(const Json* st, r_.Required(v, path, "step"));
      TRN_ASSIGN_OR_RETURN(loop.step, r_.Int(*st, JsonChild(path, "step"), 1,
                                             kInt32Max, "a positive integer"));
    }
    if (const Json* b = JsonReader::Optional(v, "buffers")) {
      // "auto" is omission: the compiler stage decides the depth.
      if (!(b->is_string() && b->get<std::string>() == "auto")) {
        TRN_ASSIGN_OR_RETURN(
            int64_t buffers,
            r_.Int(*b, JsonChild(path, "buffers"), 1, kInt32Max,
                   "a positive integer or \"auto\""));
        loop.buffers = static_cast<int>(buffers);
        loop.buffers_stated = true;
      }
    }
    TRN_RETURN_IF_ERROR(
        r_.OptionalBool(v, path, "no_reorder", loop.no_reorder));
    TRN_RETURN_IF_ERROR(
        r_.OptionalStringArray(v, path, "results", loop.results));
    TRN_ASSIGN_OR_RETURN(const Json* body, r_.Required(v, path, "body"));
    const std::string body_path = JsonChild(path, "body");
    TRN_RETURN_IF_ERROR(r_.Array(*body, body_path));
    for (size_t j = 0; j < body->size(); ++j) {
      TRN_ASSIGN_OR_RETURN(NkiOp op,
                           KernelOp((*body)[j], JsonChild(body_path, j)));
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
    TRN_RETURN_IF_ERROR(r_.Array(v, "/published"));
    std::vector<PublishedFigure> out;
    for (size_t i = 0; i < v.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(PublishedFigure f,
                           Figure(v[i], JsonChild("/published", i), spec));
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
    TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a published figure"));
    PublishedFigure f;
    f.json_path = path;
    TRN_ASSIGN_OR_RETURN(f.metric, r_.RequiredString(v, path, "metric"));
    const std::string metric_unit = MetricUnit(f.metric);
    if (metric_unit.empty()) {
      std::vector<std::string_view> names;
      for (const MetricInfo& m : AllMetrics()) names.push_back(m.name);
      for (std::string_view m : kEventMetrics) names.push_back(m);
      for (std::string_view m : kCompilerMetrics) names.push_back(m);
      return r_.Error(
          JsonChild(path, "metric"),
          absl::StrFormat("unknown metric \"%s\"; expected one of %s", f.metric,
                          JoinNames(names)));
    }
    TRN_ASSIGN_OR_RETURN(f.statistic, r_.RequiredString(v, path, "statistic"));
    if (!ParseStatistic(f.statistic).has_value()) {
      return r_.Error(JsonChild(path, "statistic"),
                      absl::StrFormat("unknown statistic \"%s\"; expected "
                                      "\"mean\" or \"pN\" with N from 0 to 100 "
                                      "(\"p50\" is the median)",
                                      f.statistic));
    }
    if (const Json* line = JsonReader::Optional(v, "line")) {
      if (!IsEventMetric(f.metric)) {
        return r_.Error(
            JsonChild(path, "line"),
            absl::StrFormat("key \"line\" applies only to the event "
                            "metrics (%s), not to \"%s\"",
                            JoinNames(kEventMetrics), f.metric));
      }
      TRN_ASSIGN_OR_RETURN(int64_t n, r_.Int(*line, JsonChild(path, "line"), 1,
                                             kInt32Max, "a positive integer"));
      f.line = static_cast<int>(n);
      if (!spec.kernel.has_value() || !HasLine(spec.kernel->loops, f.line)) {
        return r_.Error(
            JsonChild(path, "line"),
            absl::StrFormat("no op of the kernel has line %d", f.line));
      }
    } else if (IsEventMetric(f.metric)) {
      return r_.Error(
          JsonChild(path, "line"),
          absl::StrFormat("required key \"line\" is missing: event "
                          "metric \"%s\" measures the events of one "
                          "kernel source line",
                          f.metric));
    }
    if (const Json* runs = JsonReader::Optional(v, "runs")) {
      TRN_ASSIGN_OR_RETURN(
          f.runs, r_.Int(*runs, JsonChild(path, "runs"), 1, kMaxPublishedRuns,
                         "an integer from 1 to 1000000"));
    }
    TRN_ASSIGN_OR_RETURN(f.unit, r_.RequiredString(v, path, "unit"));
    TRN_ASSIGN_OR_RETURN(const Json* figure, r_.Required(v, path, "figure"));
    TRN_ASSIGN_OR_RETURN(
        f.figure, r_.Number(*figure, {path, "figure"},
                            {.min = 0, .min_open = true}, "a positive number"));
    if (!UnitFactor(f.unit, metric_unit).has_value()) {
      return r_.Error(JsonChild(path, "unit"),
                      absl::StrFormat("unit \"%s\" does not fit metric \"%s\" "
                                      "(in %s); expected one of %s",
                                      f.unit, f.metric, metric_unit,
                                      UnitsFor(metric_unit)));
    }
    const Json* tolerance = JsonReader::Optional(v, "tolerance");
    const Json* range = JsonReader::Optional(v, "range");
    if ((tolerance == nullptr) == (range == nullptr)) {
      return r_.Error(
          JsonChild(path, tolerance == nullptr ? "tolerance" : "range"),
          "expected exactly one of \"tolerance\" (a fraction of the "
          "figure, 0.15 for ±15%) and \"range\" ([low, high] in the "
          "figure's unit)");
    }
    if (tolerance != nullptr) {
      TRN_ASSIGN_OR_RETURN(
          f.tolerance, r_.Number(*tolerance, {path, "tolerance"},
                                 {.min = 0, .max = 1, .min_open = true},
                                 "a number in (0, 1], such as 0.15 for ±15%"));
    } else {
      const std::string at = JsonChild(path, "range");
      if (!range->is_array() || range->size() != 2 ||
          !(*range)[0].is_number() || !(*range)[1].is_number() ||
          !((*range)[0].get<double>() >= 0) ||
          !((*range)[0].get<double>() <= (*range)[1].get<double>()) ||
          !std::isfinite((*range)[1].get<double>())) {
        return r_.Expected(at, "[low, high] with 0 <= low <= high", *range);
      }
      f.range = {(*range)[0].get<double>(), (*range)[1].get<double>()};
    }
    for (auto [key, out] : {std::pair{"device", &f.device},
                            {"hardware", &f.hardware},
                            {"method", &f.method},
                            {"source", &f.source}}) {
      TRN_ASSIGN_OR_RETURN(const Json* text, r_.Required(v, path, key));
      TRN_ASSIGN_OR_RETURN(*out, r_.NonEmptyString(*text, {path, key}));
    }
    TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "url", f.url));
    TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "order", f.order));
    if (const Json* shape = JsonReader::Optional(v, "shape")) {
      TRN_ASSIGN_OR_RETURN(f.shape,
                           r_.StringArray(*shape, JsonChild(path, "shape")));
      for (size_t i = 0; i < f.shape.size(); ++i) {
        auto parsed = ParseShapeOverride(f.shape[i]);
        if (!parsed.ok()) {
          return r_.Error(JsonChild(JsonChild(path, "shape"), i),
                          std::string(parsed.status().message()));
        }
        if (parsed->shapes.size() != 1) {
          return r_.Error(
              JsonChild(JsonChild(path, "shape"), i),
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
        "id",           "op",
        "engine",       "func",
        "inputs",       "tensor",
        "index",        "mask",
        "tile",         "dtype",
        "buffer",       "after",
        "carry",        "transpose",
        "indirect",     "accumulate",
        "from",         "var",
        "range",        "dim",
        "step",         "tile_partitions",
        "buffers",      "no_reorder",
        "body",         "affine_mask",
        "slices",       "insert_transpose",
        "overwrite",    "one_buffer",
        "tile_buffers", "broadcasts",
        "results",      "line"};
    std::vector<std::string_view> drop;
    if (kind == "load") {
      drop = {"engine", "func", "inputs", "carry", "accumulate"};
    } else if (kind == "store") {
      drop = {"id",        "engine",     "func",       "tile",
              "dtype",     "buffer",     "carry",      "indirect",
              "transpose", "accumulate", "one_buffer", "tile_buffers"};
    } else if (kind == "hbm_copy") {
      drop = {"id",          "engine",    "func",       "inputs",
              "tile",        "dtype",     "buffer",     "carry",
              "indirect",    "transpose", "accumulate", "one_buffer",
              "tile_buffers"};
    } else if (kind == "loop") {
      drop = {"engine", "func",      "inputs",   "index",
              "mask",   "tile",      "dtype",    "buffer",
              "carry",  "transpose", "indirect", "accumulate"};
    } else if (kind == "iota" || kind == "memset") {
      drop = {"func",      "inputs",   "tensor",     "index",
              "transpose", "indirect", "accumulate", "broadcasts"};
    } else if (kind == "reduction") {
      // An output of the op it names, not an instruction: its input, tile
      // and dtype only.
      drop = {"engine",     "func",       "tensor",      "index",
              "mask",       "buffer",     "after",       "carry",
              "transpose",  "indirect",   "accumulate",  "slices",
              "broadcasts", "one_buffer", "tile_buffers"};
    } else if (kind == "activation") {
      drop = {"tensor", "index", "transpose", "indirect"};
    } else if (kind == "tensor_scalar") {
      drop = {"func", "tensor", "index", "transpose", "indirect"};
    } else if (IsNkiOpKind(kind)) {
      drop = {"func", "tensor", "index", "transpose", "indirect", "accumulate"};
    }
    if (IsNkiOpKind(kind) && kind != "hbm_copy") drop.push_back("from");
    // A mask is a predicate of any instruction (loads, stores and compute
    // ops); a loop and the outputs of other ops have none.
    if (kind == "loop" || kind == "reduction" || kind == "hbm_copy") {
      drop.push_back("affine_mask");
    }
    if (kind == "load" || kind == "store" || kind == "hbm_copy" ||
        kind == "loop") {
      drop.push_back("slices");
      drop.push_back("broadcasts");
    }
    if (IsNkiOpKind(kind) && kind != "matmul") {
      drop.push_back("insert_transpose");
      drop.push_back("overwrite");
    }
    if (IsNkiOpKind(kind) && kind != "loop") {
      for (std::string_view key :
           {"var", "range", "dim", "step", "tile_partitions", "buffers",
            "no_reorder", "results", "body"}) {
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

  // "slices": one entry per input, null or [partitions, free].
  absl::Status Slices(const Json& v, const std::string& path, NkiOp& op) const {
    TRN_RETURN_IF_ERROR(r_.Array(v, path));
    for (size_t k = 0; k < v.size(); ++k) {
      const std::string at = JsonChild(path, k);
      if (v[k].is_null()) {
        op.slices.emplace_back();
        continue;
      }
      TRN_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Dims(v[k], at));
      if (dims.size() != 2) {
        return r_.Error(at, "a slice is null or [partitions, free]");
      }
      op.slices.push_back(std::move(dims));
    }
    return absl::OkStatus();
  }

  // "broadcasts": one entry per input, null or the partitions broadcast to.
  absl::Status Broadcasts(const Json& v, const std::string& path,
                          NkiOp& op) const {
    TRN_RETURN_IF_ERROR(r_.Array(v, path));
    for (size_t k = 0; k < v.size(); ++k) {
      if (v[k].is_null()) {
        op.broadcasts.push_back(0);
        continue;
      }
      const std::string at = JsonChild(path, k);
      if (!v[k].is_number_integer() || v[k].get<int64_t>() < 1) {
        return r_.Expected(at, "null or a partition count (an integer >= 1)",
                           v[k]);
      }
      op.broadcasts.push_back(v[k].get<int64_t>());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<NkiOp> KernelOp(const Json& v, const std::string& path) const {
    if (!v.is_object()) return r_.Expected(path, "an object", v);
    NkiOp op;
    op.json_path = path;
    TRN_ASSIGN_OR_RETURN(op.op, r_.RequiredString(v, path, "op"));
    // An unknown kind gets every key here; ValidateSpec names it as unknown.
    const std::vector<std::string_view> allowed = NkiOpKeys(op.op);
    const std::vector<std::string_view> all_known = NkiOpKeys("");
    TRN_RETURN_IF_ERROR(r_.CheckKeys(
        v, path, allowed,
        absl::StrFormat("%s %s op", IsVowel(op.op) ? "an" : "a", op.op),
        all_known));
    TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "id", op.id));
    // Left out or "auto": the compiler stage places the op.
    if (const Json* e = JsonReader::Optional(v, "engine");
        e != nullptr && e->is_string() && e->get<std::string>() == "auto") {
      op.engine_auto = true;
    } else if (e != nullptr) {
      static constexpr std::string_view kNames[] = {"tensor", "vector",
                                                    "scalar", "gpsimd", "auto"};
      TRN_ASSIGN_OR_RETURN(op.engine,
                           Enum<Engine>(*e, JsonChild(path, "engine"), "engine",
                                        &ParseEngine, kNames));
      op.engine_stated = true;
    }
    TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "func", op.func));
    if (const Json* in = JsonReader::Optional(v, "inputs")) {
      TRN_ASSIGN_OR_RETURN(op.inputs,
                           r_.StringArray(*in, JsonChild(path, "inputs")));
      TRN_RETURN_IF_ERROR(SplitSlots(op.inputs, op.input_slots,
                                     JsonChild(path, "inputs"), "a"));
    }
    if (const Json* t = JsonReader::Optional(v, "tensor");
        t && op.op != "loop") {
      TRN_ASSIGN_OR_RETURN(op.tensor, r_.String(*t, JsonChild(path, "tensor")));
    }
    if (const Json* f = JsonReader::Optional(v, "from")) {
      TRN_ASSIGN_OR_RETURN(op.from, r_.String(*f, JsonChild(path, "from")));
      if (op.from.empty()) {
        return r_.Error(JsonChild(path, "from"),
                        "expected the name of the tensor copied from, got an "
                        "empty string");
      }
    }
    if (const Json* ix = JsonReader::Optional(v, "index")) {
      TRN_ASSIGN_OR_RETURN(op.index,
                           r_.StringArray(*ix, JsonChild(path, "index")));
      if (op.index.empty()) {
        return r_.Error(JsonChild(path, "index"),
                        "an index has one entry per dim of the tensor, a loop "
                        "variable or \":\"; got an empty array");
      }
    }
    if (const Json* m = JsonReader::Optional(v, "mask")) {
      TRN_ASSIGN_OR_RETURN(op.mask, r_.String(*m, JsonChild(path, "mask")));
      if (op.mask.empty()) {
        return r_.Error(JsonChild(path, "mask"),
                        "expected the id of a mask tile, got an empty string");
      }
    }
    if (const Json* t = JsonReader::Optional(v, "tile")) {
      const std::string tile_path = JsonChild(path, "tile");
      TRN_ASSIGN_OR_RETURN(op.tile, Dims(*t, tile_path));
      // An empty list would read as "use the default tile".
      if (op.tile.size() != 2) {
        return r_.Error(
            tile_path,
            absl::StrFormat("a tile is [partitions, free], got %d "
                            "dim%s",
                            op.tile.size(), op.tile.size() == 1 ? "" : "s"));
      }
    }
    if (const Json* d = JsonReader::Optional(v, "dtype")) {
      TRN_ASSIGN_OR_RETURN(op.dtype, Dtype(*d, JsonChild(path, "dtype")));
    }
    if (const Json* b = JsonReader::Optional(v, "buffer")) {
      static constexpr std::string_view kNames[] = {"sbuf", "psum"};
      TRN_ASSIGN_OR_RETURN(const size_t buffer,
                           r_.Enum(*b, {path, "buffer"}, "buffer", kNames));
      op.buffer = std::string(kNames[buffer]);
    }
    TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "after", op.after));
    TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "carry", op.carry));
    TRN_RETURN_IF_ERROR(SplitSlots(op.carry, op.carry_slots,
                                   JsonChild(path, "carry"), "a carried"));
    TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "transpose", op.transpose));
    TRN_RETURN_IF_ERROR(
        r_.OptionalBool(v, path, "affine_mask", op.affine_mask));
    if (const Json* sl = JsonReader::Optional(v, "slices")) {
      TRN_RETURN_IF_ERROR(Slices(*sl, JsonChild(path, "slices"), op));
    }
    if (const Json* b = JsonReader::Optional(v, "broadcasts")) {
      TRN_RETURN_IF_ERROR(Broadcasts(*b, JsonChild(path, "broadcasts"), op));
    }
    TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "accumulate", op.accumulate));
    TRN_RETURN_IF_ERROR(
        r_.OptionalBool(v, path, "insert_transpose", op.insert_transpose));
    TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "overwrite", op.overwrite));
    TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "one_buffer", op.one_buffer));
    if (const Json* tb = JsonReader::Optional(v, "tile_buffers")) {
      TRN_ASSIGN_OR_RETURN(
          op.tile_buffers,
          r_.Int(*tb, JsonChild(path, "tile_buffers"), 2, kInt32Max,
                 "an integer >= 2 (one buffer is \"one_buffer\": true)"));
    }
    if (const Json* ix = JsonReader::Optional(v, "indirect")) {
      TRN_ASSIGN_OR_RETURN(op.indirect,
                           r_.String(*ix, JsonChild(path, "indirect")));
      if (op.indirect.empty()) {
        return r_.Error(
            JsonChild(path, "indirect"),
            "expected the id of the index tile, got an empty string");
      }
    }
    if (op.op == "loop") {
      NkiLoop nested;
      TRN_RETURN_IF_ERROR(LoopFields(v, path, nested));
      op.loop.push_back(std::move(nested));
    }
    TRN_ASSIGN_OR_RETURN(const Json* line, r_.Required(v, path, "line"));
    TRN_ASSIGN_OR_RETURN(int64_t line_no,
                         r_.Int(*line, JsonChild(path, "line"), 1, kInt32Max,
                                "a source line number >= 1"));
    op.source_line = static_cast<int>(line_no);
    return op;
  }

  // Splits each id written "block[v]" (or "block[v][w]" for a block of
  // blocks, "block[v*4+w]" for a slot two loops pick together) into the
  // block's id (kept in `ids`, so every reader of ids sees a plain id) and
  // the slot index of each level (`slots`, parallel to `ids`). The names
  // are checked by ValidateSpec; here only the form.
  absl::Status SplitSlots(std::vector<std::string>& ids,
                          std::vector<std::vector<std::string>>& slots,
                          const std::string& at, std::string_view what) const {
    slots.assign(ids.size(), {});
    for (size_t k = 0; k < ids.size(); ++k) {
      std::string& in = ids[k];
      const size_t first = in.find_first_of("[]");
      if (first == std::string::npos) continue;
      std::vector<std::string> vars;
      bool ok = first > 0 && in[first] == '[';
      for (size_t pos = first; ok && pos < in.size();) {
        const size_t close = in.find(']', pos);
        ok = in[pos] == '[' && close != std::string::npos && close > pos + 1;
        if (!ok) break;
        std::string var = in.substr(pos + 1, close - pos - 1);
        ok = var.find('[') == std::string::npos;
        vars.push_back(std::move(var));
        pos = close + 1;
      }
      if (!ok) {
        return r_.Error(
            JsonLocation(at, k),
            absl::StrFormat("expected %s tile id, or a block's id and the "
                            "loop variables of one of its slots as "
                            "\"rhs_tiles[k]\", \"lhsT_tiles[bm][k]\" or "
                            "\"s[kb*4+ki]\", got \"%s\"",
                            what, in));
      }
      slots[k] = std::move(vars);
      in.resize(first);
    }
    return absl::OkStatus();
  }

  JsonReader r_;
};

}  // namespace

namespace {

// A refusal of a traced spec ("label: /json/pointer: what") names the
// kernel's source line instead, the "line" of the op at (or around) the
// pointer, since the user wrote the kernel, not the spec (a temporary file
// under --kernel): "matmul.py:42: what (the traced spec's /json/pointer)".
absl::Status AtKernelLine(const absl::Status& st, const Json& root,
                          const std::string& label,
                          const std::optional<KernelSource>& source) {
  const absl::string_view msg = st.message();
  const std::string prefix = label + ": /";
  if (!source.has_value() || !absl::StartsWith(msg, prefix)) return st;
  const size_t end = msg.find(": ", prefix.size());
  if (end == absl::string_view::npos) return st;
  const absl::string_view pointer =
      msg.substr(prefix.size() - 1, end - prefix.size() + 1);
  const Json* at = &root;
  int line = 0;
  for (absl::string_view rest = pointer.substr(1); at != nullptr;) {
    if (at->is_object()) {
      if (auto l = at->find("line"); l != at->end() && l->is_number_integer()) {
        line = l->get<int>();
      }
    }
    if (rest.empty()) break;
    const size_t slash = rest.find('/');
    const std::string key(rest.substr(0, slash));
    rest = slash == absl::string_view::npos ? "" : rest.substr(slash + 1);
    if (at->is_object() && at->contains(key)) {
      at = &(*at)[key];
    } else if (at->is_array() && !key.empty() &&
               key.find_first_not_of("0123456789") == std::string::npos &&
               std::stoul(key) < at->size()) {
      at = &(*at)[std::stoul(key)];
    } else {
      at = nullptr;
    }
  }
  if (line == 0) return st;
  return absl::Status(
      st.code(),
      absl::StrFormat("%s:%d: %s (the traced spec's %s)", source->path, line,
                      msg.substr(end + 2), pointer));
}

}  // namespace

absl::StatusOr<WorkloadSpec> ParseSpec(std::string_view text,
                                       std::string_view file_label,
                                       const MemoryLimits& limits) {
  const std::string label =
      file_label.empty() ? std::string("<spec>") : std::string(file_label);
  if (static_cast<int64_t>(text.size()) > kMaxSpecBytes) {
    return InputError(label, "",
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
  if (absl::Status st = CompileSpec(spec, limits); !st.ok()) {
    return AtKernelLine(st, root, label, spec.kernel_source);
  }
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
    return InputError(path, "",
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

absl::StatusOr<std::vector<PublishedFigure>> ParsePublishedFigures(
    const nlohmann::json& published, std::string_view file_label) {
  // No kernel: a figure of one kernel source line has no line to name.
  return SpecReader(file_label).PublishedOnly(published);
}

}  // namespace trn
