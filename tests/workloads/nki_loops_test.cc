// Loop-nest geometry shared by the validator and lowering.
#include "workloads/spec/nki_loops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/spec/spec.h"

namespace trn {
namespace {

using ::testing::ElementsAre;

NkiLoop MakeLoop(std::string var, std::string tensor, int dim, int64_t tile) {
  NkiLoop l;
  l.var = std::move(var);
  l.tensor = std::move(tensor);
  l.dim = dim;
  if (dim == 0) {
    l.tile_partitions = tile;
  } else {
    l.step = tile;
  }
  return l;
}

WorkloadSpec Spec() {
  WorkloadSpec s;
  s.name = "geometry";
  s.mode = ExecMode::kNki;
  s.tensors = {{"a", {300, 2000}, DType::kBf16, Placement::kDevice},
               {"b", {2000, 300}, DType::kFp32, Placement::kDevice}};
  return s;
}

TEST(NkiLoopsTest, AOutermostLoopWalksItsWholeDim) {
  const WorkloadSpec s = Spec();
  const NkiLoop rows = MakeLoop("p", "a", 0, 128);
  const LoopChain chain = {&rows};
  EXPECT_THAT(LoopExtents(s, chain, 0), ElementsAre(300));
  EXPECT_TRUE(LoopHasPartialTile(s, chain, 0));
  EXPECT_EQ(LoopFullTile(s, chain, 0), 128);
}

TEST(NkiLoopsTest, ANestedLoopOverTheSameDimWalksTheOuterTiles) {
  const WorkloadSpec s = Spec();
  // 2000 columns in blocks of 768 (768, 768, 464), each in steps of 256.
  const NkiLoop block = MakeLoop("nb", "a", 1, 768);
  const NkiLoop step = MakeLoop("n", "a", 1, 256);
  const LoopChain chain = {&block, &step};
  EXPECT_EQ(EnclosingSameDim(chain, 1), 0);
  EXPECT_THAT(LoopExtents(s, chain, 1), ElementsAre(464, 768));
  // 768 = 3 x 256, but the last block of 464 leaves a partial step.
  EXPECT_TRUE(LoopHasPartialTile(s, chain, 1));
  const NkiLoop even = MakeLoop("n", "a", 1, 16);
  const LoopChain even_chain = {&block, &even};
  EXPECT_FALSE(LoopHasPartialTile(s, even_chain, 1));
}

TEST(NkiLoopsTest, ALoopOverAnotherDimDoesNotNest) {
  const WorkloadSpec s = Spec();
  const NkiLoop rows = MakeLoop("p", "a", 0, 128);
  const NkiLoop cols = MakeLoop("n", "a", 1, 500);
  const LoopChain chain = {&rows, &cols};
  EXPECT_EQ(EnclosingSameDim(chain, 1), -1);
  EXPECT_THAT(LoopExtents(s, chain, 1), ElementsAre(2000));
  EXPECT_FALSE(LoopHasPartialTile(s, chain, 1));
}

TEST(NkiLoopsTest, BlocksFollowTheIndexAndFoldTallRowsIntoTheFreeAxis) {
  const WorkloadSpec s = Spec();
  const NkiLoop rows = MakeLoop("p", "a", 0, 128);
  const NkiLoop cols = MakeLoop("n", "b", 1, 100);
  const LoopChain chain = {&rows, &cols};
  // b[:, n]: all 2000 rows, one step of 100 columns.
  const std::vector<int64_t> block =
      FullBlock(s, chain, s.tensors[1], {kWholeDim, "n"});
  EXPECT_THAT(block, ElementsAre(2000, 100));
  const NkiTile tile = FoldBlock(block, DType::kFp32, 128);
  EXPECT_EQ(tile.partitions, 128);
  EXPECT_EQ(tile.free, 16 * 100);  // ceil(2000 / 128) = 16 row groups
  // A block no taller than the partitions lands as it is.
  const NkiTile flat = FoldBlock({64, 3, 5}, DType::kBf16, 128);
  EXPECT_EQ(flat.partitions, 64);
  EXPECT_EQ(flat.free, 15);
}

TEST(NkiLoopsTest, TheDefaultIndexFollowsTheOwnLoopOnDimZero) {
  NkiOp load;
  load.op = "load";
  const NkiLoop rows = MakeLoop("p", "a", 0, 128);
  EXPECT_THAT(EffectiveIndex(load, rows, 3),
              ElementsAre("p", kWholeDim, kWholeDim));
  load.index = {kWholeDim, "p"};
  EXPECT_THAT(EffectiveIndex(load, rows, 2), ElementsAre(kWholeDim, "p"));
}

TEST(NkiLoopsTest, TileOfALoadComesFromItsBlockAndExplicitTilesWin) {
  WorkloadSpec s = Spec();
  const NkiLoop rows = MakeLoop("p", "a", 0, 128);
  const LoopChain chain = {&rows};
  NkiOp load;
  load.op = "load";
  load.tensor = "a";
  NkiTile t = ResolveNkiTileInChain(s, chain, load, 128);
  EXPECT_EQ(t.partitions, 128);
  EXPECT_EQ(t.free, 2000);
  EXPECT_EQ(t.dtype, DType::kBf16);
  NkiOp compute;
  compute.op = "tensor_scalar";
  compute.tile = {128, 1};
  compute.dtype = DType::kInt32;
  t = ResolveNkiTileInChain(s, chain, compute, 128);
  EXPECT_EQ(t.free, 1);
  EXPECT_EQ(t.dtype, DType::kInt32);
}

TEST(NkiLoopsTest, CollectsReferencesFromNestedBodies) {
  NkiLoop inner = MakeLoop("k", "a", 0, 128);
  NkiOp mm;
  mm.op = "matmul";
  mm.inputs = {"x", "y"};
  mm.after = {"z"};
  inner.body.push_back(mm);
  NkiLoop outer = MakeLoop("m", "a", 0, 128);
  NkiOp nest;
  nest.op = "loop";
  nest.loop.push_back(inner);
  NkiOp store;
  store.op = "store";
  store.inputs = {"w"};
  store.mask = "mask";
  outer.body = {nest, store};
  std::vector<std::string> refs;
  CollectRefs(outer, &refs);
  EXPECT_THAT(refs, ElementsAre("x", "y", "z", "w", "mask"));
}

TEST(NkiLoopsTest, CopiesAndIndexGenerationDoNoArithmetic) {
  NkiOp op;
  for (const char* kind : {"load", "store", "iota", "tensor_copy", "loop"}) {
    op.op = kind;
    EXPECT_TRUE(IsDataMovementOnly(op)) << kind;
  }
  op.op = "activation";
  op.func = "copy";
  EXPECT_TRUE(IsDataMovementOnly(op));
  op.func = "exp";
  EXPECT_FALSE(IsDataMovementOnly(op));
  op.op = "matmul";
  EXPECT_FALSE(IsDataMovementOnly(op));
}

}  // namespace
}  // namespace trn
