#include "workloads/compiler/hoisting.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

// The HBM tensors some op of the nest writes (a store, an HBM copy).
void WrittenTensors(const std::vector<NkiLoop>& loops,
                    std::set<std::string>& out) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      if (op.op == "store" || op.op == "hbm_copy") out.insert(op.tensor);
      WrittenTensors(op.loop, out);
    }
  }
}

class Finder {
 public:
  Finder(const WorkloadSpec& spec, const MemoryLimits& limits)
      : spec_(spec), limits_(limits) {
    WrittenTensors(spec.kernel->loops, written_);
  }

  void Loop(const NkiLoop& loop, std::vector<std::vector<HoistDecision>>& out) {
    chain_.push_back(&loop);
    for (const NkiOp& op : loop.body) {
      if (op.op == "loop") {
        for (const NkiLoop& nested : op.loop) Loop(nested, out);
        continue;
      }
      std::vector<HoistDecision> options = Options(op);
      if (!options.empty()) out.push_back(std::move(options));
    }
    chain_.pop_back();
  }

 private:
  // The loops of chain_ the load's address uses: those its index names,
  // and each loop around one of them over the same dim (whose tile the
  // named loop walks). Empty optional when an index entry is of a form
  // not known here (then it is not hoisted).
  std::optional<std::vector<char>> UsedLoops(const NkiOp& op,
                                             const TensorDecl& t) const {
    std::vector<char> used(chain_.size(), 0);
    for (const std::string& e :
         EffectiveIndex(op, *chain_.back(), t.shape.size())) {
      if (e == ":" || ParseConstRange(e)) continue;
      int at = FindLoopVar(chain_, e);
      if (at < 0) return std::nullopt;
      while (at >= 0) {
        used[static_cast<size_t>(at)] = 1;
        at = EnclosingSameDim(chain_, static_cast<size_t>(at));
      }
    }
    return used;
  }

  std::vector<HoistDecision> Options(const NkiOp& op) const {
    std::vector<HoistDecision> options;
    if (op.op != "load" || op.id.empty() || !op.indirect.empty() ||
        !op.mask.empty() || !op.after.empty() || op.FixedBuffers() > 0 ||
        written_.count(op.tensor) > 0) {
      return options;
    }
    const TensorDecl* t = spec_.FindTensor(op.tensor);
    if (t == nullptr) return options;
    const std::optional<std::vector<char>> used = UsedLoops(op, *t);
    if (!used) return options;
    const int64_t bytes =
        ResolveNkiTileInChain(spec_, chain_, op, limits_.partitions)
            .BytesPerPartition();
    int64_t tile_elements = 1;
    for (int64_t e :
         FullBlock(spec_, chain_, *t,
                   EffectiveIndex(op, *chain_.back(), t->shape.size()))) {
      tile_elements = std::min<int64_t>(tile_elements * e, int64_t{1} << 50);
    }
    int64_t tensor_elements = 1;
    for (int64_t e : t->shape) {
      tensor_elements =
          std::min<int64_t>(tensor_elements * e, int64_t{1} << 50);
    }
    for (size_t j = 0; j < chain_.size(); ++j) {
      if ((*used)[j]) continue;
      // A loop that runs once reuses nothing.
      LoopChain prefix(chain_.begin(), chain_.begin() + j + 1);
      if (LoopTrips(spec_, prefix) < 2) continue;
      int64_t copies = 1;
      std::vector<std::string> key_vars;
      for (size_t m = j + 1; m < chain_.size(); ++m) {
        if (!(*used)[m]) continue;
        key_vars.push_back(chain_[m]->var);
        LoopChain inner(chain_.begin(), chain_.begin() + m + 1);
        copies = std::min<int64_t>(copies * LoopTrips(spec_, inner),
                                   int64_t{1} << 30);
      }
      // Only a whole input kept in SBUF: the loads over the loops inside
      // cover the tensor (docs/calibration.md, model 12: the matmul
      // tutorial's tiled kernel, whose lhsT column block is invariant in
      // n, is measured reloading it).
      if (copies * tile_elements != tensor_elements) continue;
      HoistDecision h;
      h.json_path = op.json_path;
      h.id = op.id;
      h.loop_path = chain_[j]->json_path;
      h.var = chain_[j]->var;
      h.copies = copies;
      h.key_vars = std::move(key_vars);
      h.bytes = bytes;
      h.why = absl::StrFormat(
          "its address does not use %s and nothing writes %s: loaded in "
          "the first iteration of each run of loop %s and kept in SBUF "
          "(%d tile%s of %d B per partition), as neuronx-cc loads the "
          "same block of its unrolled loops once",
          h.var, op.tensor, h.var, copies, copies == 1 ? "" : "s", bytes);
      options.push_back(std::move(h));
    }
    return options;
  }

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  std::set<std::string> written_;
  LoopChain chain_;
};

}  // namespace

std::vector<std::vector<HoistDecision>> HoistCandidates(
    const WorkloadSpec& spec, const MemoryLimits& limits) {
  std::vector<std::vector<HoistDecision>> out;
  if (!spec.kernel.has_value()) return out;
  Finder f(spec, limits);
  for (const NkiLoop& loop : spec.kernel->loops) f.Loop(loop, out);
  return out;
}

}  // namespace trn
