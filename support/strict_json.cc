#include "support/strict_json.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "support/message_text.h"

namespace trn {
namespace {

using Json = nlohmann::json;

absl::Status Refuse(std::string_view label, std::string_view path,
                    std::string_view what) {
  // Escaped: `path` and `what` may quote keys of the input.
  return absl::InvalidArgumentError(EscapeControl(
      absl::StrFormat("%s: %s: %s", label, path.empty() ? "/" : path, what)));
}

// nlohmann's messages start with "[json.exception.parse_error.101] ",
// which says nothing to the author of the file.
std::string StripExceptionId(std::string_view what) {
  if (!what.empty() && what[0] == '[') {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

// nlohmann's own tree builder, but refusing a repeated key (which it
// would silently collapse to the last) and nesting past kMaxJsonDepth,
// each with its JSON pointer. One pass: checking in a separate pass cost
// a third more time on a 37 MB results file, and nlohmann's parser
// callback, which could also check, rescans the parent container at every
// object end (quadratic in the length of an array of objects).
class StrictTreeBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  StrictTreeBuilder(std::string_view label, std::string_view depth_note,
                    const JsonShape* shape)
      : label_(label), depth_note_(depth_note), shape_(shape) {}

  bool null() { return skipping_ ? SkipScalar() : Add(nullptr); }
  bool boolean(bool v) { return skipping_ ? SkipScalar() : Add(v); }
  bool number_integer(number_integer_t v) {
    return skipping_ ? SkipScalar() : Add(v);
  }
  bool number_unsigned(number_unsigned_t v) {
    return skipping_ ? SkipScalar() : Add(v);
  }
  bool number_float(number_float_t v, const string_t& /*unused*/) {
    return skipping_ ? SkipScalar() : Add(v);
  }
  bool string(string_t& v) {
    return skipping_ ? SkipScalar() : Add(std::move(v));
  }
  bool binary(binary_t& v) {
    return skipping_ ? SkipScalar() : Add(Json::binary(std::move(v)));
  }
  bool start_object(std::size_t /*unused*/) {
    return skipping_ ? SkipOpen() : Open(Json::object());
  }
  bool start_array(std::size_t /*unused*/) {
    return skipping_ ? SkipOpen() : Open(Json::array());
  }
  bool end_object() { return skipping_ ? SkipClose() : Close(); }
  bool end_array() { return skipping_ ? SkipClose() : Close(); }

  bool key(string_t& k) {
    if (skipping_) return true;  // inside a value that is not kept
    Frame& f = frames_.back();
    f.key = k;
    if (f.shape != nullptr) {
      const JsonShape* child = nullptr;
      if (!f.shape->Find(k, child)) {
        // Not stored, but still once per object: a second copy could be
        // read differently by another tool.
        if (!f.skipped.insert(k).second) return Duplicate(k);
        skipping_ = true;
        return true;
      }
      f.child_shape = child;
    }
    if (f.node->contains(k)) {
      return Duplicate(k);
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    status_ = Refuse(label_, "",
                     absl::StrFormat("malformed JSON: %s (byte %d)",
                                     StripExceptionId(ex.what()), position));
    return false;
  }

  const absl::Status& status() const { return status_; }
  Json TakeRoot() { return std::move(root_); }

 private:
  // An open object or array. Only the last element of an array is ever
  // open, and elements are added only to the innermost container, so these
  // pointers stay valid.
  struct Frame {
    Json* node = nullptr;
    std::string key;     // objects: the key of the value being read
    int64_t index = -1;  // arrays: the index of the value being read
    // What is kept below (nullptr: everything), and of the value under
    // `key`.
    const JsonShape* shape = nullptr;
    const JsonShape* child_shape = nullptr;
    absl::flat_hash_set<std::string> skipped;  // keys of values not kept
  };

  bool Duplicate(const std::string& k) {
    status_ = Refuse(label_, Path(),
                     absl::StrFormat("duplicate key \"%s\"; each key may "
                                     "appear once in an object",
                                     k));
    return false;
  }

  // A value that is not kept is parsed, so it must be valid JSON within
  // the depth limit, but never stored.
  bool SkipScalar() {
    if (skip_open_ == 0) skipping_ = false;
    return true;
  }
  bool SkipOpen() {
    if (frames_.size() + skip_open_ >= static_cast<size_t>(kMaxJsonDepth)) {
      status_ = Refuse(
          label_, Path(),
          absl::StrFormat("JSON nested deeper than %d levels", kMaxJsonDepth));
      return false;
    }
    ++skip_open_;
    return true;
  }
  bool SkipClose() {
    if (--skip_open_ == 0) skipping_ = false;
    return true;
  }

  // Where the next value goes: the root, the end of the open array, or the
  // open object under the last key.
  Json* Put(Json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    ++f.index;
    if (f.node->is_array()) {
      f.node->push_back(std::move(v));
      return &f.node->back();
    }
    Json& slot = (*f.node)[f.key];
    slot = std::move(v);
    return &slot;
  }

  bool Add(Json&& v) {
    Put(std::move(v));
    return true;
  }

  bool Open(Json&& container) {
    if (frames_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      // The path names the container that goes one level too deep.
      if (!frames_.empty()) ++frames_.back().index;
      std::string what =
          absl::StrFormat("JSON nested deeper than %d levels", kMaxJsonDepth);
      if (!depth_note_.empty()) {
        absl::StrAppendFormat(&what, "; %s", depth_note_);
      }
      status_ = Refuse(label_, Path(), what);
      return false;
    }
    const JsonShape* shape = shape_;
    if (!frames_.empty()) {
      const Frame& parent = frames_.back();
      if (parent.shape == nullptr) {
        shape = nullptr;
      } else {
        shape = parent.node->is_object() ? parent.child_shape
                                         : parent.shape->elements;
      }
    }
    if (shape != nullptr && shape->scalar) {
      // A container where a scalar belongs: stored as null (the reader
      // says what it expected) and its content skipped.
      Put(nullptr);
      skipping_ = true;
      skip_open_ = 1;
      return true;
    }
    Json* node = Put(std::move(container));
    Frame frame;
    frame.node = node;
    frame.shape = shape;
    frames_.push_back(std::move(frame));
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.node->is_object()) {
        absl::StrAppendFormat(&path, "/%s", EscapeJsonPointerToken(f.key));
      } else if (f.index >= 0) {
        absl::StrAppendFormat(&path, "/%d", f.index);
      }
    }
    return path;
  }

  std::string label_;
  std::string depth_note_;
  const JsonShape* shape_;
  bool skipping_ = false;
  size_t skip_open_ = 0;
  Json root_;
  std::vector<Frame> frames_;
  absl::Status status_;
};

}  // namespace

std::string EscapeJsonPointerToken(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

bool JsonShape::Find(std::string_view key, const JsonShape*& child) const {
  for (const auto& [name, shape] : fields) {
    if (name == key) {
      child = shape;
      return true;
    }
  }
  child = any;
  return any_key;
}

absl::StatusOr<Json> ParseStrictJson(std::string_view text,
                                     std::string_view label,
                                     std::string_view depth_note,
                                     const JsonShape* shape) {
  StrictTreeBuilder builder(label, depth_note, shape);
  if (!Json::sax_parse(text, &builder)) {
    if (!builder.status().ok()) return builder.status();
    return Refuse(label, "", "malformed JSON");
  }
  return builder.TakeRoot();
}

}  // namespace trn
