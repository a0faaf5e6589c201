// One NKI op of an iteration as lowered: its instructions, what they
// wait for, their cost rule, and the instructions the compiler inserted
// (reloads of spilled tiles, the transpose before a matmul).
#include "absl/container/inlined_vector.h"
#include "workloads/lowering/nki_lowering.h"

namespace trn::lowering_internal {

// The descriptors of a load or store of `block` of `t`: one contiguous HBM
// run per row, or several when a dim after the first is cut (the row is
// then made of strided segments), on min(rows, partitions) partitions.
DmaShape DmaShapeOf(const TensorDecl& t, const std::vector<int64_t>& block) {
  DmaShape s;
  // Leading unit dims dropped by an integer index: the rows are the next
  // dim's (LeadingUnitDims).
  const size_t lead = LeadingUnitDims(block);
  const int64_t rows = block.empty() ? 1 : block[lead];
  int64_t row_bytes = DTypeBytes(t.dtype);
  for (size_t d = lead + 1; d < block.size(); ++d) row_bytes *= block[d];
  // The innermost cut dim k: every dim after it is whole, so each segment
  // is block[k] * (the dims after k) elements, and a row has
  // prod(block[lead+1..k-1]) of them.
  int64_t segments = 1;
  s.whole_rows = true;
  for (size_t k = block.size(); k-- > lead + 1;) {
    if (block[k] != t.shape[k]) {
      for (size_t d = lead + 1; d < k; ++d) segments *= block[d];
      s.whole_rows = false;
      break;
    }
  }
  s.partitions = rows;
  s.runs = rows * segments;
  s.bytes = rows * row_bytes;
  return s;
}

const LoweredTile* NkiLowering::HoistedTile(const NkiOp& op,
                                            const HoistDecision& h) {
  const std::optional<std::vector<int64_t>> key = HoistKey(h);
  if (!key) return nullptr;
  HoistedTiles& kept = hoisted_tiles_[op.json_path];
  if (kept.run != key->front()) return nullptr;
  auto t = kept.tiles.find(*key);
  return t == kept.tiles.end() ? nullptr : &t->second;
}

void NkiLowering::KeepHoisted(const NkiOp& op, const HoistDecision& h,
                              const LoweredTile& made) {
  const std::optional<std::vector<int64_t>> key = HoistKey(h);
  if (!key) return;
  HoistedTiles& kept = hoisted_tiles_[op.json_path];
  if (kept.run != key->front()) {
    kept.run = key->front();
    kept.tiles.clear();
  }
  kept.tiles[*key] = made;
}

// The frames around the op being lowered (below chain_.back(), innermost
// first) whose body can make `id`: an op of it of that id, or a loop of
// it with `id` among its results, the only ways a tile gets into an
// iteration's `made`. The others never hold it, so FindWithFrame's scan
// of them is skipped.
std::vector<uint32_t> NkiLowering::FramesMaking(const std::string& id) const {
  std::vector<uint32_t> out;
  for (size_t f = chain_.size() - 1; f-- > 0;) {
    const bool makes = std::any_of(
        chain_[f]->body.begin(), chain_[f]->body.end(), [&](const NkiOp& op) {
          if (op.id == id) return true;
          return std::any_of(
              op.loop.begin(), op.loop.end(), [&](const NkiLoop& l) {
                return std::find(l.results.begin(), l.results.end(), id) !=
                       l.results.end();
              });
        });
    if (makes) out.push_back(static_cast<uint32_t>(f));
  }
  return out;
}

OpFacts& NkiLowering::FactsOf(const NkiLoop& loop, const NkiOp& op) {
  auto [at, added] = facts_.try_emplace(&op);
  OpFacts& f = at->second;
  if (!added) return f;
  const std::string& k = op.op;
  f.is_loop = k == "loop";
  f.is_reduction = k == "reduction";
  f.is_dma = k == "load" || k == "store" || k == "hbm_copy";
  f.is_sbuf_copy = k == "sbuf_copy";
  f.is_matmul = k == "matmul";
  f.data_movement_only = IsDataMovementOnly(op);
  f.psum = op.buffer == "psum";
  f.walks_partition_tiles = op.tile.empty() && loop.WalksPartitionTiles();
  if (f.is_loop) {
    f.tiles_in = {TilesOf(op, false), TilesOf(op, true)};
    f.by_slot = by_slot_.count(&op) != 0;
  }
  if (k == "tensor_tensor" || k == "tensor_tensor_scan" || k == "select") {
    f.cost = CostKind::kStream2;
  } else if (k == "tensor_reduce" || k == "bn_stats") {
    f.cost = CostKind::kStreamInput;
  } else if (k == "bn_aggr") {
    f.cost = CostKind::kBnAggr;
  } else if (k == "reciprocal") {
    f.cost = CostKind::kReciprocal;
  } else if (k == "iota" || k == "affine_select") {
    f.cost = CostKind::kIndexGen;
  } else if (k == "activation") {
    f.cost = CostKind::kActivation;
  } else if (k == "tensor_scalar") {
    f.cost = CostKind::kTensorScalar;
  } else if (f.is_matmul) {
    f.cost = CostKind::kMatmul;
  } else if (k == "transpose") {
    f.cost = CostKind::kTranspose;
  }
  if (!f.is_loop && !f.is_dma) {
    f.tile = ResolveNkiTileInChain(spec_, chain_, op, partitions_);
  }
  if (f.is_dma) {
    const TensorDecl& t = *spec_.FindTensor(op.tensor);
    f.tensor = &t;
    const std::vector<std::string> index =
        EffectiveIndex(op, loop, t.shape.size());
    f.block = t.shape;
    f.block_frame.assign(f.block.size(), -1);
    for (size_t d = 0; d < f.block.size(); ++d) {
      if (const auto range = ParseConstRange(index[d])) {
        f.block[d] = range->second - range->first;
        continue;
      }
      const int in = FindLoopVar(chain_, index[d]);
      if (in < 0) continue;
      if (IndexesOneElement(spec_, chain_, static_cast<size_t>(in),
                            t.shape[d])) {
        f.block[d] = 1;
      } else {
        f.block_frame[d] = in;
      }
    }
  }
  if (auto r = reload_before_.find(op.json_path); r != reload_before_.end()) {
    f.reload_before = &r->second;
  }
  if (auto sp = spill_after_.find(op.json_path); sp != spill_after_.end()) {
    f.spill_after = sp->second;
  }
  if (auto sp = slot_spill_.find(op.json_path); sp != slot_spill_.end()) {
    f.slot_spill = sp->second;
  }
  if (auto h = hoisted_.find(op.json_path); h != hoisted_.end()) {
    f.hoist = h->second;
  }
  // A read by slot is simple unless some block of the kernel spills its
  // slots (a read of a spilled slot reloads it first, which only Emit
  // does): with none spilled, no slot has a save (SpillSlots).
  f.reads_slots = std::any_of(
      op.input_slots.begin(), op.input_slots.end(),
      [](const std::vector<std::string>& vars) { return !vars.empty(); });
  f.simple = !f.is_loop && !f.is_reduction && f.reload_before == nullptr &&
             f.spill_after == nullptr && f.slot_spill == nullptr &&
             f.hoist == nullptr && op.carry.empty() && !op.insert_transpose &&
             (slot_spill_.empty() || !f.reads_slots);
  f.id = ids_.Of(op.id);
  for (const std::string& in : op.inputs) {
    f.inputs.push_back(ids_.Of(in));
    f.input_frames.push_back(FramesMaking(in));
  }
  for (const std::string& a : op.after) {
    f.after.push_back(ids_.Of(a));
    f.after_frames.push_back(FramesMaking(a));
  }
  if (!op.mask.empty()) {
    f.mask = ids_.Of(op.mask);
    f.mask_frames = FramesMaking(op.mask);
  }
  if (!op.indirect.empty()) {
    f.indirect = ids_.Of(op.indirect);
    f.indirect_frames = FramesMaking(op.indirect);
  }
  // The loop around over whose tile a free size of op.tile's follows
  // (PartialFree).
  for (size_t in = chain_.size(); in-- > 0;) {
    const NkiLoop& l = *chain_[in];
    if (l.dim < 1 || l.step <= 0 || l.step != f.tile.free) continue;
    f.partial_free_frame = static_cast<int>(in);
    break;
  }
  for (const std::string& c : op.carry) {
    f.carry.push_back(ids_.Of(c));
    int frame = -1;
    for (size_t f_at = chain_.size(); f_at-- > 0;) {
      if (DefinesId(*chain_[f_at], c)) {
        frame = static_cast<int>(f_at);
        break;
      }
    }
    f.carry_frame.push_back(frame);
  }
  for (const std::vector<std::string>& vars : op.input_slots) {
    auto& terms = f.input_slot_terms.emplace_back();
    for (const std::string& var : vars) terms.push_back(ParseSlotTerms(var));
  }
  for (const std::vector<std::string>& vars : op.carry_slots) {
    auto& terms = f.carry_slot_terms.emplace_back();
    for (const std::string& var : vars) terms.push_back(ParseSlotTerms(var));
  }
  return f;
}

// Every field of a ComputeCost (KernelBuilder::Compute reads them all).
static bool SameCost(const ComputeCost& a, const ComputeCost& b) {
  return a.rule == b.rule && a.work == b.work && a.aux == b.aux &&
         a.psum_operand == b.psum_operand && a.narrow_dtype == b.narrow_dtype;
}

// A DMA of `facts`' op moving `shape`: by the op's last form while that
// is the shape it was made of (a DMA op's shape changes only with its
// block, OpFacts::has_form is cleared then; an SBUF copy's never does).
uint32_t NkiLowering::DmaOf(OpFacts& facts, const DmaShape& shape,
                            const Deps& deps, const NkiOp& op, int iter) {
  if (options_.shortcuts && facts.has_form) {
    return builder_.Again(facts.form, deps, iter);
  }
  const uint32_t id = builder_.Dma(facts.opcode, facts.label, shape, deps,
                                   op.source_line, iter);
  facts.has_form = true;
  facts.form = builder_.FormOf(id);
  return id;
}

// An HBM transfer of `facts`' op (load, store, HBM copy): its block in
// the frames around it, its shape worked out again when the block changed,
// its names interned once. Emit and EmitSimple alike.
uint32_t NkiLowering::HbmDma(const NkiOp& op, OpFacts& facts, const Deps& deps,
                             int iter) {
  const TensorDecl& t = *facts.tensor;
  if (!SameBlock(facts)) {
    std::vector<int64_t>& block = block_;
    block.resize(facts.block.size());
    for (size_t d = 0; d < block.size(); ++d) {
      const int frame = facts.block_frame[d];
      block[d] = frame >= 0 ? frames_[static_cast<size_t>(frame)]->tile
                            : facts.block[d];
    }
    facts.has_last = true;
    facts.has_form = false;
    facts.last_block = block;
    DmaShape& shape = facts.last_shape;
    shape = DmaShapeOf(t, block);
    shape.transpose = op.transpose;
    shape.indirect = !op.indirect.empty();
    shape.hbm_to_hbm = op.op == "hbm_copy";
    facts.last_tile = FoldBlock(block, op.dtype.value_or(t.dtype), partitions_);
  }
  if (!facts.interned) {
    const std::string& label = op.op == "store" ? op.inputs.front() : op.tensor;
    facts.opcode = builder_.Intern(absl::StrCat("dma_", op.op));
    facts.label = builder_.Intern(label);
    facts.interned = true;
  }
  return DmaOf(facts, facts.last_shape, deps, op, iter);
}

// A DMA from one SBUF tile to another: the tile's partitions dealt to the
// DMA engines as a load's are, one descriptor per partition (an SBUF
// partition is not contiguous with the next), nothing from HBM.
uint32_t NkiLowering::SbufCopy(const NkiOp& op, OpFacts& facts,
                               const Deps& deps, int iter) {
  const NkiTile& tile = facts.tile;
  DmaShape shape;
  shape.partitions = tile.partitions;
  shape.runs = tile.partitions;
  shape.bytes = tile.partitions * tile.free * DTypeBytes(tile.dtype);
  shape.transpose = op.transpose;
  shape.indirect = !op.indirect.empty();
  shape.on_chip = true;
  if (!facts.interned) {
    facts.opcode = builder_.Intern("dma_sbuf_copy");
    facts.label = builder_.Intern(op.id);
    facts.interned = true;
  }
  return DmaOf(facts, shape, deps, op, iter);
}

// A compute op's instruction: its names interned once, and its last form
// again (with the shortcuts) while dtype, partitions, cost and FLOPs are
// those it was made of.
uint32_t NkiLowering::ComputeOp(const NkiOp& op, OpFacts& facts,
                                DType cost_dtype, int64_t tile_p,
                                const ComputeCost& cost, int64_t flops,
                                const Deps& deps, int iter) {
  if (!facts.interned) {
    std::string opcode = op.op;
    if (!op.func.empty()) absl::StrAppend(&opcode, ".", op.func);
    facts.opcode = builder_.Intern(opcode);
    facts.label = builder_.Intern(op.id.empty() ? op.op : op.id);
    facts.interned = true;
  }
  uint32_t id;
  if (options_.shortcuts && facts.has_form && facts.form_dtype == cost_dtype &&
      facts.form_partitions == tile_p && facts.form_flops == flops &&
      SameCost(facts.form_cost, cost)) {
    id = builder_.Again(facts.form, deps, iter);
  } else {
    id = builder_.Compute(*op.engine, facts.opcode, facts.label, cost_dtype,
                          tile_p, cost, deps, flops, op.source_line, iter);
    facts.has_key = false;  // SimpleInstr sets it again for its own
    facts.has_form = true;
    facts.form = builder_.FormOf(id);
    facts.form_dtype = cost_dtype;
    facts.form_partitions = tile_p;
    facts.form_flops = flops;
    facts.form_cost = cost;
  }
  return id;
}

absl::Status NkiLowering::Emit(const NkiLoop& loop, Iteration& it, size_t idx,
                               OpFacts& facts) {
  const NkiOp& op = loop.body[idx];
  // The spilled tiles this op is the first reader of come back from HBM
  // first: its reads of them wait for the reload, the reload for the
  // save.
  if (facts.reload_before != nullptr) {
    for (const SpillDecision* s : *facts.reload_before) {
      const TileId id = ids_.Of(s->id);
      auto save = it.spill_saves.find(id);
      auto tile = it.made.find(id);
      if (save == it.spill_saves.end() || tile == it.made.end()) continue;
      tile->second.deps = {builder_.Dma(
          "dma_spill_reload", s->id, SpillShape(*s), {save->second},
          op.source_line, static_cast<int>(it.index))};
      it.all.push_back(tile->second.deps.front());
    }
  }
  if (facts.is_reduction) return EmitReduction(op, facts, it, idx);
  // What it waits for: a list kept per loop depth (a nested loop's op
  // runs while this one's list is its entry), cleared rather than made, so
  // that its room stays from one op to the next: lowering runs this on
  // every op of every iteration.
  while (deps_scratch_.size() < chain_.size()) {
    deps_scratch_.push_back(std::make_unique<Deps>());
  }
  Deps& deps = *deps_scratch_[chain_.size() - 1];
  deps.erase(deps.begin(), deps.end());  // clear() would free its room
  bool local = false;
  // Slots this op reads one by one: it becomes one of their readers.
  absl::InlinedVector<std::pair<BlockSlots*, size_t>, 4> slot_reads;
  // The tiles it reads, by the iteration that made them.
  absl::InlinedVector<std::pair<Iteration*, TileId>, 8> tile_reads;
  // The reload buffers of spilled slots it reads: it is their reader.
  absl::InlinedVector<std::shared_ptr<Deps>, 2> reload_readers;
  // Input k's tile, read slot by slot as op.input_slots[k] says (kWhole:
  // whole).
  constexpr size_t kWhole = std::numeric_limits<size_t>::max();
  // Each input's tile as need finds it, for CostOf and a matmul's
  // stationary input: the same lookups again cost a tenth of the fully
  // optimized matmul's lowering (issue 42, lower42d). Nothing adds to a
  // made map between (an addition may move its entries).
  absl::InlinedVector<const LoweredTile*, 4> input_tiles(facts.inputs.size(),
                                                         nullptr);
  auto need = [&](TileId id, size_t k) {
    const size_t slot_vars =
        k < op.input_slots.size() ? op.input_slots[k].size() : 0;
    const LoweredTile* t = nullptr;
    auto m = it.made.find(id);
    if (m != it.made.end()) {
      local = true;
      t = &m->second;
      tile_reads.emplace_back(&it, id);
    } else {
      Iteration* frame = nullptr;
      std::tie(t, frame) = FindWithFrame(id);
      if (t != nullptr) tile_reads.emplace_back(frame, id);
    }
    if (t == nullptr) return;
    if (k != kWhole) input_tiles[k] = t;
    // A reduction's reader also holds the tiles of what made it: that
    // op's next iteration in the same buffers writes both outputs.
    if (t->made_by != kNoTile) {
      tile_reads.emplace_back(tile_reads.back().first, t->made_by);
    }
    // One level of the block per slot variable, as deep as the
    // block goes. The validator matches each variable's trips to its
    // level's; a run with fewer (a partial tile) reads the level whole.
    const Deps* d = &t->deps;
    std::pair<BlockSlots*, size_t> reader{nullptr, 0};
    BlockSlots* level = t->slots.get();
    for (size_t v = 0; v < slot_vars; ++v) {
      const std::optional<size_t> slot = InputSlot(op, facts, k, v);
      if (level == nullptr || !slot) break;
      const size_t j = *slot;
      if (j >= level->made.size()) break;
      d = &level->made[j];
      reader = {level, j};
      level = level->sub[j].get();
    }
    BlockSlots* leaf = reader.first;
    if (leaf != nullptr && reader.second < leaf->saves.size() &&
        leaf->saves[reader.second].has_value()) {
      // A spilled slot comes back from HBM for this read, into one of
      // the block's reload buffers: after its save, and after the
      // readers of the reload that used the same buffer before.
      std::deque<std::shared_ptr<Deps>>& pool = reload_pool_[leaf->spill];
      Deps wait = {*leaf->saves[reader.second]};
      if (static_cast<int>(pool.size()) >= kSpillReloadBuffers) {
        Append(wait, *pool.front());
        pool.pop_front();
      }
      const uint32_t reload = builder_.Dma(
          "dma_spill_reload", leaf->spill->id, SlotShape(*leaf->spill), wait,
          op.source_line, static_cast<int>(it.index));
      it.all.push_back(reload);
      pool.push_back(std::make_shared<Deps>());
      reload_readers.push_back(pool.back());
      deps.push_back(reload);
      // Still a reader of the slot: a later run refills it after this
      // read, as it does a slot kept in SBUF, so the spill does not let
      // the loads of every later run race ahead of the reads.
      slot_reads.push_back(reader);
      return;
    }
    Append(deps, *d);
    if (reader.first != nullptr) slot_reads.push_back(reader);
  };
  // Where the first input's producers end and the other inputs' do: an
  // inserted transpose of the first input waits for all but the others.
  size_t first_end = 0;
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    need(facts.inputs[k], k);
    if (k == 0) first_end = deps.size();
  }
  const size_t inputs_end = deps.size();
  for (const TileId id : facts.after) need(id, kWhole);
  if (facts.mask != kNoTile) need(facts.mask, kWhole);
  if (facts.indirect != kNoTile) need(facts.indirect, kWhole);
  // A carried tile is the previous iteration's, of the loop whose body
  // makes it (this op's, or one around it); the first iteration reads
  // what the loop was entered with, which the op names in its inputs.
  for (size_t k = 0; k < facts.carry.size(); ++k) {
    const TileId id = facts.carry[k];
    const int frame = facts.carry_frame[k];
    if (frame < 0) continue;
    Iteration* prev = frames_[static_cast<size_t>(frame)]->prev;
    if (prev == nullptr) continue;
    auto m = prev->made.find(id);
    if (m == prev->made.end()) continue;
    tile_reads.emplace_back(prev, id);
    if (m->second.made_by != kNoTile) {
      tile_reads.emplace_back(prev, m->second.made_by);
    }
    const Deps* d = &m->second.deps;
    BlockSlots* level = m->second.slots.get();
    std::pair<BlockSlots*, size_t> reader{nullptr, 0};
    if (k < op.carry_slots.size()) {
      for (size_t v = 0; v < op.carry_slots[k].size(); ++v) {
        const std::optional<size_t> slot = CarrySlot(op, facts, k, v);
        if (level == nullptr || !slot || *slot >= level->made.size()) break;
        d = &level->made[*slot];
        reader = {level, *slot};
        level = level->sub[*slot].get();
      }
    }
    Append(deps, *d);
    if (reader.first != nullptr) slot_reads.push_back(reader);
  }
  // An op with no producer in its own body starts the iteration, so it is
  // the one that waits for the iteration's buffers. A nested loop whose
  // tiles are its own (RotatesOwnBuffers) waits for its own instead.
  const LoopTiles tiles =
      facts.is_loop ? facts.tiles_in[keep_all_.back() ? 1 : 0] : LoopTiles{};
  // A block that is only ever read slot by slot refills each slot once
  // that slot's readers in the run `copies` before are done, not once
  // that whole iteration is: it waits for what the loop around it was
  // entered with instead of the iteration's buffers.
  const bool refill_by_slot = facts.is_loop && !op.id.empty() &&
                              tiles.keep_all && it.copies > 0 && facts.by_slot;
  // A loop without an id that fills a slot of such a block is one level
  // of it: it keeps its slots for the readers and refills slot by slot
  // with it.
  const bool fills_slot = facts.is_loop && op.id.empty() && tiles.keep_all &&
                          it.keeps_slots &&
                          static_cast<int>(idx) == result_index_.back();
  const BlockSlots* refill = fills_slot ? it.refill : nullptr;
  if (refill_by_slot) {
    const std::deque<std::shared_ptr<BlockSlots>>& runs = block_runs_[&op];
    if (static_cast<int64_t>(runs.size()) >= it.copies) {
      refill = runs[runs.size() - static_cast<size_t>(it.copies)].get();
    }
    Append(deps, *it.entry);
  } else if (it.reuse != nullptr) {
    // The op's own tile reuses the buffer of the same tile `copies`
    // iterations before: it waits for that tile's readers (or, unread,
    // its writer), not for that whole iteration.
    if (!op.id.empty() && !tiles.rotates) {
      auto r = it.reuse->readers.find(facts.id);
      if (r != it.reuse->readers.end()) {
        Append(deps, r->second);
      } else if (auto w = it.reuse->made.find(facts.id);
                 w != it.reuse->made.end()) {
        Append(deps, w->second.deps);
      }
    }
    if (!local && !tiles.rotates) {
      Append(deps, *it.entry);
    }
  } else if (!local && !tiles.rotates) {
    Append(deps, *it.gate);
  }
  // The result op of a loop whose tile is one buffer waits for that
  // buffer's previous readers; a loop in the result position passes the
  // wait on to its own result op.
  const Deps* inherited = static_cast<int>(idx) == result_index_.back()
                              ? result_wait_.back()
                              : nullptr;
  Deps wait;
  if (op.FixedBuffers() > 0) {
    WaitForPreviousReaders(op, facts.id, it, wait);
    WaitForPreviousUse(op, it, idx, wait);
  }
  if (inherited != nullptr) {
    Append(wait, *inherited);
  }
  if (!facts.is_loop) Append(deps, wait);
  const int iter = static_cast<int>(it.index);
  LoweredTile made;
  if (facts.is_loop) {
    // Only a kernel that reads some block by slot needs a block's slots
    // (a copy of each iteration's instructions).
    const bool want_slots =
        any_slots_ && ((!op.id.empty() && tiles.keep_all) || fills_slot);
    // Its result is read out here when its id names it, or when it is in
    // this loop's result position and this loop's result is read out.
    const bool result_out =
        !op.id.empty() ||
        (static_cast<int>(idx) == result_index_.back() && result_out_.back());
    TRN_ASSIGN_OR_RETURN(LoweredLoop nested,
                         Loop(op.loop.front(), deps, tiles, refill, want_slots,
                              wait.empty() ? nullptr : &wait, result_out));
    made = std::move(nested.tile);
    made.deps = std::move(nested.done);
    // Its results are read in this body under their own ids.
    for (auto& [id, tile] : nested.results) it.made[id] = std::move(tile);
    if (fills_slot) {
      it.sub = std::move(nested.slots);
    } else {
      made.slots = std::move(nested.slots);
    }
    if (facts.slot_spill != nullptr && made.slots != nullptr) {
      SpillSlots(*facts.slot_spill, *made.slots, op, it);
    }
    if (refill_by_slot) {
      std::deque<std::shared_ptr<BlockSlots>>& runs = block_runs_[&op];
      runs.push_back(made.slots);
      while (static_cast<int64_t>(runs.size()) > it.copies) runs.pop_front();
    }
  } else if (const LoweredTile* kept =
                 facts.hoist ? HoistedTile(op, *facts.hoist) : nullptr) {
    // A hoisted load already made in this run of its loop: its readers
    // read the tile kept in SBUF, no DMA.
    made = *kept;
  } else if (facts.is_dma) {
    made.deps.push_back(HbmDma(op, facts, deps, iter));
    const NkiTile& tile = facts.last_tile;
    made.partitions = op.tile.empty() ? tile.partitions : op.tile[0];
    made.free = op.tile.empty() ? tile.free : op.tile[1];
    made.dtype = tile.dtype;
    if (facts.hoist) KeepHoisted(op, *facts.hoist, made);
  } else if (facts.is_sbuf_copy) {
    // A DMA from one SBUF tile to another (SbufCopy).
    const NkiTile& tile = facts.tile;
    made.deps.push_back(SbufCopy(op, facts, deps, iter));
    made.partitions = tile.partitions;
    made.free = tile.free;
    made.dtype = tile.dtype;
  } else {
    // One rule for tile shapes, shared with the validator's SBUF check.
    const NkiTile& tile = facts.tile;
    const int64_t tile_p =
        facts.walks_partition_tiles ? it.tile : tile.partitions;
    const int64_t tile_f = PartialFree(tile.free);
    DType cost_dtype = tile.dtype;
    int64_t flops = facts.data_movement_only ? 0 : tile_p * tile_f;
    const bool found = options_.shortcuts;  // input_tiles, not Find
    ComputeCost cost = CostOf(op, facts, tile_p, tile_f, tile.dtype,
                              found ? input_tiles.data() : nullptr);
    if (facts.is_matmul) {
      // The PE array runs at the rate of its inputs' dtype (PSUM
      // accumulates in fp32 whatever they are), and contracts over the
      // stationary input's partitions.
      const LoweredTile* stationary =
          found ? input_tiles.front() : Find(facts.inputs.front());
      // A stationary read by a slice (`x_tiles[:, k * 128:(k + 1) *
      // 128]` of a [128, 2048] tile) is that slice, for the contraction
      // depth and for a transpose the compiler inserts.
      LoweredTile sliced;
      if (stationary != nullptr && !op.slices.empty() &&
          op.slices.front().size() == 2) {
        sliced = *stationary;
        sliced.partitions = op.slices.front()[0];
        sliced.free = op.slices.front()[1];
        stationary = &sliced;
      }
      int64_t depth = partitions_;
      if (stationary != nullptr && stationary->partitions > 0) {
        cost_dtype = stationary->dtype;
        depth = std::min<int64_t>(partitions_, stationary->partitions);
      }
      if (op.insert_transpose) {
        TRN_ASSIGN_OR_RETURN(
            depth,
            InsertTranspose(op, stationary, deps, first_end, inputs_end, iter));
      }
      flops = 2 * depth * tile_p * tile_f;
    }
    made.deps.push_back(
        ComputeOp(op, facts, cost_dtype, tile_p, cost, flops, deps, iter));
    made.partitions = tile_p;
    made.free = tile_f;
    made.dtype = tile.dtype;
    made.psum = facts.psum;
  }
  for (const auto& [frame, id] : tile_reads) {
    if (auto f = frame->fixed.find(id); f != frame->fixed.end()) {
      Deps& r = f->second->readers;
      Append(r, made.deps);
    }
    if (!frame->track_readers) continue;
    Deps& r = frame->readers[id];
    Append(r, made.deps);
  }
  for (const auto& [slots, j] : slot_reads) {
    Deps& r = slots->readers[j];
    Append(r, made.deps);
  }
  for (const std::shared_ptr<Deps>& r : reload_readers) {
    Append(*r, made.deps);
  }
  Append(it.all, made.deps);
  if (facts.spill_after != nullptr) {
    const uint32_t save =
        builder_.Dma("dma_spill_save", op.id, SpillShape(*facts.spill_after),
                     made.deps, op.source_line, iter);
    it.spill_saves[facts.id] = save;
    it.all.push_back(save);
  }
  if (static_cast<int>(idx) == result_index_.back()) {
    it.result.partitions = made.partitions;  // the shape, not the deps
    it.result.free = made.free;
    it.result.dtype = made.dtype;
    it.result.psum = made.psum;
  }
  if (op.FixedBuffers() > 0 && !op.id.empty()) {
    auto use = std::make_shared<FixedUse>();
    use->writer = made.deps;
    use->slots = made.slots;
    use->run = it.run;
    it.fixed[facts.id] = use;
    std::deque<std::shared_ptr<FixedUse>>& uses = fixed_uses_[&op];
    uses.push_back(std::move(use));
    while (static_cast<int64_t>(uses.size()) > op.FixedBuffers()) {
      uses.pop_front();
    }
  }
  if (!op.id.empty()) it.made[facts.id] = std::move(made);
  return CheckSize(spec_, builder_.size());
}

// Whether a compute op's inputs' tiles are those its key was made of
// (OpFacts::has_key): each present or not as then, and a present one of
// the same partitions, free size, dtype and PSUM or not.
static inline __attribute__((always_inline)) bool SameInputs(
    const OpFacts& facts, const LoweredTile* const* inputs) {
  for (size_t k = 0; k < facts.inputs.size(); ++k) {
    const OpFacts::InputKey& key = facts.key_inputs[k];
    const LoweredTile* t = inputs[k];
    if (key.present != (t != nullptr)) return false;
    if (t == nullptr) continue;
    if (t->partitions != key.partitions || t->free != key.free ||
        t->dtype != key.dtype || t->psum != key.psum) {
      return false;
    }
  }
  return true;
}

// What EmitSimple's or EmitSlotted's op makes, once what it waits for is
// known: one instruction, and the tile's shape (its inputs' tiles in
// read_inputs_).
inline NkiLowering::SimpleMade NkiLowering::SimpleInstr(const NkiOp& op,
                                                        OpFacts& facts,
                                                        const Iteration& it,
                                                        const Deps& deps) {
  const int iter = static_cast<int>(it.index);
  SimpleMade made;
  if (facts.is_dma) {
    // HbmDma's own shortcut, without the calls: the block it moved last
    // time, so the form it made of it.
    made.instr = options_.shortcuts && facts.has_form && SameBlock(facts)
                     ? builder_.Again(facts.form, deps, iter)
                     : HbmDma(op, facts, deps, iter);
    const NkiTile& tile = facts.last_tile;
    made.partitions = op.tile.empty() ? tile.partitions : op.tile[0];
    made.free = op.tile.empty() ? tile.free : op.tile[1];
    made.dtype = tile.dtype;
  } else if (facts.is_sbuf_copy) {
    const NkiTile& tile = facts.tile;
    made.instr = SbufCopy(op, facts, deps, iter);
    made.partitions = tile.partitions;
    made.free = tile.free;
    made.dtype = tile.dtype;
  } else {
    const NkiTile& tile = facts.tile;
    const int64_t tile_p =
        facts.walks_partition_tiles ? it.tile : tile.partitions;
    // PartialFree's, its loop found once.
    const int64_t tile_f =
        facts.partial_free_frame < 0
            ? tile.free
            : std::min(
                  tile.free,
                  frames_[static_cast<size_t>(facts.partial_free_frame)]->tile);
    made.partitions = tile_p;
    made.free = tile_f;
    made.dtype = tile.dtype;
    const LoweredTile* const* inputs = read_inputs_.data();
    const size_t n_inputs = facts.inputs.size();
    if (options_.shortcuts && facts.has_key && facts.key_p == tile_p &&
        facts.key_f == tile_f && SameInputs(facts, inputs)) {
      made.instr = builder_.Again(facts.form, deps, iter);
      return made;
    }
    DType cost_dtype = tile.dtype;
    int64_t flops = facts.data_movement_only ? 0 : tile_p * tile_f;
    const ComputeCost cost =
        CostOf(op, facts, tile_p, tile_f, tile.dtype, inputs);
    if (facts.is_matmul) {
      // Emit's stationary, its partitions a slice's when sliced.
      const LoweredTile* stationary = read_inputs_.front();
      int64_t depth = partitions_;
      if (stationary != nullptr) {
        const int64_t p = !op.slices.empty() && op.slices.front().size() == 2
                              ? op.slices.front()[0]
                              : stationary->partitions;
        if (p > 0) {
          cost_dtype = stationary->dtype;
          depth = std::min<int64_t>(partitions_, p);
        }
      }
      flops = 2 * depth * tile_p * tile_f;
    }
    made.instr =
        ComputeOp(op, facts, cost_dtype, tile_p, cost, flops, deps, iter);
    if (n_inputs <= OpFacts::kKeyInputs) {
      facts.has_key = true;
      facts.key_p = tile_p;
      facts.key_f = tile_f;
      for (size_t k = 0; k < n_inputs; ++k) {
        OpFacts::InputKey& key = facts.key_inputs[k];
        const LoweredTile* t = inputs[k];
        key.present = t != nullptr;
        if (t == nullptr) continue;
        key.psum = t->psum;
        key.dtype = t->dtype;
        key.partitions = t->partitions;
        key.free = t->free;
      }
    }
  }
  return made;
}

// Emit's short path, for an op OpFacts::simple takes: what Emit does for
// it, step for step in the same order, without the steps such an op never
// takes (reloads, spilled slots, carried tiles, nested loops, hoisted
// loads, an inserted transpose, a spill) and with its inputs looked up
// once for its dependencies and its cost. Its reads by slot (a matmul's
// lhsT_tiles[bk] in the tutorial's fully optimized kernel, most of its
// instructions) came this way in lower42e: through Emit they cost twice
// as much, its closure, lists and tiles made per op. Emit with
// NkiLoweringOptions::shortcuts off is the reference it is held to
// (LoweringShortcutsTest).
absl::Status NkiLowering::EmitSimple(const NkiLoop& loop, Iteration& it,
                                     size_t idx, OpFacts& facts) {
  const NkiOp& op = loop.body[idx];
  while (deps_scratch_.size() < chain_.size()) {
    deps_scratch_.push_back(std::make_unique<Deps>());
  }
  Deps& deps = *deps_scratch_[chain_.size() - 1];
  deps.erase(deps.begin(), deps.end());
  reads_.clear();
  read_inputs_.clear();
  bool local = false;
  if (facts.reads_slots) {
    slot_reads_.clear();
    for (size_t k = 0; k < facts.inputs.size(); ++k) {
      const TileId id = facts.inputs[k];
      const std::vector<uint32_t>& frames = facts.input_frames[k];
      read_inputs_.push_back(k < facts.input_slot_terms.size() &&
                                     !facts.input_slot_terms[k].empty()
                                 ? ReadSlots(it, id, frames,
                                             facts.input_slot_terms[k], deps,
                                             local)
                                 : ReadWhole(it, id, frames, deps, local));
    }
  } else {
    for (size_t k = 0; k < facts.inputs.size(); ++k) {
      read_inputs_.push_back(
          ReadWhole(it, facts.inputs[k], facts.input_frames[k], deps, local));
    }
  }
  for (size_t k = 0; k < facts.after.size(); ++k) {
    ReadWhole(it, facts.after[k], facts.after_frames[k], deps, local);
  }
  if (facts.mask != kNoTile) {
    ReadWhole(it, facts.mask, facts.mask_frames, deps, local);
  }
  if (facts.indirect != kNoTile) {
    ReadWhole(it, facts.indirect, facts.indirect_frames, deps, local);
  }
  if (it.reuse != nullptr) {
    if (!op.id.empty()) {
      if (auto r = it.reuse->readers.find(facts.id); r != nullptr) {
        Append(deps, r->second);
      } else if (auto w = it.reuse->made.find(facts.id); w != nullptr) {
        Append(deps, w->second.deps);
      }
    }
    if (!local) Append(deps, *it.entry);
  } else if (!local) {
    Append(deps, *it.gate);
  }
  // Emit's `wait`, appended as it is made (it is all appended to deps).
  if (op.FixedBuffers() > 0) {
    WaitForPreviousReaders(op, facts.id, it, deps);
    WaitForPreviousUse(op, it, idx, deps);
  }
  const bool result = static_cast<int>(idx) == result_index_.back();
  if (result && result_wait_.back() != nullptr) {
    Append(deps, *result_wait_.back());
  }
  const SimpleMade made = SimpleInstr(op, facts, it, deps);
  const uint32_t instr = made.instr;
  const int64_t made_p = made.partitions;
  const int64_t made_f = made.free;
  const DType made_dtype = made.dtype;
  // A DMA's tile is not in PSUM (LoweredTile's default).
  const bool made_psum = !facts.is_dma && !facts.is_sbuf_copy && facts.psum;
  for (const auto& [frame, id] : reads_) {
    if (auto f = frame->fixed.find(id); f != nullptr) {
      f->second->readers.push_back(instr);
    }
    if (frame->track_readers) frame->readers[id].push_back(instr);
  }
  if (facts.reads_slots) {
    for (const auto& [slots, j] : slot_reads_) {
      slots->readers[j].push_back(instr);
    }
  }
  it.all.push_back(instr);
  if (result) {
    it.result.partitions = made_p;
    it.result.free = made_f;
    it.result.dtype = made_dtype;
    it.result.psum = made_psum;
  }
  if (op.FixedBuffers() > 0 && !op.id.empty()) {
    auto use = std::make_shared<FixedUse>();
    use->writer = {instr};
    use->run = it.run;
    it.fixed[facts.id] = use;
    std::deque<std::shared_ptr<FixedUse>>& uses = fixed_uses_[&op];
    uses.push_back(std::move(use));
    while (static_cast<int64_t>(uses.size()) > op.FixedBuffers()) {
      uses.pop_front();
    }
  }
  if (!op.id.empty()) {
    // What `= std::move(made)` does, field by field in place (no slots,
    // not a reduction's): an op may make an id made before in this
    // iteration, so each field is set.
    LoweredTile& m = it.made[facts.id];
    m.deps.erase(m.deps.begin(), m.deps.end());
    m.deps.push_back(instr);
    m.partitions = made_p;
    m.free = made_f;
    m.dtype = made_dtype;
    m.psum = made_psum;
    m.slots.reset();
    m.made_by = kNoTile;
  }
  return CheckSize(spec_, builder_.size());
}

// The instructions of the slot of `t` that `terms` (one per level) pick
// to `deps` (the whole tile's when a level is missing or too short: a
// partial tile), and the slot read to slot_reads_. ReadSlots' and
// EmitSlotted's.
inline void NkiLowering::AppendSlot(const LoweredTile& t,
                                    const std::vector<SlotTerms>& terms,
                                    Deps& deps) {
  const Deps* d = &t.deps;
  BlockSlots* leaf = nullptr;
  size_t leaf_slot = 0;
  BlockSlots* level = t.slots.get();
  for (const SlotTerms& term : terms) {
    const std::optional<size_t> slot = SlotOf(term);
    if (level == nullptr || !slot || *slot >= level->made.size()) break;
    d = &level->made[*slot];
    leaf = level;
    leaf_slot = *slot;
    level = level->sub[*slot].get();
  }
  Append(deps, *d);
  if (leaf != nullptr) slot_reads_.emplace_back(leaf, leaf_slot);
}

// EmitSimple for the ops `ops` of a slotted loop (LoopPlan::slotted), one
// after the other in `it`: for each, the same steps in the same order, its
// iteration's tiles and readers found by the slot of their id
// (OpFacts::made_slot, SlotRead::slot) rather than searched for in its
// maps, and none of the steps for a tile held to a fixed number of
// buffers (no op of the kernel is). A read the iteration does not hold
// looks in the frames around as EmitSimple's does (they are not slotted:
// a slotted loop nests none). A read's readers are appended to after the
// instruction is made, this iteration's and the others' (reads_) apart:
// an op appends the same instruction to each, so the order does not
// matter. A stage at a time: a call per op, and its iteration's lists
// found again on each, cost ~40 instructions an op.
absl::Status NkiLowering::EmitSlotted(Iteration& it, const LoopPlan& plan,
                                      const std::vector<SlotOp>& ops) {
  // Not resized while the stage is lowered.
  char* const has = it.slot_has.data();
  LoweredTile* const tiles = it.slot_made.data();
  Deps* const readers = it.slot_readers.data();
  Iteration* const reuse = it.reuse;
  const bool track_readers = it.track_readers;
  const Deps* const result_wait = result_wait_.back();
  const int* const local_reads = plan.local_reads.data();
  // One list for every slotted op: none is lowered inside another.
  Deps& deps = slot_deps_;
  // Written in place, not pushed: SimpleInstr reads the first `n_inputs`.
  // Room for the op with the most is made here once a stage.
  for (const SlotOp& s : ops) {
    if (read_inputs_.size() < s.n_inputs) read_inputs_.resize(s.n_inputs);
  }
  const LoweredTile** const input_tiles = read_inputs_.data();
  for (const SlotOp& s : ops) {
    const NkiOp& op = *s.op;
    OpFacts& facts = *s.facts;
    deps.erase(deps.begin(), deps.end());
    reads_.clear();
    if (s.reads_slots) slot_reads_.clear();
    bool local = false;
    const size_t inputs = s.n_inputs;
    const OpFacts::SlotRead* const reads = s.reads;
    const size_t n_reads = s.n_reads;
    for (size_t k = 0; k < n_reads; ++k) {
      const OpFacts::SlotRead& r = reads[k];
      const LoweredTile* t = nullptr;
      if (r.slot >= 0 && has[r.slot]) {
        local = true;
        t = &tiles[r.slot];
      } else {
        Iteration* frame = nullptr;
        std::tie(t, frame) = FindInFrames(r.id, *r.frames);
        if (t != nullptr) {
          reads_.emplace_back(frame, r.id);
          if (t->made_by != kNoTile) reads_.emplace_back(frame, t->made_by);
        }
      }
      if (k < inputs) input_tiles[k] = t;
      if (t == nullptr) continue;
      if (r.terms == nullptr) {
        Append(deps, t->deps);
        continue;
      }
      // ReadSlots' levels (a tile of this iteration has no slots).
      AppendSlot(*t, *r.terms, deps);
    }
    const int made_slot = s.made_slot;
    if (reuse != nullptr) {
      if (made_slot >= 0) {
        // readers.find: a reader list is made with its first reader.
        if (const Deps& r = reuse->slot_readers[made_slot]; !r.empty()) {
          Append(deps, r);
        } else if (reuse->slot_has[made_slot]) {
          Append(deps, reuse->slot_made[made_slot].deps);
        }
      }
      if (!local) Append(deps, *it.entry);
    } else if (!local) {
      Append(deps, *it.gate);
    }
    if (s.result && result_wait != nullptr) Append(deps, *result_wait);
    const SimpleMade made = SimpleInstr(op, facts, it, deps);
    const uint32_t instr = made.instr;
    if (local && track_readers) {
      // The reads of this iteration's tiles (the slots of its reads, in
      // order), found as above: nothing made since (the op's own tile is
      // kept below).
      for (uint32_t k = s.local_begin; k < s.local_end; ++k) {
        const int slot = local_reads[k];
        if (has[slot]) readers[slot].push_back(instr);
      }
    }
    for (const auto& [frame, id] : reads_) {
      if (frame->track_readers) frame->readers[id].push_back(instr);
    }
    if (s.reads_slots) {
      for (const auto& [slots, j] : slot_reads_) {
        slots->readers[j].push_back(instr);
      }
    }
    it.all.push_back(instr);
    if (s.result) {
      it.result.partitions = made.partitions;
      it.result.free = made.free;
      it.result.dtype = made.dtype;
      it.result.psum = s.made_psum;
    }
    if (made_slot >= 0) {
      // EmitSimple's tile, set field by field in place.
      LoweredTile& m = tiles[made_slot];
      m.deps.erase(m.deps.begin(), m.deps.end());
      m.deps.push_back(instr);
      m.partitions = made.partitions;
      m.free = made.free;
      m.dtype = made.dtype;
      m.psum = s.made_psum;
      m.slots.reset();
      m.made_by = kNoTile;
      has[made_slot] = 1;
    }
    TRN_RETURN_IF_ERROR(CheckSize(spec_, builder_.size()));
  }
  return absl::OkStatus();
}

// The tile of `id` EmitSimple's op in `it` reads: from `it` (then `local`)
// or the nearest body around that made it (of `frames`), as Emit's reads
// find it; the read goes to reads_. nullptr: none.
inline const LoweredTile* NkiLowering::FindRead(
    Iteration& it, TileId id, const std::vector<uint32_t>& frames,
    bool& local) {
  const LoweredTile* t = nullptr;
  Iteration* frame = &it;
  if (auto m = it.made.find(id); m != nullptr) {
    local = true;
    t = &m->second;
  } else {
    std::tie(t, frame) = FindInFrames(id, frames);
    if (t == nullptr) return nullptr;
  }
  reads_.emplace_back(frame, id);
  if (t->made_by != kNoTile) reads_.emplace_back(frame, t->made_by);
  return t;
}

// A tile of `id` read whole by EmitSimple's op (FindRead): its
// instructions go to `deps`.
const LoweredTile* NkiLowering::ReadWhole(Iteration& it, TileId id,
                                          const std::vector<uint32_t>& frames,
                                          Deps& deps, bool& local) {
  const LoweredTile* t = FindRead(it, id, frames, local);
  if (t != nullptr) Append(deps, t->deps);
  return t;
}

// A block of `id` read by EmitSimple's op slot by slot, `terms` one per
// level, as Emit's reads of it do (no slot of the kernel spilled): the
// tile FindRead finds, and its slot's instructions (AppendSlot).
const LoweredTile* NkiLowering::ReadSlots(Iteration& it, TileId id,
                                          const std::vector<uint32_t>& frames,
                                          const std::vector<SlotTerms>& terms,
                                          Deps& deps, bool& local) {
  const LoweredTile* t = FindRead(it, id, frames, local);
  if (t != nullptr) AppendSlot(*t, terms, deps);
  return t;
}

// A tile held to n buffers across the iterations (one_buffer: 1,
// tile_buffers: n): its write waits for the readers of it (whole or by
// slot) of iteration i - n, whose buffer it reuses, or, unread, for its
// writer. Readers are tracked when the loop keeps two or more iterations
// in flight; with one, each iteration already waits for the whole one
// before. With n at least the loop's depth the tile rotates as every
// other (Iteration::reuse), so nothing is added.
void NkiLowering::WaitForPreviousReaders(const NkiOp& op, TileId id,
                                         const Iteration& it, Deps& deps) {
  if (!it.track_readers || op.FixedBuffers() >= it.copies) return;
  const Iteration* back = it.prev;
  for (int64_t k = 1; back != nullptr && k < op.FixedBuffers(); ++k) {
    back = back->prev;
  }
  if (back == nullptr) return;
  const Iteration& p = *back;
  auto w = p.made.find(id);
  if (auto r = p.readers.find(id); r != p.readers.end()) {
    Append(deps, r->second);
  } else if (w != p.made.end()) {
    Append(deps, w->second.deps);
  }
  if (w == p.made.end() || w->second.slots == nullptr) return;
  for (const Deps& r : w->second.slots->readers) {
    Append(deps, r);
  }
}

// The same tile's buffers rotate over every run of the loop: use k of it
// (counting its uses over the whole kernel, in order, across the
// iterations of the loops around) is the buffer of use k - n, as NKI's
// mod_alloc places logical tile k on physical tile k mod n. Its write
// waits for the readers of use k - n (whole or by slot), or, unread, for
// its writer, when that use was in an earlier run of the loop, which
// nothing else orders it after once the loops around keep several
// iterations in flight; and in a block, whose iterations are otherwise
// never ordered, also within the run. Within a run of another loop,
// Iteration::reuse, the whole previous iteration (depth 1) and
// WaitForPreviousReaders already order it. Not for the op in the loop's
// result position when the body around reads that tile (through the
// loop's id): its readers there are not this op's.
void NkiLowering::WaitForPreviousUse(const NkiOp& op, const Iteration& it,
                                     size_t idx, Deps& deps) const {
  if (static_cast<int>(idx) == result_index_.back() && result_out_.back()) {
    return;
  }
  auto h = fixed_uses_.find(&op);
  if (h == fixed_uses_.end()) return;
  const std::deque<std::shared_ptr<FixedUse>>& uses = h->second;
  const int64_t n = op.FixedBuffers();
  if (static_cast<int64_t>(uses.size()) < n) return;
  const FixedUse& u = *uses[uses.size() - static_cast<size_t>(n)];
  if (u.run == it.run && !keep_all_.back()) return;
  const Deps& d = u.readers.empty() ? u.writer : u.readers;
  Append(deps, d);
  if (u.slots == nullptr) return;
  for (const Deps& r : u.slots->readers) {
    Append(deps, r);
  }
}

// A reduction (the second output of an accumulate op, or the block of
// them a block loop made) is no instruction: it stands for what the op
// or the loop's iterations made, with the same dependencies and slots,
// in its own [partitions, 1] shape.
absl::Status NkiLowering::EmitReduction(const NkiOp& op, const OpFacts& facts,
                                        Iteration& it, size_t idx) {
  const LoweredTile* of = Find(facts.inputs.front());
  if (of == nullptr) return absl::OkStatus();  // a loop that never ran
  LoweredTile made;
  made.deps = of->deps;
  made.slots = of->slots;
  made.made_by = facts.inputs.front();
  const NkiTile tile = ResolveNkiTileInChain(spec_, chain_, op, partitions_);
  made.partitions = tile.partitions;
  made.free = tile.free;
  made.dtype = tile.dtype;
  if (static_cast<int>(idx) == result_index_.back()) {
    it.result.partitions = made.partitions;
    it.result.free = made.free;
    it.result.dtype = made.dtype;
  }
  it.made[facts.id] = std::move(made);
  return absl::OkStatus();
}

// The published cost rule of a compute op and the N it is applied to:
// reductions and statistics by their input, elementwise ops by their
// tile, TensorE by its moving (or transposed) tile.
ComputeCost NkiLowering::CostOf(const NkiOp& op, const OpFacts& facts,
                                int64_t tile_p, int64_t tile_f, DType dtype,
                                const LoweredTile* const* inputs) const {
  ComputeCost c;
  c.work = tile_f;
  const LoweredTile* in0 = nullptr;
  bool narrow = IsNarrow(dtype);
  for (size_t k = 0; k < facts.inputs.size(); ++k) {
    const LoweredTile* t =
        inputs != nullptr ? inputs[k] : Find(facts.inputs[k]);
    if (t == nullptr || t->partitions == 0) continue;
    if (in0 == nullptr) in0 = t;
    c.psum_operand = c.psum_operand || t->psum;
    narrow = narrow && IsNarrow(t->dtype);
  }
  c.narrow_dtype = narrow;
  int64_t in_f = in0 != nullptr ? in0->free : tile_f;
  int64_t in_p = in0 != nullptr ? in0->partitions : tile_f;
  // An input read by a slice (`x[:, j*512:(j+1)*512]`) costs the slice.
  if (!op.slices.empty() && !op.slices.front().empty()) {
    in_p = op.slices.front()[0];
    in_f = op.slices.front()[1];
  }
  switch (facts.cost) {
    case CostKind::kStream2:
      c.rule = CostRule::kStream2;
      break;
    case CostKind::kStreamInput:
      c.rule = CostRule::kStream;
      c.work = in_f;
      break;
    case CostKind::kBnAggr:
      c.rule = CostRule::kBnAggr;
      c.work = in_f;
      break;
    case CostKind::kReciprocal:
      c.rule = CostRule::kReciprocal;
      break;
    case CostKind::kIndexGen:
      c.rule = CostRule::kIndexGen;
      break;
    case CostKind::kActivation:
      c.rule = op.accumulate ? CostRule::kAccumulate : CostRule::kActivation;
      break;
    case CostKind::kTensorScalar:
      if (op.accumulate) c.rule = CostRule::kAccumulate;
      break;
    case CostKind::kMatmul:
      c.rule = CostRule::kMatmul;
      c.aux = tile_p;  // stationary columns: the output's partitions
      break;
    case CostKind::kTranspose:
      if (*op.engine == Engine::kTensor) {
        // The input's partitions become the output's free axis.
        c.rule = CostRule::kTransposePe;
        c.work = in_p;
        c.aux = in_f;
      } else {
        c.work = in_f;
      }
      break;
    case CostKind::kElementwise:
      break;
  }
  return c;
}

// The instructions the compiler inserts before a matmul whose first
// input x is [M, K] (nl.matmul with transpose_x=False, which the NKI
// reference says lowers to nc_matmul(transpose(x), y)): a PE-array
// transpose of x into PSUM, [K, M], and the copy of that tile to SBUF
// on the engine the compiler stage chose. The transpose waits for x and
// for whatever the matmul waits for besides its other inputs (its
// buffers, `after`); the matmul then waits for the copy. Returns the
// contraction depth, K.
absl::StatusOr<int64_t> NkiLowering::InsertTranspose(
    const NkiOp& op, const LoweredTile* x, Deps& deps, size_t first_end,
    size_t inputs_end, int iter) {
  if (x == nullptr || x->partitions == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec_.file, ": ", op.json_path,
                     "/insert_transpose: the first input must be a tile"));
  }
  if (x->partitions > partitions_ || x->free > partitions_) {
    return absl::InvalidArgumentError(absl::StrCat(
        spec_.file, ": ", op.json_path, "/insert_transpose: x is [",
        x->partitions, ", ", x->free, "]; nl.matmul transposes an x of at ",
        "most [", partitions_, ", ", partitions_, "]"));
  }
  Deps t_deps(deps.begin(),
              deps.begin() + static_cast<std::ptrdiff_t>(first_end));
  t_deps.insert(t_deps.end(),
                deps.begin() + static_cast<std::ptrdiff_t>(inputs_end),
                deps.end());
  const std::string id = op.id.empty() ? op.op : op.id;
  ComputeCost t;
  t.rule = CostRule::kTransposePe;
  t.work = x->partitions;  // the input's partitions become the free axis
  t.aux = x->free;
  t.narrow_dtype = IsNarrow(x->dtype);
  const uint32_t transpose =
      builder_.Compute(Engine::kTensor, "transpose", id + ".transpose",
                       x->dtype, x->free, t, t_deps, 0, op.source_line, iter);
  ComputeCost c;
  c.work = x->partitions;  // [K, M]: M elements per partition
  c.psum_operand = true;
  c.narrow_dtype = t.narrow_dtype;
  const uint32_t copy =
      builder_.Compute(op.transpose_copy_engine.value_or(Engine::kVector),
                       "tensor_copy", id + ".transpose_copy", x->dtype, x->free,
                       c, {transpose}, 0, op.source_line, iter);
  deps.push_back(copy);
  return x->free;
}

}  // namespace trn::lowering_internal
