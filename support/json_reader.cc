#include "support/json_reader.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_format.h"
#include "support/input_error.h"
#include "support/status_macros.h"

namespace trn {
namespace {

bool StartsWithVowel(std::string_view word) {
  return !word.empty() &&
         std::string_view("aeiou").find(word[0]) != std::string_view::npos;
}

}  // namespace

std::string JsonLocation::Pointer() const {
  if (kind_ == Kind::kKey) return JsonChild(parent_, key_);
  if (kind_ == Kind::kIndex) return JsonChild(parent_, index_);
  return std::string(parent_);
}

std::string DescribeJson(const nlohmann::json& value) {
  if (value.is_object()) return value.empty() ? "an empty object" : "an object";
  if (value.is_array()) return value.empty() ? "an empty array" : "an array";
  if (value.is_null()) return "null";
  std::string text =
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  if (value.is_string()) return "string " + text;
  if (value.is_boolean()) return "boolean " + text;
  return "number " + text;
}

std::string JoinNames(std::span<const std::string_view> names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out.append(names[i]);
  }
  return out;
}

absl::Status JsonReader::Error(const JsonLocation& at,
                               std::string_view what) const {
  return InputError(file_, at.Pointer(), what);
}

absl::Status JsonReader::Expected(const JsonLocation& at,
                                  std::string_view expected,
                                  const Json& got) const {
  return Error(
      at, absl::StrFormat("expected %s, got %s", expected, DescribeJson(got)));
}

absl::Status JsonReader::Object(const Json& v, const JsonLocation& at,
                                std::string_view expected) const {
  if (v.is_object()) return absl::OkStatus();
  return Expected(at, expected, v);
}

absl::Status JsonReader::Array(const Json& v, const JsonLocation& at,
                               std::string_view expected) const {
  if (v.is_array()) return absl::OkStatus();
  return Expected(at, expected, v);
}

absl::StatusOr<const nlohmann::json*> JsonReader::Required(
    const Json& obj, std::string_view pointer, std::string_view key) const {
  if (!obj.is_object()) return Expected(pointer, "an object", obj);
  const auto it = obj.find(key);
  if (it == obj.end()) {
    return Error({pointer, key},
                 absl::StrFormat("required key \"%s\" is missing", key));
  }
  return &*it;
}

const nlohmann::json* JsonReader::Optional(const Json& obj,
                                           std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

absl::StatusOr<std::string> JsonReader::String(const Json& v,
                                               const JsonLocation& at) const {
  if (!v.is_string()) return Expected(at, "a string", v);
  return v.get<std::string>();
}

absl::StatusOr<std::string> JsonReader::NonEmptyString(
    const Json& v, const JsonLocation& at) const {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
    return Expected(at, "a non-empty string", v);
  }
  return v.get<std::string>();
}

absl::StatusOr<std::string> JsonReader::RequiredString(
    const Json& obj, std::string_view pointer, std::string_view key) const {
  TRN_ASSIGN_OR_RETURN(const Json* v, Required(obj, pointer, key));
  return String(*v, {pointer, key});
}

absl::StatusOr<bool> JsonReader::Bool(const Json& v,
                                      const JsonLocation& at) const {
  if (!v.is_boolean()) return Expected(at, "true or false", v);
  return v.get<bool>();
}

namespace {

// `read` of member `key` of `obj` into `out`, when `obj` has it.
template <typename T, typename Read>
absl::Status ReadOptional(const nlohmann::json& obj, std::string_view key,
                          T& out, Read read) {
  const nlohmann::json* v = JsonReader::Optional(obj, key);
  if (v == nullptr) return absl::OkStatus();
  absl::StatusOr<T> value = read(*v);
  if (!value.ok()) return value.status();
  out = *std::move(value);
  return absl::OkStatus();
}

}  // namespace

absl::Status JsonReader::OptionalString(const Json& obj,
                                        std::string_view pointer,
                                        std::string_view key,
                                        std::string& out) const {
  return ReadOptional(obj, key, out, [&](const Json& v) {
    return String(v, {pointer, key});
  });
}

absl::Status JsonReader::OptionalBool(const Json& obj, std::string_view pointer,
                                      std::string_view key, bool& out) const {
  return ReadOptional(obj, key, out, [&](const Json& v) {
    return Bool(v, {pointer, key});
  });
}

absl::Status JsonReader::OptionalStringArray(
    const Json& obj, std::string_view pointer, std::string_view key,
    std::vector<std::string>& out) const {
  return ReadOptional(obj, key, out, [&](const Json& v) {
    return StringArray(v, {pointer, key});
  });
}

absl::StatusOr<int64_t> JsonReader::Int(const Json& v, const JsonLocation& at,
                                        int64_t min, int64_t max,
                                        std::string_view expected) const {
  std::string default_expected;
  auto refuse = [&](std::string_view got) {
    if (expected.empty()) {
      default_expected =
          min == std::numeric_limits<int64_t>::min() &&
                  max == std::numeric_limits<int64_t>::max()
              ? std::string("an integer")
              : absl::StrFormat("an integer from %d to %d", min, max);
      expected = default_expected;
    }
    return Error(at, absl::StrFormat("expected %s, got %s", expected, got));
  };
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(max) ||
        (min > 0 && u < static_cast<uint64_t>(min))) {
      return refuse(DescribeJson(v));
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < min || i > max) return refuse(DescribeJson(v));
    return i;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) != d) return refuse("a fractional " + DescribeJson(v));
    // Compared in double: max may not be representable, but every value it
    // rounds to is handled by the int64 range of the cast below.
    if (d < static_cast<double>(min) || d >= static_cast<double>(max) + 1.0) {
      return refuse(DescribeJson(v));
    }
    return static_cast<int64_t>(d);
  }
  return refuse(DescribeJson(v));
}

absl::StatusOr<uint64_t> JsonReader::Uint(const Json& v,
                                          const JsonLocation& at) const {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(v.get<int64_t>());
  }
  constexpr std::string_view kExpected = "a non-negative integer";
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) != d) {
      return Error(at, absl::StrFormat("expected %s, got a fractional %s",
                                       kExpected, DescribeJson(v)));
    }
    // 2^64, exactly: the doubles below it all fit a uint64.
    if (d >= 0 && d < 18446744073709551616.0) return static_cast<uint64_t>(d);
  }
  return Expected(at, kExpected, v);
}

absl::StatusOr<size_t> JsonReader::Enum(
    const Json& v, const JsonLocation& at, std::string_view what,
    std::span<const std::string_view> names) const {
  const std::string expected = absl::StrFormat("one of %s", JoinNames(names));
  if (!v.is_string()) {
    return Expected(
        at,
        absl::StrFormat("%s %s string: %s", StartsWithVowel(what) ? "an" : "a",
                        what, expected),
        v);
  }
  const auto& s = v.get_ref<const std::string&>();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return i;
  }
  return Error(
      at, absl::StrFormat("unknown %s \"%s\"; expected %s", what, s, expected));
}

absl::StatusOr<std::vector<std::string>> JsonReader::StringArray(
    const Json& v, const JsonLocation& at, std::string_view expected) const {
  if (!v.is_array()) return Expected(at, expected, v);
  std::vector<std::string> out;
  out.reserve(v.size());
  std::string pointer;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      pointer = at.Pointer();
      return String(v[i], {pointer, i}).status();
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

absl::Status JsonReader::CheckKeys(
    const Json& obj, std::string_view pointer,
    std::span<const std::string_view> allowed, std::string_view what,
    std::span<const std::string_view> known) const {
  if (!obj.is_object()) return Expected(pointer, "an object", obj);
  auto contains = [](std::span<const std::string_view> keys,
                     std::string_view key) {
    for (std::string_view k : keys) {
      if (k == key) return true;
    }
    return false;
  };
  for (const auto& [key, value] : obj.items()) {
    if (contains(allowed, key)) continue;
    return Error(
        {pointer, key},
        absl::StrFormat("%s \"%s\" %s %s; allowed keys: %s",
                        contains(known, key) ? "key" : "unknown key", key,
                        contains(known, key) ? "does not apply to" : "in", what,
                        JoinNames(allowed)));
  }
  return absl::OkStatus();
}

absl::Status JsonReader::SchemaVersion(const Json& obj,
                                       std::string_view pointer,
                                       int64_t supported) const {
  TRN_ASSIGN_OR_RETURN(const Json* v, Required(obj, pointer, "schema_version"));
  const JsonLocation at(pointer, "schema_version");
  TRN_ASSIGN_OR_RETURN(const int64_t version,
                       Int(*v, at, std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max()));
  if (version == supported) return absl::OkStatus();
  return Error(at, absl::StrFormat("unsupported schema_version %d; this "
                                   "trnbench reads %d",
                                   version, supported));
}

}  // namespace trn
