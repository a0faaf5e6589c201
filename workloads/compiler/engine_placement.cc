#include "workloads/compiler/engine_placement.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "workloads/nki_loops.h"
#include "workloads/spec_validator.h"

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
        continue;
      }
      const std::vector<Engine> can = NkiOpEngines(op.op);
      if (can.empty()) continue;  // a DMA
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
    }
    chain_.pop_back();
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
      d.why = absl::StrFormat("the only engine that runs %s", op.op);
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

  // Instructions whose ISA reference gives one engine by default.
  static bool IsaDefaultsToVector(const std::string& op) {
    return op == "tensor_tensor" || op == "tensor_reduce" || op == "select" ||
           op == "tensor_tensor_scan" || op == "bn_stats" || op == "bn_aggr";
  }

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  LoopChain chain_;
  std::array<int64_t, 4> work_{};
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
