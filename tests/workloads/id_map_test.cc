// Lowering's id numbering and per-iteration maps (workloads/lowering/
// nki_lowering.h): IdTable gives each string one number, IdMap keeps its
// entries in insertion order and finds them the same way whether it scans
// (few entries) or goes through its hash index (many), and clear() empties
// it for a recycled iteration.
#include <string>

#include "gtest/gtest.h"
#include "workloads/lowering/nki_lowering.h"

namespace trn::lowering_internal {
namespace {

TEST(IdTableTest, NumbersEachStringOnceInFirstSeenOrder) {
  IdTable ids;
  EXPECT_EQ(ids.Of("in_tile"), 0u);
  EXPECT_EQ(ids.Of("mask"), 1u);
  EXPECT_EQ(ids.Of("in_tile"), 0u);
  EXPECT_EQ(ids.Of(""), 2u);  // the empty string is a string like others
  EXPECT_EQ(ids.Of("mask"), 1u);
  EXPECT_EQ(ids.size(), 3u);
}

TEST(IdMapTest, FindsWhatWasInsertedByScanAndByIndex) {
  // Past the scan limit the map builds its index; every entry stays
  // reachable and keeps its value on both sides of that switch.
  IdMap<int> m;
  for (TileId id = 0; id < 40; ++id) {
    EXPECT_EQ(m.find(id * 3), m.end());
    m[id * 3] = static_cast<int>(id) + 100;
    for (TileId k = 0; k <= id; ++k) {
      auto* e = m.find(k * 3);
      ASSERT_NE(e, m.end()) << "id " << k * 3 << " after " << id;
      EXPECT_EQ(e->first, k * 3);
      EXPECT_EQ(e->second, static_cast<int>(k) + 100);
    }
    EXPECT_EQ(m.find(id * 3 + 1), m.end());
  }
  EXPECT_EQ(m.size(), 40u);
  // operator[] on a present id returns that entry, adds nothing.
  m[9] += 1;
  EXPECT_EQ(m.find(9)->second, 104);
  EXPECT_EQ(m.size(), 40u);
}

TEST(IdMapTest, ClearEmptiesItForReuse) {
  IdMap<Deps> m;
  for (TileId id = 0; id < 20; ++id) m[id].push_back(id);
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  for (TileId id = 0; id < 20; ++id) EXPECT_EQ(m.find(id), m.end());
  // Filled again after clear, below the scan limit: no stale index.
  m[7].push_back(70);
  m[3].push_back(30);
  ASSERT_NE(m.find(7), m.end());
  EXPECT_EQ(m.find(7)->second, Deps({70}));
  EXPECT_EQ(m.find(3)->second, Deps({30}));
  EXPECT_EQ(m.find(0), m.end());
  EXPECT_EQ(m.size(), 2u);
}

TEST(IterationTest, ResetGivesANewIterationsState) {
  Iteration it;
  it.index = 5;
  it.tile = 64;
  const Deps entry = {1, 2};
  it.gate = &entry;
  it.OwnGate().push_back(12);
  // Added to, the gate is its own copy: what it pointed at is unchanged.
  EXPECT_EQ(*it.gate, Deps({1, 2, 12}));
  EXPECT_EQ(entry, Deps({1, 2}));
  for (uint32_t i = 0; i < 100; ++i) it.all.push_back(i);
  const size_t all_room = it.all.capacity();
  const uint32_t* all_storage = it.all.data();
  it.made[2].deps = {9};
  it.result.partitions = 128;
  it.copies = 2;
  it.keeps_slots = true;
  it.sub = std::make_shared<BlockSlots>();
  it.track_readers = true;
  it.readers[2] = {10};
  it.spill_saves[4] = 11;
  it.run = 3;
  it.fixed[2] = std::make_shared<FixedUse>();
  // A slotted loop's: two slots, the first made and read.
  it.slot_has = {1, 0};
  it.slot_made.resize(2);
  it.slot_made[0].deps = {13};
  it.slot_readers.resize(2);
  it.slot_readers[0] = {14};
  Iteration other;
  it.prev = &other;
  it.reuse = &other;
  it.Reset();
  const Iteration fresh;
  EXPECT_EQ(it.index, fresh.index);
  EXPECT_EQ(it.tile, fresh.tile);
  EXPECT_EQ(it.gate, nullptr);
  EXPECT_TRUE(it.own_gate.empty());
  EXPECT_TRUE(it.all.empty());
  // Its room is kept: the same heap block, not a new inline one.
  EXPECT_EQ(it.all.capacity(), all_room);
  EXPECT_EQ(it.all.data(), all_storage);
  EXPECT_EQ(it.made.size(), 0u);
  EXPECT_EQ(it.result.partitions, 0);
  EXPECT_EQ(it.prev, nullptr);
  EXPECT_EQ(it.entry, nullptr);
  EXPECT_EQ(it.copies, 0);
  EXPECT_FALSE(it.keeps_slots);
  EXPECT_EQ(it.refill, nullptr);
  EXPECT_EQ(it.sub, nullptr);
  EXPECT_EQ(it.reuse, nullptr);
  EXPECT_FALSE(it.track_readers);
  EXPECT_EQ(it.readers.size(), 0u);
  EXPECT_EQ(it.spill_saves.size(), 0u);
  EXPECT_EQ(it.run, 0);
  EXPECT_EQ(it.fixed.size(), 0u);
  // The slots stay (a slotted loop's next iteration has as many), each
  // not made and unread.
  ASSERT_EQ(it.slot_has.size(), 2u);
  EXPECT_EQ(it.slot_has[0], 0);
  EXPECT_EQ(it.slot_has[1], 0);
  ASSERT_EQ(it.slot_readers.size(), 2u);
  EXPECT_TRUE(it.slot_readers[0].empty());
  EXPECT_TRUE(it.slot_readers[1].empty());
}

TEST(DepsTest, GrowsPastItsInlineRoomAndCopiesAndMovesEitherWay) {
  Deps d = {1, 2, 3};
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.capacity(), 4u);                       // inline
  for (uint32_t i = 4; i <= 9; ++i) d.push_back(i);  // onto the heap
  ASSERT_EQ(d.size(), 9u);
  for (uint32_t i = 0; i < 9; ++i) EXPECT_EQ(d[i], i + 1);
  EXPECT_EQ(d.front(), 1u);
  EXPECT_EQ(d.back(), 9u);
  const Deps copy = d;
  EXPECT_EQ(copy, d);
  Deps moved = std::move(d);  // takes the heap block
  EXPECT_EQ(moved, copy);
  EXPECT_TRUE(d.empty());  // NOLINT(bugprone-use-after-move): left empty
  d.push_back(7);          // and usable, inline again
  EXPECT_EQ(d, Deps({7}));
  Deps small = {5, 6};
  Deps into = {1, 2, 3, 4, 5, 6};
  into = std::move(small);  // an inline list over a heap one
  EXPECT_EQ(into, Deps({5, 6}));
  into = copy;
  EXPECT_EQ(into, copy);
  into = {8};
  EXPECT_EQ(into, Deps({8}));
  EXPECT_NE(into, Deps({8, 8}));
}

TEST(DepsTest, EraseKeepsTheRoomAndAppendsAreInOrder) {
  Deps d;
  for (uint32_t i = 0; i < 20; ++i) d.push_back(i);
  const size_t room = d.capacity();
  d.erase(d.begin() + 5, d.end());
  EXPECT_EQ(d, Deps({0, 1, 2, 3, 4}));
  d.erase(d.begin(), d.end());
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.capacity(), room);
  Deps a = {1, 2};
  const Deps b = {3, 4, 5};
  Append(a, b);  // past the inline room
  Append(a, Deps{});
  Append(a, Deps{6});
  EXPECT_EQ(a, Deps({1, 2, 3, 4, 5, 6}));
  Append(a, a);  // a list onto itself, growing
  EXPECT_EQ(a, Deps({1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  const Deps part(a.begin() + 1, a.begin() + 3);
  EXPECT_EQ(part, Deps({2, 3}));
  Deps c = part;
  c.insert(c.end(), b.begin(), b.end());
  EXPECT_EQ(c, Deps({2, 3, 3, 4, 5}));
}

}  // namespace
}  // namespace trn::lowering_internal
