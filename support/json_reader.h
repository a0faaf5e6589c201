// One typed reader of parsed JSON for every file trnbench reads (specs,
// device profiles, baselines, results), so that the same defect gets the
// same message in all of them: "<file>: <JSON pointer>: <what>", where
// <what> says what was expected and, for a value of the wrong kind, what
// the file holds ("expected a string, got number 3").
#ifndef TRNBENCH_SUPPORT_JSON_READER_H_
#define TRNBENCH_SUPPORT_JSON_READER_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace trn {

// Where a value is: a JSON pointer, or the pointer of its object or array
// and its key or index. The pointer is written out only when a message
// needs it, so that reading a good file builds no pointer strings. It holds
// views: the strings it was made from must outlive it (pass it as an
// argument, built in the call).
class JsonLocation {
 public:
  JsonLocation(std::string_view pointer) : parent_(pointer) {}    // NOLINT
  JsonLocation(const std::string& pointer) : parent_(pointer) {}  // NOLINT
  JsonLocation(const char* pointer) : parent_(pointer) {}         // NOLINT
  JsonLocation(std::string_view parent, std::string_view key)
      : parent_(parent), key_(key), kind_(Kind::kKey) {}
  JsonLocation(std::string_view parent, size_t index)
      : parent_(parent), index_(index), kind_(Kind::kIndex) {}

  // The JSON pointer (RFC 6901), "" for the document.
  std::string Pointer() const;

 private:
  enum class Kind { kPointer, kKey, kIndex };
  std::string_view parent_;
  std::string_view key_;
  size_t index_ = 0;
  Kind kind_ = Kind::kPointer;
};

// What a JSON value is, for "expected X, got Y": "an object", "an empty
// array", "null", "boolean true", "string \"x\"", "number 3"; a long value
// is cut so that one bad value cannot flood the terminal.
std::string DescribeJson(const nlohmann::json& value);

// Bounds of a number, each inclusive unless marked open.
struct NumberBounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;

  bool Contain(double x) const {
    return (min_open ? x > min : x >= min) && (max_open ? x < max : x <= max);
  }
};

// Typed access to the values of one file, each checked, each error an
// InvalidArgument InputError naming the file, the value's JSON pointer and
// what was expected. Every method takes a value and its location; the
// member methods take an object, its pointer and a key.
class JsonReader {
 public:
  using Json = nlohmann::json;

  // `file` names the input in messages, as the user gave it.
  explicit JsonReader(std::string_view file) : file_(file) {}

  const std::string& file() const { return file_; }

  // InputError(file, pointer, what).
  absl::Status Error(const JsonLocation& at, std::string_view what) const;
  // "expected <expected>, got <DescribeJson(got)>".
  absl::Status Expected(const JsonLocation& at, std::string_view expected,
                        const Json& got) const;

  // "expected an object" (or `expected`), unless `v` is one.
  absl::Status Object(const Json& v, const JsonLocation& at,
                      std::string_view expected = "an object") const;
  // "expected an array" (or `expected`), unless `v` is one.
  absl::Status Array(const Json& v, const JsonLocation& at,
                     std::string_view expected = "an array") const;

  // Member `key` of `obj`, the object at `pointer`: refused when `obj` is
  // not an object, and at pointer/key with `required key "key" is missing`.
  absl::StatusOr<const Json*> Required(const Json& obj,
                                       std::string_view pointer,
                                       std::string_view key) const;
  // Member `key` of `obj`, or nullptr when it has none (or `obj` is not an
  // object).
  static const Json* Optional(const Json& obj, std::string_view key);

  absl::StatusOr<std::string> String(const Json& v,
                                     const JsonLocation& at) const;
  // A string that is not "".
  absl::StatusOr<std::string> NonEmptyString(const Json& v,
                                             const JsonLocation& at) const;
  // Required() then String() of it.
  absl::StatusOr<std::string> RequiredString(const Json& obj,
                                             std::string_view pointer,
                                             std::string_view key) const;
  absl::StatusOr<bool> Bool(const Json& v, const JsonLocation& at) const;

  // Member `key` of `obj` (the object at `pointer`) read into `out` when
  // `obj` has it; `out` is left as it is when not.
  absl::Status OptionalString(const Json& obj, std::string_view pointer,
                              std::string_view key, std::string& out) const;
  absl::Status OptionalBool(const Json& obj, std::string_view pointer,
                            std::string_view key, bool& out) const;
  absl::Status OptionalStringArray(const Json& obj, std::string_view pointer,
                                   std::string_view key,
                                   std::vector<std::string>& out) const;

  // An integer in [min, max]. A number with no fraction counts as an
  // integer (5.0, 1e3), as in JSON Schema; 1e300 is then out of range
  // rather than "not an integer", the more useful thing to say.
  // `expected` names what is wanted ("a positive integer"); by default
  // "an integer from <min> to <max>" ("an integer" for the whole range).
  absl::StatusOr<int64_t> Int(const Json& v, const JsonLocation& at,
                              int64_t min, int64_t max,
                              std::string_view expected = {}) const;
  // An integer from 0 to 2^64 - 1, read the same way.
  absl::StatusOr<uint64_t> Uint(const Json& v, const JsonLocation& at) const;
  // A finite number within `bounds`; `expected` names what is wanted.
  absl::StatusOr<double> Number(const Json& v, const JsonLocation& at,
                                const NumberBounds& bounds = {},
                                std::string_view expected = "a number") const {
    // Inline: a results file holds millions of samples.
    if (v.is_number()) {
      const double x = v.get<double>();
      if (std::isfinite(x) && bounds.Contain(x)) return x;
    }
    return Expected(at, expected, v);
  }

  // The index in `names` of the string `v`. Refused with `expected a
  // <what> string: one of ...` for another kind of value, and `unknown
  // <what> "x"; expected one of ...` for another string.
  absl::StatusOr<size_t> Enum(const Json& v, const JsonLocation& at,
                              std::string_view what,
                              std::span<const std::string_view> names) const;

  // An array of strings; `expected` names it ("an array of tile ids").
  absl::StatusOr<std::vector<std::string>> StringArray(
      const Json& v, const JsonLocation& at,
      std::string_view expected = "an array of strings") const;

  // Refuses `obj` (at `pointer`) unless it is an object whose keys are all
  // in `allowed`: `unknown key "k" in <what>; allowed keys: ...`, at the
  // key. A key in `known` (one that exists elsewhere in the format) is
  // misplaced rather than misspelt: `key "k" does not apply to <what>`.
  absl::Status CheckKeys(const Json& obj, std::string_view pointer,
                         std::span<const std::string_view> allowed,
                         std::string_view what,
                         std::span<const std::string_view> known = {}) const;

  // Member "schema_version" of `obj`: an integer equal to `supported`,
  // else `unsupported schema_version N; this trnbench reads M`.
  absl::Status SchemaVersion(const Json& obj, std::string_view pointer,
                             int64_t supported) const;

 private:
  std::string file_;
};

// "a, b, c": the names a message lists.
std::string JoinNames(std::span<const std::string_view> names);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_JSON_READER_H_
