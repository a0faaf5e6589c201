#include "workloads/compiler/broadcasts.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "support/status_macros.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

// The op of `body` with id `id` that the compiler inserted, or nullptr.
const NkiOp* Inserted(const std::vector<NkiOp>& body, const std::string& id) {
  for (const NkiOp& m : body) {
    if (m.compiler_inserted && m.id == id) return &m;
  }
  return nullptr;
}

void Restore(NkiLoop& loop) {
  for (NkiOp& op : loop.body) {
    for (size_t k = 0; k < op.broadcasts.size() && k < op.inputs.size(); ++k) {
      if (op.broadcasts[k] == 0) continue;
      const NkiOp* m = Inserted(loop.body, op.inputs[k]);
      // A staged broadcast is read through its last copy to SBUF.
      if (m != nullptr && m->op == "tensor_copy" && m->inputs.size() == 1) {
        m = Inserted(loop.body, m->inputs[0]);
      }
      if (m == nullptr || m->inputs.size() != 2) continue;
      op.inputs[k] = m->inputs[1];
      if (k < op.input_slots.size()) {
        op.input_slots[k] = m->input_slots.size() > 1
                                ? m->input_slots[1]
                                : std::vector<std::string>{};
      }
    }
    std::erase_if(op.after, [&](const std::string& id) {
      return Inserted(loop.body, id) != nullptr;
    });
    if (!op.loop.empty()) Restore(op.loop.front());
  }
  std::erase_if(loop.body,
                [](const NkiOp& op) { return op.compiler_inserted; });
}

void CollectIds(const std::vector<NkiLoop>& loops, std::set<std::string>& out) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      if (!op.id.empty()) out.insert(op.id);
      CollectIds(op.loop, out);
    }
  }
}

// The nc_matmul limit on the moving tile's free size, in elements (NKI ISA
// reference, nki.isa.nc_matmul; nki.language.tile_size.gemm_moving_fmax).
constexpr int64_t kMatmulMovingMax = 512;

// A broadcast made in a body: the id its readers read, and the ids they
// must also wait for (the other copies of a staged broadcast).
struct Made {
  std::string read;
  std::vector<std::string> after;
};

class Expander {
 public:
  Expander(WorkloadSpec& spec, int64_t partitions)
      : spec_(spec),
        partitions_(partitions),
        label_(spec.file.empty() ? spec.name : spec.file) {
    CollectIds(spec.kernel->loops, ids_);
  }

  absl::Status Run() {
    for (NkiLoop& top : spec_.kernel->loops) {
      ones_.clear();
      TRN_RETURN_IF_ERROR(Body(top));
      // The rows of ones, once per kernel loop: a constant the compiler
      // makes before the loop's first iteration needs it.
      std::vector<NkiOp> made;
      for (const auto& [key, op] : ones_) made.push_back(op);
      top.body.insert(top.body.begin(), made.begin(), made.end());
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const std::string& path, const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s: %s", label_, path, what));
  }

  std::string UniqueId(const std::string& base) {
    std::string id = base;
    for (int n = 2; ids_.contains(id); ++n)
      id = absl::StrFormat("%s_%d", base, n);
    ids_.insert(id);
    return id;
  }

  // The op that makes `id`, nearest body first, and how many loops of the
  // chain are around it; {nullptr, 0} if none does.
  std::pair<const NkiOp*, size_t> Producer(const std::string& id) const {
    for (size_t d = chain_.size(); d-- > 0;) {
      for (const NkiOp& op : chain_[d]->body) {
        if (op.id == id) return {&op, d + 1};
      }
    }
    return {nullptr, 0};
  }

  LoopChain Chain(size_t n) const {
    return LoopChain(chain_.begin(), chain_.begin() + static_cast<long>(n));
  }

  absl::Status Body(NkiLoop& loop) {
    chain_.push_back(&loop);
    // One broadcast per input and partition count in a body, however many
    // ops read it (one `x.broadcast_to(...)` read twice).
    std::map<std::pair<std::string, int64_t>, Made> made;
    for (size_t i = 0; i < loop.body.size(); ++i) {
      if (loop.body[i].op == "loop") {
        TRN_RETURN_IF_ERROR(Body(loop.body[i].loop.front()));
        continue;
      }
      for (size_t k = 0; k < loop.body[i].broadcasts.size(); ++k) {
        NkiOp& op = loop.body[i];
        const int64_t p = op.broadcasts[k];
        if (p == 0) continue;
        const std::string path =
            absl::StrFormat("%s/broadcasts/%d", op.json_path, k);
        const std::string& input = op.inputs[k];
        if (k < op.input_slots.size() && !op.input_slots[k].empty()) {
          return Error(path,
                       absl::StrFormat("\"%s\" is read by slot; a partition "
                                       "broadcast of a block's slot is not "
                                       "yet expressible",
                                       input));
        }
        const auto [producer, depth] = Producer(input);
        if (producer == nullptr || producer->op == "loop") {
          return Error(
              path, absl::StrFormat("\"%s\" is not a tile made by an op; a "
                                    "partition broadcast reads a tile of one "
                                    "partition",
                                    input));
        }
        const NkiTile in =
            ResolveNkiTileInChain(spec_, Chain(depth), *producer, partitions_);
        if (in.partitions != 1) {
          return Error(
              path, absl::StrFormat("\"%s\" is a tile of %d partitions; a "
                                    "partition broadcast reads a tile of one",
                                    input, in.partitions));
        }
        const NkiTile out =
            ResolveNkiTileInChain(spec_, Chain(chain_.size()), op, partitions_);
        if (out.partitions != p) {
          return Error(
              path, absl::StrFormat("broadcasts \"%s\" to %d partitions, but "
                                    "the op's tile has %d",
                                    input, p, out.partitions));
        }
        Made& done = made[{input, p}];
        if (done.read.empty()) {
          const std::string ones = Ones(p, in.dtype, op.source_line, path);
          const std::string base = absl::StrFormat("%s_bcast%d", input, p);
          std::vector<NkiOp> ops = Matmuls(base, ones, input, p, in.free,
                                           op.source_line, path, done);
          loop.body.insert(loop.body.begin() + static_cast<long>(i),
                           ops.begin(), ops.end());
          i += ops.size();
        }
        NkiOp& reader = loop.body[i];
        reader.inputs[k] = done.read;
        for (const std::string& a : done.after) {
          if (std::find(reader.after.begin(), reader.after.end(), a) ==
              reader.after.end()) {
            reader.after.push_back(a);
          }
        }
      }
    }
    chain_.pop_back();
    return absl::OkStatus();
  }

  // The ops that make the [p, n] broadcast of `input`: one matmul of at
  // most kMatmulMovingMax columns (the nc_matmul limit on the moving free
  // size, which is also one PSUM bank of fp32, the largest PSUM tile: NKI
  // ISA reference, nc_matmul; nki.language.tile_size, psum_fmax), so one
  // matmul read in PSUM when n fits it. A wider broadcast cannot be one
  // PSUM tile: each bank-wide matmul is copied to SBUF, and the reader
  // reads the copies (the last as its input, the others as `after`, so
  // all of them are live until it runs).
  std::vector<NkiOp> Matmuls(const std::string& base, const std::string& ones,
                             const std::string& input, int64_t p, int64_t n,
                             int line, const std::string& path, Made& done) {
    auto op = [&](const std::string& id, const std::string& kind,
                  int64_t cols) {
      NkiOp m;
      m.id = UniqueId(id);
      m.op = kind;
      m.tile = {p, cols};
      m.dtype = DType::kFp32;  // TensorE writes fp32 to PSUM
      m.source_line = line;
      m.json_path = path;
      m.compiler_inserted = true;
      return m;
    };
    std::vector<NkiOp> out;
    if (n <= kMatmulMovingMax) {
      NkiOp m = op(base, "matmul", n);
      m.inputs = {ones, input};
      m.buffer = "psum";
      done.read = m.id;
      out.push_back(std::move(m));
      return out;
    }
    for (int64_t c = 0, j = 0; c < n; c += kMatmulMovingMax, ++j) {
      const int64_t cols = std::min(kMatmulMovingMax, n - c);
      NkiOp m = op(absl::StrFormat("%s_%d", base, j), "matmul", cols);
      m.inputs = {ones, input};
      m.slices = {{}, {1, cols}};
      m.buffer = "psum";
      NkiOp copy =
          op(absl::StrFormat("%s_%d_sb", base, j), "tensor_copy", cols);
      copy.inputs = {m.id};
      if (!done.read.empty()) done.after.push_back(done.read);
      done.read = copy.id;
      out.push_back(std::move(m));
      out.push_back(std::move(copy));
    }
    return out;
  }

  // The id of the [1, p] row of ones of `dtype` at the top of the current
  // kernel loop, made on first use.
  std::string Ones(int64_t p, DType dtype, int line, const std::string& path) {
    auto key = std::make_pair(p, dtype);
    auto it = ones_.find(key);
    if (it != ones_.end()) return it->second.id;
    NkiOp m;
    m.id = UniqueId(absl::StrFormat("ones_%d_%s", p, DTypeName(dtype)));
    m.op = "memset";
    m.tile = {1, p};
    m.dtype = dtype;
    m.source_line = line;
    m.json_path = path;
    m.compiler_inserted = true;
    const std::string id = m.id;
    ones_.emplace(key, std::move(m));
    return id;
  }

  WorkloadSpec& spec_;
  const int64_t partitions_;
  const std::string label_;
  std::set<std::string> ids_;
  std::vector<NkiLoop*> chain_;
  std::map<std::pair<int64_t, DType>, NkiOp> ones_;
};

}  // namespace

void RemoveInsertedBroadcasts(WorkloadSpec& spec) {
  if (!spec.kernel.has_value()) return;
  for (NkiLoop& loop : spec.kernel->loops) Restore(loop);
}

absl::Status ExpandBroadcasts(WorkloadSpec& spec, int64_t partitions) {
  if (!spec.kernel.has_value()) return absl::OkStatus();
  return Expander(spec, partitions).Run();
}

}  // namespace trn
