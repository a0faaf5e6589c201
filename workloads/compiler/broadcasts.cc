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
#include "workloads/nki_loops.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

void Restore(NkiLoop& loop) {
  for (NkiOp& op : loop.body) {
    for (size_t k = 0; k < op.broadcasts.size() && k < op.inputs.size(); ++k) {
      if (op.broadcasts[k] == 0) continue;
      for (const NkiOp& m : loop.body) {
        if (!m.compiler_inserted || m.id != op.inputs[k] ||
            m.inputs.size() != 2) {
          continue;
        }
        op.inputs[k] = m.inputs[1];
        if (k < op.input_slots.size()) {
          op.input_slots[k] = m.input_slots.size() > 1
                                  ? m.input_slots[1]
                                  : std::vector<std::string>{};
        }
        break;
      }
    }
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
    // One matmul per input and partition count in a body, however many
    // ops read the broadcast (one `x.broadcast_to(...)` read twice).
    std::map<std::pair<std::string, int64_t>, std::string> made;
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
        std::string& id = made[{input, p}];
        if (id.empty()) {
          id = UniqueId(absl::StrFormat("%s_bcast%d", input, p));
          const std::string ones = Ones(p, in.dtype, op.source_line, path);
          NkiOp m;
          m.id = id;
          m.op = "matmul";
          m.inputs = {ones, input};
          m.tile = {p, in.free};
          m.dtype = DType::kFp32;  // TensorE writes fp32 to PSUM
          m.buffer = "psum";
          m.source_line = op.source_line;
          m.json_path = path;
          m.compiler_inserted = true;
          loop.body.insert(loop.body.begin() + static_cast<long>(i),
                           std::move(m));
          ++i;
        }
        NkiOp& reader = loop.body[i];
        reader.inputs[k] = id;
      }
    }
    chain_.pop_back();
    return absl::OkStatus();
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
