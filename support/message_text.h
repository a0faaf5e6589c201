// Error messages quote what the user wrote (keys, names, values, file
// names). These keep such quotes from breaking the one-line message the
// command line prints, whatever the input holds.
#ifndef TRNBENCH_SUPPORT_MESSAGE_TEXT_H_
#define TRNBENCH_SUPPORT_MESSAGE_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace trn {

// `text` with every control character (U+0000 to U+001F, and DEL) written
// as a JSON escape (\n, \t, \r, \u001b, ...): a newline in a quoted key
// cannot split the message and an escape sequence cannot reach the
// terminal. Everything else, including non-ASCII UTF-8, is kept.
std::string EscapeControl(std::string_view text);

// A run of non-blank characters longer than this is an echoed value rather
// than prose; a line longer than kMaxMessageLineBytes is cut.
inline constexpr size_t kMaxEchoBytes = 256;
inline constexpr size_t kMaxMessageLineBytes = 2048;

// One line of an error message as the command line prints it: control
// characters escaped, every run of non-blank characters longer than
// kMaxEchoBytes (a huge key or name echoed from the input) cut to its head
// and tail with the number of bytes left out, and the line as a whole cut
// the same way to at most kMaxMessageLineBytes. The head names the input
// and the tail says what was expected, so both are kept. Cuts fall on
// UTF-8 character boundaries.
std::string ShortenForTerminal(std::string_view line);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_MESSAGE_TEXT_H_
