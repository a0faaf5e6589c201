#include "device_model/program.h"

namespace trn {

uint32_t Kernel::Intern(const std::string& s) {
  for (uint32_t i = 0; i < strings.size(); ++i) {
    if (strings[i] == s) return i;
  }
  strings.push_back(s);
  return static_cast<uint32_t>(strings.size() - 1);
}

uint32_t Kernel::Add(Instruction instr, const std::vector<uint32_t>& dep_ids) {
  instr.deps_begin = static_cast<uint32_t>(deps.size());
  deps.insert(deps.end(), dep_ids.begin(), dep_ids.end());
  instr.deps_end = static_cast<uint32_t>(deps.size());
  instrs.push_back(instr);
  return static_cast<uint32_t>(instrs.size() - 1);
}

int64_t Program::InstructionCount() const {
  int64_t n = 0;
  for (const auto& d : dispatches)
    n += static_cast<int64_t>(d.kernel.instrs.size());
  return n;
}

}  // namespace trn
