// Loop nests of NKI specs: the geometry (what tile each loop and each load
// or store sees) and the references that order a body, shared by the
// validator and lowering so that the two cannot disagree.
#ifndef TRNBENCH_WORKLOADS_SPEC_NKI_LOOPS_H_
#define TRNBENCH_WORKLOADS_SPEC_NKI_LOOPS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device_model/dtype.h"
#include "workloads/spec/spec.h"
#include "workloads/spec/spec_validator.h"

namespace trn {

// The loops around an op, outermost first; the last is the op's own loop.
using LoopChain = std::vector<const NkiLoop*>;

// Position in `chain` of the loop whose var is `var`, or -1.
int FindLoopVar(const LoopChain& chain, std::string_view var);

// One term of a slot index: a loop variable times a scale.
struct SlotTerm {
  std::string var;
  int64_t scale = 1;
};

// A slot index as written between brackets: "k" (the slot of the loop
// k's iteration), or a sum of such terms with integer scales, "kb*4+ki"
// (attention v11's `scores_sbuf_t[:, i_tile_kv * 4 + i_tile_kv_i, :]`).
// Empty when the text is not of that form.
std::vector<SlotTerm> ParseSlotIndex(std::string_view text);

// A load or store index entry "START:STOP": the constant block of
// elements [START, STOP) of its dim (attention v11's epilogue stores
// `kernel_out[nl.ds((n - 2) * 128, 128), :]` as "3840:3968"). nullopt when
// the entry is not of that form (a loop variable, ":").
std::optional<std::pair<int64_t, int64_t>> ParseConstRange(
    std::string_view entry);

// The op of loop_op's body (its nested loop) whose id is one of its
// results (NkiLoop::results), or nullptr: an op of that body, or, passed
// on, a result of a loop of that body (the results of a nest). `chain`,
// if given, gets the loops from loop_op's down to the op's own.
const NkiOp* LoopResultNamed(const NkiOp& loop_op, std::string_view id,
                             LoopChain* chain = nullptr);

// Position of the nearest loop enclosing chain[i] that walks the same tensor
// dim, or -1: chain[i] then walks that loop's tile instead of the dim.
int EnclosingSameDim(const LoopChain& chain, size_t i);

// Every extent chain[i] may walk: the tensor's dim, or each tile (full or
// partial) of the enclosing loop over the same dim. Sorted, distinct. The
// tensors must be declared and of sufficient rank.
std::vector<int64_t> LoopExtents(const WorkloadSpec& spec,
                                 const LoopChain& chain, size_t i);

// The most iterations chain.back() makes in one run of the loops around
// it: its largest extent over its tile size, rounded up.
int64_t LoopTrips(const WorkloadSpec& spec, const LoopChain& chain);

// How many times the body of chain.back() runs over the kernel: the
// product of LoopTrips over chain's prefixes, saturating at the largest
// int64_t rather than wrapping.
int64_t LoopRuns(const WorkloadSpec& spec, const LoopChain& chain);

// The tile of chain[i] when it is full: its tile size, or its whole extent
// when that is smaller.
int64_t LoopFullTile(const WorkloadSpec& spec, const LoopChain& chain,
                     size_t i);

// Whether some iteration of chain[i] gets a tile smaller than its tile size.
bool LoopHasPartialTile(const WorkloadSpec& spec, const LoopChain& chain,
                        size_t i);

// The index a load or store uses: its `index`, or by default the var of its
// own loop for dim 0 and the whole of every other dim.
std::vector<std::string> EffectiveIndex(const NkiOp& op, const NkiLoop& own,
                                        size_t rank);

// The block of `tensor` a load or store with `index` moves when every loop
// it names is on a full tile.
// Whether the variable of chain[i], indexing a dim of `size` elements, takes
// one element of it per iteration (NKI's integer index, `scores_t[k, ...]`):
// the loop walks a dim of another size, in exactly `size` iterations (the
// attention tutorial's k loop reads scores[..., k * 128:(k + 1) * 128] and
// stores scores_t[k]). Otherwise it takes the loop's tile of the dim.
bool IndexesOneElement(const WorkloadSpec& spec, const LoopChain& chain,
                       size_t i, int64_t size);

std::vector<int64_t> FullBlock(const WorkloadSpec& spec, const LoopChain& chain,
                               const TensorDecl& tensor,
                               const std::vector<std::string>& index);

// How many leading dims of `block` an integer index drops: those of extent
// 1 while more than two dims remain (`x[b, c*128:(c+1)*128, :]` moves 128
// rows, not one).
size_t LeadingUnitDims(const std::vector<int64_t>& block);

// How a block lands in SBUF: its LeadingUnitDims dropped, dim 0 on partitions,
// the other dims flattened into the free axis; a block taller than the
// partitions folds its extra rows into the free axis, as a [K, M] operand with
// K > 128 is held as K / 128 tiles side by side.
NkiTile FoldBlock(const std::vector<int64_t>& block, DType dtype,
                  int64_t partitions);

// ResolveNkiTile for an op anywhere in a loop nest: an explicit tile or
// dtype wins; a load holds its folded full block; any other op defaults to
// [tile_partitions, free size of its own loop's tensor].
NkiTile ResolveNkiTileInChain(const WorkloadSpec& spec, const LoopChain& chain,
                              const NkiOp& op, int64_t partitions);

// Ids that ops anywhere inside `loop` read or wait for (inputs, mask,
// after), in body order, nested loops included.
void CollectRefs(const NkiLoop& loop, std::vector<std::string>* out);

// What the id of a nested loop stands for, for the ops after it that read
// it.
enum class LoopResultKind {
  kNone,  // no op of its body makes a tile
  // Its last tile is a matmul into PSUM (one without `overwrite`), or an
  // op that carries its own tile from the iteration before: one tile that
  // every iteration accumulates into, as `res_psum += nl.matmul(...)` does
  // in a k loop and `accum += x` (an SBUF tile updated in place) in an
  // affine loop.
  kAccumulator,
  // Every iteration makes its own tile and keeps it after the loop: the
  // block dimension of an NKI tensor, as `tiles[k] = nl.load(...)` fills
  // one slot of `tiles` per iteration.
  kBlock,
  // The loop is sequential and its result op updates a tile made before
  // the loop (UpdatesTileInPlace): NKI's sequential_range is for a
  // loop-carried dependency, so its iterations update the same tiles in
  // place (as `result[...] += partial` over the blocks of K does) and the
  // id stands for their state after the last iteration. Counted as one set
  // of tiles. A sequential loop whose result op reads only tiles of its own
  // iterations (a Python `range` that fills a list of tiles) is a block.
  kState,
};

// Whether the op whose tile the id of `loop` stands for (looking through
// id-less nested loops in the result position) reads a tile made outside
// `loop`: an update in place of a tile that exists before the loop.
bool UpdatesTileInPlace(const NkiLoop& loop);

// The id of the tile made before `loop` that its iterations update in
// place, or "" when none is: the one tile made outside the loop that the
// result op of a state or of an accumulator (not a matmul's) reads, as NKI's
// `acc[...] += x` writes into acc's own buffer. Without its slot index.
std::string TileUpdatedInPlace(const NkiLoop& loop);

// The position in loop.body of the op whose tile the loop's id stands for:
// the last op that makes one (an op with an id, or a nested loop whose body
// makes one); -1 if none does.
int LoopResultIndex(const NkiLoop& loop);

// The op that makes `loop`'s result, through the loops without an id in the
// result position (they pass on what their own result op makes); nullptr
// when a loop on the way has none. May be a loop with an id.
const NkiOp* LoopResultOp(const NkiLoop& loop);

LoopResultKind LoopResultOf(const NkiLoop& loop);

// Whether each iteration of the loop of `loop_op` keeps its own tiles, so
// that no iteration waits for another's buffers: a loop whose id names a
// block, and a loop without an id nested in one (it fills part of the
// block). `in_block` says that of the loop around it.
bool KeepsEveryIteration(const NkiOp& loop_op, bool in_block);

// Whether the loop of `loop_op` keeps its tiles to itself, so that their
// buffers rotate over every run of the loop (as a modulo allocator
// assigns physical tiles over the flattened iterations) rather than being
// copied for every buffer of the loops around it: a loop without an id
// (no op outside it reads its tiles) that does not fill part of a block.
bool RotatesOwnBuffers(const NkiOp& loop_op, bool in_block);

// Whether the loop of `loop_op` has an id that names the state its
// sequential iterations update in place (LoopResultKind::kState).
bool HoldsState(const NkiOp& loop_op);

// How a nested loop holds its tiles: the three rules above, taken
// together for the lowering and the memory check. A kernel's own loops
// hold none of these (LoopTiles{}).
struct LoopTiles {
  bool keep_all = false;     // KeepsEveryIteration
  bool holds_state = false;  // HoldsState
  bool rotates = false;      // RotatesOwnBuffers
};
LoopTiles TilesOf(const NkiOp& loop_op, bool in_block);

// The block loop ops (an op "loop" whose id names a block) that every op
// reading them reads one slot at a time ("block[var]" in `inputs`), so that
// each slot's buffer is free once its own readers are done, as a compiler
// frees a tile after its last use. A block that any op reads whole (an
// input without a slot, `after`, `mask`, `indirect`) is not among them.
std::vector<const NkiOp*> BlocksReadBySlot(const std::vector<NkiLoop>& loops);

// The same blocks, each with the fewest slot variables any of its reads
// gives ("block[i][j]": 2), that is how deep into a block of blocks every
// read goes.
std::map<const NkiOp*, size_t> BlockSlotReadDepths(
    const std::vector<NkiLoop>& loops);

// Each body statement's predecessors among the statements of the same body:
// the ids it reads or waits for, and for a nested loop every id that an op
// inside it reads.
std::vector<std::vector<size_t>> BodyPreds(const NkiLoop& loop);

// Body statements in dependency order (stable: body order breaks ties).
std::vector<size_t> BodyOrder(const std::vector<std::vector<size_t>>& preds);

// Whether an NKI op kind performs no arithmetic (index generation, copies).
bool IsDataMovementOnly(const NkiOp& op);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_NKI_LOOPS_H_
