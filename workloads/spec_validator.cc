#include "workloads/spec_validator.h"

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
#include "workloads/aten_ops.h"
#include "workloads/nki_loops.h"

namespace trn {
namespace {

constexpr std::string_view kMaxElementsText = "2^40 (1099511627776)";

// Byte counts are products of user-supplied numbers; saturating keeps a
// silly spec an "over the limit" error instead of a wrapped small number.
int64_t SatMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::numeric_limits<int64_t>::max();
  }
  return r;
}

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ^[a-z][a-z0-9_]*$: names and families end up in file names and CLI
// selectors, where case and punctuation cause trouble.
bool IsLowerName(std::string_view s) {
  if (s.empty() || !IsLower(s[0])) return false;
  for (char c : s) {
    if (!IsLower(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

// ^[A-Za-z_][A-Za-z0-9_]*$: tensor names, tile ids and loop variables mirror
// Python identifiers in the kernel source.
bool IsIdentifier(std::string_view s) {
  if (s.empty() || IsDigit(s[0])) return false;
  for (char c : s) {
    if (!IsLower(c) && !IsUpper(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  // Real shapes have a handful of dims; a file with thousands should not
  // produce a message as long as itself.
  constexpr size_t kMaxShown = 8;
  if (shape.size() <= kMaxShown) {
    return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
  }
  const std::vector<int64_t> head(shape.begin(), shape.begin() + kMaxShown);
  return absl::StrFormat("[%s, ... (%d dims)]", absl::StrJoin(head, ", "),
                         shape.size());
}

// Debian's Abseil has its own string_view, which StrCat and StrJoin do not
// take from std::string_view (StrFormat does); hence this join.
template <typename Range>
std::string Join(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    out.append(item);
    first = false;
  }
  return out;
}

// What each NKI op kind accepts. Arity counts input tiles; the scalar
// operand of tensor_scalar and the bias of activation may be a tile.
struct NkiOpRule {
  std::string_view kind;
  bool defines_tile;
  bool moves_data;  // load/store: a DMA, no compute engine
  std::vector<Engine> engines;
  int min_inputs;
  int max_inputs;
};

const std::vector<NkiOpRule>& NkiOpRules() {
  using E = Engine;
  static const auto* rules = new std::vector<NkiOpRule>{
      {"load", true, true, {}, 0, 0},
      {"store", false, true, {}, 1, 1},
      {"iota", true, false, {E::kGpSimd}, 0, 0},
      // The engines of the NKI ISA reference (SDK 2.26) for each
      // instruction: tensor_scalar "using Vector or Scalar or GpSimd
      // Engine", memset "using Vector or GpSimd Engine".
      {"tensor_scalar",
       true,
       false,
       {E::kVector, E::kScalar, E::kGpSimd},
       1,
       2},
      {"tensor_tensor", true, false, {E::kVector, E::kGpSimd}, 2, 2},
      {"tensor_reduce", true, false, {E::kVector, E::kGpSimd}, 1, 1},
      {"tensor_copy", true, false, {E::kVector, E::kGpSimd, E::kScalar}, 1, 1},
      {"activation", true, false, {E::kScalar}, 1, 2},
      {"matmul", true, false, {E::kTensor}, 2, 2},
      // data0, data1 and optionally the initial state tile.
      {"tensor_tensor_scan", true, false, {E::kVector}, 2, 3},
      {"bn_stats", true, false, {E::kVector}, 1, 1},
      {"bn_aggr", true, false, {E::kVector}, 1, 1},
      {"reciprocal", true, false, {E::kVector, E::kGpSimd}, 1, 1},
      {"transpose", true, false, {E::kTensor, E::kVector}, 1, 1},
      {"memset", true, false, {E::kVector, E::kGpSimd}, 0, 0},
      // predicate, on-true and on-false tiles.
      {"select", true, false, {E::kVector, E::kGpSimd}, 3, 3},
      {"affine_select", true, false, {E::kGpSimd}, 1, 1},
      // DMA from one device tensor to another (`from` to `tensor`).
      {"hbm_copy", false, true, {}, 0, 0},
      // A nested loop; its optional id names it for ops that wait for it.
      {"loop", false, false, {}, 0, 0},
      // The second output of an accumulate op (its free-axis reduction,
      // NKI's reduce_res), or of a block loop of them the block of those:
      // no instruction of its own, so no engine.
      {"reduction", true, false, {}, 1, 1},
  };
  return *rules;
}

const NkiOpRule* FindNkiOpRule(std::string_view kind) {
  for (const auto& r : NkiOpRules()) {
    if (r.kind == kind) return &r;
  }
  return nullptr;
}

constexpr std::string_view kActivationFuncs[] = {
    "exp",     "rsqrt", "sqrt", "square", "tanh",       "gelu",
    "sigmoid", "relu",  "copy", "log",    "reciprocal",
};

bool IsActivationFunc(std::string_view f) {
  for (auto name : kActivationFuncs) {
    if (name == f) return true;
  }
  return false;
}

// "a load", "an activation": op kinds read better with their article.
std::string A(std::string_view kind) {
  const bool vowel = !kind.empty() && std::string_view("aeiou").find(kind[0]) !=
                                          std::string_view::npos;
  return absl::StrFormat("%s %s", vowel ? "an" : "a", kind);
}

std::string CountText(int n, std::string_view noun) {
  return absl::StrFormat("%d %s%s", n, noun, n == 1 ? "" : "s");
}

std::string ArityText(int min, int max, std::string_view noun) {
  if (min == max) return CountText(min, noun);
  return absl::StrFormat("%d to %s", min, CountText(max, noun));
}

// numpy broadcasting; nullopt (and `why`) when the shapes are incompatible.
std::optional<std::vector<int64_t>> Broadcast(const std::vector<int64_t>& a,
                                              const std::vector<int64_t>& b,
                                              std::string* why) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      *why = absl::StrFormat(
          "dim -%d is %d in one and %d in the other, and "
          "neither is 1",
          i + 1, da, db);
      return std::nullopt;
    }
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// ResolveNkiTile with the tensors already looked up (either may be null).
NkiTile ResolveTile(const NkiLoop& loop, const NkiOp& op,
                    const TensorDecl* loop_tensor,
                    const TensorDecl* load_tensor) {
  const TensorDecl* source = load_tensor != nullptr ? load_tensor : loop_tensor;
  NkiTile tile;
  if (op.tile.size() == 2) {
    tile.partitions = op.tile[0];
    tile.free = op.tile[1];
  } else {
    tile.partitions = loop.tile_partitions;
    tile.free = source != nullptr ? FreeSize(*source) : 1;
  }
  if (op.dtype.has_value()) {
    tile.dtype = *op.dtype;
  } else if (source != nullptr) {
    tile.dtype = source->dtype;
  }
  return tile;
}

class Validator {
 public:
  Validator(const WorkloadSpec& spec, const MemoryLimits& limits)
      : spec_(spec), limits_(limits) {
    if (!spec.file.empty()) {
      label_ = spec.file;
    } else if (!spec.name.empty()) {
      label_ = spec.name;
    } else {
      label_ = "<spec>";
    }
    for (const TensorDecl& t : spec.tensors) tensors_.emplace(t.name, &t);
  }

  absl::Status Run() const {
    TRN_RETURN_IF_ERROR(CheckHeader());
    TRN_RETURN_IF_ERROR(CheckTensors());
    if (spec_.mode == ExecMode::kNki) return CheckKernel();
    return CheckTorchOps();
  }

 private:
  absl::Status Error(std::string_view path, std::string_view what) const {
    // Escaped: `what` may quote the spec's names, which are checked here.
    return absl::InvalidArgumentError(EscapeControl(absl::StrFormat(
        "%s: %s: %s", label_, path.empty() ? "/" : path, what)));
  }

  absl::Status CheckHeader() const {
    if (spec_.schema_version != kSpecSchemaVersion) {
      return Error("/schema_version",
                   absl::StrFormat("unsupported schema_version %d; this "
                                   "trnbench reads %d",
                                   spec_.schema_version, kSpecSchemaVersion));
    }
    if (!IsLowerName(spec_.name)) {
      return Error("/name", absl::StrFormat("name \"%s\" must match "
                                            "^[a-z][a-z0-9_]*$",
                                            spec_.name));
    }
    if (!IsLowerName(spec_.family)) {
      return Error("/family", absl::StrFormat("family \"%s\" must match "
                                              "^[a-z][a-z0-9_]*$",
                                              spec_.family));
    }
    return absl::OkStatus();
  }

  absl::Status CheckTensors() const {
    if (spec_.tensors.empty()) {
      return Error("/tensors", "a spec needs at least one tensor");
    }
    std::map<std::string, size_t, std::less<>> seen;
    for (size_t i = 0; i < spec_.tensors.size(); ++i) {
      const TensorDecl& t = spec_.tensors[i];
      const std::string path = absl::StrFormat("/tensors/%d", i);
      if (!IsIdentifier(t.name)) {
        return Error(path + "/name",
                     absl::StrFormat("tensor name \"%s\" must match "
                                     "^[A-Za-z_][A-Za-z0-9_]*$",
                                     t.name));
      }
      auto [it, inserted] = seen.emplace(t.name, i);
      if (!inserted) {
        return Error(path + "/name",
                     absl::StrFormat("tensor \"%s\" is declared twice (first "
                                     "at /tensors/%d); tensor names are "
                                     "unique",
                                     t.name, it->second));
      }
      int64_t elements = 1;
      bool overflow = false;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        if (t.shape[d] < 1 || t.shape[d] > kMaxTensorElements) {
          return Error(absl::StrFormat("%s/shape/%d", path, d),
                       absl::StrFormat("a dim must be a positive integer no "
                                       "larger than %s, got %d",
                                       kMaxElementsText, t.shape[d]));
        }
        overflow =
            overflow || __builtin_mul_overflow(elements, t.shape[d], &elements);
      }
      if (overflow) {
        return Error(path + "/shape",
                     absl::StrFormat("the element count of %s overflows "
                                     "int64; a tensor may have at most %s "
                                     "elements",
                                     ShapeText(t.shape), kMaxElementsText));
      }
      if (elements > kMaxTensorElements) {
        return Error(
            path + "/shape",
            absl::StrFormat("%s has %d elements; a tensor may have "
                            "at most %s elements",
                            ShapeText(t.shape), elements, kMaxElementsText));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckDeclared(std::string_view path, std::string_view name,
                             std::string_view role) const {
    if (FindTensor(name) == nullptr) {
      return Error(path, absl::StrFormat("%s \"%s\" is not declared in "
                                         "/tensors",
                                         role, name));
    }
    return absl::OkStatus();
  }

  // ---- torch modes ----

  absl::Status CheckTorchOps() const {
    const std::string_view mode = ExecModeName(spec_.mode);
    if (spec_.kernel.has_value()) {
      return Error("/kernel",
                   absl::StrFormat("mode \"%s\" takes \"ops\"; \"kernel\" is "
                                   "only for mode \"nki\"",
                                   mode));
    }
    if (spec_.ops.empty()) {
      return Error("/ops",
                   absl::StrFormat("mode \"%s\" needs at least one op", mode));
    }
    if (spec_.mode == ExecMode::kFusedOp && spec_.ops.size() != 1) {
      return Error("/ops", absl::StrFormat("mode \"fused_op\" runs exactly "
                                           "one op, got %d",
                                           spec_.ops.size()));
    }
    // The first producer of each tensor, so that a read of a tensor made by
    // a later op is told apart from a read of a spec input.
    std::map<std::string, size_t, std::less<>> producer;
    for (size_t j = 0; j < spec_.ops.size(); ++j) {
      producer.emplace(spec_.ops[j].output, j);
    }
    for (size_t j = 0; j < spec_.ops.size(); ++j) {
      TRN_RETURN_IF_ERROR(CheckTorchOp(j, producer));
    }
    return absl::OkStatus();
  }

  absl::Status CheckTorchOp(
      size_t j,
      const std::map<std::string, size_t, std::less<>>& producer) const {
    const TorchOp& op = spec_.ops[j];
    const std::string path = absl::StrFormat("/ops/%d", j);
    const AtenOpInfo* info = FindAtenOp(op.op);
    if (info == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& o : AllAtenOps()) names.push_back(o.name);
      return Error(path + "/op",
                   absl::StrFormat("unknown op \"%s\"; supported ops: %s",
                                   op.op, Join(names, ", ")));
    }
    const int n = static_cast<int>(op.inputs.size());
    if (n < info->min_inputs || n > info->max_inputs) {
      return Error(
          path + "/inputs",
          absl::StrFormat(
              "%s takes %s, got %d", op.op,
              ArityText(info->min_inputs, info->max_inputs, "input"), n));
    }
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const std::string in_path = absl::StrFormat("%s/inputs/%d", path, k);
      TRN_RETURN_IF_ERROR(CheckDeclared(in_path, op.inputs[k], "input"));
      auto it = producer.find(op.inputs[k]);
      if (it != producer.end() && it->second >= j) {
        return Error(in_path,
                     absl::StrFormat("tensor \"%s\" is used before it is "
                                     "produced (by /ops/%d); an input must "
                                     "be a spec input or the output of an "
                                     "earlier op",
                                     op.inputs[k], it->second));
      }
    }
    TRN_RETURN_IF_ERROR(CheckDeclared(path + "/output", op.output, "output"));
    const TensorDecl& out = *FindTensor(op.output);
    if (out.placement != Placement::kDevice) {
      return Error(path + "/output",
                   absl::StrFormat("output \"%s\" has placement host; ops "
                                   "write device tensors",
                                   op.output));
    }
    const size_t first = producer.find(op.output)->second;
    if (first != j) {
      return Error(path + "/output",
                   absl::StrFormat("tensor \"%s\" is produced twice (first "
                                   "by /ops/%d); each tensor is produced at "
                                   "most once",
                                   op.output, first));
    }
    return CheckTorchShapes(op, *info, path);
  }

  absl::Status CheckTorchShapes(const TorchOp& op, const AtenOpInfo& info,
                                const std::string& path) const {
    std::vector<const std::vector<int64_t>*> in;
    for (const auto& name : op.inputs) {
      in.push_back(&FindTensor(name)->shape);
    }
    const std::vector<int64_t>& out = FindTensor(op.output)->shape;
    std::vector<int64_t> expected;
    switch (info.rule) {
      case ShapeRule::kElementwise: {
        expected = *in[0];
        for (size_t k = 1; k < in.size(); ++k) {
          std::string why;
          auto b = Broadcast(expected, *in[k], &why);
          if (!b.has_value()) {
            return Error(path + "/inputs",
                         absl::StrFormat("%s: input shapes %s and %s do not "
                                         "broadcast: %s",
                                         op.op, ShapeText(expected),
                                         ShapeText(*in[k]), why));
          }
          expected = *std::move(b);
        }
        break;
      }
      case ShapeRule::kReduceLast:
        if (in[0]->empty()) {
          return Error(path + "/inputs/0",
                       absl::StrFormat("%s reduces the last dim, so its input "
                                       "needs rank >= 1; \"%s\" is 0-d",
                                       op.op, op.inputs[0]));
        }
        expected = *in[0];
        expected.back() = 1;
        break;
      case ShapeRule::kSameAsFirst:
        expected = *in[0];
        break;
      case ShapeRule::kMatmul: {
        const auto& a = *in[0];
        const auto& b = *in[1];
        if (a.size() < 2 || b.size() != 2 || a.back() != b[0]) {
          return Error(path + "/inputs",
                       absl::StrFormat("%s multiplies [..., m, k] by [k, n]; "
                                       "got %s and %s",
                                       op.op, ShapeText(a), ShapeText(b)));
        }
        expected = a;
        expected.back() = b[1];
        break;
      }
    }
    if (expected != out) {
      std::vector<std::string> in_text;
      for (const auto* s : in) in_text.push_back(ShapeText(*s));
      return Error(
          path + "/output",
          absl::StrFormat("%s of %s gives %s, but output \"%s\" is "
                          "declared %s",
                          op.op, Join(in_text, ", "), ShapeText(expected),
                          op.output, ShapeText(out)));
    }
    return absl::OkStatus();
  }

  // ---- nki mode ----

  absl::Status CheckKernel() const {
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
  absl::StatusOr<const TensorDecl*> TileableTensor(
      std::string_view path, std::string_view name,
      std::string_view role) const {
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

  // A loop body being checked, with the bodies that enclose it: ids of an
  // enclosing body are visible inside, as in the kernel source.
  struct LoopContext {
    const NkiLoop* loop;
    const TensorDecl* tensor;
    std::string path;
    std::map<std::string, size_t, std::less<>> ids;
    // The results of the body's nested loops (NkiLoop::results): each id,
    // read after its loop, and the index of that loop's op in the body.
    std::map<std::string, size_t, std::less<>> results;
    bool partial;
    const LoopContext* parent = nullptr;
    LoopChain chain;  // outermost first, ending with `loop`
  };

  // The context of an enclosing body that defines `id`, or nullptr; with
  // `results`, also one that reads it as a nested loop's result.
  static const LoopContext* Definer(const LoopContext& ctx, std::string_view id,
                                    bool results = true) {
    for (const LoopContext* c = &ctx; c != nullptr; c = c->parent) {
      if (c->ids.count(id) != 0) return c;
      if (results && c->results.count(id) != 0) return c;
    }
    return nullptr;
  }

  // The op that defines `id` in `def`'s body: its own op, or the op inside
  // a nested loop that the loop gives as a result. `chain` is then def's
  // chain, with that loop's added for a result.
  static const NkiOp& DefiningOp(const LoopContext& def, std::string_view id,
                                 LoopChain& chain) {
    chain = def.chain;
    if (auto own = def.ids.find(id); own != def.ids.end()) {
      return def.loop->body[own->second];
    }
    const NkiOp& loop_op = def.loop->body[def.results.find(id)->second];
    chain.push_back(&loop_op.loop.front());
    return *LoopResultNamed(loop_op, id);
  }

  absl::Status CheckLoop(const NkiLoop& loop, std::string path,
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
        return Error(id_path,
                     absl::StrFormat("id \"%s\" is already defined at "
                                     "%s/body/%d, which encloses this loop; "
                                     "an inner id may not hide an outer one",
                                     op.id, outer->path,
                                     outer->ids.find(op.id)->second));
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
  absl::Status CollectResults(LoopContext& ctx) const {
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
          return Error(at, absl::StrFormat(
                               "\"%s\" is already an id of the body around "
                               "the loop (or another loop's result there); a "
                               "result is read there under its own id",
                               id));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckRef(const LoopContext& ctx, std::string_view path,
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
          total > kMaxListed
              ? absl::StrFormat(" and %d more", total - kMaxListed)
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
  absl::Status CheckSlot(const LoopContext& ctx, const std::string& path,
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
          return Error(path,
                       absl::StrFormat("\"%s\" has %d level%s of slots (a "
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
          return Error(path,
                       absl::StrFormat("slot variable \"%s\" in \"%s\" "
                                       "is not the variable of a loop "
                                       "around this op; expected one of %s",
                                       t.var, written, Join(around, ", ")));
        }
        const std::vector<int64_t> walks =
            trips(ctx.chain, static_cast<size_t>(at));
        if (terms.size() == 1 && t.scale == 1 && slots != walks) {
          return Error(
              path, absl::StrFormat("slot variable \"%s\" in \"%s\" "
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

  absl::Status CheckNkiOp(const LoopContext& ctx, size_t j) const {
    const NkiOp& op = ctx.loop->body[j];
    const std::string path = absl::StrFormat("%s/body/%d", ctx.path, j);
    const NkiOpRule* rule = FindNkiOpRule(op.op);
    if (rule == nullptr) {
      std::vector<std::string_view> kinds;
      for (const auto& r : NkiOpRules()) kinds.push_back(r.kind);
      return Error(path + "/op",
                   absl::StrFormat("unknown NKI op \"%s\"; expected one of %s",
                                   op.op, Join(kinds, ", ")));
    }
    const std::string& kind = op.op;
    if (rule->defines_tile && op.id.empty()) {
      return Error(path + "/id", absl::StrFormat("%s defines a tile and "
                                                 "needs an id",
                                                 A(kind)));
    }
    if (!rule->defines_tile && !op.id.empty() && kind != "loop") {
      return Error(path + "/id", absl::StrFormat("%s defines no tile, so it "
                                                 "takes no id",
                                                 A(kind)));
    }
    TRN_RETURN_IF_ERROR(CheckEngine(op, *rule, path));
    if (kind == "activation") {
      if (!IsActivationFunc(op.func)) {
        return Error(path + "/func",
                     absl::StrFormat(
                         "%s; expected one of %s",
                         op.func.empty()
                             ? std::string("an activation needs a func")
                             : absl::StrFormat("unknown func \"%s\"", op.func),
                         Join(kActivationFuncs, ", ")));
      }
    } else if (!op.func.empty()) {
      return Error(
          path + "/func",
          absl::StrFormat("only an activation takes a func, not a %s", kind));
    }
    const int n = static_cast<int>(op.inputs.size());
    if (n < rule->min_inputs || n > rule->max_inputs) {
      return Error(
          path + "/inputs",
          absl::StrFormat(
              "%s takes %s, got %d", A(kind),
              ArityText(rule->min_inputs, rule->max_inputs, "input tile"), n));
    }
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const std::string in_path = absl::StrFormat("%s/inputs/%d", path, k);
      TRN_RETURN_IF_ERROR(CheckRef(ctx, in_path, op.inputs[k]));
      if (k < op.input_slots.size() && !op.input_slots[k].empty() &&
          kind != "reduction") {
        TRN_RETURN_IF_ERROR(
            CheckSlot(ctx, in_path, op.inputs[k], op.input_slots[k]));
      }
    }
    if (!op.mask.empty()) {
      TRN_RETURN_IF_ERROR(CheckRef(ctx, path + "/mask", op.mask));
    }
    for (size_t k = 0; k < op.after.size(); ++k) {
      TRN_RETURN_IF_ERROR(
          CheckRef(ctx, absl::StrFormat("%s/after/%d", path, k), op.after[k]));
    }
    TRN_RETURN_IF_ERROR(CheckCarry(ctx, op, path));
    if (!op.indirect.empty()) {
      TRN_RETURN_IF_ERROR(CheckRef(ctx, path + "/indirect", op.indirect));
    }
    if (rule->moves_data) {
      TRN_RETURN_IF_ERROR(CheckMovedTensor(ctx, op, path));
      if (kind == "hbm_copy") TRN_RETURN_IF_ERROR(CheckCopySource(op, path));
    } else if (!op.tensor.empty()) {
      return Error(path + "/tensor",
                   absl::StrFormat("only load, store and hbm_copy name a "
                                   "tensor, not %s",
                                   A(kind)));
    }
    TRN_RETURN_IF_ERROR(CheckTileAndBuffer(op, *rule, path));
    if (op.source_line < 1) {
      return Error(path + "/line",
                   absl::StrFormat("must be the kernel source line the op "
                                   "comes from (>= 1), got %d",
                                   op.source_line));
    }
    if (op.affine_mask && !op.mask.empty()) {
      return Error(path + "/affine_mask",
                   "a load or store is masked by a mask tile (\"mask\") or "
                   "by an affine predicate (\"affine_mask\"), not both");
    }
    TRN_RETURN_IF_ERROR(CheckSlices(ctx, op, path));
    TRN_RETURN_IF_ERROR(CheckBroadcasts(op, path));
    if (rule->moves_data && op.mask.empty() && !op.affine_mask) {
      TRN_RETURN_IF_ERROR(CheckMaskNeed(ctx, op, path));
    }
    if (!rule->moves_data && rule->defines_tile && op.tile.empty() &&
        !ctx.loop->WalksPartitionTiles()) {
      return Error(path + "/tile",
                   absl::StrFormat("the loop steps along dim %d, so there is "
                                   "no default tile; give %s its [partitions, "
                                   "free] tile",
                                   ctx.loop->dim, A(kind)));
    }
    if (op.one_buffer && op.id.empty()) {
      return Error(path + "/one_buffer",
                   "one_buffer says the tile the op defines is one buffer "
                   "for every iteration; a loop without an id defines none");
    }
    if (op.tile_buffers > 0 && op.id.empty()) {
      return Error(path + "/tile_buffers",
                   "tile_buffers says how many buffers the tile the op "
                   "defines has; a loop without an id defines none");
    }
    if (op.tile_buffers > 0 && op.one_buffer) {
      return Error(path + "/tile_buffers",
                   "give one_buffer (one buffer) or tile_buffers (two or "
                   "more), not both");
    }
    if (kind == "reduction") TRN_RETURN_IF_ERROR(CheckReduction(ctx, op, path));
    if (kind == "transpose") TRN_RETURN_IF_ERROR(CheckTranspose(op, path));
    if (kind == "loop") {
      return CheckLoop(op.loop.front(), path, &ctx);
    }
    return absl::OkStatus();
  }

  // VectorE transposes a tile of at most 32 x 32; a larger one runs only
  // on the PE array, which writes PSUM (NKI ISA reference, nc_transpose:
  // TensorE handles up to [128, 128], VectorE up to [32, 32]). The op's
  // tile is the transposed one, so its sides are the input's.
  absl::Status CheckTranspose(const NkiOp& op, const std::string& path) const {
    constexpr int64_t kVectorTranspose = 32;
    if (op.tile.size() != 2 ||
        (op.tile[0] <= kVectorTranspose && op.tile[1] <= kVectorTranspose)) {
      return absl::OkStatus();
    }
    const std::string shape = ShapeText(op.tile);
    if (op.engine_stated && *op.engine == Engine::kVector) {
      return Error(path + "/engine",
                   absl::StrFormat("VectorE transposes at most [32, 32]; a "
                                   "%s transpose runs on the PE array "
                                   "(\"engine\": \"tensor\", \"buffer\": "
                                   "\"psum\")",
                                   shape));
    }
    if (op.buffer != "psum") {
      return Error(path + "/buffer",
                   absl::StrFormat("a %s transpose runs on the PE array only "
                                   "(VectorE transposes at most [32, 32]), "
                                   "which writes PSUM: give \"buffer\": "
                                   "\"psum\"",
                                   shape));
    }
    return absl::OkStatus();
  }

  // A reduction names an earlier op of its own body: an accumulate op (an
  // activation or tensor_scalar with "accumulate": true), or a block loop
  // whose result op is one. Its tile is the reduction's, [partitions, 1].
  absl::Status CheckReduction(const LoopContext& ctx, const NkiOp& op,
                              const std::string& path) const {
    const std::string& id = op.inputs.front();
    const std::string in_path = path + "/inputs/0";
    auto own = ctx.ids.find(id);
    if (own == ctx.ids.end()) {
      return Error(in_path,
                   absl::StrFormat("a reduction reads an op of its own loop "
                                   "body; \"%s\" is defined in a body "
                                   "around it",
                                   id));
    }
    if (!op.input_slots.empty() && !op.input_slots.front().empty()) {
      return Error(in_path,
                   absl::StrFormat("a reduction names the whole op or block "
                                   "\"%s\", not one of its slots",
                                   id));
    }
    const NkiOp* maker = &ctx.loop->body[own->second];
    if (maker->op == "loop") {
      const NkiLoop& l = maker->loop.front();
      const int r = LoopResultIndex(l);
      const NkiOp* result = r >= 0 ? &l.body[static_cast<size_t>(r)] : nullptr;
      if (result == nullptr || result->op == "loop" ||
          LoopResultOf(l) != LoopResultKind::kBlock) {
        return Error(in_path,
                     absl::StrFormat("\"%s\" is a loop whose id is not a "
                                     "block of one op's tiles; a reduction "
                                     "reads an accumulate op or a block loop "
                                     "whose last op is one",
                                     id));
      }
      maker = result;
    }
    if (!maker->accumulate) {
      return Error(in_path,
                   absl::StrFormat("\"%s\" is %s without \"accumulate\": "
                                   "true, so it makes no reduction",
                                   maker->id, A(maker->op)));
    }
    if (op.tile.size() != 2 || op.tile[1] != 1) {
      return Error(path + "/tile",
                   "a reduction's tile is [partitions, 1] (the op's result "
                   "reduced along its free axis)");
    }
    return absl::OkStatus();
  }

  // A load or store whose block follows a loop with a partial last tile
  // reads or writes past the tensor unless masked.
  absl::Status CheckMaskNeed(const LoopContext& ctx, const NkiOp& op,
                             const std::string& path) const {
    const TensorDecl* t = FindTensor(op.tensor);
    for (const std::string& var :
         EffectiveIndex(op, *ctx.loop, t->shape.size())) {
      const int at = FindLoopVar(ctx.chain, var);
      if (at < 0 ||
          !LoopHasPartialTile(spec_, ctx.chain, static_cast<size_t>(at))) {
        continue;
      }
      const NkiLoop& l = *ctx.chain[static_cast<size_t>(at)];
      if (&l == ctx.loop && l.WalksPartitionTiles()) {
        return Error(
            path + "/mask",
            absl::StrFormat("the last tile is partial (%d rows, tile "
                            "%d): %s needs a mask",
                            ctx.tensor->shape[0], l.tile_partitions, op.op));
      }
      return Error(
          path + "/mask",
          absl::StrFormat("loop \"%s\" has a partial last tile "
                          "(tile %d does not divide %s): %s needs a "
                          "mask",
                          l.var, l.TileSize(),
                          absl::StrJoin(LoopExtents(spec_, ctx.chain,
                                                    static_cast<size_t>(at)),
                                        " or "),
                          op.op));
    }
    return absl::OkStatus();
  }

  // "slices": one per input; each part fits the device's partitions.
  absl::Status CheckSlices(const LoopContext& ctx, const NkiOp& op,
                           const std::string& path) const {
    (void)ctx;
    if (op.slices.empty()) return absl::OkStatus();
    if (op.slices.size() != op.inputs.size()) {
      return Error(path + "/slices",
                   absl::StrFormat("has %d entries; expected one per input "
                                   "(%d), null for a whole tile",
                                   op.slices.size(), op.inputs.size()));
    }
    for (size_t k = 0; k < op.slices.size(); ++k) {
      if (op.slices[k].empty()) continue;
      if (op.slices[k][0] > limits_.partitions) {
        return Error(absl::StrFormat("%s/slices/%d", path, k),
                     absl::StrFormat("a slice of %d partitions; SBUF has %d",
                                     op.slices[k][0], limits_.partitions));
      }
    }
    return absl::OkStatus();
  }

  // "broadcasts": one per input, each 0 (null) or 1 to the partitions; the
  // shapes are the compiler stage's to check (compiler/broadcasts.h).
  absl::Status CheckBroadcasts(const NkiOp& op, const std::string& path) const {
    if (op.broadcasts.empty()) return absl::OkStatus();
    if (op.broadcasts.size() != op.inputs.size()) {
      return Error(path + "/broadcasts",
                   absl::StrFormat("has %d entries; expected one per input "
                                   "(%d), null for an input not broadcast",
                                   op.broadcasts.size(), op.inputs.size()));
    }
    for (size_t k = 0; k < op.broadcasts.size(); ++k) {
      const std::string at = absl::StrFormat("%s/broadcasts/%d", path, k);
      if (op.broadcasts[k] > limits_.partitions) {
        return Error(at, absl::StrFormat("a broadcast to %d partitions; SBUF "
                                         "has %d",
                                         op.broadcasts[k], limits_.partitions));
      }
      if (op.broadcasts[k] > 0 && k < op.slices.size() &&
          !op.slices[k].empty()) {
        return Error(at, "an input is broadcast or read by a slice, not both");
      }
    }
    return absl::OkStatus();
  }

  // A carried id names a tile of this loop's body or of a body around it:
  // the copy of it that the previous iteration of that body's loop made is
  // what the op reads; "block[v]" reads one slot of a carried block.
  absl::Status CheckCarry(const LoopContext& ctx, const NkiOp& op,
                          const std::string& path) const {
    for (size_t k = 0; k < op.carry.size(); ++k) {
      const std::string& id = op.carry[k];
      const std::string at = absl::StrFormat("%s/carry/%d", path, k);
      if (Definer(ctx, id, /*results=*/false) == nullptr) {
        std::vector<std::string_view> own;
        for (const LoopContext* c = &ctx; c != nullptr; c = c->parent) {
          for (const auto& [name, index] : c->ids) own.push_back(name);
        }
        return Error(at,
                     absl::StrFormat("\"%s\" is not a tile of this loop body "
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

  absl::Status CheckEngine(const NkiOp& op, const NkiOpRule& rule,
                           const std::string& path) const {
    std::vector<std::string_view> names;
    for (Engine e : rule.engines) names.push_back(EngineName(e));
    if (rule.engines.empty()) {
      if (op.engine.has_value()) {
        return Error(path + "/engine",
                     absl::StrFormat("%s is a DMA transfer and runs on no "
                                     "compute engine; remove \"engine\"",
                                     A(op.op)));
      }
      return absl::OkStatus();
    }
    // Left out, the compiler stage places the op (workloads/compiler/).
    if (!op.engine.has_value()) return absl::OkStatus();
    for (Engine e : rule.engines) {
      if (e == *op.engine) return absl::OkStatus();
    }
    return Error(
        path + "/engine",
        absl::StrFormat("%s cannot run on the %s engine; expected "
                        "%s",
                        A(op.op), EngineName(*op.engine), Join(names, " or ")));
  }

  absl::Status CheckMovedTensor(const LoopContext& ctx, const NkiOp& op,
                                const std::string& path) const {
    const std::string tensor_path = path + "/tensor";
    if (op.tensor.empty()) {
      return Error(tensor_path,
                   absl::StrFormat("%s needs the tensor it %s", A(op.op),
                                   op.op == "load" ? "reads" : "writes"));
    }
    TRN_ASSIGN_OR_RETURN(const TensorDecl* t,
                         TileableTensor(tensor_path, op.tensor, "tensor"));
    if (!op.index.empty()) return CheckIndex(ctx, op, *t, path);
    if (!ctx.loop->WalksPartitionTiles()) {
      return Error(path + "/index",
                   absl::StrFormat("the loop steps along dim %d, so %s needs "
                                   "an \"index\" saying which block of "
                                   "\"%s\" it moves",
                                   ctx.loop->dim, A(op.op), op.tensor));
    }
    if (t->shape[0] != ctx.tensor->shape[0]) {
      return Error(tensor_path,
                   absl::StrFormat("tensor \"%s\" has dim 0 = %d, but the "
                                   "loop tiles dim 0 of \"%s\" = %d; %s "
                                   "must move a tensor with the same dim 0",
                                   op.tensor, t->shape[0], ctx.loop->tensor,
                                   ctx.tensor->shape[0], A(op.op)));
    }
    return absl::OkStatus();
  }

  // An HBM copy moves the same block of `from` into `tensor`: the two
  // tensors are distinct and alike, since a cast or a reshape on the way is
  // not modelled.
  absl::Status CheckCopySource(const NkiOp& op, const std::string& path) const {
    const std::string from_path = path + "/from";
    if (op.from.empty()) {
      return Error(from_path, "an hbm_copy needs the tensor it copies from");
    }
    TRN_ASSIGN_OR_RETURN(const TensorDecl* src,
                         TileableTensor(from_path, op.from, "from"));
    const TensorDecl* dst = FindTensor(op.tensor);
    if (src == dst) {
      return Error(from_path,
                   absl::StrFormat("\"%s\" is also the tensor copied to; an "
                                   "hbm_copy moves a block between two "
                                   "tensors",
                                   op.from));
    }
    if (src->shape != dst->shape || src->dtype != dst->dtype) {
      return Error(
          from_path,
          absl::StrFormat("\"%s\" is %s %s but \"%s\" is %s %s; an "
                          "hbm_copy moves a block between tensors "
                          "of one shape and dtype",
                          op.from, DTypeName(src->dtype), ShapeText(src->shape),
                          op.tensor, DTypeName(dst->dtype),
                          ShapeText(dst->shape)));
    }
    return absl::OkStatus();
  }

  // Each index entry takes a dim whole or follows an enclosing loop that
  // walks a dim of the same size, so that the loop's tiles are blocks of it.
  absl::Status CheckIndex(const LoopContext& ctx, const NkiOp& op,
                          const TensorDecl& t, const std::string& path) const {
    const std::string index_path = path + "/index";
    if (op.index.size() != t.shape.size()) {
      return Error(index_path,
                   absl::StrFormat("tensor \"%s\" has rank %d, so the index "
                                   "needs %d entries, got %d",
                                   op.tensor, t.shape.size(), t.shape.size(),
                                   op.index.size()));
    }
    std::vector<std::string_view> vars;
    for (size_t i = 0; i < ctx.chain.size(); ++i) {
      vars.push_back(ctx.chain[i]->var);
    }
    for (size_t d = 0; d < op.index.size(); ++d) {
      const std::string& entry = op.index[d];
      const std::string entry_path = absl::StrFormat("%s/%d", index_path, d);
      if (entry == kWholeDim) continue;
      if (const auto range = ParseConstRange(entry)) {
        if (range->first >= range->second || range->second > t.shape[d]) {
          return Error(
              entry_path,
              absl::StrFormat("the constant block \"%s\" of dim %d "
                              "of \"%s\" (%d elements) must be "
                              "START:STOP with START < STOP <= %d",
                              entry, d, op.tensor, t.shape[d], t.shape[d]));
        }
        continue;
      }
      const int at = FindLoopVar(ctx.chain, entry);
      if (at < 0) {
        return Error(entry_path,
                     absl::StrFormat("\"%s\" is not the variable of an "
                                     "enclosing loop (%s), \":\" for the "
                                     "whole dim, nor a constant block "
                                     "\"START:STOP\"",
                                     entry, Join(vars, ", ")));
      }
      for (size_t e = 0; e < d; ++e) {
        if (op.index[e] == entry) {
          return Error(entry_path,
                       absl::StrFormat("loop variable \"%s\" already "
                                       "indexes dim %d",
                                       entry, e));
        }
      }
      const NkiLoop& l = *ctx.chain[static_cast<size_t>(at)];
      const int64_t walked =
          FindTensor(l.tensor)->shape[static_cast<size_t>(l.dim)];
      // A loop over fewer elements than the dim moves its first tiles (a
      // loop over a prefix of the dim, attention v11's pipelined loop).
      if (walked > t.shape[d] &&
          !IndexesOneElement(spec_, ctx.chain, static_cast<size_t>(at),
                             t.shape[d])) {
        return Error(entry_path,
                     absl::StrFormat("loop \"%s\" walks dim %d of \"%s\" "
                                     "(%d), but dim %d of \"%s\" is %d; a "
                                     "loop indexes a dim of its size, or one "
                                     "of as many elements as it has "
                                     "iterations (one each)",
                                     entry, l.dim, l.tensor, walked, d,
                                     op.tensor, t.shape[d]));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckTileAndBuffer(const NkiOp& op, const NkiOpRule& rule,
                                  const std::string& path) const {
    if (!rule.defines_tile) {
      if (!op.tile.empty() || op.dtype.has_value() || op.buffer != "sbuf") {
        return Error(path, absl::StrFormat("%s defines no tile, so it takes "
                                           "no tile, dtype or buffer",
                                           A(op.op)));
      }
      return absl::OkStatus();
    }
    if (!op.tile.empty()) {
      if (op.tile.size() != 2) {
        return Error(path + "/tile",
                     absl::StrFormat("a tile is [partitions, free], got %s",
                                     ShapeText(op.tile)));
      }
      if (op.tile[0] < 1 || op.tile[0] > limits_.partitions) {
        return Error(path + "/tile/0",
                     absl::StrFormat("tile %s has %d partitions; SBUF has "
                                     "%d, so a tile spans 1 to %d",
                                     ShapeText(op.tile), op.tile[0],
                                     limits_.partitions, limits_.partitions));
      }
      if (op.tile[1] < 1 || op.tile[1] > kMaxTensorElements) {
        return Error(path + "/tile/1",
                     absl::StrFormat("the free size must be between 1 and %s, "
                                     "got %d",
                                     kMaxElementsText, op.tile[1]));
      }
    }
    if (op.buffer != "sbuf" && op.buffer != "psum") {
      return Error(path + "/buffer",
                   absl::StrFormat("unknown buffer \"%s\"; expected sbuf or "
                                   "psum",
                                   op.buffer));
    }
    if (op.op == "load" && op.buffer != "sbuf") {
      return Error(path + "/buffer", "a load writes its tile to sbuf");
    }
    if (op.op == "transpose" && op.engine == Engine::kTensor &&
        op.buffer != "psum") {
      return Error(path + "/buffer",
                   absl::StrFormat("the Tensor engine writes a transpose to "
                                   "PSUM; set \"buffer\": \"psum\" (got "
                                   "\"%s\")",
                                   op.buffer));
    }
    if (op.op == "matmul" && op.buffer != "psum") {
      return Error(path + "/buffer",
                   absl::StrFormat("the Tensor engine writes matmul results "
                                   "to PSUM; set \"buffer\": \"psum\" (got "
                                   "\"%s\")",
                                   op.buffer));
    }
    return absl::OkStatus();
  }

  // Edges run from an op to the ops whose tiles it reads or waits for.
  absl::Status CheckCycles(const LoopContext& ctx) const {
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
        return Error(
            absl::StrFormat("%s/body/%d", ctx.path, j),
            absl::StrFormat("waits for \"%s\", made later in the body "
                            "(%s/body/%d): the ops of a no_reorder loop "
                            "issue in body order",
                            body[to].id, ctx.path, to));
      }
    }
    return absl::OkStatus();
  }

  // WorkloadSpec::FindTensor scans; a 1 MiB spec can hold thousands of
  // tensors and ops, so the validator looks names up here instead.
  const TensorDecl* FindTensor(std::string_view name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : it->second;
  }

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  std::string label_;
  std::map<std::string, const TensorDecl*, std::less<>> tensors_;
};

}  // namespace

bool IsNkiOpKind(std::string_view op) { return FindNkiOpRule(op) != nullptr; }

int64_t FreeSize(const TensorDecl& tensor) {
  int64_t free = 1;
  for (size_t d = 1; d < tensor.shape.size(); ++d) {
    free = SatMul(free, tensor.shape[d]);
  }
  return free;
}

NkiTile ResolveNkiTile(const WorkloadSpec& spec, const NkiLoop& loop,
                       const NkiOp& op) {
  return ResolveTile(loop, op, spec.FindTensor(loop.tensor),
                     op.op == "load" ? spec.FindTensor(op.tensor) : nullptr);
}

absl::Status ValidateSpec(const WorkloadSpec& spec,
                          const MemoryLimits& limits) {
  return Validator(spec, limits).Run();
}

std::vector<Engine> NkiOpEngines(std::string_view op) {
  const NkiOpRule* rule = FindNkiOpRule(op);
  return rule == nullptr ? std::vector<Engine>{} : rule->engines;
}

bool NkiOpDefinesTile(std::string_view op) {
  const NkiOpRule* rule = FindNkiOpRule(op);
  return rule != nullptr && rule->defines_tile;
}

}  // namespace trn
