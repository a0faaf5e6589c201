// One strict JSON reader for every file trnbench reads (specs, device
// profiles, baselines, results), so that all of them refuse the same
// things with the same kind of message.
#ifndef TRNBENCH_SUPPORT_STRICT_JSON_H_
#define TRNBENCH_SUPPORT_STRICT_JSON_H_

#include <string>
#include <string_view>

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
absl::StatusOr<nlohmann::json> ParseStrictJson(
    std::string_view text, std::string_view label,
    std::string_view depth_note = {});

// `token` as one reference token of a JSON pointer (RFC 6901): '~' is
// written "~0" and '/' "~1", so a key holding a slash names one level.
std::string EscapeJsonPointerToken(std::string_view token);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_STRICT_JSON_H_
