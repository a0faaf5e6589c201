// The trnbench command line.
#ifndef TRNBENCH_TOOLS_TRNBENCH_CLI_H_
#define TRNBENCH_TOOLS_TRNBENCH_CLI_H_

#include <iosfwd>

namespace trn {

// Exit codes, as documented in the README.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;
inline constexpr int kExitBadInput = 2;

// Runs one command; returns its exit code. Call once per process: flags are
// process-wide Abseil flags.
int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_CLI_H_
