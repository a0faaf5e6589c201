// The compact instruction store: what goes in comes back, field by field,
// and alike instructions share one form.
#include "device_model/program.h"

#include <vector>

#include "gtest/gtest.h"

namespace trn {
namespace {

Instruction Load(Kernel& k, int64_t bytes) {
  Instruction in;
  in.kind = InstrKind::kDma;
  in.partitions = 128;
  in.work = bytes;
  in.aux = 128;
  in.contiguous_rows = true;
  in.opcode = k.Intern("dma_load");
  in.label = k.Intern("in_tensor");
  in.source_line = 24;
  return in;
}

TEST(InstructionListTest, EveryFieldComesBack) {
  Kernel k;
  Instruction c;
  c.kind = InstrKind::kCompute;
  c.engine = Engine::kScalar;
  c.rule = CostRule::kAccumulate;
  c.dtype = DType::kBf16;
  c.psum_operand = true;
  c.narrow_dtype = true;
  c.partitions = 96;
  c.work = 5'000'000'000;  // beyond 32 bits
  c.aux = 7;
  c.flops = 123'456'789'012;
  c.opcode = k.Intern("activation");
  c.label = k.Intern("tile");
  c.source_line = 31;
  c.iteration = 41;
  Instruction d = Load(k, 65536);
  d.transpose = true;
  d.indirect = true;
  d.hbm_to_hbm = true;
  k.Add(d, {});
  k.Add(c, {0});
  ASSERT_EQ(k.instrs.size(), 2u);
  const Instruction got = k.instrs[1];
  EXPECT_EQ(got.kind, InstrKind::kCompute);
  EXPECT_EQ(got.engine, Engine::kScalar);
  EXPECT_EQ(got.rule, CostRule::kAccumulate);
  EXPECT_EQ(got.dtype, DType::kBf16);
  EXPECT_TRUE(got.psum_operand);
  EXPECT_TRUE(got.narrow_dtype);
  EXPECT_FALSE(got.transpose);
  EXPECT_EQ(got.partitions, 96);
  EXPECT_EQ(got.work, 5'000'000'000);
  EXPECT_EQ(got.aux, 7);
  EXPECT_EQ(got.flops, 123'456'789'012);
  EXPECT_EQ(k.strings[got.opcode], "activation");
  EXPECT_EQ(k.strings[got.label], "tile");
  EXPECT_EQ(got.source_line, 31);
  EXPECT_EQ(got.iteration, 41);
  EXPECT_EQ(got.deps_begin, 0u);
  EXPECT_EQ(got.deps_end, 1u);
  const Instruction first = k.instrs[0];
  EXPECT_TRUE(first.transpose);
  EXPECT_TRUE(first.indirect);
  EXPECT_TRUE(first.hbm_to_hbm);
  EXPECT_TRUE(first.contiguous_rows);
  EXPECT_EQ(first.deps_begin, first.deps_end);
}

TEST(InstructionListTest, AlikeInstructionsShareAFormAndKeepTheirOwnDeps) {
  Kernel k;
  // A tiled loop: the same load 100 times, each waiting for the one
  // before, and a last, smaller tile.
  for (int i = 0; i < 100; ++i) {
    Instruction in = Load(k, 262144);
    in.iteration = i;
    k.Add(in, i == 0 ? std::vector<uint32_t>{}
                     : std::vector<uint32_t>{static_cast<uint32_t>(i - 1)});
  }
  k.Add(Load(k, 1024), {99, 98});
  EXPECT_EQ(k.instrs.size(), 101u);
  EXPECT_EQ(k.instrs.forms(), 2u);
  for (uint32_t i = 1; i < 100; ++i) {
    const Instruction in = k.instrs[i];
    EXPECT_EQ(in.iteration, static_cast<int32_t>(i));
    ASSERT_EQ(in.deps_end - in.deps_begin, 1u);
    EXPECT_EQ(k.deps[in.deps_begin], i - 1);
  }
  const Instruction last = k.instrs.back();
  EXPECT_EQ(last.work, 1024);
  EXPECT_EQ(last.iteration, -1);
  ASSERT_EQ(last.deps_end - last.deps_begin, 2u);
  EXPECT_EQ(k.deps[last.deps_begin], 99u);
  // Iteration gives them in order, as indexing does.
  uint32_t i = 0;
  for (const Instruction& in : k.instrs) {
    EXPECT_EQ(in.deps_begin, k.instrs[i].deps_begin);
    ++i;
  }
  EXPECT_EQ(i, 101u);
}

TEST(InstructionListTest, FormsAlternatingInOneSlotStayApart) {
  // Two loads of the same opcode, label and line (one slot of the list's
  // recent forms) but different sizes, in turn, then a third size: each
  // keeps its own form, numbered in first-seen order, and every
  // instruction reads back its own size, whether its form was found among
  // the recent ones or in the table.
  Kernel k;
  const int64_t sizes[] = {262144, 1024, 262144, 1024, 4096, 262144, 4096};
  for (int i = 0; i < 7; ++i) {
    Instruction in = Load(k, sizes[i]);
    in.iteration = i;
    k.Add(in, {});
  }
  EXPECT_EQ(k.instrs.forms(), 3u);
  for (uint32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(k.instrs[i].work, sizes[i]) << i;
    EXPECT_EQ(k.instrs[i].iteration, static_cast<int32_t>(i));
  }
  // Released and refilled: nothing recent survives the release.
  k.instrs.Release();
  k.deps.clear();
  k.Add(Load(k, 1024), {});
  EXPECT_EQ(k.instrs.forms(), 1u);
  EXPECT_EQ(k.instrs[0].work, 1024);
}

TEST(InstructionListTest, FormsAndDepsReadWithoutRebuilding) {
  // What KernelSim and Simulator::Create read per instruction without
  // rebuilding it: its form (numbered in first-seen order, equal to the
  // instruction less its iteration and dependencies) and its dependency
  // range, the last instruction's included.
  Kernel k;
  const int64_t sizes[] = {262144, 1024, 262144, 4096};
  for (int i = 0; i < 4; ++i) {
    Instruction in = Load(k, sizes[i]);
    in.iteration = 10 + i;
    std::vector<uint32_t> deps;
    for (int d = 0; d < i; ++d) deps.push_back(static_cast<uint32_t>(d));
    k.Add(in, deps);
  }
  const uint32_t want_form[] = {0, 1, 0, 2};
  for (uint32_t i = 0; i < 4; ++i) {
    const Instruction whole = k.instrs[i];
    EXPECT_EQ(k.instrs.FormOf(i), want_form[i]) << i;
    Instruction form = whole;
    form.iteration = -1;
    form.deps_begin = 0;
    form.deps_end = 0;
    EXPECT_EQ(k.instrs.Form(k.instrs.FormOf(i)), form) << i;
    EXPECT_EQ(k.instrs.DepsBegin(i), whole.deps_begin) << i;
    EXPECT_EQ(k.instrs.DepsEnd(i), whole.deps_end) << i;
    EXPECT_EQ(k.instrs.DepsEnd(i) - k.instrs.DepsBegin(i), i) << i;
  }
  EXPECT_EQ(k.instrs.DepsEnd(3), k.deps.size());
}

TEST(InstructionListTest, AddFormIsAddWithOrWithoutRoom) {
  // AddForm appends in place when both lists have room and grows them
  // first (AddFormGrowing) when either has none: either way the program
  // is what Add of the whole instruction makes. Every list size from
  // empty is crossed (no room reserved), then the same with room.
  for (const bool reserve : {false, true}) {
    Kernel by_add;
    Kernel by_form;
    if (reserve) {
      by_form.instrs.reserve(64);
      by_form.deps.reserve(256);
    }
    const Instruction first = Load(by_add, 262144);
    by_add.Add(first, {});
    by_form.Intern("dma_load");
    by_form.Intern("in_tensor");
    by_form.Add(first, {});
    for (uint32_t i = 1; i < 40; ++i) {
      // 0 to 4 dependencies, so that the dependencies' room runs out on
      // appends of several as well as of one.
      std::vector<uint32_t> deps;
      for (uint32_t d = 0; d < i % 5 && d < i; ++d) deps.push_back(i - 1 - d);
      Instruction in = first;
      in.iteration = static_cast<int32_t>(i);
      const uint32_t want = by_add.Add(in, deps);
      const size_t deps_before = by_form.deps.size();
      EXPECT_EQ(
          by_form.AddForm(0, static_cast<int32_t>(i), deps.data(), deps.size()),
          want)
          << reserve << " " << i;
      EXPECT_EQ(by_form.deps.size(), deps_before + deps.size());
    }
    ASSERT_EQ(by_form.instrs.size(), by_add.instrs.size());
    EXPECT_EQ(by_form.deps, by_add.deps) << reserve;
    EXPECT_EQ(by_form.instrs.forms(), 1u);
    for (uint32_t i = 0; i < by_add.instrs.size(); ++i) {
      EXPECT_EQ(by_form.instrs[i], by_add.instrs[i]) << reserve << " " << i;
      EXPECT_EQ(by_form.instrs.DepsEnd(i), by_add.instrs.DepsEnd(i));
    }
  }
}

}  // namespace
}  // namespace trn
