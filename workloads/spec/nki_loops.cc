#include "workloads/spec/nki_loops.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>

namespace trn {

int FindLoopVar(const LoopChain& chain, std::string_view var) {
  for (size_t i = chain.size(); i-- > 0;) {
    if (chain[i]->var == var) return static_cast<int>(i);
  }
  return -1;
}

std::vector<SlotTerm> ParseSlotIndex(std::string_view text) {
  std::vector<SlotTerm> out;
  auto is_var_char = [](char c, bool first) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
  };
  size_t pos = 0;
  while (true) {
    SlotTerm t;
    size_t end = pos;
    while (end < text.size() && is_var_char(text[end], end == pos)) ++end;
    if (end == pos) return {};
    t.var = std::string(text.substr(pos, end - pos));
    pos = end;
    if (pos < text.size() && text[pos] == '*') {
      ++pos;
      int64_t n = 0;
      size_t digits = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (n > (int64_t{1} << 40)) return {};
        n = n * 10 + (text[pos] - '0');
        ++pos;
        ++digits;
      }
      if (digits == 0 || n < 1) return {};
      t.scale = n;
    }
    out.push_back(std::move(t));
    if (pos == text.size()) return out;
    if (text[pos] != '+') return {};
    ++pos;
  }
}

std::optional<std::pair<int64_t, int64_t>> ParseConstRange(
    std::string_view entry) {
  const size_t colon = entry.find(':');
  if (colon == std::string_view::npos || colon == 0 ||
      colon + 1 >= entry.size()) {
    return std::nullopt;
  }
  auto number = [](std::string_view text) -> std::optional<int64_t> {
    if (text.empty() || text.size() > 13) return std::nullopt;
    int64_t n = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
    }
    return n;
  };
  const std::optional<int64_t> start = number(entry.substr(0, colon));
  const std::optional<int64_t> stop = number(entry.substr(colon + 1));
  if (!start || !stop) return std::nullopt;
  return std::make_pair(*start, *stop);
}

const NkiOp* LoopResultNamed(const NkiOp& loop_op, std::string_view id,
                             LoopChain* chain) {
  if (loop_op.op != "loop" || loop_op.loop.empty()) return nullptr;
  const NkiLoop& loop = loop_op.loop.front();
  if (std::find(loop.results.begin(), loop.results.end(), id) ==
      loop.results.end()) {
    return nullptr;
  }
  const size_t depth = chain != nullptr ? chain->size() : 0;
  if (chain != nullptr) chain->push_back(&loop);
  for (const NkiOp& op : loop.body) {
    if (op.id == id) return &op;
  }
  // A result of a nested loop, passed on: the tile the last iteration of
  // every loop down to the op made (a nest that fills a block and
  // accumulates another array, docs/spec-format.md, "Loop results").
  for (const NkiOp& op : loop.body) {
    if (const NkiOp* of = LoopResultNamed(op, id, chain)) return of;
  }
  if (chain != nullptr) chain->resize(depth);
  return nullptr;
}

int EnclosingSameDim(const LoopChain& chain, size_t i) {
  for (size_t j = i; j-- > 0;) {
    if (chain[j]->tensor == chain[i]->tensor &&
        chain[j]->dim == chain[i]->dim) {
      return static_cast<int>(j);
    }
  }
  return -1;
}

std::vector<int64_t> LoopExtents(const WorkloadSpec& spec,
                                 const LoopChain& chain, size_t i) {
  const int outer = EnclosingSameDim(chain, i);
  if (outer < 0) {
    const TensorDecl* t = spec.FindTensor(chain[i]->tensor);
    return {t->shape[static_cast<size_t>(chain[i]->dim)]};
  }
  const auto j = static_cast<size_t>(outer);
  const int64_t tile = chain[j]->TileSize();
  std::set<int64_t> blocks;
  for (int64_t e : LoopExtents(spec, chain, j)) {
    blocks.insert(std::min(tile, e));
    if (e > tile && e % tile != 0) blocks.insert(e % tile);
  }
  return {blocks.begin(), blocks.end()};
}

int64_t LoopTrips(const WorkloadSpec& spec, const LoopChain& chain) {
  const int64_t extent = LoopExtents(spec, chain, chain.size() - 1).back();
  const int64_t step = chain.back()->TileSize();
  return (extent + step - 1) / step;
}

int64_t LoopRuns(const WorkloadSpec& spec, const LoopChain& chain) {
  int64_t runs = 1;
  LoopChain prefix;
  for (const NkiLoop* l : chain) {
    prefix.push_back(l);
    if (__builtin_mul_overflow(runs, LoopTrips(spec, prefix), &runs)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return runs;
}

int64_t LoopFullTile(const WorkloadSpec& spec, const LoopChain& chain,
                     size_t i) {
  return std::min(chain[i]->TileSize(), LoopExtents(spec, chain, i).back());
}

bool LoopHasPartialTile(const WorkloadSpec& spec, const LoopChain& chain,
                        size_t i) {
  const int64_t tile = chain[i]->TileSize();
  for (int64_t e : LoopExtents(spec, chain, i)) {
    if (e % tile != 0) return true;
  }
  return false;
}

std::vector<std::string> EffectiveIndex(const NkiOp& op, const NkiLoop& own,
                                        size_t rank) {
  if (!op.index.empty()) return op.index;
  std::vector<std::string> index(rank, kWholeDim);
  if (rank > 0) index[0] = own.var;
  return index;
}

bool IndexesOneElement(const WorkloadSpec& spec, const LoopChain& chain,
                       size_t i, int64_t size) {
  const NkiLoop& l = *chain[i];
  const TensorDecl* walked = spec.FindTensor(l.tensor);
  if (walked == nullptr || walked->shape[static_cast<size_t>(l.dim)] == size) {
    return false;
  }
  const std::vector<int64_t> extents = LoopExtents(spec, chain, i);
  return extents.size() == 1 && extents[0] % l.TileSize() == 0 &&
         extents[0] / l.TileSize() == size;
}

std::vector<int64_t> FullBlock(const WorkloadSpec& spec, const LoopChain& chain,
                               const TensorDecl& tensor,
                               const std::vector<std::string>& index) {
  std::vector<int64_t> block = tensor.shape;
  for (size_t d = 0; d < block.size() && d < index.size(); ++d) {
    if (const auto range = ParseConstRange(index[d])) {
      block[d] = range->second - range->first;
      continue;
    }
    const int at = FindLoopVar(chain, index[d]);
    if (at < 0) continue;
    const auto i = static_cast<size_t>(at);
    block[d] = IndexesOneElement(spec, chain, i, block[d])
                   ? 1
                   : std::min(block[d], LoopFullTile(spec, chain, i));
  }
  return block;
}

size_t LeadingUnitDims(const std::vector<int64_t>& block) {
  size_t n = 0;
  while (block.size() - n > 2 && block[n] == 1) ++n;
  return n;
}

NkiTile FoldBlock(const std::vector<int64_t>& block, DType dtype,
                  int64_t partitions) {
  NkiTile tile;
  tile.dtype = dtype;
  const size_t lead = LeadingUnitDims(block);
  int64_t rows = block.empty() ? 1 : block[lead];
  int64_t free = 1;
  for (size_t d = lead + 1; d < block.size(); ++d) free *= block[d];
  if (rows > partitions) {
    free *= (rows + partitions - 1) / partitions;
    rows = partitions;
  }
  tile.partitions = rows;
  tile.free = free;
  return tile;
}

NkiTile ResolveNkiTileInChain(const WorkloadSpec& spec, const LoopChain& chain,
                              const NkiOp& op, int64_t partitions) {
  const NkiLoop& own = *chain.back();
  const TensorDecl* own_tensor = spec.FindTensor(own.tensor);
  const TensorDecl* source =
      op.op == "load" ? spec.FindTensor(op.tensor) : own_tensor;
  NkiTile tile;
  if (op.op == "load" && source != nullptr) {
    tile = FoldBlock(FullBlock(spec, chain, *source,
                               EffectiveIndex(op, own, source->shape.size())),
                     source->dtype, partitions);
  } else {
    tile.partitions = own.tile_partitions;
    tile.free = own_tensor != nullptr ? FreeSize(*own_tensor) : 1;
    if (own_tensor != nullptr) tile.dtype = own_tensor->dtype;
  }
  if (op.tile.size() == 2) {
    tile.partitions = op.tile[0];
    tile.free = op.tile[1];
  }
  if (op.dtype.has_value()) tile.dtype = *op.dtype;
  return tile;
}

void CollectRefs(const NkiLoop& loop, std::vector<std::string>* out) {
  for (const NkiOp& op : loop.body) {
    out->insert(out->end(), op.inputs.begin(), op.inputs.end());
    if (!op.mask.empty()) out->push_back(op.mask);
    if (!op.indirect.empty()) out->push_back(op.indirect);
    out->insert(out->end(), op.after.begin(), op.after.end());
    for (const NkiLoop& nested : op.loop) CollectRefs(nested, out);
  }
}

int LoopResultIndex(const NkiLoop& loop) {
  for (size_t j = loop.body.size(); j-- > 0;) {
    const NkiOp& op = loop.body[j];
    const bool makes_tile = op.op == "loop"
                                ? LoopResultIndex(op.loop.front()) >= 0
                                : !op.id.empty();
    if (makes_tile) return static_cast<int>(j);
  }
  return -1;
}

namespace {

void CollectIds(const NkiLoop& loop, std::set<std::string>& out) {
  for (const NkiOp& op : loop.body) {
    if (!op.id.empty()) out.insert(op.id);
    for (const NkiLoop& nested : op.loop) CollectIds(nested, out);
  }
}

}  // namespace

const NkiOp* LoopResultOp(const NkiLoop& loop) {
  const NkiLoop* at = &loop;
  for (;;) {
    const int j = LoopResultIndex(*at);
    if (j < 0) return nullptr;
    const NkiOp& op = at->body[static_cast<size_t>(j)];
    if (op.op != "loop" || !op.id.empty()) return &op;
    at = &op.loop.front();
  }
}

bool UpdatesTileInPlace(const NkiLoop& loop) {
  const NkiOp* op = LoopResultOp(loop);
  if (op == nullptr || op->op == "loop") return false;
  std::set<std::string> inside;
  CollectIds(loop, inside);
  return std::any_of(
      op->inputs.begin(), op->inputs.end(),
      [&](const std::string& id) { return inside.count(id) == 0; });
}

std::string TileUpdatedInPlace(const NkiLoop& loop) {
  const LoopResultKind kind = LoopResultOf(loop);
  if (kind != LoopResultKind::kState && kind != LoopResultKind::kAccumulator) {
    return "";
  }
  const NkiOp* op = LoopResultOp(loop);
  // A matmul accumulates into its own PSUM tile, never into an input.
  if (op == nullptr || op->op == "loop" || op->op == "matmul") return "";
  std::set<std::string> inside;
  CollectIds(loop, inside);
  std::set<std::string> outside;
  for (const std::string& in : op->inputs) {
    const std::string id = in.substr(0, in.find('['));
    if (inside.count(id) == 0) outside.insert(id);
  }
  return outside.size() == 1 ? *outside.begin() : "";
}

LoopResultKind LoopResultOf(const NkiLoop& loop) {
  const int j = LoopResultIndex(loop);
  if (j < 0) return LoopResultKind::kNone;
  const NkiOp& op = loop.body[static_cast<size_t>(j)];
  // An id-less loop in the result position passes on what it makes.
  LoopResultKind kind = LoopResultKind::kBlock;
  if (op.op == "loop" && op.id.empty()) {
    // What its tiles are in this loop depends on this loop's range.
    kind = LoopResultOf(op.loop.front());
    if (kind == LoopResultKind::kState) kind = LoopResultKind::kBlock;
  } else if ((op.op == "matmul" && op.buffer == "psum" && !op.overwrite) ||
             std::find(op.carry.begin(), op.carry.end(), op.id) !=
                 op.carry.end()) {
    kind = LoopResultKind::kAccumulator;
  }
  if (kind == LoopResultKind::kBlock && loop.range == LoopRange::kSequential &&
      UpdatesTileInPlace(loop)) {
    return LoopResultKind::kState;
  }
  return kind;
}

bool KeepsEveryIteration(const NkiOp& loop_op, bool in_block) {
  if (loop_op.id.empty()) return in_block;
  return LoopResultOf(loop_op.loop.front()) == LoopResultKind::kBlock;
}

bool RotatesOwnBuffers(const NkiOp& loop_op, bool in_block) {
  return loop_op.id.empty() && !in_block;
}

bool HoldsState(const NkiOp& loop_op) {
  return !loop_op.id.empty() &&
         LoopResultOf(loop_op.loop.front()) == LoopResultKind::kState;
}

LoopTiles TilesOf(const NkiOp& loop_op, bool in_block) {
  return {KeepsEveryIteration(loop_op, in_block), HoldsState(loop_op),
          RotatesOwnBuffers(loop_op, in_block)};
}

namespace {

// Resolves ids as the validator scopes them: a body's own ids, then those
// of the bodies around it.
class SlotReads {
 public:
  void Walk(const NkiLoop& loop) {
    std::map<std::string_view, const NkiOp*> ids;
    for (const NkiOp& op : loop.body) {
      if (!op.id.empty()) ids.emplace(op.id, &op);
      // A loop's results are read after it under their own ids.
      for (const NkiLoop& nested : op.loop) {
        for (const std::string& r : nested.results) {
          if (const NkiOp* of = LoopResultNamed(op, r)) ids.emplace(r, of);
        }
      }
    }
    scopes_.push_back(std::move(ids));
    for (const NkiOp& op : loop.body) {
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const bool slot =
            k < op.input_slots.size() && !op.input_slots[k].empty();
        Read(op.inputs[k], slot, slot ? op.input_slots[k].size() : 0);
      }
      for (const auto& id : op.after) Read(id, false);
      for (size_t k = 0; k < op.carry.size(); ++k) {
        Read(op.carry[k],
             k < op.carry_slots.size() && !op.carry_slots[k].empty());
      }
      if (!op.mask.empty()) Read(op.mask, false);
      if (!op.indirect.empty()) Read(op.indirect, false);
      for (const NkiLoop& nested : op.loop) Walk(nested);
    }
    scopes_.pop_back();
  }

  std::vector<const NkiOp*> Result() const {
    std::vector<const NkiOp*> out;
    for (const NkiOp* op : by_slot_) {
      if (whole_.count(op) == 0) out.push_back(op);
    }
    return out;
  }

  std::map<const NkiOp*, size_t> Depths() const {
    std::map<const NkiOp*, size_t> out;
    for (const NkiOp* op : Result()) out[op] = depth_.at(op);
    return out;
  }

 private:
  void Read(std::string_view id, bool slot, size_t vars = 0) {
    for (size_t s = scopes_.size(); s-- > 0;) {
      auto it = scopes_[s].find(id);
      if (it == scopes_[s].end()) continue;
      (slot ? by_slot_ : whole_).insert(it->second);
      if (slot) {
        auto [d, fresh] = depth_.emplace(it->second, vars);
        if (!fresh) d->second = std::min(d->second, vars);
      }
      return;
    }
  }

  std::vector<std::map<std::string_view, const NkiOp*>> scopes_;
  std::set<const NkiOp*> by_slot_;
  std::set<const NkiOp*> whole_;
  std::map<const NkiOp*, size_t> depth_;  // fewest slot variables of a read
};

}  // namespace

std::vector<const NkiOp*> BlocksReadBySlot(const std::vector<NkiLoop>& loops) {
  SlotReads reads;
  for (const NkiLoop& loop : loops) reads.Walk(loop);
  return reads.Result();
}

std::map<const NkiOp*, size_t> BlockSlotReadDepths(
    const std::vector<NkiLoop>& loops) {
  SlotReads reads;
  for (const NkiLoop& loop : loops) reads.Walk(loop);
  return reads.Depths();
}

bool IsDataMovementOnly(const NkiOp& op) {
  return op.op == "load" || op.op == "store" || op.op == "hbm_copy" ||
         op.op == "sbuf_copy" || op.op == "iota" || op.op == "tensor_copy" ||
         op.op == "loop" || op.op == "memset" || op.op == "transpose" ||
         op.op == "affine_select" ||
         (op.op == "activation" && op.func == "copy");
}

// Each body statement's predecessors among the statements of the same body:
// the ids it reads or waits for, and for a nested loop every id that an op
// inside it reads.
std::vector<std::vector<size_t>> BodyPreds(const NkiLoop& loop) {
  const size_t n = loop.body.size();
  std::map<std::string, size_t> by_id;
  for (size_t i = 0; i < n; ++i) {
    if (!loop.body[i].id.empty()) by_id[loop.body[i].id] = i;
    // A nested loop's results are read after it: its readers wait for it.
    for (const NkiLoop& nested : loop.body[i].loop) {
      for (const std::string& r : nested.results) by_id.emplace(r, i);
    }
  }
  std::vector<std::vector<size_t>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    const NkiOp& op = loop.body[i];
    auto add = [&](const std::string& id) {
      auto it = by_id.find(id);
      // A nested loop's own reads of its results are not a predecessor.
      if (it != by_id.end() && it->second != i) preds[i].push_back(it->second);
    };
    for (const auto& id : op.inputs) add(id);
    for (const auto& id : op.after) add(id);
    if (!op.mask.empty()) add(op.mask);
    if (!op.indirect.empty()) add(op.indirect);
    std::vector<std::string> inner;
    for (const NkiLoop& nested : op.loop) CollectRefs(nested, &inner);
    for (const auto& id : inner) add(id);
  }
  return preds;
}

// Body statements in dependency order (stable: body order breaks ties).
std::vector<size_t> BodyOrder(const std::vector<std::vector<size_t>>& preds) {
  const size_t n = preds.size();
  std::vector<size_t> order;
  std::vector<char> placed(n, 0);
  while (order.size() < n) {
    bool progress = false;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      bool ok = true;
      for (size_t pr : preds[i]) ok = ok && placed[pr];
      if (ok) {
        order.push_back(i);
        placed[i] = 1;
        progress = true;
        break;
      }
    }
    if (!progress) break;  // the validator rejects cycles
  }
  return order;
}

}  // namespace trn
