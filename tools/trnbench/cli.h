// The trnbench program's entry point, over the commands in
// tools/trnbench/*_command.cc.
#ifndef TRNBENCH_TOOLS_TRNBENCH_CLI_H_
#define TRNBENCH_TOOLS_TRNBENCH_CLI_H_

#include <iosfwd>

namespace trn {

// Parses the arguments once, runs one command and returns its exit code
// (tools/trnbench/diagnostics.h).
int RunCli(int argc, const char* const* argv, std::ostream& out,
           std::ostream& err);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_CLI_H_
