#include "tools/trnbench/commands.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace trn {
namespace {

// The plain run comes first; the rest in the order `--help` lists them.
const std::array<const CommandInfo*, 8> kCommands = {
    &kRunCommand,     &kListCommand,   &kGateCommand,     &kCompareCommand,
    &kProfileCommand, &kImportCommand, &kValidateCommand, &kCalibrateCommand};

}  // namespace

const CommandInfo* FindCommand(std::string_view name) {
  for (const CommandInfo* c : kCommands) {
    if (c->name == name) return c;
  }
  return nullptr;
}

bool IsCommandName(std::string_view name) {
  return !name.empty() && FindCommand(name) != nullptr;
}

bool CommandTakesPositional(std::string_view name) {
  const CommandInfo* c = FindCommand(name);
  return c != nullptr && c->takes_positional;
}

std::string CommandNameList() {
  std::string out;
  for (const CommandInfo* c : kCommands) {
    if (c->name.empty()) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", std::string(c->name));
  }
  return out;
}

}  // namespace trn
