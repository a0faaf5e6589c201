#include "device_model/program.h"

#include <cstdio>
#include <cstdlib>

namespace trn {

uint32_t Kernel::Intern(const std::string& s) {
  for (uint32_t i = 0; i < strings.size(); ++i) {
    if (strings[i] == s) return i;
  }
  strings.push_back(s);
  return static_cast<uint32_t>(strings.size() - 1);
}

uint32_t Kernel::Add(Instruction instr, const uint32_t* dep_ids, size_t n) {
  instr.deps_begin = static_cast<uint32_t>(deps.size());
  AppendDeps(dep_ids, n);
  instr.deps_end = static_cast<uint32_t>(deps.size());
  instrs.Append(instr);
  return static_cast<uint32_t>(instrs.size() - 1);
}

uint32_t Kernel::AddFormGrowing(uint32_t form, int32_t iteration,
                                const uint32_t* dep_ids, size_t n) {
  const auto begin = static_cast<uint32_t>(deps.size());
  AppendDeps(dep_ids, n);
  instrs.AppendForm(form, iteration, begin, static_cast<uint32_t>(deps.size()));
  return static_cast<uint32_t>(instrs.size() - 1);
}

size_t InstructionList::FormHash::operator()(const Instruction& in) const {
  // 64-bit FNV-1a style mixing of the fields, in a fixed order.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<uint64_t>(in.work));
  mix(static_cast<uint64_t>(in.aux));
  mix(in.opcode);
  mix(in.label);
  mix(static_cast<uint32_t>(in.source_line));
  mix(static_cast<uint32_t>(in.partitions));
  mix(static_cast<uint64_t>(in.kind) << 8 | static_cast<uint64_t>(in.engine));
  return static_cast<size_t>(h ^ (h >> 29));
}

void InstructionList::Append(const Instruction& in) {
  Instruction form = in;
  form.iteration = -1;
  form.deps_begin = 0;
  form.deps_end = 0;
  uint32_t& recent = recent_[(in.opcode * 31u + in.label * 7u +
                              static_cast<uint32_t>(in.source_line)) %
                             kRecent];
  if (recent == kNoForm || !(forms_[recent] == form)) {
    auto [it, added] =
        form_ids_.try_emplace(form, static_cast<uint32_t>(forms_.size()));
    if (added) forms_.push_back(form);
    recent = it->second;
  }
  entries_.push_back({recent, in.iteration, in.deps_begin});
  deps_end_ = in.deps_end;
}

void InstructionList::Release() {
  std::vector<Entry>().swap(entries_);
  std::vector<Instruction>().swap(forms_);
  decltype(form_ids_)().swap(form_ids_);
  recent_ = Empty();
  deps_end_ = 0;
}

Instruction InstructionList::operator[](size_t i) const {
  if (i >= entries_.size()) {
    std::fprintf(stderr,
                 "trnbench: internal error: instruction %zu read of %zu (were "
                 "the program's instructions released?)\n",
                 i, entries_.size());
    std::abort();
  }
  const Entry& e = entries_[i];
  Instruction in = forms_[e.form];
  in.iteration = e.iteration;
  in.deps_begin = e.deps_begin;
  in.deps_end = DepsEnd(i);
  return in;
}

void Kernel::ReleaseInstructions() {
  instrs.Release();
  std::vector<uint32_t>().swap(deps);
}

void Program::ReleaseInstructions() {
  for (Dispatch& d : dispatches) d.kernel.ReleaseInstructions();
}

int64_t Program::InstructionCount() const {
  int64_t n = 0;
  for (const auto& d : dispatches)
    n += static_cast<int64_t>(d.kernel.instrs.size());
  return n;
}

}  // namespace trn
