// The spec reader's internals, shared by its files (everyone else includes
// workloads/loading/spec_parser.h). `SpecReader` reads one section of a
// spec per file, so that a new key has one home:
//   spec_parser.cc     the top level (Read), ParseSpec and LoadSpecFile
//   read_tensors.cc    "tensors", and the torch modes' "ops"
//   read_kernel.cc     an NKI spec's "kernel": loops, bodies, ops
//   read_published.cc  "published" figures
#ifndef TRNBENCH_WORKLOADS_LOADING_SPEC_READER_H_
#define TRNBENCH_WORKLOADS_LOADING_SPEC_READER_H_

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
#include "workloads/loading/shape_override.h"
#include "workloads/spec/published_figure.h"
#include "workloads/spec/spec_validator.h"

namespace trn::spec_reader_internal {

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

// Turns the JSON tree into a WorkloadSpec, checking keys and JSON types;
// everything that can be said about the struct alone is ValidateSpec's job.
class SpecReader {
 public:
  explicit SpecReader(std::string_view label) : r_(label) {}

  absl::StatusOr<WorkloadSpec> Read(const Json& root) const;

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
                                    const std::string& path) const;

  absl::StatusOr<std::vector<int64_t>> Dims(const Json& v,
                                            const std::string& path) const;

  absl::StatusOr<TorchOp> Op(const Json& v, const std::string& path) const;

  absl::StatusOr<NkiKernel> Kernel(const Json& v,
                                   const std::string& path) const;

  absl::StatusOr<NkiLoop> Loop(const Json& v, const std::string& path) const;

  absl::Status LoopFields(const Json& v, const std::string& path,
                          NkiLoop& loop) const;

  absl::StatusOr<std::vector<PublishedFigure>> Published(
      const Json& v, const WorkloadSpec& spec) const;

  absl::StatusOr<PublishedFigure> Figure(const Json& v, const std::string& path,
                                         const WorkloadSpec& spec) const;

  static bool HasLine(const std::vector<NkiLoop>& loops, int line);

  static std::vector<std::string_view> NkiOpKeys(std::string_view kind);

  absl::Status Slices(const Json& v, const std::string& path, NkiOp& op) const;

  absl::Status Broadcasts(const Json& v, const std::string& path,
                          NkiOp& op) const;

  absl::StatusOr<NkiOp> KernelOp(const Json& v, const std::string& path) const;

  absl::Status SplitSlots(std::vector<std::string>& ids,
                          std::vector<std::vector<std::string>>& slots,
                          const std::string& at, std::string_view what) const;

  JsonReader r_;
};

}  // namespace trn::spec_reader_internal

#endif  // TRNBENCH_WORKLOADS_LOADING_SPEC_READER_H_
