#include "workloads/spec/kernel_provenance.h"

#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn {
namespace {

constexpr std::string_view kPointer = "/kernel_source";

absl::StatusOr<std::map<std::string, std::string>> StringMap(
    const nlohmann::json& obj, std::string_view key, const JsonReader& r) {
  std::map<std::string, std::string> out;
  const nlohmann::json* m = JsonReader::Optional(obj, key);
  if (m == nullptr) return out;
  const std::string at =
      absl::StrCat(std::string(kPointer), "/", std::string(key));
  TRN_RETURN_IF_ERROR(r.Object(*m, at, "an object of strings"));
  for (const auto& [name, value] : m->items()) {
    TRN_ASSIGN_OR_RETURN(out[name], r.String(value, JsonLocation(at, name)));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::optional<KernelSource>> ReadKernelSource(
    const nlohmann::json& root, const JsonReader& r) {
  const nlohmann::json* ks = JsonReader::Optional(root, "kernel_source");
  if (ks == nullptr) return std::optional<KernelSource>();
  static constexpr std::string_view kKeys[] = {"path", "sha256", "function",
                                               "args", "kwargs"};
  TRN_RETURN_IF_ERROR(r.Object(*ks, kPointer));
  TRN_RETURN_IF_ERROR(r.CheckKeys(*ks, kPointer, kKeys, "kernel_source"));
  KernelSource out;
  TRN_ASSIGN_OR_RETURN(out.path, r.RequiredString(*ks, kPointer, "path"));
  if (out.path.empty()) {
    return r.Error(JsonLocation(kPointer, "path"),
                   "expected the kernel file's path, not \"\"");
  }
  TRN_ASSIGN_OR_RETURN(out.sha256, r.RequiredString(*ks, kPointer, "sha256"));
  bool hex = out.sha256.size() == 64;
  for (char c : out.sha256) {
    hex = hex && absl::ascii_isxdigit(static_cast<unsigned char>(c)) &&
          !absl::ascii_isupper(static_cast<unsigned char>(c));
  }
  if (!hex) {
    return r.Error(JsonLocation(kPointer, "sha256"),
                   "expected 64 lowercase hex digits (the SHA-256 of the "
                   "kernel file)");
  }
  TRN_ASSIGN_OR_RETURN(out.function,
                       r.RequiredString(*ks, kPointer, "function"));
  if (out.function.empty()) {
    return r.Error(JsonLocation(kPointer, "function"),
                   "expected the traced function's name, not \"\"");
  }
  TRN_ASSIGN_OR_RETURN(out.args, StringMap(*ks, "args", r));
  TRN_ASSIGN_OR_RETURN(out.kwargs, StringMap(*ks, "kwargs", r));
  return std::optional<KernelSource>(std::move(out));
}

absl::StatusOr<std::optional<KernelReference>> ReadKernelReference(
    const nlohmann::json& root, const JsonReader& r) {
  constexpr std::string_view kAt = "/traced_from";
  const nlohmann::json* t = JsonReader::Optional(root, "traced_from");
  if (t == nullptr) return std::optional<KernelReference>();
  static constexpr std::string_view kKeys[] = {"file", "function", "args",
                                               "kwargs"};
  TRN_RETURN_IF_ERROR(r.Object(*t, kAt));
  TRN_RETURN_IF_ERROR(r.CheckKeys(*t, kAt, kKeys, "traced_from"));
  KernelReference out;
  for (auto [key, field] :
       {std::pair{"file", &out.file}, std::pair{"function", &out.function},
        std::pair{"args", &out.args}}) {
    TRN_ASSIGN_OR_RETURN(*field, r.RequiredString(*t, kAt, key));
    if (field->empty()) {
      return r.Error(JsonLocation(kAt, key), "expected a non-empty string");
    }
  }
  if (const nlohmann::json* k = JsonReader::Optional(*t, "kwargs")) {
    TRN_ASSIGN_OR_RETURN(out.kwargs,
                         r.StringArray(*k, JsonLocation(kAt, "kwargs")));
  }
  return std::optional<KernelReference>(std::move(out));
}

}  // namespace trn
