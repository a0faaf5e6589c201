// How the program ends: exit codes, and the one place that turns a status
// from the libraries into a message on stderr and an exit code.
#ifndef TRNBENCH_TOOLS_TRNBENCH_DIAGNOSTICS_H_
#define TRNBENCH_TOOLS_TRNBENCH_DIAGNOSTICS_H_

#include <iosfwd>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace trn {

// Exit codes, as documented in the README and docs/errors.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;
// Bad usage or bad input, or a place that cannot be read or written (a
// missing file, a folder without permission, a full disk): the message says
// what to fix.
inline constexpr int kExitBadInput = 2;
// A bug in trnbench (absl::StatusCode::kInternal and codes no library
// should return): never reported as bad input.
inline constexpr int kExitInternal = 3;

// `status` with its message prefixed by the flag that gave the value
// ("--set ", "--shape "): the libraries name the parameter, the tool says
// where it came from.
absl::Status FromFlag(absl::string_view flag, const absl::Status& status);

// `message` with each parameter a library names as `name` (backquoted,
// its canonical spelling) written as the flag that sets it: "lower
// `repeat`" -> "lower --repeat". A library does not know which program,
// or which flag, sets its parameters; a backquoted word that is not one of
// this program's flags is left as it is.
std::string WithFlagSpellings(absl::string_view message);

// The exit code for a status that is not OK.
int ExitCodeFor(const absl::Status& status);

// Prints `status` (one line per problem; a spec folder may report several,
// joined by newlines), each line with its parameters spelled as flags,
// control characters escaped and cut to a readable length, and returns
// ExitCodeFor(status).
int Fail(std::ostream& err, const absl::Status& status);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_DIAGNOSTICS_H_
