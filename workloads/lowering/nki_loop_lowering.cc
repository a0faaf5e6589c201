// An NKI loop as lowered: its runs and iterations in program order, the
// buffers that rotate between them, block slots and their spills.
#include <array>

#include "workloads/lowering/nki_lowering.h"

namespace trn::lowering_internal {

// Out of line: inline, gcc at -O1 (the tests' level) takes the moved
// temporary's empty InlinedVector for uninitialized
// (-Werror=maybe-uninitialized); a copy from a named new state instead
// cost 70 instructions an iteration more than the hand-written reset,
// this 3 (callgrind, exp_tiled 1280000x512's lowering).
void Iteration::Reset() {
  static_cast<IterationState&>(*this) = IterationState();
  own_gate.erase(own_gate.begin(), own_gate.end());
  all.erase(all.begin(), all.end());
  made.clear();
  readers.clear();
  spill_saves.clear();
  fixed.clear();
  // A slotted loop's tiles are all a simple op's (no slots held), so
  // only whether each is made, and the readers, need emptying.
  // In one pass: std::fill's call to memset for the few slots cost more
  // than the stores (callgrind, issue 42, lower42g). The slots' lists
  // have one size (Loop's begin resizes them together).
  char* const has = slot_has.data();
  Deps* const lists = slot_readers.data();
  for (size_t s = 0, n = slot_readers.size(); s < n; ++s) {
    has[s] = 0;
    lists[s].erase(lists[s].begin(), lists[s].end());
  }
}

// The prefetch stage of a multi-buffered body: its loads and everything
// they depend on. The rest of the body is the compute stage.
std::vector<char> PrefetchStage(const NkiLoop& loop,
                                const std::vector<std::vector<size_t>>& preds) {
  std::vector<char> in(loop.body.size(), 0);
  std::vector<size_t> todo;
  for (size_t i = 0; i < loop.body.size(); ++i) {
    // A load into a tile held to fewer buffers than the loop's depth
    // (one_buffer, tile_buffers) waits for the readers of an iteration whose
    // compute stage comes later in program order: it is not issued ahead.
    const int64_t fixed = loop.body[i].FixedBuffers();
    if (loop.body[i].op == "load" && (fixed == 0 || fixed >= loop.buffers)) {
      todo.push_back(i);
    }
  }
  while (!todo.empty()) {
    const size_t i = todo.back();
    todo.pop_back();
    if (in[i]) continue;
    in[i] = 1;
    for (size_t p : preds[i]) todo.push_back(p);
  }
  return in;
}

// Whether some op of the nest reads a block by slot ("block[k]").
bool HasSlotInputs(const std::vector<NkiLoop>& loops) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      for (const auto& vars : op.input_slots) {
        if (!vars.empty()) return true;
      }
      for (const auto& vars : op.carry_slots) {
        if (!vars.empty()) return true;
      }
      if (HasSlotInputs(op.loop)) return true;
    }
  }
  return false;
}

bool HasFixedBuffers(const std::vector<NkiLoop>& loops) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      if (op.FixedBuffers() > 0 || HasFixedBuffers(op.loop)) return true;
    }
  }
  return false;
}

SlotTerms NkiLowering::ParseSlotTerms(const std::string& text) const {
  const std::vector<SlotTerm> terms = ParseSlotIndex(text);
  if (terms.empty()) return std::nullopt;
  std::vector<std::pair<size_t, int64_t>> out;
  for (const SlotTerm& t : terms) {
    const int at = FindLoopVar(chain_, t.var);
    if (at < 0) return std::nullopt;
    out.emplace_back(static_cast<size_t>(at), t.scale);
  }
  return out;
}

NkiLowering::LoopPlan& NkiLowering::PlanOf(const NkiLoop& loop) {
  auto [at, added] = plans_.try_emplace(&loop);
  LoopPlan& plan = at->second;
  if (!added) return plan;
  const auto preds = BodyPreds(loop);
  const std::vector<char> prefetch = PrefetchStage(loop, preds);
  plan.has_prefetch =
      std::find(prefetch.begin(), prefetch.end(), 1) != prefetch.end();
  plan.has_compute =
      std::find(prefetch.begin(), prefetch.end(), 0) != prefetch.end();
  for (size_t idx : BodyOrder(preds)) {
    plan.staged[0].push_back(idx);
    plan.staged[prefetch[idx] ? 1 : 2].push_back(idx);
  }
  plan.facts.assign(loop.body.size(), nullptr);
  plan.result_index = LoopResultIndex(loop);
  for (const std::string& name : loop.results) {
    plan.results.push_back(ids_.Of(name));
  }
  const size_t pos = chain_.size() - 1;
  plan.outer = EnclosingSameDim(chain_, pos);
  plan.extent =
      spec_.FindTensor(loop.tensor)->shape[static_cast<size_t>(loop.dim)];
  for (const NkiLoop* l : chain_) {
    plan.no_reorder = plan.no_reorder || l->no_reorder;
  }
  return plan;
}

// Whether `loop` is slotted (LoopPlan::slotted), and if so its ops' slots:
// one per distinct id an op of the body makes, in body order. Its ops'
// facts are worked out here, before its first iteration, rather than on
// their first emission (the order only numbers their ids differently).
void NkiLowering::SlotPlan(const NkiLoop& loop, LoopPlan& plan) {
  plan.slot_known = true;
  if (!options_.shortcuts || any_fixed_) return;
  for (const NkiOp& op : loop.body) {
    if (!op.loop.empty() || op.op == "loop" || op.op == "reduction") return;
  }
  for (size_t idx = 0; idx < loop.body.size(); ++idx) {
    if (plan.facts[idx] == nullptr) {
      plan.facts[idx] = &FactsOf(loop, loop.body[idx]);
    }
    if (!plan.facts[idx]->simple) return;
  }
  std::vector<TileId> ids;  // by slot
  auto slot_of = [&](TileId id) {
    return static_cast<int>(std::find(ids.begin(), ids.end(), id) -
                            ids.begin());
  };
  for (size_t idx = 0; idx < loop.body.size(); ++idx) {
    OpFacts& f = *plan.facts[idx];
    if (loop.body[idx].id.empty()) continue;
    f.made_slot = slot_of(f.id);
    if (f.made_slot == static_cast<int>(ids.size())) ids.push_back(f.id);
  }
  auto read = [&](TileId id, const std::vector<uint32_t>& frames,
                  const std::vector<SlotTerms>* terms) {
    OpFacts::SlotRead r;
    r.id = id;
    const int slot = slot_of(id);
    r.slot = slot < static_cast<int>(ids.size()) ? slot : -1;
    r.frames = &frames;
    r.terms = terms != nullptr && !terms->empty() ? terms : nullptr;
    return r;
  };
  for (size_t idx = 0; idx < loop.body.size(); ++idx) {
    OpFacts& f = *plan.facts[idx];
    f.slot_reads.clear();
    for (size_t k = 0; k < f.inputs.size(); ++k) {
      const std::vector<SlotTerms>* terms =
          k < f.input_slot_terms.size() ? &f.input_slot_terms[k] : nullptr;
      f.slot_reads.push_back(read(f.inputs[k], f.input_frames[k], terms));
    }
    for (size_t k = 0; k < f.after.size(); ++k) {
      f.slot_reads.push_back(read(f.after[k], f.after_frames[k], nullptr));
    }
    if (f.mask != kNoTile) {
      f.slot_reads.push_back(read(f.mask, f.mask_frames, nullptr));
    }
    if (f.indirect != kNoTile) {
      f.slot_reads.push_back(read(f.indirect, f.indirect_frames, nullptr));
    }
  }
  for (const TileId id : plan.results) {
    const int slot = slot_of(id);
    plan.result_slots.push_back(slot < static_cast<int>(ids.size()) ? slot
                                                                    : -1);
  }
  plan.slot_count = ids.size();
  plan.local_reads.clear();
  for (size_t stage = 0; stage < plan.staged.size(); ++stage) {
    std::vector<SlotOp>& out = plan.slot_stages[stage];
    out.clear();
    for (const size_t idx : plan.staged[stage]) {
      OpFacts& f = *plan.facts[idx];
      SlotOp s;
      s.op = &loop.body[idx];
      s.facts = &f;
      s.reads = f.slot_reads.data();
      s.n_reads = static_cast<uint32_t>(f.slot_reads.size());
      s.n_inputs = static_cast<uint32_t>(f.inputs.size());
      s.local_begin = static_cast<uint32_t>(plan.local_reads.size());
      for (const OpFacts::SlotRead& r : f.slot_reads) {
        if (r.slot >= 0) plan.local_reads.push_back(r.slot);
      }
      s.local_end = static_cast<uint32_t>(plan.local_reads.size());
      s.made_slot = f.made_slot;
      s.result = static_cast<int>(idx) == plan.result_index;
      // A DMA's tile is not in PSUM (LoweredTile's default).
      s.made_psum = !f.is_dma && !f.is_sbuf_copy && f.psum;
      s.reads_slots = f.reads_slots;
      out.push_back(s);
    }
  }
  plan.slotted = true;
}

// `tiles`: how the loop holds its tiles (TilesOf). `refill`, if given,
// is the earlier run of this block whose slots it refills: iteration i
// also waits for the readers of its slot i. `want_slots` asks for each
// iteration's instructions in the result. `result_wait`, if given, is
// what the op that makes the loop's result waits for besides its own
// dependencies, in every iteration (a one_buffer loop's previous
// readers: only the op that writes the tile waits for them).
// `result_out`: the tile of the op in the loop's result position is read
// by the body around it (the loop's id stands for it).
absl::StatusOr<LoweredLoop> NkiLowering::Loop(
    const NkiLoop& loop, const Deps& entry, const LoopTiles& tiles,
    const BlockSlots* refill, bool want_slots, const Deps* result_wait,
    bool result_out) {
  const bool keep_all = tiles.keep_all;
  const bool rotates = tiles.rotates;
  const int64_t run_id = ++runs_;
  chain_.push_back(&loop);
  // What depends on the loop alone (and the chain around it, always the
  // same): worked out on its first run.
  LoopPlan& plan = PlanOf(loop);
  keep_all_.push_back(keep_all);
  result_index_.push_back(plan.result_index);
  result_wait_.push_back(result_wait);
  result_out_.push_back(result_out);
  const size_t pos = chain_.size() - 1;
  if (pos == 0) {
    // At least one instruction per op and iteration: refuse a huge nest
    // up front instead of building millions of instructions first.
    const int64_t floor = MinInstructions(pos);
    chain_.pop_back();
    TRN_RETURN_IF_ERROR(
        CheckSize(spec_, builder_.size() + static_cast<size_t>(floor)));
    builder_.Reserve(static_cast<size_t>(floor));
    chain_.push_back(&loop);
  }
  const int outer = plan.outer;
  const int64_t extent =
      outer >= 0 ? frames_[static_cast<size_t>(outer)]->tile : plan.extent;
  const int64_t step = loop.TileSize();
  const int64_t trips = (extent + step - 1) / step;
  // Each iteration emits at least one instruction per body op: refuse a
  // 2^40-iteration loop before allocating its iterations (that was a
  // bad_alloc abort), also when it is nested.
  TRN_RETURN_IF_ERROR(CheckSize(
      spec_, builder_.size() + static_cast<size_t>(trips) * loop.body.size()));
  if (!plan.slot_known && trips > 0) SlotPlan(loop, plan);
  const bool slotted = plan.slotted;
  // Buffer rotation: with B tile sets, iteration i reuses the buffers of
  // iteration i - B and so waits for it to finish. A sequential range
  // (model 8) orders only what its iterations carry from one to the next,
  // as NKI's sequential_range does: the tiles in `carry` (each op that
  // reads one waits for the previous iteration's) and a state its id
  // names (updated in place, its updates kept in order by the engines,
  // which take the iterations in program order). What nothing carries
  // is free to overlap, as in an affine loop.
  // Iterations that each fill their own slot of a block never reuse one
  // another's buffers.
  const int64_t distance =
      keep_all ? std::max<int64_t>(trips, 1) : loop.buffers;
  // A no_reorder loop, or one nested in it, keeps the source's order: no
  // prefetch stage is issued ahead of the iteration before.
  const bool pipelined = !keep_all && !plan.no_reorder && loop.buffers >= 2 &&
                         trips >= 2 && plan.has_prefetch && plan.has_compute;
  // The iterations still read: iteration i waits for i - distance and
  // reads i - 1, so older ones are dropped as lowering moves on (all of
  // them at once took 30 MB at 100k tiles, more than the program). Each
  // is held by pointer, so that its address stays, and recycled when
  // dropped (NewIteration, Recycle).
  // A list per loop depth, kept for its room: a deque made per run (the
  // fully optimized matmul's innermost loop runs 4,096 times) cost two
  // allocations a run.
  while (live_scratch_.size() <= pos) {
    live_scratch_.push_back(
        std::make_unique<std::deque<std::unique_ptr<Iteration>>>());
  }
  std::deque<std::unique_ptr<Iteration>>& live = *live_scratch_[pos];
  int64_t first_live = 0;  // the index of live.front()
  auto at = [&](int64_t i) -> Iteration& {
    return *live[static_cast<size_t>(i - first_live)];
  };
  auto begin = [&](int64_t i) {
    Iteration& it = *live.emplace_back(NewIteration());
    it.index = i;
    it.all.reserve(loop.body.size());  // an instruction per op, at least
    it.tile = std::min(step, extent - i * step);
    it.entry = &entry;
    it.run = run_id;
    it.copies = keep_all ? 0 : loop.buffers;
    // With one buffer an iteration waits for the whole one before, as
    // the seed profile of exp_tiled shows its engines taking turns and
    // its DMA never overlapping compute; with more, each tile's buffer
    // is free once that tile's readers are done (the tile framework
    // tracks each tile, not whole iterations).
    it.track_readers = !keep_all && loop.buffers >= 2;
    if (i >= distance) {
      it.gate = &at(i - distance).all;
      if (it.track_readers) {
        it.reuse = &at(i - distance);
      }
    } else {
      it.gate = &entry;
      // Its buffers rotate over every run of the loop: the first
      // iterations of this run reuse those of the last runs.
      const std::vector<Deps>& last = plan.rotation;
      const int64_t back = distance - i;
      if (rotates && static_cast<int64_t>(last.size()) >= back) {
        const Deps& d = last[last.size() - static_cast<size_t>(back)];
        Append(it.OwnGate(), d);
      }
    }
    it.keeps_slots = want_slots;
    if (refill != nullptr && i < static_cast<int64_t>(refill->readers.size())) {
      const Deps& g = refill->readers[static_cast<size_t>(i)];
      Append(it.OwnGate(), g);
      it.refill = refill->sub[static_cast<size_t>(i)].get();
    }
    it.prev = i > 0 ? &at(i - 1) : nullptr;
    if (slotted && it.slot_has.size() != plan.slot_count) {
      // Reset left them empty; only their number changes.
      it.slot_has.resize(plan.slot_count);
      it.slot_made.resize(plan.slot_count);
      it.slot_readers.resize(plan.slot_count);
    }
  };
  // An iteration is read by the ones `distance` and 1 after it; after
  // that it only costs memory. The last `distance` are the loop's result.
  // Iterations are released in order, the oldest first.
  auto release = [&](int64_t i) {
    if (i < 0 || i >= trips - distance || i != first_live) return;
    Recycle(std::move(live.front()));
    live.pop_front();
    ++first_live;
  };
  std::vector<OpFacts*>& facts = plan.facts;
  const std::array<std::vector<size_t>, 3>& staged = plan.staged;
  auto run = [&](int64_t i, int stage) -> absl::Status {
    Iteration& cur = at(i);  // held by pointer: its address stays
    frames_.push_back(&cur);
    const std::vector<size_t>& ops = staged[static_cast<size_t>(stage + 1)];
    if (slotted) {
      // Every op's facts were worked out by SlotPlan.
      TRN_RETURN_IF_ERROR(EmitSlotted(
          cur, plan, plan.slot_stages[static_cast<size_t>(stage + 1)]));
      frames_.pop_back();
      return absl::OkStatus();
    }
    for (size_t idx : ops) {
      if (facts[idx] == nullptr) facts[idx] = &FactsOf(loop, loop.body[idx]);
      OpFacts& f = *facts[idx];
      if (options_.shortcuts && f.simple) {
        TRN_RETURN_IF_ERROR(EmitSimple(loop, cur, idx, f));
      } else {
        TRN_RETURN_IF_ERROR(Emit(loop, cur, idx, f));
      }
    }
    frames_.pop_back();
    return absl::OkStatus();
  };
  if (!pipelined) {
    for (int64_t i = 0; i < trips; ++i) {
      begin(i);
      TRN_RETURN_IF_ERROR(run(i, -1));
      release(i - distance - 1);
    }
  } else {
    const int64_t ahead = loop.buffers - 1;
    for (int64_t s = 0; s < trips + ahead; ++s) {
      if (s < trips) {
        begin(s);
        TRN_RETURN_IF_ERROR(run(s, 0));
      }
      if (s >= ahead) TRN_RETURN_IF_ERROR(run(s - ahead, 1));
      release(s - ahead - distance - 1);
    }
  }
  // The last `distance` iterations finish only after every earlier one.
  LoweredLoop out;
  for (int64_t i = std::max<int64_t>(0, trips - distance); i < trips; ++i) {
    const Deps& a = at(i).all;
    Append(out.done, a);
  }
  if (trips > 0) {
    const Iteration& last = *live.back();
    out.tile = last.result;
    for (size_t k = 0; k < plan.results.size(); ++k) {
      const TileId id = plan.results[k];
      if (slotted) {
        const int slot = plan.result_slots[k];
        if (slot >= 0 && last.slot_has[static_cast<size_t>(slot)]) {
          out.results.emplace_back(id,
                                   last.slot_made[static_cast<size_t>(slot)]);
        }
      } else if (auto m = last.made.find(id); m != last.made.end()) {
        out.results.emplace_back(id, m->second);
      }
    }
  }
  if (want_slots) {
    // A block keeps every iteration (its distance is its trips), so none
    // has been released.
    out.slots = std::make_shared<BlockSlots>();
    out.slots->made.reserve(live.size());
    out.slots->sub.reserve(live.size());
    for (const std::unique_ptr<Iteration>& it : live) {
      out.slots->made.push_back(it->all);
      out.slots->sub.push_back(std::move(it->sub));
    }
    out.slots->readers.resize(live.size());
  }
  if (rotates) {
    std::vector<Deps>& last = plan.rotation;
    for (int64_t i = std::max<int64_t>(0, trips - distance); i < trips; ++i) {
      last.push_back(at(i).all);
    }
    if (static_cast<int64_t>(last.size()) > distance) {
      last.erase(last.begin(),
                 last.end() - static_cast<std::ptrdiff_t>(distance));
    }
  }
  for (std::unique_ptr<Iteration>& it : live) Recycle(std::move(it));
  live.clear();
  chain_.pop_back();
  keep_all_.pop_back();
  result_index_.pop_back();
  result_wait_.pop_back();
  result_out_.pop_back();
  return out;
}

// A lower bound on the instructions of chain_[pos] and the loops nested
// in it, from their largest extents; saturates past the limit.
int64_t NkiLowering::MinInstructions(size_t pos) {
  const NkiLoop& loop = *chain_[pos];
  const int64_t extent = LoopExtents(spec_, chain_, pos).back();
  const int64_t trips = (extent + loop.TileSize() - 1) / loop.TileSize();
  int64_t per_trip = 0;
  for (const NkiOp& op : loop.body) {
    int64_t n = 1;
    if (!op.loop.empty()) {
      chain_.push_back(&op.loop.front());
      n = MinInstructions(chain_.size() - 1);
      chain_.pop_back();
    }
    per_trip = std::min(per_trip + n, kMaxInstructions + 1);
  }
  if (per_trip > 0 && trips > (kMaxInstructions + 1) / per_trip) {
    return kMaxInstructions + 1;
  }
  return trips * per_trip;
}

// The last s.slots slots (in fill order, through a block of blocks) of a
// block run: each saved to HBM once the iteration that filled it is done.
// A later run refills the slot after the save and after this run's reads
// of it (through reloads), as it refills a slot kept in SBUF.
void NkiLowering::SpillSlots(const SpillDecision& s, BlockSlots& block,
                             const NkiOp& op, Iteration& it) {
  std::vector<std::pair<BlockSlots*, size_t>> leaves;
  auto walk = [&](auto&& self, BlockSlots& level) -> void {
    level.spill = &s;
    for (size_t j = 0; j < level.made.size(); ++j) {
      if (j < level.sub.size() && level.sub[j] != nullptr) {
        self(self, *level.sub[j]);
      } else {
        leaves.emplace_back(&level, j);
      }
    }
  };
  walk(walk, block);
  const size_t from =
      leaves.size() - std::min(leaves.size(), static_cast<size_t>(s.slots));
  for (size_t k = from; k < leaves.size(); ++k) {
    auto [level, j] = leaves[k];
    const uint32_t save =
        builder_.Dma("dma_spill_save", s.id, SlotShape(s), level->made[j],
                     op.source_line, static_cast<int>(it.index));
    it.all.push_back(save);
    level->saves.resize(level->made.size());
    level->saves[j] = save;
    level->readers.resize(level->made.size());
    level->readers[j] = {save};
  }
}

}  // namespace trn::lowering_internal
