#include "workloads/loading/spec_parser.h"

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
#include "workloads/loading/spec_reader.h"
#include "workloads/spec/published_figure.h"
#include "workloads/spec/spec_validator.h"

namespace trn::spec_reader_internal {

absl::StatusOr<WorkloadSpec> SpecReader::Read(const Json& root) const {
  WorkloadSpec spec;
  TRN_RETURN_IF_ERROR(r_.Object(root, ""));
  // Before the key check: a newer version may have keys this one lacks,
  // and the version is the more useful message.
  TRN_RETURN_IF_ERROR(r_.SchemaVersion(root, "", kSpecSchemaVersion));
  spec.schema_version = kSpecSchemaVersion;
  static constexpr std::string_view kTopKeys[] = {
      "schema_version", "name",       "family", "description",     "mode",
      "tensors",        "ops",        "kernel", "noise_threshold", "published",
      "kernel_source",  "traced_from"};
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
      return r_.Error("/ops",
                      "not allowed in mode \"nki\": an nki spec describes its "
                      "work under \"kernel\"");
    }
    TRN_ASSIGN_OR_RETURN(const Json* kernel, r_.Required(root, "", "kernel"));
    TRN_ASSIGN_OR_RETURN(spec.kernel, Kernel(*kernel, "/kernel"));
  } else {
    if (root.contains("kernel")) {
      return r_.Error("/kernel",
                      absl::StrFormat("not allowed in mode \"%s\": \"kernel\" "
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

}  // namespace trn::spec_reader_internal

namespace trn {

using spec_reader_internal::Json;
using spec_reader_internal::SpecReader;

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
  const int64_t line =
      SourceLineAt(root, std::string_view(pointer.data(), pointer.size()));
  if (line == 0) return st;
  return absl::Status(
      st.code(),
      absl::StrFormat("%s:%d: %s (the traced spec's %s)", source->path, line,
                      msg.substr(end + 2), pointer));
}

}  // namespace

int64_t SourceLineAt(const Json& root, std::string_view pointer) {
  const Json* at = &root;
  int64_t line = 0;
  if (pointer.empty() || pointer.front() != '/') return 0;
  for (std::string_view rest = pointer.substr(1);
       at != nullptr && !at->is_discarded();) {
    if (at->is_object()) {
      if (auto l = at->find("line"); l != at->end() && l->is_number_integer()) {
        line = l->get<int64_t>();
      }
    }
    if (rest.empty()) break;
    const size_t slash = rest.find('/');
    const std::string key(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
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
  return line;
}

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
