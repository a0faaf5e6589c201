// The validator's checks of one concern (workloads/spec/validator.h):
// NKI loop nests: each loop's variable, tensor, dim, step and body; the
// ids of a body and what they may refer to (results of nested loops,
// block slots, carried tiles); dependency cycles and no_reorder.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "device_model/engine.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/validator.h"

namespace trn::validator_internal {

absl::Status Validator::CheckKernel() const {
  if (!spec_.ops.empty()) {
    return Error("/ops",
                 "mode \"nki\" describes its work under \"kernel\"; \"ops\" "
                 "is only for modes eager, fused_op and compiled");
  }
  if (!spec_.kernel.has_value()) {
    return Error("/kernel", "mode \"nki\" needs a kernel");
  }
  const NkiKernel& kernel = *spec_.kernel;
  if (kernel.source_file.empty()) {
    return Error("/kernel/source_file",
                 "must name the kernel's source file, e.g. \"exp.py\"");
  }
  if (kernel.loops.empty()) {
    return Error("/kernel/loops", "a kernel needs at least one loop");
  }
  for (size_t i = 0; i < kernel.loops.size(); ++i) {
    TRN_RETURN_IF_ERROR(CheckLoop(
        kernel.loops[i], absl::StrFormat("/kernel/loops/%d", i), nullptr));
  }
  return absl::OkStatus();
}

// The loop tensor, or the tensor a load/store moves: a device tensor that
// can be tiled over dim 0.
absl::StatusOr<const TensorDecl*> Validator::TileableTensor(
    std::string_view path, std::string_view name, std::string_view role) const {
  TRN_RETURN_IF_ERROR(CheckDeclared(path, name, role));
  const TensorDecl* t = FindTensor(name);
  if (t->placement != Placement::kDevice) {
    return Error(path, absl::StrFormat("%s \"%s\" has placement host; a "
                                       "kernel tiles device tensors",
                                       role, name));
  }
  if (t->shape.empty()) {
    return Error(path, absl::StrFormat("%s \"%s\" is 0-d; tiling over dim "
                                       "0 needs rank >= 1",
                                       role, name));
  }
  return t;
}

// The context of an enclosing body that defines `id`, or nullptr; with
// `results`, also one that reads it as a nested loop's result.
const Validator::LoopContext* Validator::Definer(const LoopContext& ctx,
                                                 std::string_view id,
                                                 bool results) {
  for (const LoopContext* c = &ctx; c != nullptr; c = c->parent) {
    if (c->ids.count(id) != 0) return c;
    if (results && c->results.count(id) != 0) return c;
  }
  return nullptr;
}

// The op that defines `id` in `def`'s body: its own op, or the op inside
// a nested loop that the loop gives as a result. `chain` is then def's
// chain, with that loop's added for a result.
const NkiOp& Validator::DefiningOp(const LoopContext& def, std::string_view id,
                                   LoopChain& chain) {
  chain = def.chain;
  if (auto own = def.ids.find(id); own != def.ids.end()) {
    return def.loop->body[own->second];
  }
  const NkiOp& loop_op = def.loop->body[def.results.find(id)->second];
  return *LoopResultNamed(loop_op, id, &chain);
}

absl::Status Validator::CheckLoop(const NkiLoop& loop, std::string path,
                                  const LoopContext* parent) const {
  if (!IsIdentifier(loop.var)) {
    return Error(path + "/var",
                 absl::StrFormat("loop variable \"%s\" must match "
                                 "^[A-Za-z_][A-Za-z0-9_]*$",
                                 loop.var));
  }
  for (const LoopContext* c = parent; c != nullptr; c = c->parent) {
    if (c->loop->var == loop.var) {
      return Error(path + "/var",
                   absl::StrFormat("loop variable \"%s\" is already the "
                                   "variable of the enclosing loop at %s",
                                   loop.var, c->path));
    }
  }
  TRN_ASSIGN_OR_RETURN(
      const TensorDecl* tensor,
      TileableTensor(path + "/tensor", loop.tensor, "loop tensor"));
  if (loop.dim < 0 || static_cast<size_t>(loop.dim) >= tensor->shape.size()) {
    return Error(path + "/dim",
                 absl::StrFormat("loop tensor \"%s\" has rank %d, so dim "
                                 "is 0 to %d, got %d",
                                 loop.tensor, tensor->shape.size(),
                                 tensor->shape.size() - 1, loop.dim));
  }
  if (!loop.WalksPartitionTiles()) {
    if (loop.step < 1 || loop.step > kMaxTensorElements) {
      return Error(path + "/step",
                   absl::StrFormat("must be between 1 and %s, got %d",
                                   kMaxElementsText, loop.step));
    }
  } else if (loop.tile_partitions < 1 ||
             loop.tile_partitions > limits_.partitions) {
    return Error(path + "/tile_partitions",
                 absl::StrFormat("must be between 1 and %d (the SBUF "
                                 "partitions), got %d",
                                 limits_.partitions, loop.tile_partitions));
  }
  if (loop.buffers < 1) {
    return Error(path + "/buffers",
                 absl::StrFormat("must be >= 1, got %d", loop.buffers));
  }
  if (loop.body.empty()) {
    return Error(path + "/body", "a loop body needs at least one op");
  }
  LoopContext ctx{&loop, tensor, std::move(path), {}, {}, false, parent, {}};
  if (parent != nullptr) ctx.chain = parent->chain;
  ctx.chain.push_back(&loop);
  ctx.partial = LoopHasPartialTile(spec_, ctx.chain, ctx.chain.size() - 1);
  for (size_t j = 0; j < loop.body.size(); ++j) {
    const NkiOp& op = loop.body[j];
    if (op.id.empty()) continue;
    const std::string id_path = absl::StrFormat("%s/body/%d/id", ctx.path, j);
    if (!IsIdentifier(op.id)) {
      return Error(id_path, absl::StrFormat("id \"%s\" must match "
                                            "^[A-Za-z_][A-Za-z0-9_]*$",
                                            op.id));
    }
    auto [it, inserted] = ctx.ids.emplace(op.id, j);
    if (!inserted) {
      return Error(id_path,
                   absl::StrFormat("id \"%s\" is already defined at "
                                   "%s/body/%d; ids are unique within a "
                                   "loop body",
                                   op.id, ctx.path, it->second));
    }
    if (const LoopContext* outer =
            parent ? Definer(*parent, op.id, /*results=*/false) : nullptr) {
      return Error(
          id_path,
          absl::StrFormat("id \"%s\" is already defined at "
                          "%s/body/%d, which encloses this loop; "
                          "an inner id may not hide an outer one",
                          op.id, outer->path, outer->ids.find(op.id)->second));
    }
  }
  TRN_RETURN_IF_ERROR(CollectResults(ctx));
  for (size_t j = 0; j < loop.body.size(); ++j) {
    TRN_RETURN_IF_ERROR(CheckNkiOp(ctx, j));
  }
  TRN_RETURN_IF_ERROR(CheckCycles(ctx));
  // On-chip memory is the compiler stage's to check: its allocator knows
  // the depths and the live ranges (workloads/compiler/allocation.h).
  return absl::OkStatus();
}

// The results of the body's nested loops: each an id of that loop's own
// body that makes a tile, read after the loop under that id, so not an
// id of this body nor another loop's result.
absl::Status Validator::CollectResults(LoopContext& ctx) const {
  for (size_t j = 0; j < ctx.loop->body.size(); ++j) {
    const NkiOp& op = ctx.loop->body[j];
    if (op.loop.empty()) continue;
    const NkiLoop& nested = op.loop.front();
    for (size_t k = 0; k < nested.results.size(); ++k) {
      const std::string& id = nested.results[k];
      const std::string at =
          absl::StrFormat("%s/body/%d/results/%d", ctx.path, j, k);
      const NkiOp* of = LoopResultNamed(op, id);
      if (of == nullptr || (of->op != "loop" && !NkiOpDefinesTile(of->op))) {
        std::vector<std::string_view> own;
        for (const NkiOp& b : nested.body) {
          if (!b.id.empty()) own.push_back(b.id);
        }
        return Error(
            at, absl::StrFormat("\"%s\" is not a tile of this loop's body; a "
                                "loop's result is the tile an op of its own "
                                "body makes in the last iteration (ids "
                                "there: %s)",
                                id, Join(own, ", ")));
      }
      if (!ctx.results.emplace(id, j).second || ctx.ids.contains(id)) {
        return Error(
            at, absl::StrFormat("\"%s\" is already an id of the body around "
                                "the loop (or another loop's result there); a "
                                "result is read there under its own id",
                                id));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckRef(const LoopContext& ctx, std::string_view path,
                                 std::string_view id) const {
  if (Definer(ctx, id) == nullptr) {
    // A long body would make the list longer than the spec is useful.
    constexpr size_t kMaxListed = 20;
    std::vector<std::string_view> known;
    size_t total = 0;
    for (const LoopContext* c = &ctx; c != nullptr; c = c->parent) {
      total += c->ids.size();
      for (const auto& [name, index] : c->ids) {
        if (known.size() < kMaxListed) known.push_back(name);
      }
    }
    const std::string more =
        total > kMaxListed ? absl::StrFormat(" and %d more", total - kMaxListed)
                           : "";
    return Error(path, absl::StrFormat("unknown tile id \"%s\"; ids "
                                       "defined in this loop body: %s%s",
                                       id, Join(known, ", "), more));
  }
  return absl::OkStatus();
}

// "block[v]" or "block[v][w]": `id` names a block, and each variable, a
// loop around the reader, walks the slots of one level of it one for one
// (the block loop, then the loop without an id that fills each of its
// slots, and so on).
absl::Status Validator::CheckSlot(const LoopContext& ctx,
                                  const std::string& path,
                                  const std::string& id,
                                  const std::vector<std::string>& vars) const {
  const LoopContext* def = Definer(ctx, id);
  LoopChain block_chain;
  const NkiOp& block = DefiningOp(*def, id, block_chain);
  const std::string written =
      absl::StrCat(id, "[", absl::StrJoin(vars, "]["), "]");
  if (block.op == "reduction") {
    // The reductions of a block loop are a block with the loop's slots
    // (CheckReduction put the loop in the same body).
    return CheckSlot(ctx, path, block.inputs.front(), vars);
  }
  if (block.op != "loop" || !KeepsEveryIteration(block, false)) {
    return Error(path, absl::StrFormat("\"%s\" is not a block (a loop "
                                       "whose iterations each keep their "
                                       "tile), so \"%s\" picks no slot; "
                                       "read it whole as \"%s\"",
                                       id, written, id));
  }
  auto trips = [&](const LoopChain& chain, size_t pos) {
    std::vector<int64_t> out;
    const int64_t step = chain[pos]->TileSize();
    for (int64_t e : LoopExtents(spec_, chain, pos)) {
      out.push_back((e + step - 1) / step);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const NkiLoop* level = &block.loop.front();
  for (size_t l = 0; l < vars.size(); ++l) {
    if (l > 0) {
      // The next level: the loop without an id that makes the slot.
      const int r = LoopResultIndex(*level);
      const NkiOp* inner =
          r >= 0 ? &level->body[static_cast<size_t>(r)] : nullptr;
      if (inner == nullptr || inner->op != "loop" || !inner->id.empty()) {
        return Error(path, absl::StrFormat("\"%s\" has %d level%s of slots (a "
                                           "level is a loop without an id that "
                                           "fills a slot), so \"%s\" gives too "
                                           "many variables",
                                           id, l, l == 1 ? "" : "s", written));
      }
      level = &inner->loop.front();
    }
    block_chain.push_back(level);
    const std::vector<int64_t> slots =
        trips(block_chain, block_chain.size() - 1);
    const std::vector<SlotTerm> terms = ParseSlotIndex(vars[l]);
    if (terms.empty()) {
      return Error(path, absl::StrFormat("slot \"%s\" in \"%s\" is not a "
                                         "loop variable or a sum of loop "
                                         "variables with integer scales "
                                         "(\"kb*4+ki\")",
                                         vars[l], written));
    }
    // The largest slot the index reaches, over the extents its loops
    // may walk.
    int64_t reach = 0;
    for (const SlotTerm& t : terms) {
      const int at = FindLoopVar(ctx.chain, t.var);
      if (at < 0) {
        std::vector<std::string_view> around;
        for (const NkiLoop* c : ctx.chain) around.push_back(c->var);
        return Error(path, absl::StrFormat("slot variable \"%s\" in \"%s\" "
                                           "is not the variable of a loop "
                                           "around this op; expected one of %s",
                                           t.var, written, Join(around, ", ")));
      }
      const std::vector<int64_t> walks =
          trips(ctx.chain, static_cast<size_t>(at));
      if (terms.size() == 1 && t.scale == 1 && slots != walks) {
        return Error(path,
                     absl::StrFormat("slot variable \"%s\" in \"%s\" "
                                     "walks %d iterations, but that level "
                                     "of the block has %d slots (loop "
                                     "\"%s\"); a slot variable walks its "
                                     "level's slots one for one",
                                     t.var, written, walks.back(), slots.back(),
                                     level->var));
      }
      reach += t.scale * (walks.back() - 1);
    }
    if (terms.size() > 1 || terms.front().scale != 1) {
      if (reach >= slots.front()) {
        return Error(path,
                     absl::StrFormat("slot \"%s\" in \"%s\" reaches slot "
                                     "%d, but that level of the block has "
                                     "%d slots (loop \"%s\")",
                                     vars[l], written, reach, slots.front(),
                                     level->var));
      }
    }
  }
  return absl::OkStatus();
}

// A carried id names a tile of this loop's body or of a body around it:
// the copy of it that the previous iteration of that body's loop made is
// what the op reads; "block[v]" reads one slot of a carried block.
absl::Status Validator::CheckCarry(const LoopContext& ctx, const NkiOp& op,
                                   const std::string& path) const {
  for (size_t k = 0; k < op.carry.size(); ++k) {
    const std::string& id = op.carry[k];
    const std::string at = absl::StrFormat("%s/carry/%d", path, k);
    if (Definer(ctx, id, /*results=*/false) == nullptr) {
      std::vector<std::string_view> own;
      for (const LoopContext* c = &ctx; c != nullptr; c = c->parent) {
        for (const auto& [name, index] : c->ids) own.push_back(name);
      }
      return Error(at, absl::StrFormat("\"%s\" is not a tile of this loop body "
                                       "or of one around it; a carried tile "
                                       "comes from the previous iteration of "
                                       "the loop whose body makes it (ids "
                                       "here: %s)",
                                       id, Join(own, ", ")));
    }
    if (k < op.carry_slots.size() && !op.carry_slots[k].empty()) {
      TRN_RETURN_IF_ERROR(CheckSlot(ctx, at, id, op.carry_slots[k]));
    }
  }
  return absl::OkStatus();
}

// Edges run from an op to the ops whose tiles it reads or waits for.
absl::Status Validator::CheckCycles(const LoopContext& ctx) const {
  const auto& body = ctx.loop->body;
  std::vector<std::vector<size_t>> edges(body.size());
  for (size_t j = 0; j < body.size(); ++j) {
    // Ids of enclosing bodies are defined before this loop runs, so only
    // this body's own ids can close a cycle here.
    auto add = [&](const std::string& id) {
      auto it = ctx.ids.find(id);
      if (it != ctx.ids.end()) edges[j].push_back(it->second);
      // A nested loop's result: its reader waits for that loop.
      // (Its own ops' reads of the same ids are inside it.)
      auto r = ctx.results.find(id);
      if (r != ctx.results.end() && r->second != j) {
        edges[j].push_back(r->second);
      }
    };
    for (const auto& id : body[j].inputs) add(id);
    if (!body[j].mask.empty()) add(body[j].mask);
    if (!body[j].indirect.empty()) add(body[j].indirect);
    for (const auto& id : body[j].after) add(id);
    // A nested loop waits for what any op inside it reads.
    std::vector<std::string> inner;
    for (const NkiLoop& nested : body[j].loop) CollectRefs(nested, &inner);
    for (const auto& id : inner) add(id);
  }
  enum class Color : uint8_t { kWhite, kGray, kBlack };
  std::vector<Color> color(body.size(), Color::kWhite);
  // Iterative DFS: a body can hold thousands of ops, too deep to recurse.
  std::vector<std::pair<size_t, size_t>> stack;  // node, next edge
  for (size_t root = 0; root < body.size(); ++root) {
    if (color[root] != Color::kWhite) continue;
    stack.emplace_back(root, 0);
    color[root] = Color::kGray;
    while (!stack.empty()) {
      const size_t node = stack.back().first;
      const size_t next = stack.back().second;
      if (next == edges[node].size()) {
        color[node] = Color::kBlack;
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      const size_t to = edges[node][next];
      if (color[to] == Color::kWhite) {
        color[to] = Color::kGray;
        stack.emplace_back(to, 0);
      } else if (color[to] == Color::kGray) {
        size_t start = 0;
        while (stack[start].first != to) ++start;
        std::vector<std::string_view> cycle;
        for (size_t s = start; s < stack.size(); ++s) {
          const NkiOp& on = body[stack[s].first];
          cycle.push_back(on.id.empty() && !on.loop.empty()
                              ? std::string_view(on.loop.front().var)
                              : std::string_view(on.id));
        }
        cycle.push_back(body[to].id);
        return Error(absl::StrFormat("%s/body/%d", ctx.path, to),
                     absl::StrFormat("dependency cycle through inputs, mask "
                                     "and after: %s",
                                     Join(cycle, " -> ")));
      }
    }
  }
  // In a no_reorder loop (or one nested in it) the ops issue in body
  // order, so none may wait for an op later in the body.
  bool no_reorder = false;
  for (const NkiLoop* l : ctx.chain) no_reorder = no_reorder || l->no_reorder;
  for (size_t j = 0; no_reorder && j < body.size(); ++j) {
    for (size_t to : edges[j]) {
      if (to <= j) continue;
      return Error(absl::StrFormat("%s/body/%d", ctx.path, j),
                   absl::StrFormat("waits for \"%s\", made later in the body "
                                   "(%s/body/%d): the ops of a no_reorder loop "
                                   "issue in body order",
                                   body[to].id, ctx.path, to));
    }
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
