// A tile held to a fixed number of buffers (one_buffer: 1, tile_buffers: n)
// inside a loop nested in another: the number is the tile's buffers over
// the whole kernel, as NKI's mod_alloc places logical tile k on physical
// tile k mod n. It is counted n times whatever the depth of the loops
// around, and the buffers rotate on across the outer loop's iterations: use
// k of the tile (counted over the kernel, in order) waits for the readers
// of use k - n, also when that use was in the outer loop's previous
// iteration (the 2026-02 attention v9's `qk`, 7 PSUM banks over every
// `i_tile_q` iteration).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/workloads/kernel_queries.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

using Json = nlohmann::json;
using trn::testing::AtLine;
using trn::testing::DependsOn;
using trn::testing::LowerOrDie;

// Four row tiles of x, `outer_depth` in flight. Each loads its q tile (line
// 1) and fills the block "qk" over four 512-column tiles of k (loads at
// line 3): a matmul into the PSUM tile s (line 4, one bank) and its copy to
// SBUF, the block's slot (line 5). The block's row max (line 6) is stored
// (line 7). `key`, when not empty, is set on s to `value`. `rows`: x's
// rows, 128 per outer iteration.
Json Nest(int outer_depth, const std::string& key = "", int value = 0,
          int rows = 512) {
  Json j = Json::parse(R"({
    "schema_version": 1, "name": "nest", "family": "nest",
    "description": "test", "mode": "nki",
    "tensors": [
      {"name": "x", "shape": [512, 128], "dtype": "bf16"},
      {"name": "k", "shape": [128, 2048], "dtype": "bf16"},
      {"name": "out", "shape": [512, 1], "dtype": "fp32"}
    ],
    "kernel": {"source_file": "nest.py", "loops": [{
      "var": "i", "range": "affine", "tensor": "x",
      "tile_partitions": 128, "body": [
        {"id": "q_t", "op": "load", "tensor": "x", "line": 1},
        {"id": "qk", "op": "loop", "var": "kv", "range": "affine",
         "tensor": "k", "dim": 1, "step": 512, "line": 2, "body": [
          {"id": "k_t", "op": "load", "tensor": "k", "index": [":", "kv"],
           "line": 3},
          {"id": "s", "op": "matmul", "engine": "tensor",
           "inputs": ["q_t", "k_t"], "tile": [128, 512], "dtype": "fp32",
           "buffer": "psum", "overwrite": true, "line": 4},
          {"id": "c", "op": "tensor_copy", "engine": "vector",
           "inputs": ["s"], "tile": [128, 512], "dtype": "fp32",
           "line": 5}]},
        {"id": "m", "op": "tensor_reduce", "engine": "vector",
         "inputs": ["qk"], "tile": [128, 1], "dtype": "fp32", "line": 6},
        {"op": "store", "tensor": "out", "inputs": ["m"], "line": 7}]}]}
  })");
  j["tensors"][0]["shape"][0] = rows;
  j["tensors"][2]["shape"][0] = rows;
  j["kernel"]["loops"][0]["buffers"] = outer_depth;
  if (!key.empty()) {
    Json& s = j["kernel"]["loops"][0]["body"][1]["body"][1];
    if (key == "one_buffer") {
      s[key] = true;
    } else {
      s[key] = value;
    }
  }
  return j;
}

MemoryPeak Psum(const Json& j) {
  auto spec = ParseSpec(j.dump(), "spec.json", MemoryLimits{});
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? spec->compiled.psum : MemoryPeak{};
}

int64_t CopiesOfS(const MemoryPeak& peak) {
  for (const LiveTile& t : peak.live) {
    if (t.id == "s") return t.copies;
  }
  return 0;
}

TEST(FixedBuffersAcrossLoopsTest,
     CountedItsNumberOfTimesWhateverTheOuterDepth) {
  // s takes one bank; three buffers of it are 3 banks with one outer
  // iteration in flight or two or four, not 3 per outer iteration.
  for (int depth : {1, 2, 4}) {
    const MemoryPeak three = Psum(Nest(depth, "tile_buffers", 3));
    EXPECT_EQ(three.used, 3) << depth;
    EXPECT_EQ(CopiesOfS(three), 3) << depth;
    const MemoryPeak one = Psum(Nest(depth, "one_buffer"));
    EXPECT_EQ(one.used, 1) << depth;
    EXPECT_EQ(CopiesOfS(one), 1) << depth;
  }
}

TEST(FixedBuffersAcrossLoopsTest,
     WithoutAFixedCountATileIsCountedPerOuterIteration) {
  // The block's transient s, once per outer iteration in flight, as before.
  for (int depth : {1, 2, 4}) {
    const MemoryPeak plain = Psum(Nest(depth));
    EXPECT_EQ(plain.used, depth) << depth;
    EXPECT_EQ(CopiesOfS(plain), depth) << depth;
  }
}

TEST(FixedBuffersAcrossLoopsTest, TheRotationGoesOnAcrossTheOuterLoop) {
  const Kernel k = LowerOrDie(Nest(2, "tile_buffers", 3));
  const std::vector<size_t> mm = AtLine(k, 4);
  const std::vector<size_t> copy = AtLine(k, 5);
  ASSERT_EQ(mm.size(), 16u);
  ASSERT_EQ(copy.size(), 16u);
  // Use g (outer i, column tile kv: g = 4 i + kv) writes the buffer of use
  // g - 3: it waits for that use's reader, the copy, and for no other
  // use's. The first write of outer iteration 1 (g = 4) waits for outer
  // iteration 0's copy of g = 1; g = 3 for g = 0's, in the same run.
  for (size_t g = 0; g < mm.size(); ++g) {
    for (size_t r = 0; r < copy.size(); ++r) {
      EXPECT_EQ(DependsOn(k, mm[g], copy[r]), g >= 3 && r == g - 3)
          << "use " << g << ", reader of use " << r;
    }
  }
}

TEST(FixedBuffersAcrossLoopsTest, OneBufferWaitsForTheOuterIterationBefore) {
  const Kernel k = LowerOrDie(Nest(2, "one_buffer"));
  const std::vector<size_t> mm = AtLine(k, 4);
  const std::vector<size_t> copy = AtLine(k, 5);
  ASSERT_EQ(mm.size(), 16u);
  ASSERT_EQ(copy.size(), 16u);
  // The first write of outer iteration 1 waits for the last reader of
  // outer iteration 0's buffer, its last copy; outer iteration 2's for
  // outer iteration 1's.
  EXPECT_TRUE(DependsOn(k, mm[4], copy[3]));
  EXPECT_TRUE(DependsOn(k, mm[8], copy[7]));
  // Within the block each write waits for the copy before.
  EXPECT_TRUE(DependsOn(k, mm[1], copy[0]));
  EXPECT_FALSE(DependsOn(k, mm[0], copy[0]));
}

std::vector<uint32_t> Deps(const Kernel& k, size_t i) {
  return {k.deps.begin() + k.instrs[i].deps_begin,
          k.deps.begin() + k.instrs[i].deps_end};
}

TEST(FixedBuffersAcrossLoopsTest, BuffersNeverReusedAddNoOrder) {
  // Two outer iterations of four uses: with 8 buffers (PSUM's 8 banks)
  // none is reused, and the kernel lowers with the dependencies of the
  // nest without the key.
  const Kernel plain = LowerOrDie(Nest(2, "", 0, 256));
  const Kernel eight = LowerOrDie(Nest(2, "tile_buffers", 8, 256));
  // k's four tiles are loaded once, kept over i (model 12's
  // loop-invariant loads): 2 q loads, 4 k loads, 8 matmuls, 8 copies,
  // 2 reductions, 2 stores.
  ASSERT_EQ(plain.instrs.size(), 26u);
  ASSERT_EQ(plain.instrs.size(), eight.instrs.size());
  for (size_t i = 0; i < plain.instrs.size(); ++i) {
    EXPECT_EQ(Deps(plain, i), Deps(eight, i)) << i;
  }
}

TEST(FixedBuffersAcrossLoopsTest, WithoutAFixedCountNoWriteWaitsForAReader) {
  // The nest without the key: s's writes wait only for what they read.
  const Kernel k = LowerOrDie(Nest(2));
  const std::vector<size_t> mm = AtLine(k, 4);
  const std::vector<size_t> copy = AtLine(k, 5);
  ASSERT_EQ(mm.size(), 16u);
  for (size_t g = 0; g < mm.size(); ++g) {
    for (size_t r = 0; r < copy.size(); ++r) {
      EXPECT_FALSE(DependsOn(k, mm[g], copy[r])) << g << " " << r;
    }
    EXPECT_TRUE(DependsOn(k, mm[g], AtLine(k, 1)[g / 4])) << g;
    // k's tile of column tile g % 4, loaded once and kept over i.
    ASSERT_EQ(AtLine(k, 3).size(), 4u);
    EXPECT_TRUE(DependsOn(k, mm[g], AtLine(k, 3)[g % 4])) << g;
    EXPECT_EQ(Deps(k, mm[g]).size(), 2u) << g;
  }
}

}  // namespace
}  // namespace trn
