#include "workloads/compiler/engine_placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

class Placer {
 public:
  Placer(const WorkloadSpec& spec, const MemoryLimits& limits)
      : spec_(spec), limits_(limits) {}

  // Two passes over the kernel, as a compiler that sees the whole kernel
  // before it selects: the first adds up the work of the ops whose engine
  // is fixed (stated, one engine only, or the ISA's default), the second
  // places the others, each where the least work is placed so far. Work is
  // the op's elements times the times it runs (the trips around it).
  void Loop(NkiLoop& loop, bool place, int64_t runs,
            std::vector<EngineDecision>& out) {
    chain_.push_back(&loop);
    const int64_t extent = LoopExtents(spec_, chain_, chain_.size() - 1).back();
    const int64_t trips = (extent + loop.TileSize() - 1) / loop.TileSize();
    const int64_t here = std::min<int64_t>(runs * trips, int64_t{1} << 40);
    for (NkiOp& op : loop.body) {
      if (op.op == "loop") {
        Loop(op.loop.front(), place, here, out);
        if (!op.id.empty()) psum_[op.id] = ResultInPsum(op.loop.front());
        continue;
      }
      if (!op.id.empty()) psum_[op.id] = op.buffer == "psum";
      std::vector<Engine> can = NkiOpEngines(op.op);
      if (can.empty()) continue;  // a DMA
      // GpSimd cannot access PSUM (NKI ISA reference, tensor_copy and the
      // architecture guide): an op with a PSUM input or output goes to
      // another capable engine.
      if (ReadsOrWritesPsum(op) && can.size() > 1) {
        can.erase(std::remove(can.begin(), can.end(), Engine::kGpSimd),
                  can.end());
      }
      const NkiTile tile =
          ResolveNkiTileInChain(spec_, chain_, op, limits_.partitions);
      const int64_t work =
          std::min<int64_t>(tile.free * here, int64_t{1} << 50);
      EngineDecision d;
      d.json_path = op.json_path;
      d.id = op.id.empty() ? op.op : op.id;
      d.op = op.op;
      d.line = op.source_line;
      const bool fixed = op.engine_stated || !Flexible(op, can);
      if (!place) {
        if (fixed) work_[Index(Fixed(op, can, d))] += work;
        if (op.op == "matmul" && op.insert_transpose) {
          work_[Index(Engine::kTensor)] += tile.partitions * here;
        }
        continue;
      }
      if (fixed) {
        Fixed(op, can, d);
      } else {
        d.by = DecidedBy::kCompiler;
        std::tie(d.engine, d.why) = Balance(can);
        work_[Index(d.engine)] += work;
      }
      op.engine = d.engine;
      out.push_back(std::move(d));
      if (op.op == "matmul" && op.insert_transpose) {
        PlaceInsertedTranspose(op, tile.partitions * here, out);
      }
    }
    chain_.pop_back();
  }

  // The transpose the compiler inserts before a matmul whose x is [M, K]
  // (nl.matmul with transpose_x=False): on the PE array into PSUM, then a
  // copy of the [K, M] tile to SBUF. GpSimd cannot access PSUM (NKI ISA
  // reference, tensor_copy), so the copy goes to VectorE or ScalarE by
  // engine workload. `work`: M elements per row times the runs.
  void PlaceInsertedTranspose(NkiOp& op, int64_t work,
                              std::vector<EngineDecision>& out) {
    EngineDecision t;
    t.json_path = op.json_path + "/insert_transpose";
    t.id = (op.id.empty() ? op.op : op.id) + ".transpose";
    t.op = "transpose";
    t.line = op.source_line;
    t.engine = Engine::kTensor;
    t.by = DecidedBy::kCompiler;
    t.why =
        "inserted by the compiler for nl.matmul with transpose_x=False: a "
        "transpose into PSUM runs on the PE array";
    EngineDecision c = t;
    c.id = (op.id.empty() ? op.op : op.id) + ".transpose_copy";
    c.op = "tensor_copy";
    std::string why;
    std::tie(c.engine, why) = Balance({Engine::kVector, Engine::kScalar});
    c.why =
        "inserted by the compiler for nl.matmul with transpose_x=False: the "
        "transposed tile from PSUM to SBUF, on VectorE or ScalarE (GpSimd "
        "cannot access PSUM) " +
        why;
    work_[Index(c.engine)] += work;
    op.transpose_copy_engine = c.engine;
    out.push_back(std::move(t));
    out.push_back(std::move(c));
  }

 private:
  // Whether the compiler selects the op's engine by workload: the ISA's
  // unknown_engine default, and nl.* arithmetic ("auto").
  static bool Flexible(const NkiOp& op, const std::vector<Engine>& can) {
    if (can.size() == 1 || op.op == "transpose") return false;
    return op.engine_auto || !IsaDefaultsToVector(op.op);
  }

  // The engine of an op whose engine is not the workload's to decide.
  Engine Fixed(const NkiOp& op, const std::vector<Engine>& can,
               EngineDecision& d) const {
    if (op.engine_stated) {
      d.by = DecidedBy::kSpec;
      d.engine = *op.engine;
      d.why = "stated by the spec (the kernel's source names the engine)";
      return d.engine;
    }
    d.by = DecidedBy::kCompiler;
    if (can.size() == 1) {
      d.engine = can.front();
      d.why = NkiOpEngines(op.op).size() > 1
                  ? absl::StrFormat(
                        "the only engine that runs %s on a PSUM tile "
                        "(GpSimd cannot access PSUM)",
                        op.op)
                  : absl::StrFormat("the only engine that runs %s", op.op);
    } else if (op.op == "transpose") {
      d.engine = op.buffer == "psum" ? Engine::kTensor : Engine::kVector;
      d.why = op.buffer == "psum" ? "a transpose into PSUM runs on the PE array"
                                  : "a transpose within SBUF runs on VectorE";
    } else {
      // The NKI ISA reference names VectorE for these instructions when no
      // engine is given (GpSimd only for operators VectorE lacks).
      d.engine = Engine::kVector;
      d.why = absl::StrFormat(
          "nki.isa.%s runs on VectorE unless the source names another "
          "engine (NKI ISA reference)",
          op.op);
    }
    return d.engine;
  }

  std::pair<Engine, std::string> Balance(const std::vector<Engine>& can) const {
    Engine best = can.front();
    for (Engine e : can) {
      if (work_[Index(e)] < work_[Index(best)] ||
          (work_[Index(e)] == work_[Index(best)] && e == Engine::kVector)) {
        best = e;
      }
    }
    std::vector<std::string> loads;
    for (Engine e : can) {
      loads.push_back(absl::StrFormat("%s %d", EngineName(e), work_[Index(e)]));
    }
    return {best, absl::StrFormat("by engine workload: the least work placed "
                                  "(element-runs: %s)",
                                  absl::StrJoin(loads, ", "))};
  }

  static size_t Index(Engine e) { return static_cast<size_t>(e); }

  // Whether the tile a nested loop's id stands for is in PSUM.
  static bool ResultInPsum(const NkiLoop& loop) {
    const int r = LoopResultIndex(loop);
    if (r < 0) return false;
    const NkiOp& op = loop.body[static_cast<size_t>(r)];
    return op.op == "loop" ? ResultInPsum(op.loop.front())
                           : op.buffer == "psum";
  }

  bool ReadsOrWritesPsum(const NkiOp& op) const {
    if (op.buffer == "psum") return true;
    for (const std::string& id : op.inputs) {
      auto it = psum_.find(id);
      if (it != psum_.end() && it->second) return true;
    }
    return false;
  }

  // Instructions whose ISA reference gives one engine by default.
  static bool IsaDefaultsToVector(const std::string& op) {
    return op == "tensor_tensor" || op == "tensor_reduce" || op == "select" ||
           op == "tensor_tensor_scan" || op == "bn_stats" || op == "bn_aggr";
  }

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  LoopChain chain_;
  std::array<int64_t, 4> work_{};
  // Whether the tile of each id seen so far is in PSUM (ids are scoped
  // by body; a later body's id of the same name replaces an earlier one).
  std::map<std::string, bool> psum_;
};

}  // namespace

std::vector<EngineDecision> PlaceEngines(WorkloadSpec& spec,
                                         const MemoryLimits& limits) {
  std::vector<EngineDecision> out;
  if (!spec.kernel.has_value()) return out;
  Placer placer(spec, limits);
  for (NkiLoop& loop : spec.kernel->loops) placer.Loop(loop, false, 1, out);
  for (NkiLoop& loop : spec.kernel->loops) placer.Loop(loop, true, 1, out);
  return out;
}

}  // namespace trn
