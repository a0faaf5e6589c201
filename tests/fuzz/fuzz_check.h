// What every fuzz target demands of the loaders beyond "does not crash": a
// refusal is the documented kind of error, readable as one line, and a
// value that is accepted can be used downstream without surprises.
#ifndef TRNBENCH_TESTS_FUZZ_FUZZ_CHECK_H_
#define TRNBENCH_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "support/message_text.h"

namespace trn::fuzz {

// The source tree, for the shipped profile and specs the targets use.
#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif
inline std::string SourcePath(std::string_view relative) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/" + std::string(relative);
}

// libFuzzer reports an abort with the input that caused it, which is what a
// broken property should give.
[[noreturn]] inline void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz property violated: %.*s\n  %.*s\n",
               static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size() > 4096 ? 4096 : detail.size()),
               detail.data());
  std::abort();
}

inline void Require(bool ok, std::string_view what, std::string_view detail) {
  if (!ok) Fail(what, detail);
}

// The CLI prints a refusal as "trnbench: error: " + ShortenForTerminal(
// message), one line per problem. So a message must name the input first
// and hold no control character: the loaders escape what they quote (a
// newline would split the line, an escape sequence would reach the
// terminal), and the shortened line is bounded.
inline void CheckRefusal(const absl::Status& status, std::string_view label) {
  const std::string message(status.message());
  Require(status.code() == absl::StatusCode::kInvalidArgument,
          "a refusal is InvalidArgument", status.ToString());
  Require(message.rfind(std::string(label) + ": ", 0) == 0,
          "a refusal starts with the input's name", message);
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      Fail("a refusal is one printable line", EscapeControl(message));
    }
  }
  const std::string shown = ShortenForTerminal(message);
  Require(shown.size() <= kMaxMessageLineBytes,
          "the printed refusal is at most kMaxMessageLineBytes long",
          shown.substr(0, 300));
  Require(shown.rfind(std::string(label) + ": ", 0) == 0,
          "the printed refusal still starts with the input's name", shown);
}

inline void CheckFinite(double x, std::string_view what) {
  Require(std::isfinite(x), "a value derived from accepted input is finite",
          what);
}

}  // namespace trn::fuzz

#endif  // TRNBENCH_TESTS_FUZZ_FUZZ_CHECK_H_
