// One strict JSON reader for every file trnbench reads (specs, device
// profiles, baselines, results), so that all of them refuse the same
// things with the same kind of message.
#ifndef TRNBENCH_SUPPORT_STRICT_JSON_H_
#define TRNBENCH_SUPPORT_STRICT_JSON_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace trn {

// The deepest nesting any trnbench file needs is well under this; deeper
// input is refused before a tree is built.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text` as one JSON document. Besides malformed JSON it refuses
// what nlohmann would otherwise accept silently: a key that appears twice
// in one object (nlohmann keeps the last, so a file could say two things
// and be read as one), and nesting deeper than kMaxJsonDepth. Errors are
// InvalidArgument("<label>: <JSON pointer, '/' for the document>: <what>"),
// with control characters escaped; `depth_note`, when given, is appended
// to the nesting message to say what the file should look like.
//
// `shape`, when given, says which values are built into the tree; the rest
// is checked (syntax, depth, one copy of each key) but never stored, so a
// reader that knows its fields reads a file in memory proportional to what
// it uses: 20 million `{}` under an unknown key cost 2.2 GB as a tree.
//
// `sink`, when given, may take the elements of one array of the root
// object as they are parsed (see JsonElementSink).
struct JsonShape;
class JsonElementSink;
absl::StatusOr<nlohmann::json> ParseStrictJson(std::string_view text,
                                               std::string_view label,
                                               std::string_view depth_note = {},
                                               const JsonShape* shape = nullptr,
                                               JsonElementSink* sink = nullptr);

// Takes each element of the array under key() of the root object as soon
// as it is parsed, so that a reader can use it and drop it: a file of
// 100k workloads then never exists as one tree (which cost more time in
// page faults and freeing than the reading itself). Elements still go
// through every check of ParseStrictJson; a parse that fails later still
// returns its error, so what an element was found to hold counts only
// when the parse succeeds.
class JsonElementSink {
 public:
  virtual ~JsonElementSink() = default;
  // The root object's key of the array.
  virtual std::string_view key() const = 0;
  // Called when that array opens, with the root object as parsed so far:
  // the kept keys before it, and this key with a null value. Returns
  // whether to take the elements; if not, they are kept in the tree. If
  // so, the tree holds an empty array in their place.
  virtual bool Open(const nlohmann::json& root) = 0;
  // Element `index`, complete, with its shape applied.
  virtual void Element(size_t index, nlohmann::json&& element) = 0;
};

// What a reader keeps of an object, and below it. A shape of nullptr keeps
// a value whole.
struct JsonShape {
  // Kept keys, each with the shape of its value.
  std::vector<std::pair<std::string_view, const JsonShape*>> fields = {};
  // Keep every other key too, with shape `any`.
  bool any_key = false;
  const JsonShape* any = nullptr;
  // For arrays: the shape of each element.
  const JsonShape* elements = nullptr;
  // A scalar belongs here: an object or array is stored as null, unread.
  bool scalar = false;

  // Whether `key` is kept, and the shape of its value.
  bool Find(std::string_view key, const JsonShape*& child) const;
};

// Empties `tree` leaves first; for trees of ParseStrictJson, whose depth
// is at most kMaxJsonDepth. nlohmann's destructor moves the children of
// every container onto a stack vector of its own before freeing them,
// which was a quarter of the time to read a results file of 100k
// workloads; emptied bottom-up, no container has children left to move.
void ReleaseJsonTree(nlohmann::json& tree);

// `token` as one reference token of a JSON pointer (RFC 6901): '~' is
// written "~0" and '/' "~1", so a key holding a slash names one level.
std::string EscapeJsonPointerToken(std::string_view token);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_STRICT_JSON_H_
