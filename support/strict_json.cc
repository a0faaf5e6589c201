#include "support/strict_json.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
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
                    const JsonShape* shape, JsonElementSink* sink)
      : label_(label), depth_note_(depth_note), shape_(shape), sink_(sink) {}

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
  // Strings and keys are copied, not moved: the copy is one allocation
  // of the right size, while a moved-from buffer leaves the lexer to grow
  // a new one character by character for the next long string.
  bool string(string_t& v) { return skipping_ ? SkipScalar() : Add(Json(v)); }
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
    if (f.shape != nullptr) {
      const JsonShape* child = nullptr;
      if (!f.shape->Find(k, child)) {
        f.skipped_key = k;
        f.slot = nullptr;
        // Not stored, but still once per object: a second copy could be
        // read differently by another tool.
        if (!f.skipped.insert(k).second) return Duplicate(k);
        skipping_ = true;
        return true;
      }
      f.child_shape = child;
    }
    // The slot is made here, with the key's one lookup: a second copy of
    // the key finds it taken. The value always follows (or the parse
    // fails and the tree is dropped).
    auto [it, inserted] = f.node->get_ref<Json::object_t&>().try_emplace(k);
    f.slot = &it->second;
    f.kept_key = &it->first;
    if (!inserted) return Duplicate(it->first);
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
    // Objects: the value being read and its key in `node`; or, for a
    // value that is not kept, nullptr and the key in `skipped_key`.
    Json* slot = nullptr;
    const std::string* kept_key = nullptr;
    std::string skipped_key;
    int64_t index = -1;  // arrays: the index of the value being read
    // What is kept below (nullptr: everything), and of the value under
    // `key`.
    const JsonShape* shape = nullptr;
    const JsonShape* child_shape = nullptr;
    absl::flat_hash_set<std::string> skipped;  // keys of values not kept
    // Which of array_buffers_ holds the elements of the innermost array
    // at or above this frame (0: none).
    size_t array_depth = 0;
    // An array whose elements go to the sink.
    bool streamed = false;
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
      std::vector<Json>& elements = ArrayBuffer();
      // A new element: the one before it is complete.
      if (f.streamed) SendElement(f.index - 1);
      elements.push_back(std::move(v));
      return &elements.back();
    }
    *f.slot = std::move(v);
    return f.slot;
  }

  // The elements of the innermost open array, collected here and moved
  // into the array when it closes: one allocation per array instead of
  // one per doubling (a 10-sample array took five). Only the innermost
  // array's buffer grows, so the open elements of the outer ones stay put.
  std::vector<Json>& ArrayBuffer() {
    return array_buffers_[frames_.back().array_depth];
  }

  // Hands the buffered element of the streamed array, if any, to the sink.
  void SendElement(int64_t index) {
    std::vector<Json>& elements = ArrayBuffer();
    if (elements.empty()) return;
    sink_->Element(static_cast<size_t>(index), std::move(elements.back()));
    elements.clear();
  }

  // Whether the array about to open is the one the sink asked for: under
  // its key in the root object.
  bool StreamsNext() const {
    if (sink_ == nullptr || frames_.size() != 1) return false;
    const Frame& root = frames_.front();
    return root.node->is_object() && root.slot != nullptr &&
           *root.kept_key == sink_->key() && sink_->Open(root_);
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
    const bool array = container.is_array();
    const bool streamed = array && StreamsNext();
    Json* node = Put(std::move(container));
    Frame frame;
    frame.node = node;
    frame.shape = shape;
    frame.streamed = streamed;
    frame.array_depth = frames_.empty() ? 0 : frames_.back().array_depth;
    if (array) {
      frame.array_depth += 1;
      if (array_buffers_.size() <= frame.array_depth) {
        array_buffers_.resize(frame.array_depth + 1);
      }
    }
    frames_.push_back(std::move(frame));
    return true;
  }

  bool Close() {
    if (frames_.back().streamed) SendElement(frames_.back().index);
    if (frames_.back().node->is_array()) {
      std::vector<Json>& elements = ArrayBuffer();
      Json::array_t& array = frames_.back().node->get_ref<Json::array_t&>();
      array.reserve(elements.size());
      std::move(elements.begin(), elements.end(), std::back_inserter(array));
      elements.clear();
    }
    frames_.pop_back();
    return true;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.node->is_object()) {
        absl::StrAppendFormat(
            &path, "/%s",
            EscapeJsonPointerToken(f.slot != nullptr ? *f.kept_key
                                                     : f.skipped_key));
      } else if (f.index >= 0) {
        absl::StrAppendFormat(&path, "/%d", f.index);
      }
    }
    return path;
  }

  std::string label_;
  std::string depth_note_;
  const JsonShape* shape_;
  JsonElementSink* sink_;
  bool skipping_ = false;
  size_t skip_open_ = 0;
  Json root_;
  std::vector<Frame> frames_;
  std::vector<std::vector<Json>> array_buffers_ =
      std::vector<std::vector<Json>>(1);
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

void ReleaseJsonTree(Json& tree) {
  if (tree.is_array()) {
    Json::array_t& elements = tree.get_ref<Json::array_t&>();
    for (Json& e : elements) ReleaseJsonTree(e);
    elements.clear();
  } else if (tree.is_object()) {
    Json::object_t& members = tree.get_ref<Json::object_t&>();
    for (auto& [key, value] : members) ReleaseJsonTree(value);
    members.clear();
  }
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
                                     const JsonShape* shape,
                                     JsonElementSink* sink) {
  StrictTreeBuilder builder(label, depth_note, shape, sink);
  if (!Json::sax_parse(text, &builder)) {
    if (!builder.status().ok()) return builder.status();
    return Refuse(label, "", "malformed JSON");
  }
  return builder.TakeRoot();
}

}  // namespace trn
