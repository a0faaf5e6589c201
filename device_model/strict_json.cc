#include "device_model/strict_json.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "device_model/message_text.h"

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

// A first pass that builds nothing. It is separate from the DOM parse
// because nlohmann's parser callback, which could do the same, rescans the
// parent container at every object end: quadratic in the length of an
// array of objects.
class PrecheckSax {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  PrecheckSax(std::string_view label, std::string_view depth_note)
      : label_(label), depth_note_(depth_note) {}

  bool null() { return Value(); }
  bool boolean(bool /*unused*/) { return Value(); }
  bool number_integer(number_integer_t /*unused*/) { return Value(); }
  bool number_unsigned(number_unsigned_t /*unused*/) { return Value(); }
  bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) {
    return Value();
  }
  bool string(string_t& /*unused*/) { return Value(); }
  bool binary(binary_t& /*unused*/) { return Value(); }
  bool start_object(std::size_t /*unused*/) { return Open(true); }
  bool start_array(std::size_t /*unused*/) { return Open(false); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) {
      status_ = Refuse(label_, Path(),
                       absl::StrFormat("duplicate key \"%s\"; each key may "
                                       "appear once in an object",
                                       k));
      return false;
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

 private:
  struct Frame {
    bool is_object = false;
    std::string key;
    int64_t index = -1;
    std::set<std::string> keys;
  };

  bool Value() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
    return true;
  }

  bool Open(bool is_object) {
    Value();
    if (frames_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      std::string what =
          absl::StrFormat("JSON nested deeper than %d levels", kMaxJsonDepth);
      if (!depth_note_.empty())
        absl::StrAppendFormat(&what, "; %s", depth_note_);
      status_ = Refuse(label_, Path(), what);
      return false;
    }
    frames_.push_back(Frame{is_object, "", -1, {}});
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.is_object) {
        absl::StrAppendFormat(&path, "/%s", EscapeJsonPointerToken(f.key));
      } else if (f.index >= 0) {
        absl::StrAppendFormat(&path, "/%d", f.index);
      }
    }
    return path;
  }

  std::string label_;
  std::string depth_note_;
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

absl::StatusOr<Json> ParseStrictJson(std::string_view text,
                                     std::string_view label,
                                     std::string_view depth_note) {
  PrecheckSax precheck(label, depth_note);
  if (!Json::sax_parse(text, &precheck)) {
    if (!precheck.status().ok()) return precheck.status();
    return Refuse(label, "", "malformed JSON");
  }
  // The pre-check accepted the text, so this parse cannot fail; no
  // exceptions, in case a later nlohmann disagrees.
  Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Refuse(label, "", "malformed JSON");
  return root;
}

}  // namespace trn
