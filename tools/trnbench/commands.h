// The commands of the trnbench program, one file each, and the registry
// that dispatches to them and knows which flags each takes.
#ifndef TRNBENCH_TOOLS_TRNBENCH_COMMANDS_H_
#define TRNBENCH_TOOLS_TRNBENCH_COMMANDS_H_

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "tools/trnbench/options.h"

namespace trn {

// A command's entry point: reads the parsed options, writes its outputs,
// prints to `out` and `err`, and returns the exit code.
using CommandFn = int (*)(const Options& options, std::ostream& out,
                          std::ostream& err);

struct CommandInfo {
  std::string_view name;  // "" is the plain run
  CommandFn run;
  // The flags the command takes, by canonical name; a flag it does not take
  // is refused, never ignored. Empty: every flag.
  std::span<const std::string_view> flags;
  // Whether words after the command are its arguments (compare's files).
  bool takes_positional = false;
};

// Each defined in its own <name>_command.cc.
extern const CommandInfo kRunCommand;
extern const CommandInfo kGateCommand;
extern const CommandInfo kCompareCommand;
extern const CommandInfo kListCommand;
extern const CommandInfo kProfileCommand;
extern const CommandInfo kImportCommand;
extern const CommandInfo kValidateCommand;
extern const CommandInfo kCalibrateCommand;

// The command named `name`, or nullptr.
const CommandInfo* FindCommand(std::string_view name);
bool IsCommandName(std::string_view name);
bool CommandTakesPositional(std::string_view name);
// "list, gate, compare, profile", for messages.
std::string CommandNameList();

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_COMMANDS_H_
