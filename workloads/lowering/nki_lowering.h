// Lowering of NKI kernels (internal to workloads/lowering/): the state of
// a loop nest being lowered, and `NkiLowering`, whose work is split by
// concern: nki_loop_lowering.cc (loops, iterations, buffers, block slots),
// nki_op_lowering.cc (one op's instructions, dependencies and cost).
#ifndef TRNBENCH_WORKLOADS_LOWERING_NKI_LOWERING_H_
#define TRNBENCH_WORKLOADS_LOWERING_NKI_LOWERING_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/lowering/kernel_builder.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn::lowering_internal {

// The prefetch stage of a multi-buffered body: its loads and everything
// they depend on. The rest of the body is the compute stage.
std::vector<char> PrefetchStage(const NkiLoop& loop,
                                const std::vector<std::vector<size_t>>& preds);

// One run of a block loop, slot by slot: what made each slot (its
// iteration's instructions) and the instructions that have read it by slot
// so far, which a later run waits for before it refills that slot.
struct BlockSlots {
  std::vector<Deps> made;
  std::vector<Deps> readers;
  // A block of blocks: the slots of each slot, filled by the loop without
  // an id in it (null when the slot is one tile).
  std::vector<std::shared_ptr<BlockSlots>> sub;
  // A block whose last slots the compiler stage spilled: its decision, and
  // per slot the DMA that saved it (unset: in SBUF).
  const SpillDecision* spill = nullptr;
  std::vector<std::optional<uint32_t>> saves;
};

// An id of the spec's tiles (an op's, a loop result's, a spilled tile's)
// as a number. Lowering looks ids up on every op of every iteration; the
// strings' hashing and comparison were a fifth of it (issue 42), so each
// distinct string is numbered once (IdTable) and the maps below compare
// numbers.
using TileId = uint32_t;
inline constexpr TileId kNoTile = std::numeric_limits<TileId>::max();

// The numbers of id strings, handed out in the order first seen; the same
// string always has the same number ("" too, like any other string).
class IdTable {
 public:
  TileId Of(const std::string& id) {
    return ids_.try_emplace(id, static_cast<TileId>(ids_.size())).first->second;
  }
  size_t size() const { return ids_.size(); }

 private:
  absl::flat_hash_map<std::string, TileId> ids_;
};

// The tiles (or readers, ...) of one iteration by id. An iteration holds
// a few ids, looked up on every op: a std::map spent more on its nodes and
// string comparisons than the ops' own lowering did (issue 42), so the
// entries are kept in a vector, in insertion order, found by a scan while
// few and through a hash index once many. An insertion may move the
// entries: a pointer into the map is not held across one.
template <typename T>
class IdMap {
 public:
  struct Entry {
    TileId first;
    T second;
  };
  Entry* find(TileId id) {
    if (index_ != nullptr) [[unlikely]] {
      auto at = index_->find(id);
      return at == index_->end() ? nullptr : &entries_[at->second];
    }
    for (Entry *e = entries_.data(), *end = e + entries_.size(); e != end;
         ++e) {
      if (e->first == id) return e;
    }
    return nullptr;
  }
  const Entry* find(TileId id) const {
    return const_cast<IdMap*>(this)->find(id);
  }
  Entry* end() const { return nullptr; }
  T& operator[](TileId id) {
    if (Entry* e = find(id)) return e->second;
    entries_.emplace_back().first = id;
    if (index_ != nullptr) {
      index_->emplace(id, entries_.size() - 1);
    } else if (entries_.size() > kScanMax) {
      index_ = std::make_unique<absl::flat_hash_map<TileId, size_t>>();
      for (size_t i = 0; i < entries_.size(); ++i) {
        index_->emplace(entries_[i].first, i);
      }
    }
    return entries_.back().second;
  }
  size_t size() const { return entries_.size(); }
  // Empties it, keeping the entries' room (a recycled iteration's maps,
  // Iteration::Reset).
  void clear() {
    entries_.clear();
    if (index_ != nullptr) [[unlikely]]
      index_.reset();
  }

 private:
  static constexpr size_t kScanMax = 16;
  // A vector, not an InlinedVector: an iteration's maps are filled once
  // per iteration, but iterations are recycled (Iteration::Reset), so the
  // room stays, and a std::vector's scan and append do not decode where
  // its entries are on every access (a fifth of the maps' cost; issue 42).
  std::vector<Entry> entries_;
  std::unique_ptr<absl::flat_hash_map<TileId, size_t>> index_;
};

// A tile as lowered: the instructions that make it, and what its readers
// need to know of it (a matmul's contraction depth and input dtype).
// EmitSimple sets each field in place: a field added here is set there
// too.
struct LoweredTile {
  Deps deps;
  int64_t partitions = 0;  // 0: not a tile (a nested loop's id)
  int64_t free = 0;
  DType dtype = DType::kFp32;
  bool psum = false;
  std::shared_ptr<BlockSlots> slots;  // a block's id: its slots
  // A reduction's: the id of the op or block loop whose instructions made
  // it, whose buffers its readers hold too (kNoTile when not a reduction).
  TileId made_by = kNoTile;
};

// One use of the buffer of a tile held to a fixed number of buffers
// (one_buffer, tile_buffers): the instructions that wrote it and those that
// have read it so far, the block's slots when the tile is a block, and the
// run of the loop around the op that made it (NkiLowering::Loop's count).
struct FixedUse {
  Deps writer;
  Deps readers;
  std::shared_ptr<BlockSlots> slots;
  int64_t run = 0;
};

// The descriptors of a load or store of `block` of `t`: one contiguous HBM
// run per row, or several when a dim after the first is cut (the row is
// then made of strided segments), on min(rows, partitions) partitions.
DmaShape DmaShapeOf(const TensorDecl& t, const std::vector<int64_t>& block);

struct Iteration;

// What an iteration holds besides its lists. A recycled iteration
// (Iteration::Reset) is assigned a new one of these, so that a field
// added here cannot carry one iteration's state into the next.
struct IterationState {
  int64_t index = 0;
  int64_t tile = 0;  // extent along the loop's dim in this iteration
  // What its ops with no producer in the body wait for: the instructions
  // of the iteration whose buffers it reuses, or what the loop was entered
  // with, read in place (both outlive it unchanged; a copy per iteration
  // was a twentieth of lowering), or Iteration::own_gate when more is
  // added.
  const Deps* gate = nullptr;
  LoweredTile result;           // shape of the tile the loop's id stands for
  Iteration* prev = nullptr;    // for tiles carried from it
  const Deps* entry = nullptr;  // what the loop was entered with
  // How many iterations apart two share buffers; 0 when none do (a block).
  int64_t copies = 0;
  // A block's iteration: whether its slots are kept (want_slots); the run
  // before's slot this iteration refills, when the block refills slot by
  // slot; and the slots of the loop without an id that fills it.
  bool keeps_slots = false;
  const BlockSlots* refill = nullptr;
  std::shared_ptr<BlockSlots> sub;
  // A multi-buffered loop's iteration: the one whose buffers it reuses
  // (i - buffers; null for the first iterations of a run, which follow
  // the coarse rule through `gate`), and whether its tiles' readers are
  // tracked (Iteration::readers).
  Iteration* reuse = nullptr;
  bool track_readers = false;
  // The run of its loop it belongs to (NkiLowering::Loop's count).
  int64_t run = 0;
};

// One iteration of a loop while it is being lowered: its state, and its
// lists, whose storage a recycled iteration keeps.
struct Iteration : IterationState {
  Deps own_gate;  // `gate` made its own (OwnGate)
  Deps all;       // its instructions (nested loops: their completion)
  IdMap<LoweredTile> made;
  // When track_readers: per tile id of this iteration, the instructions
  // that have read it so far.
  IdMap<Deps> readers;
  // Spilled tiles of this iteration: the DMA that saved each to HBM.
  IdMap<uint32_t> spill_saves;
  // Per id of a tile of it held to a fixed number of buffers, that tile's
  // use.
  IdMap<std::shared_ptr<FixedUse>> fixed;
  // An iteration of a slotted loop (NkiLowering::LoopPlan::slotted): what
  // `made` and `readers` hold for any other, by the slot of the tile's id
  // in its body (OpFacts::made_slot), found without a search: whether
  // each tile is made yet, the tile, and its readers (empty: none).
  std::vector<char> slot_has;
  std::vector<LoweredTile> slot_made;
  std::vector<Deps> slot_readers;

  // `gate` made its own, to be added to.
  Deps& OwnGate() {
    if (gate != &own_gate) {
      own_gate = *gate;
      gate = &own_gate;
    }
    return own_gate;
  }

  // Back to a new iteration's state, keeping its lists' room: iterations
  // are recycled (NkiLowering::spare_), a heap block per iteration and its
  // lists' growth were a tenth of lowering (issue 42). The state by
  // assignment; each list emptied in place (what they share, slots and
  // fixed uses, let go of now), by erase, since an InlinedVector's clear()
  // frees its storage. A list added above must be emptied here too
  // (IterationTest.ResetGivesANewIterationsState).
  void Reset();
};

// How an op is priced (NkiLowering::CostOf), from its op name.
enum class CostKind : uint8_t {
  kElementwise,  // the default: the stream rule over the tile
  kStream2,
  kStreamInput,
  kBnAggr,
  kReciprocal,
  kIndexGen,
  kActivation,
  kTensorScalar,
  kMatmul,
  kTranspose,
};

// A slot index's terms, each as the frame of its loop in chain_ and its
// scale; nullopt when it does not parse or names a variable that is not a
// loop around (NkiLowering::ParseSlotTerms).
using SlotTerms = std::optional<std::vector<std::pair<size_t, int64_t>>>;

// What lowering reads of an op on every iteration and that is the same on
// each: its kind, its tile, its interned opcode and label, the block a DMA
// moves but for the loop tiles it follows, the compiler stage's spills of
// it. Worked out on its first emission (an op is always lowered in the
// same chain of loops), so that the op's strings are compared and looked
// up once, not once per iteration (issue 42: lowering was most of a short
// command's time).
struct OpFacts {
  bool is_loop = false;
  bool is_reduction = false;
  bool is_dma = false;  // load, store, hbm_copy
  bool is_sbuf_copy = false;
  bool is_matmul = false;
  bool data_movement_only = false;
  bool psum = false;
  bool walks_partition_tiles = false;  // op.tile empty, loop walks them
  bool reads_slots = false;            // some input is read by slot
  // A loop op: how it holds its tiles (TilesOf), in a block or not, and
  // whether its block is only ever read by slot (BlocksReadBySlot).
  std::array<LoopTiles, 2> tiles_in;
  bool by_slot = false;
  // Lowered by EmitSimple (with the shortcuts on): not a loop or a
  // reduction, no reload before it or spill after it, not hoisted, no
  // carried reads, no transpose inserted before it, and no reads by slot
  // when some block's slots are spilled.
  bool simple = false;
  CostKind cost = CostKind::kElementwise;
  NkiTile tile;  // ResolveNkiTileInChain: compute ops, sbuf_copy
  // DMA: the tensor, and per dim of the block either a fixed extent
  // (block_frame -1) or the frame whose tile it follows.
  const TensorDecl* tensor = nullptr;
  std::vector<int64_t> block;
  std::vector<int> block_frame;
  // Interned on the first emission, in the order Intern saw them before.
  bool interned = false;
  uint32_t opcode = 0;
  uint32_t label = 0;
  const std::vector<const SpillDecision*>* reload_before = nullptr;
  const SpillDecision* spill_after = nullptr;
  const SpillDecision* slot_spill = nullptr;
  const HoistDecision* hoist = nullptr;  // a load kept over a loop
  // The op's ids as numbers (IdTable): its own, its inputs', those of
  // after, mask and indirect (kNoTile when absent), and its carried tiles'
  // with, for each, the frame (index in chain_) whose body makes it (-1:
  // none does).
  TileId id = kNoTile;
  std::vector<TileId> inputs;
  std::vector<TileId> after;
  TileId mask = kNoTile;
  TileId indirect = kNoTile;
  // For each of those read, the frames around (index in chain_, innermost
  // first, below the op's own) that can make it (FramesMaking): the
  // shortcuts' reads look only there. Searching every frame was a tenth
  // of the fully optimized matmul's lowering (issue 42, lower42e).
  std::vector<std::vector<uint32_t>> input_frames;
  std::vector<std::vector<uint32_t>> after_frames;
  std::vector<uint32_t> mask_frames;
  std::vector<uint32_t> indirect_frames;
  // The frame whose loop's tile the op's free size follows (PartialFree),
  // -1 when none.
  int partial_free_frame = -1;
  std::vector<TileId> carry;
  std::vector<int> carry_frame;
  // The terms of its slot indices: per input k, one per variable of
  // op.input_slots[k]; per carried tile k, of op.carry_slots[k]. Parsing
  // the text and finding its loops by name on every read of a slot was a
  // tenth of the fully optimized matmul's lowering (issue 42, lower42d).
  std::vector<std::vector<SlotTerms>> input_slot_terms;
  std::vector<std::vector<SlotTerms>> carry_slot_terms;
  // In a slotted loop (NkiLowering::LoopPlan::slotted): the slot of the
  // op's id in its body (-1: it has none), and its reads in Emit's order
  // (inputs, after, mask, indirect), each with the slot of its id (-1: no
  // op of the body makes it, so the iteration never holds it), the frames
  // around that can (FramesMaking) and its slot terms (inputs read by
  // slot; else null).
  struct SlotRead {
    TileId id = kNoTile;
    int slot = -1;
    const std::vector<uint32_t>* frames = nullptr;
    const std::vector<SlotTerms>* terms = nullptr;
  };
  int made_slot = -1;
  std::vector<SlotRead> slot_reads;
  // A DMA's last block and what it made of it (DmaShapeOf, FoldBlock, the
  // op's flags): the same in every iteration but a partial tile's, so
  // worked out again only when the block changes.
  bool has_last = false;
  std::vector<int64_t> last_block;
  DmaShape last_shape;
  NkiTile last_tile;
  // The form of the op's last instruction (has_form), and for a compute op
  // what its fields were made of besides the op's constants (engine,
  // opcode, label, line): an instruction made of the same is appended by
  // its form (KernelBuilder::Again), not built and looked up again. A
  // DMA's form follows last_shape; an SBUF copy's never changes.
  bool has_form = false;
  uint32_t form = 0;
  DType form_dtype = DType::kFp32;
  int64_t form_partitions = 0;
  int64_t form_flops = 0;
  ComputeCost form_cost;
  // A compute op lowered by SimpleInstr: what its last instruction's
  // fields were worked out from (has_key), the tile's size and, per input
  // (at most kKeyInputs), the fields of its tile that CostOf and a
  // matmul's stationary read. The same again is the same instruction, so
  // its form is appended without CostOf and the form's compare (12% of
  // exp_tiled's lowering once its maps were slots; issue 42, lower42f).
  static constexpr size_t kKeyInputs = 4;
  struct InputKey {
    bool present = false;
    bool psum = false;
    DType dtype = DType::kFp32;
    int64_t partitions = 0;
    int64_t free = 0;
  };
  bool has_key = false;
  int64_t key_p = 0;
  int64_t key_f = 0;
  std::array<InputKey, kKeyInputs> key_inputs;
};

// How NKI lowering goes about it; the program is the same either way.
struct NkiLoweringOptions {
  // The shortcuts (OpFacts::form, ...); off, every instruction is built
  // and its form looked up whole: the reference the tests hold the
  // shortcuts to (LoweringShortcutsTest).
  bool shortcuts = true;
};

struct LoweredLoop {
  Deps done;  // waiting for these waits for the whole loop
  std::shared_ptr<BlockSlots> slots;  // when asked for (want_slots)
  // The shape (not the deps) of the tile its id stands for: a block's
  // element or the accumulator, so that a matmul reading a block of bf16
  // tiles runs at the bf16 rate.
  LoweredTile tile;
  // Its results (NkiLoop::results): each id's tile as the last iteration
  // made it.
  std::vector<std::pair<TileId, LoweredTile>> results;
};

// Whether some op of the nest reads a block by slot ("block[k]").
bool HasSlotInputs(const std::vector<NkiLoop>& loops);
// Whether some op of the nest is held to a fixed number of buffers.
bool HasFixedBuffers(const std::vector<NkiLoop>& loops);

// Lowers an NKI loop nest. Iterations are emitted in program order, which
// is also each engine's and each DMA queue's order, so for a multi-buffered
// loop the order is what a software-pipelining compiler produces: the
// loads of iteration i + B - 1 are issued before the compute of iteration i.
class NkiLowering {
 public:
  NkiLowering(const WorkloadSpec& spec, const DeviceProfile& profile,
              Kernel& kernel, NkiLoweringOptions options = {})
      : spec_(spec),
        options_(options),
        partitions_(profile.memory.partitions),
        builder_(kernel, profile) {
    for (const NkiOp* op : BlocksReadBySlot(spec.kernel->loops)) {
      by_slot_.insert(op);
    }
    any_slots_ = HasSlotInputs(spec.kernel->loops);
    any_fixed_ = HasFixedBuffers(spec.kernel->loops);
    for (const HoistDecision& h : spec.compiled.hoists) {
      hoisted_[h.json_path] = &h;
    }
    for (const SpillDecision& s : spec.compiled.spills) {
      if (s.slots > 0) {
        slot_spill_[s.json_path] = &s;
        continue;
      }
      spill_after_[s.json_path] = &s;
      reload_before_[s.reload_before].push_back(&s);
    }
  }

  absl::StatusOr<LoweredLoop> Loop(const NkiLoop& loop, const Deps& entry,
                                   const LoopTiles& tiles,
                                   const BlockSlots* refill = nullptr,
                                   bool want_slots = false,
                                   const Deps* result_wait = nullptr,
                                   bool result_out = false);

 private:
  int64_t MinInstructions(size_t pos);

  // `inputs`, if given, are the op's inputs' tiles (Find of each).
  ComputeCost CostOf(const NkiOp& op, const OpFacts& facts, int64_t tile_p,
                     int64_t tile_f, DType dtype,
                     const LoweredTile* const* inputs = nullptr) const;

  // The op's facts, worked out when `loop` (its body) is chain_.back().
  OpFacts& FactsOf(const NkiLoop& loop, const NkiOp& op);

  absl::StatusOr<int64_t> InsertTranspose(const NkiOp& op, const LoweredTile* x,
                                          Deps& deps, size_t first_end,
                                          size_t inputs_end, int iter);

  // The tile `id` of the nearest body around that made it, and the
  // iteration that made it; {nullptr, nullptr} if none did.
  std::pair<const LoweredTile*, Iteration*> FindWithFrame(TileId id) const {
    for (size_t f = frames_.size(); f-- > 0;) {
      auto it = frames_[f]->made.find(id);
      if (it != frames_[f]->made.end()) return {&it->second, frames_[f]};
    }
    return {nullptr, nullptr};
  }

  const LoweredTile* Find(TileId id) const { return FindWithFrame(id).first; }

  // An op's free size in this iteration: a tile whose free size is the
  // step of an enclosing loop over a free dim (dim >= 1) follows that
  // loop's tile, so on its partial last tile (a dim that the step does not
  // divide) it is costed at the real size, as the loads and stores of that
  // iteration already move (model 8). The innermost such loop decides.
  int64_t PartialFree(int64_t free) const {
    for (size_t f = chain_.size(); f-- > 0;) {
      const NkiLoop& l = *chain_[f];
      if (l.dim < 1 || l.step <= 0 || l.step != free) continue;
      return std::min(free, frames_[f]->tile);
    }
    return free;
  }

  void SpillSlots(const SpillDecision& s, BlockSlots& block, const NkiOp& op,
                  Iteration& it);

  // One slot of a spilled block as it moves.
  static DmaShape SlotShape(const SpillDecision& s) {
    return DmaShape{s.partitions, s.partitions, s.partitions * s.bytes,
                    /*whole_rows=*/true};
  }

  // A spilled tile as it moves: `s.bytes` per partition on s.partitions
  // partitions, one contiguous run per partition.
  static DmaShape SpillShape(const SpillDecision& s) {
    return DmaShape{s.partitions, s.partitions, s.partitions * s.bytes,
                    /*whole_rows=*/true};
  }

  // The slot a slot index picks in the iterations being lowered: "k" the
  // index of k's iteration, "kb*4+ki" that sum; nullopt when a variable is
  // not a loop around (the validator refuses it). From its terms
  // (ParseSlotTerms, kept in OpFacts) or, the reference, from its text.
  std::optional<size_t> SlotOf(const SlotTerms& terms) const {
    if (!terms) return std::nullopt;
    int64_t slot = 0;
    for (const auto& [frame, scale] : *terms) {
      slot += scale * frames_[frame]->index;
    }
    return static_cast<size_t>(slot);
  }
  std::optional<size_t> SlotOf(const std::string& text) const {
    return SlotOf(ParseSlotTerms(text));
  }
  SlotTerms ParseSlotTerms(const std::string& text) const;
  // Slot `v` of an op's input `k`, or of its carried tile `k`.
  std::optional<size_t> InputSlot(const NkiOp& op, const OpFacts& facts,
                                  size_t k, size_t v) const {
    return options_.shortcuts ? SlotOf(facts.input_slot_terms[k][v])
                              : SlotOf(op.input_slots[k][v]);
  }
  std::optional<size_t> CarrySlot(const NkiOp& op, const OpFacts& facts,
                                  size_t k, size_t v) const {
    return options_.shortcuts ? SlotOf(facts.carry_slot_terms[k][v])
                              : SlotOf(op.carry_slots[k][v]);
  }

  // Whether an op of the loop's own body defines `id`.
  static bool DefinesId(const NkiLoop& loop, const std::string& id) {
    return std::any_of(loop.body.begin(), loop.body.end(),
                       [&](const NkiOp& op) { return op.id == id; });
  }

  uint32_t DmaOf(OpFacts& facts, const DmaShape& shape, const Deps& deps,
                 const NkiOp& op, int iter);
  // The instruction of a transfer, an SBUF copy or a compute op, for Emit
  // and EmitSimple alike (nki_op_lowering.cc).
  uint32_t HbmDma(const NkiOp& op, OpFacts& facts, const Deps& deps, int iter);
  uint32_t SbufCopy(const NkiOp& op, OpFacts& facts, const Deps& deps,
                    int iter);
  uint32_t ComputeOp(const NkiOp& op, OpFacts& facts, DType cost_dtype,
                     int64_t tile_p, const ComputeCost& cost, int64_t flops,
                     const Deps& deps, int iter);

  // Emit for an op OpFacts::simple takes, and its reads.
  absl::Status EmitSimple(const NkiLoop& loop, Iteration& it, size_t idx,
                          OpFacts& facts);
  // EmitSimple for the ops `ops` (in body order, a stage's:
  // LoopPlan::slot_stages) of a slotted loop (LoopPlan::slotted) in `it`;
  // `plan`: the loop's.
  struct SlotOp;
  struct LoopPlan;
  absl::Status EmitSlotted(Iteration& it, const LoopPlan& plan,
                           const std::vector<SlotOp>& ops);
  // Whether a DMA op's block in this iteration is the one it moved last
  // (OpFacts::last_block), compared in place: building it and comparing
  // the vectors cost more than the compare.
  bool SameBlock(const OpFacts& facts) const {
    if (!facts.has_last) return false;
    for (size_t d = 0; d < facts.block.size(); ++d) {
      const int frame = facts.block_frame[d];
      const int64_t extent = frame >= 0
                                 ? frames_[static_cast<size_t>(frame)]->tile
                                 : facts.block[d];
      if (extent != facts.last_block[d]) return false;
    }
    return true;
  }
  // What EmitSimple's and EmitSlotted's op makes once its dependencies
  // are known: its one instruction and the shape of its tile (its inputs'
  // tiles in read_inputs_).
  struct SimpleMade {
    uint32_t instr = 0;
    int64_t partitions = 0;
    int64_t free = 0;
    DType dtype = DType::kFp32;
  };
  inline __attribute__((always_inline)) SimpleMade SimpleInstr(
      const NkiOp& op, OpFacts& facts, const Iteration& it, const Deps& deps);
  // `frames`: those that can make `id` (OpFacts::input_frames, ...).
  // Inline in both: a call cost the fully optimized matmul's lowering
  // 2% (callgrind, 75.7 -> 77.5 M).
  inline __attribute__((always_inline)) const LoweredTile* FindRead(
      Iteration& it, TileId id, const std::vector<uint32_t>& frames,
      bool& local);
  const LoweredTile* ReadWhole(Iteration& it, TileId id,
                               const std::vector<uint32_t>& frames, Deps& deps,
                               bool& local);
  const LoweredTile* ReadSlots(Iteration& it, TileId id,
                               const std::vector<uint32_t>& frames,
                               const std::vector<SlotTerms>& terms, Deps& deps,
                               bool& local);
  // Inline in both, as FindRead (a call cost the block-free and fully
  // optimized matmuls' lowering 1 M instructions each).
  inline __attribute__((always_inline)) void AppendSlot(
      const LoweredTile& t, const std::vector<SlotTerms>& terms, Deps& deps);
  std::vector<uint32_t> FramesMaking(const std::string& id) const;
  // FindWithFrame below the op's own frame, looking only in `frames`
  // (FramesMaking): the same tile and iteration, for EmitSimple's reads,
  // whose op's own frame they look in first.
  std::pair<const LoweredTile*, Iteration*> FindInFrames(
      TileId id, const std::vector<uint32_t>& frames) const {
    for (const uint32_t f : frames) {
      if (auto it = frames_[f]->made.find(id); it != nullptr) {
        return {&it->second, frames_[f]};
      }
    }
    return {nullptr, nullptr};
  }

  // Lowers op `idx` of `loop` in `it`; `facts` are its (FactsOf).
  absl::Status Emit(const NkiLoop& loop, Iteration& it, size_t idx,
                    OpFacts& facts);

  // A hoisted load's tile when this run of its loop made it already, else
  // nullptr; and the record of one just made.
  const LoweredTile* HoistedTile(const NkiOp& op, const HoistDecision& h);
  void KeepHoisted(const NkiOp& op, const HoistDecision& h,
                   const LoweredTile& made);

  static void WaitForPreviousReaders(const NkiOp& op, TileId id,
                                     const Iteration& it, Deps& deps);

  void WaitForPreviousUse(const NkiOp& op, const Iteration& it, size_t idx,
                          Deps& deps) const;

  absl::Status EmitReduction(const NkiOp& op, const OpFacts& facts,
                             Iteration& it, size_t idx);

  // An iteration in its new state: a spare one if any.
  std::unique_ptr<Iteration> NewIteration() {
    if (spare_.empty()) return std::make_unique<Iteration>();
    std::unique_ptr<Iteration> it = std::move(spare_.back());
    spare_.pop_back();
    return it;
  }
  // Keeps a released iteration for NewIteration, reset now so that what
  // it shares (slots, fixed uses) is let go of when it would have been.
  void Recycle(std::unique_ptr<Iteration> it) {
    it->Reset();
    spare_.push_back(std::move(it));
  }

  const WorkloadSpec& spec_;
  const NkiLoweringOptions options_;
  const int64_t partitions_;
  KernelBuilder builder_;
  LoopChain chain_;
  std::vector<bool> keep_all_;  // parallel to chain_
  // The block loops only ever read slot by slot (BlocksReadBySlot), and
  // for each the slots of its last runs, over every run of the loop
  // around it, oldest first.
  std::set<const NkiOp*> by_slot_;
  bool any_slots_ = false;  // some input anywhere reads a slot
  // Some op of the kernel is held to a fixed number of buffers (one_buffer,
  // tile_buffers): else no iteration's `fixed` holds anything.
  bool any_fixed_ = false;
  std::map<const NkiOp*, std::deque<std::shared_ptr<BlockSlots>>> block_runs_;
  std::vector<int> result_index_;         // parallel to chain_
  std::vector<const Deps*> result_wait_;  // parallel to chain_ (Loop)
  std::vector<bool> result_out_;          // parallel to chain_ (Loop)
  // Loop's runs so far: each run's number (Iteration::run).
  int64_t runs_ = 0;
  // For each op held to a fixed number n of buffers, its last n uses over
  // the kernel, oldest first (WaitForPreviousUse).
  std::map<const NkiOp*, std::deque<std::shared_ptr<FixedUse>>> fixed_uses_;
  std::vector<Iteration*> frames_;  // parallel to chain_
  // The compiler stage's spills, by the op that writes the tile and by the
  // op it is reloaded for.
  std::map<std::string, const SpillDecision*> spill_after_;
  std::map<std::string, std::vector<const SpillDecision*>> reload_before_;
  // Blocks whose last slots are spilled, by their loop op, and per block
  // the readers of its reloads still holding one of its reload buffers.
  std::map<std::string, const SpillDecision*> slot_spill_;
  std::map<const SpillDecision*, std::deque<std::shared_ptr<Deps>>>
      reload_pool_;
  // Loads hoisted out of a loop (HoistDecision), and for each the tiles
  // loaded in the current run of that loop, by the iterations of the
  // loops inside it that its address uses.
  std::map<std::string, const HoistDecision*> hoisted_;
  struct HoistedTiles {
    int64_t run = -1;
    std::map<std::vector<int64_t>, LoweredTile> tiles;
  };
  std::map<std::string, HoistedTiles> hoisted_tiles_;
  // The key of a hoisted load in the iterations being lowered: the run of
  // the loop it is hoisted out of, then its key_vars' iterations; nullopt
  // when that loop is not around (not hoisted here).
  std::optional<std::vector<int64_t>> HoistKey(const HoistDecision& h) const {
    int at = -1;
    for (size_t k = 0; k < chain_.size(); ++k) {
      if (chain_[k]->json_path == h.loop_path) at = static_cast<int>(k);
    }
    if (at < 0) return std::nullopt;
    std::vector<int64_t> key = {frames_[static_cast<size_t>(at)]->run};
    for (const std::string& var : h.key_vars) {
      const int m = FindLoopVar(chain_, var);
      if (m < 0) return std::nullopt;
      key.push_back(frames_[static_cast<size_t>(m)]->index);
    }
    return key;
  }
  // By op (nodes: a reference stays valid while others are added).
  std::unordered_map<const NkiOp*, OpFacts> facts_;
  // What Loop works out of a loop's body alone, once per loop rather than
  // once per run (a nested loop runs once per iteration around it: the
  // tiled matmul's inner loops run ~1,000 times, each time sorting the
  // body and allocating a dozen lists; issue 42, lower42c): the ops a run
  // of an iteration emits, in body order, all of them (stage -1), the
  // prefetch stage's (0) and the compute stage's (1); whether either stage
  // is empty; and the body ops' facts, each found on its first emission.
  // Also its result's index (LoopResultIndex), the loop around over the
  // same dim (EnclosingSameDim, -1: none) or else the extent of its
  // tensor's dim, and whether it or one around it is no_reorder. And, for
  // a loop that rotates its own buffers, the `all` of its last iterations
  // so far, over every run of it.
  // An op of a slotted loop's stage (LoopPlan::slot_stages): its facts
  // and what EmitSlotted reads of them on every iteration.
  struct SlotOp {
    const NkiOp* op = nullptr;
    OpFacts* facts = nullptr;
    const OpFacts::SlotRead* reads = nullptr;  // facts->slot_reads
    uint32_t n_reads = 0;
    uint32_t n_inputs = 0;     // facts->inputs.size(): the first reads
    uint32_t local_begin = 0;  // in LoopPlan::local_reads
    uint32_t local_end = 0;
    int made_slot = -1;        // facts->made_slot
    bool result = false;       // the op in the loop's result position
    bool made_psum = false;    // its tile is in PSUM (not a DMA's or copy's)
    bool reads_slots = false;  // facts->reads_slots
  };
  struct LoopPlan {
    std::array<std::vector<size_t>, 3> staged;
    bool has_prefetch = false;
    bool has_compute = false;
    std::vector<OpFacts*> facts;
    int result_index = -1;
    std::vector<TileId> results;  // loop.results as numbers
    int outer = -1;
    int64_t extent = 0;
    bool no_reorder = false;
    std::vector<Deps> rotation;
    // Slotted (with the shortcuts, SlotPlan): every op of the body is one
    // EmitSimple takes (so no nested loop, no reduction), none held to a
    // fixed number of buffers anywhere in the kernel (any_fixed_); its
    // iterations keep their tiles and readers by the slot of the id in
    // the body (slot_count of them; result_slots: of `results`), and its
    // ops are lowered by EmitSlotted. An iteration's maps, searched on
    // every read, filled and emptied on every op and iteration, were a
    // fifth of exp_tiled's lowering (issue 42, lower42f). Worked out on
    // the loop's first run with iterations (slot_known).
    bool slot_known = false;
    bool slotted = false;
    size_t slot_count = 0;
    std::vector<int> result_slots;
    // A slotted loop's stages (as `staged`) as EmitSlotted reads them:
    // per op, what its facts and the loop hold that no iteration changes,
    // in one place. Found through the facts' vectors on every op, they
    // were ~15% of exp_tiled's lowering (issue 42, lower42g).
    std::array<std::vector<SlotOp>, 3> slot_stages;
    // SlotOp::local_begin..local_end: the slots of the body each op reads
    // (SlotRead::slot >= 0), in its reads' order, repeats kept.
    std::vector<int> local_reads;
  };
  LoopPlan& PlanOf(const NkiLoop& loop);
  void SlotPlan(const NkiLoop& loop, LoopPlan& plan);
  // By loop (nodes: a nested loop's plan is added while its loop's is held).
  std::unordered_map<const NkiLoop*, LoopPlan> plans_;
  std::vector<int64_t> block_;  // Emit's DMA block, reused
  // Emit's list of what its op waits for, by loop depth (each on the
  // heap: a nested loop holds a reference to its entry's while deeper ones
  // are added).
  std::vector<std::unique_ptr<Deps>> deps_scratch_;
  // EmitSimple's tiles read (by the iteration that made them), the slots
  // it read (their level and slot), and its inputs' tiles, kept for their
  // room.
  std::vector<std::pair<Iteration*, TileId>> reads_;
  std::vector<std::pair<BlockSlots*, size_t>> slot_reads_;
  std::vector<const LoweredTile*> read_inputs_;
  // EmitSlotted's list of what its op waits for.
  Deps slot_deps_;
  // The spec's ids as numbers.
  IdTable ids_;
  // Loop's iterations still read, by loop depth (each on the heap: a
  // nested loop's list is added while its loop's is held).
  std::vector<std::unique_ptr<std::deque<std::unique_ptr<Iteration>>>>
      live_scratch_;
  // Iterations released by Loop, reset (Recycle), for NewIteration.
  std::vector<std::unique_ptr<Iteration>> spare_;
};

absl::StatusOr<Program> LowerNki(const WorkloadSpec& spec,
                                 const DeviceProfile& profile,
                                 NkiLoweringOptions options = {});

// Where two programs differ, field by field (every instruction, its form's
// number and dependencies, the strings); "" when they do not.
std::string ProgramDifference(const Program& a, const Program& b);

}  // namespace trn::lowering_internal

#endif  // TRNBENCH_WORKLOADS_LOWERING_NKI_LOWERING_H_
