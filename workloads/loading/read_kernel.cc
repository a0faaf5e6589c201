// SpecReader (workloads/loading/spec_reader.h): An NKI spec's "kernel": its
// loops, their bodies and each op's keys.
#include "workloads/loading/spec_reader.h"

namespace trn::spec_reader_internal {
namespace {

bool IsVowel(std::string_view word) {
  return !word.empty() &&
         std::string_view("aeiou").find(word[0]) != std::string_view::npos;
}

}  // namespace

absl::StatusOr<NkiKernel> SpecReader::Kernel(const Json& v,
                                             const std::string& path) const {
  static constexpr std::string_view kKeys[] = {"source_file", "loops"};
  TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a kernel"));
  NkiKernel kernel;
  TRN_ASSIGN_OR_RETURN(kernel.source_file,
                       r_.RequiredString(v, path, "source_file"));
  TRN_ASSIGN_OR_RETURN(const Json* loops, r_.Required(v, path, "loops"));
  const std::string loops_path = JsonChild(path, "loops");
  TRN_RETURN_IF_ERROR(r_.Array(*loops, loops_path));
  for (size_t i = 0; i < loops->size(); ++i) {
    TRN_ASSIGN_OR_RETURN(NkiLoop loop,
                         Loop((*loops)[i], JsonChild(loops_path, i)));
    kernel.loops.push_back(std::move(loop));
  }
  return kernel;
}

absl::StatusOr<NkiLoop> SpecReader::Loop(const Json& v,
                                         const std::string& path) const {
  static constexpr std::string_view kKeys[] = {
      "var",  "range",   "tensor",     "dim", "tile_partitions",
      "step", "buffers", "no_reorder", "body"};
  TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a loop"));
  NkiLoop loop;
  TRN_RETURN_IF_ERROR(LoopFields(v, path, loop));
  return loop;
}

// The keys of a loop, whether it is one of the kernel's loops or an op of
// kind "loop" nested in a body; the caller has checked which keys exist.
absl::Status SpecReader::LoopFields(const Json& v, const std::string& path,
                                    NkiLoop& loop) const {
  loop.json_path = path;
  TRN_ASSIGN_OR_RETURN(loop.var, r_.RequiredString(v, path, "var"));
  TRN_ASSIGN_OR_RETURN(const Json* range, r_.Required(v, path, "range"));
  static constexpr std::string_view kRanges[] = {"affine", "sequential",
                                                 "static"};
  TRN_ASSIGN_OR_RETURN(
      loop.range, Enum<LoopRange>(*range, JsonChild(path, "range"), "range",
                                  &ParseLoopRange, kRanges));
  TRN_ASSIGN_OR_RETURN(loop.tensor, r_.RequiredString(v, path, "tensor"));
  if (const Json* d = JsonReader::Optional(v, "dim")) {
    TRN_ASSIGN_OR_RETURN(int64_t dim, r_.Int(*d, JsonChild(path, "dim"), 0,
                                             kInt32Max, "a dim number >= 0"));
    loop.dim = static_cast<int>(dim);
  }
  // Partitions and free elements are different resources, so the two
  // kinds of loop name their tile differently; a loop over dim 0 that
  // walks blocks of rows rather than partition tiles gives `step`.
  if (loop.dim == 0 && JsonReader::Optional(v, "step") != nullptr) {
    if (JsonReader::Optional(v, "tile_partitions") != nullptr) {
      return r_.Error(JsonChild(path, "step"),
                      "a loop over dim 0 walks tiles of \"tile_partitions\" "
                      "rows or blocks of \"step\" rows; give one of them");
    }
    TRN_ASSIGN_OR_RETURN(loop.step, r_.Int(*JsonReader::Optional(v, "step"),
                                           JsonChild(path, "step"), 1,
                                           kInt32Max, "a positive integer"));
  } else if (loop.dim == 0) {
    TRN_ASSIGN_OR_RETURN(const Json* tp,
                         r_.Required(v, path, "tile_partitions"));
    TRN_ASSIGN_OR_RETURN(loop.tile_partitions,
                         r_.Int(*tp, JsonChild(path, "tile_partitions"), 1,
                                kInt32Max, "a positive integer"));
  } else {
    if (JsonReader::Optional(v, "tile_partitions") != nullptr) {
      return r_.Error(JsonChild(path, "tile_partitions"),
                      absl::StrFormat("a loop over dim %d walks the free axis "
                                      "in \"step\" elements; "
                                      "\"tile_partitions\" is for loops over "
                                      "dim 0",
                                      loop.dim));
    }
    TRN_ASSIGN_OR_RETURN(const Json* st, r_.Required(v, path, "step"));
    TRN_ASSIGN_OR_RETURN(loop.step, r_.Int(*st, JsonChild(path, "step"), 1,
                                           kInt32Max, "a positive integer"));
  }
  if (const Json* b = JsonReader::Optional(v, "buffers")) {
    // "auto" is omission: the compiler stage decides the depth.
    if (!(b->is_string() && b->get<std::string>() == "auto")) {
      TRN_ASSIGN_OR_RETURN(int64_t buffers,
                           r_.Int(*b, JsonChild(path, "buffers"), 1, kInt32Max,
                                  "a positive integer or \"auto\""));
      loop.buffers = static_cast<int>(buffers);
      loop.buffers_stated = true;
    }
  }
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "no_reorder", loop.no_reorder));
  TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "results", loop.results));
  TRN_ASSIGN_OR_RETURN(const Json* body, r_.Required(v, path, "body"));
  const std::string body_path = JsonChild(path, "body");
  TRN_RETURN_IF_ERROR(r_.Array(*body, body_path));
  for (size_t j = 0; j < body->size(); ++j) {
    TRN_ASSIGN_OR_RETURN(NkiOp op,
                         KernelOp((*body)[j], JsonChild(body_path, j)));
    loop.body.push_back(std::move(op));
  }
  return absl::OkStatus();
}

// The keys each NKI op kind takes (docs/spec-format.md), in the order the
// docs list them. An empty or unknown kind gets all of them.
std::vector<std::string_view> SpecReader::NkiOpKeys(std::string_view kind) {
  static constexpr std::string_view kAll[] = {"id",
                                              "op",
                                              "engine",
                                              "func",
                                              "alu",
                                              "inputs",
                                              "tensor",
                                              "index",
                                              "mask",
                                              "tile",
                                              "dtype",
                                              "buffer",
                                              "after",
                                              "carry",
                                              "transpose",
                                              "indirect",
                                              "accumulate",
                                              "from",
                                              "var",
                                              "range",
                                              "dim",
                                              "step",
                                              "tile_partitions",
                                              "buffers",
                                              "no_reorder",
                                              "body",
                                              "affine_mask",
                                              "slices",
                                              "insert_transpose",
                                              "overwrite",
                                              "one_buffer",
                                              "tile_buffers",
                                              "broadcasts",
                                              "results",
                                              "line"};
  std::vector<std::string_view> drop;
  if (kind == "load") {
    drop = {"engine", "func", "inputs", "carry", "accumulate"};
  } else if (kind == "store") {
    // A store may scatter: "indirect" names its index tile.
    drop = {"id",         "engine",     "func",        "tile",
            "dtype",      "buffer",     "carry",       "transpose",
            "accumulate", "one_buffer", "tile_buffers"};
  } else if (kind == "hbm_copy") {
    drop = {"id",         "engine",     "func",        "inputs",   "tile",
            "dtype",      "buffer",     "carry",       "indirect", "transpose",
            "accumulate", "one_buffer", "tile_buffers"};
  } else if (kind == "sbuf_copy") {
    // A DMA between two tiles: a transpose on the way, its source's
    // partitions picked by an index tile, no tensor.
    drop = {"engine", "func", "tensor", "index", "accumulate"};
  } else if (kind == "loop") {
    drop = {"engine", "func",      "inputs",   "index",
            "mask",   "tile",      "dtype",    "buffer",
            "carry",  "transpose", "indirect", "accumulate"};
  } else if (kind == "iota" || kind == "memset") {
    drop = {"func",      "inputs",   "tensor",     "index",
            "transpose", "indirect", "accumulate", "broadcasts"};
  } else if (kind == "reduction") {
    // An output of the op it names, not an instruction: its input, tile
    // and dtype only.
    drop = {"engine",     "func",   "tensor",     "index",      "mask",
            "buffer",     "after",  "carry",      "transpose",  "indirect",
            "accumulate", "slices", "broadcasts", "one_buffer", "tile_buffers"};
  } else if (kind == "activation") {
    drop = {"tensor", "index", "transpose", "indirect"};
  } else if (kind == "tensor_scalar") {
    drop = {"func", "tensor", "index", "transpose", "indirect"};
  } else if (IsNkiOpKind(kind)) {
    drop = {"func", "tensor", "index", "transpose", "indirect", "accumulate"};
  }
  if (IsNkiOpKind(kind) && kind != "hbm_copy") drop.push_back("from");
  // tensor_scalar's operators: only it has an op0 and op1.
  if (IsNkiOpKind(kind) && kind != "tensor_scalar") drop.push_back("alu");
  // A mask is a predicate of any instruction (loads, stores and compute
  // ops); a loop and the outputs of other ops have none.
  if (kind == "loop" || kind == "reduction" || kind == "hbm_copy") {
    drop.push_back("affine_mask");
  }
  if (kind == "load" || kind == "store" || kind == "hbm_copy" ||
      kind == "loop") {
    drop.push_back("slices");
    drop.push_back("broadcasts");
  }
  if (IsNkiOpKind(kind) && kind != "matmul") {
    drop.push_back("insert_transpose");
    drop.push_back("overwrite");
  }
  if (IsNkiOpKind(kind) && kind != "loop") {
    for (std::string_view key :
         {"var", "range", "dim", "step", "tile_partitions", "buffers",
          "no_reorder", "results", "body"}) {
      drop.push_back(key);
    }
  }
  std::vector<std::string_view> keys;
  for (std::string_view key : kAll) {
    bool dropped = false;
    for (std::string_view d : drop) dropped = dropped || d == key;
    if (!dropped) keys.push_back(key);
  }
  return keys;
}

// "slices": one entry per input, null or [partitions, free].
absl::Status SpecReader::Slices(const Json& v, const std::string& path,
                                NkiOp& op) const {
  TRN_RETURN_IF_ERROR(r_.Array(v, path));
  for (size_t k = 0; k < v.size(); ++k) {
    const std::string at = JsonChild(path, k);
    if (v[k].is_null()) {
      op.slices.emplace_back();
      continue;
    }
    TRN_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Dims(v[k], at));
    if (dims.size() != 2) {
      return r_.Error(at, "a slice is null or [partitions, free]");
    }
    op.slices.push_back(std::move(dims));
  }
  return absl::OkStatus();
}

// "broadcasts": one entry per input, null or the partitions broadcast to.
absl::Status SpecReader::Broadcasts(const Json& v, const std::string& path,
                                    NkiOp& op) const {
  TRN_RETURN_IF_ERROR(r_.Array(v, path));
  for (size_t k = 0; k < v.size(); ++k) {
    if (v[k].is_null()) {
      op.broadcasts.push_back(0);
      continue;
    }
    const std::string at = JsonChild(path, k);
    if (!v[k].is_number_integer() || v[k].get<int64_t>() < 1) {
      return r_.Expected(at, "null or a partition count (an integer >= 1)",
                         v[k]);
    }
    op.broadcasts.push_back(v[k].get<int64_t>());
  }
  return absl::OkStatus();
}

absl::StatusOr<NkiOp> SpecReader::KernelOp(const Json& v,
                                           const std::string& path) const {
  if (!v.is_object()) return r_.Expected(path, "an object", v);
  NkiOp op;
  op.json_path = path;
  TRN_ASSIGN_OR_RETURN(op.op, r_.RequiredString(v, path, "op"));
  // An unknown kind gets every key here; ValidateSpec names it as unknown.
  const std::vector<std::string_view> allowed = NkiOpKeys(op.op);
  const std::vector<std::string_view> all_known = NkiOpKeys("");
  TRN_RETURN_IF_ERROR(r_.CheckKeys(
      v, path, allowed,
      absl::StrFormat("%s %s op", IsVowel(op.op) ? "an" : "a", op.op),
      all_known));
  TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "id", op.id));
  // Left out or "auto": the compiler stage places the op.
  if (const Json* e = JsonReader::Optional(v, "engine");
      e != nullptr && e->is_string() && e->get<std::string>() == "auto") {
    op.engine_auto = true;
  } else if (e != nullptr) {
    static constexpr std::string_view kNames[] = {"tensor", "vector", "scalar",
                                                  "gpsimd", "auto"};
    TRN_ASSIGN_OR_RETURN(op.engine,
                         Enum<Engine>(*e, JsonChild(path, "engine"), "engine",
                                      &ParseEngine, kNames));
    op.engine_stated = true;
  }
  TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "func", op.func));
  if (const Json* in = JsonReader::Optional(v, "inputs")) {
    TRN_ASSIGN_OR_RETURN(op.inputs,
                         r_.StringArray(*in, JsonChild(path, "inputs")));
    TRN_RETURN_IF_ERROR(
        SplitSlots(op.inputs, op.input_slots, JsonChild(path, "inputs"), "a"));
  }
  if (const Json* t = JsonReader::Optional(v, "tensor"); t && op.op != "loop") {
    TRN_ASSIGN_OR_RETURN(op.tensor, r_.String(*t, JsonChild(path, "tensor")));
  }
  if (const Json* f = JsonReader::Optional(v, "from")) {
    TRN_ASSIGN_OR_RETURN(op.from, r_.String(*f, JsonChild(path, "from")));
    if (op.from.empty()) {
      return r_.Error(JsonChild(path, "from"),
                      "expected the name of the tensor copied from, got an "
                      "empty string");
    }
  }
  if (const Json* ix = JsonReader::Optional(v, "index")) {
    TRN_ASSIGN_OR_RETURN(op.index,
                         r_.StringArray(*ix, JsonChild(path, "index")));
    if (op.index.empty()) {
      return r_.Error(JsonChild(path, "index"),
                      "an index has one entry per dim of the tensor, a loop "
                      "variable or \":\"; got an empty array");
    }
  }
  if (const Json* m = JsonReader::Optional(v, "mask")) {
    TRN_ASSIGN_OR_RETURN(op.mask, r_.String(*m, JsonChild(path, "mask")));
    if (op.mask.empty()) {
      return r_.Error(JsonChild(path, "mask"),
                      "expected the id of a mask tile, got an empty string");
    }
  }
  if (const Json* t = JsonReader::Optional(v, "tile")) {
    const std::string tile_path = JsonChild(path, "tile");
    TRN_ASSIGN_OR_RETURN(op.tile, Dims(*t, tile_path));
    // An empty list would read as "use the default tile".
    if (op.tile.size() != 2) {
      return r_.Error(
          tile_path,
          absl::StrFormat("a tile is [partitions, free], got %d "
                          "dim%s",
                          op.tile.size(), op.tile.size() == 1 ? "" : "s"));
    }
  }
  if (const Json* d = JsonReader::Optional(v, "dtype")) {
    TRN_ASSIGN_OR_RETURN(op.dtype, Dtype(*d, JsonChild(path, "dtype")));
  }
  if (const Json* b = JsonReader::Optional(v, "buffer")) {
    static constexpr std::string_view kNames[] = {"sbuf", "psum"};
    TRN_ASSIGN_OR_RETURN(const size_t buffer,
                         r_.Enum(*b, {path, "buffer"}, "buffer", kNames));
    op.buffer = std::string(kNames[buffer]);
  }
  TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "alu", op.alu));
  TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "after", op.after));
  TRN_RETURN_IF_ERROR(r_.OptionalStringArray(v, path, "carry", op.carry));
  TRN_RETURN_IF_ERROR(SplitSlots(op.carry, op.carry_slots,
                                 JsonChild(path, "carry"), "a carried"));
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "transpose", op.transpose));
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "affine_mask", op.affine_mask));
  if (const Json* sl = JsonReader::Optional(v, "slices")) {
    TRN_RETURN_IF_ERROR(Slices(*sl, JsonChild(path, "slices"), op));
  }
  if (const Json* b = JsonReader::Optional(v, "broadcasts")) {
    TRN_RETURN_IF_ERROR(Broadcasts(*b, JsonChild(path, "broadcasts"), op));
  }
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "accumulate", op.accumulate));
  TRN_RETURN_IF_ERROR(
      r_.OptionalBool(v, path, "insert_transpose", op.insert_transpose));
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "overwrite", op.overwrite));
  TRN_RETURN_IF_ERROR(r_.OptionalBool(v, path, "one_buffer", op.one_buffer));
  if (const Json* tb = JsonReader::Optional(v, "tile_buffers")) {
    TRN_ASSIGN_OR_RETURN(
        op.tile_buffers,
        r_.Int(*tb, JsonChild(path, "tile_buffers"), 2, kInt32Max,
               "an integer >= 2 (one buffer is \"one_buffer\": true)"));
  }
  if (const Json* ix = JsonReader::Optional(v, "indirect")) {
    TRN_ASSIGN_OR_RETURN(op.indirect,
                         r_.String(*ix, JsonChild(path, "indirect")));
    if (op.indirect.empty()) {
      return r_.Error(JsonChild(path, "indirect"),
                      "expected the id of the index tile, got an empty string");
    }
  }
  if (op.op == "loop") {
    NkiLoop nested;
    TRN_RETURN_IF_ERROR(LoopFields(v, path, nested));
    op.loop.push_back(std::move(nested));
  }
  TRN_ASSIGN_OR_RETURN(const Json* line, r_.Required(v, path, "line"));
  TRN_ASSIGN_OR_RETURN(int64_t line_no,
                       r_.Int(*line, JsonChild(path, "line"), 1, kInt32Max,
                              "a source line number >= 1"));
  op.source_line = static_cast<int>(line_no);
  return op;
}

// Splits each id written "block[v]" (or "block[v][w]" for a block of
// blocks, "block[v*4+w]" for a slot two loops pick together) into the
// block's id (kept in `ids`, so every reader of ids sees a plain id) and
// the slot index of each level (`slots`, parallel to `ids`). The names
// are checked by ValidateSpec; here only the form.
absl::Status SpecReader::SplitSlots(
    std::vector<std::string>& ids, std::vector<std::vector<std::string>>& slots,
    const std::string& at, std::string_view what) const {
  slots.assign(ids.size(), {});
  for (size_t k = 0; k < ids.size(); ++k) {
    std::string& in = ids[k];
    const size_t first = in.find_first_of("[]");
    if (first == std::string::npos) continue;
    std::vector<std::string> vars;
    bool ok = first > 0 && in[first] == '[';
    for (size_t pos = first; ok && pos < in.size();) {
      const size_t close = in.find(']', pos);
      ok = in[pos] == '[' && close != std::string::npos && close > pos + 1;
      if (!ok) break;
      std::string var = in.substr(pos + 1, close - pos - 1);
      ok = var.find('[') == std::string::npos;
      vars.push_back(std::move(var));
      pos = close + 1;
    }
    if (!ok) {
      return r_.Error(
          JsonLocation(at, k),
          absl::StrFormat("expected %s tile id, or a block's id and the "
                          "loop variables of one of its slots as "
                          "\"rhs_tiles[k]\", \"lhsT_tiles[bm][k]\" or "
                          "\"s[kb*4+ki]\", got \"%s\"",
                          what, in));
    }
    slots[k] = std::move(vars);
    in.resize(first);
  }
  return absl::OkStatus();
}

}  // namespace trn::spec_reader_internal
