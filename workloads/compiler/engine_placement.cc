#include "workloads/compiler/engine_placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

// Where the compiler places a compute op whose source leaves the engine
// to it (docs/spec-format.md, "Engines left to the compiler"; the rule and
// its sources in docs/calibration.md, "Engine placement (model 11)"):
//
// - the engines are those the NKI ISA reference (SDK 2.26) lists for the
//   instruction (spec_validator.cc's NkiOpRules);
// - GpSimd only when it is the only engine, or the source names it: on
//   NeuronCore-v2 VectorE and GpSimdE cannot access SBUF in parallel
//   (architecture guide, "Concurrent SBUF/PSUM accesses by engines"), so
//   work moved from VectorE to GpSimd does not run beside it; across the
//   NKIBench profiles GpSimd is at most 1.2% active;
// - an NKI-language accumulation into a carried tile ("auto" with a
//   carry) goes to GpSimd when GpSimd finishes it sooner than VectorE, by
//   the reference's estimates in each engine's time with GpSimd's startup
//   overhead (the Mamba tutorial's profile has its `+=` beside a saturated
//   VectorE; a [P, 1] running sum stays off GpSimd; model 12);
// - GpSimd never for an op on a PSUM tile (it cannot access PSUM);
// - a copy out of PSUM from the source (an eviction) on ScalarE (model 12);
// - otherwise between VectorE and ScalarE, to the one with the fewer
//   estimated cycles placed so far (the ISA reference's "Estimated
//   instruction cost", in the engine's cycles), VectorE on a tie. A
//   compiler that sees the whole kernel: the ops whose engine is fixed are
//   counted first.
class Placer {
 public:
  Placer(const WorkloadSpec& spec, const MemoryLimits& limits)
      : spec_(spec), limits_(limits) {}

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
      std::vector<Engine> can = NkiOpEngines(op.op);
      const bool psum = ReadsOrWritesPsum(op);
      if (!op.id.empty()) psum_[op.id] = op.buffer == "psum";
      if (can.empty()) {  // a DMA
        if (op.op == "load" && !op.id.empty()) {
          free_[op.id] =
              ResolveNkiTileInChain(spec_, chain_, op, limits_.partitions).free;
        }
        continue;
      }
      const NkiTile tile =
          ResolveNkiTileInChain(spec_, chain_, op, limits_.partitions);
      const int64_t n = CostedElements(op, tile.free);
      if (!op.id.empty()) free_[op.id] = tile.free;
      const int64_t cycles = std::min<int64_t>(
          EstimatedCycles(op.op, n, psum) * here, int64_t{1} << 50);
      EngineDecision d;
      d.json_path = op.json_path;
      d.id = op.id.empty() ? op.op : op.id;
      d.op = op.op;
      d.line = op.source_line;
      if (op.engine_stated) {
        d.by = DecidedBy::kSpec;
        d.engine = *op.engine;
        d.why = "stated by the spec (the kernel's source names the engine)";
      } else {
        d.by = DecidedBy::kCompiler;
        std::tie(d.engine, d.why) = Choose(op, can, psum, n);
      }
      const bool fixed = op.engine_stated || !balanced_;
      if (!place) {
        if (fixed) work_[Index(d.engine)] += cycles;
        if (op.op == "matmul" && op.insert_transpose) {
          work_[Index(Engine::kTensor)] += tile.partitions * here;
        }
        continue;
      }
      if (!fixed) {
        std::tie(d.engine, d.why) = Balance(can);
        work_[Index(d.engine)] += cycles;
      }
      op.engine = d.engine;
      out.push_back(std::move(d));
      if (op.op == "matmul" && op.insert_transpose) {
        PlaceInsertedTranspose(op, tile.partitions * here, out);
      }
    }
    chain_.pop_back();
  }

  void ClearWork() { work_ = {}; }

  // The transpose the compiler inserts before a matmul whose x is [M, K]
  // (nl.matmul with transpose_x=False): on the PE array into PSUM, then a
  // copy of the [K, M] tile from PSUM to SBUF, on VectorE or ScalarE by
  // workload. `work`: M elements per row times the runs.
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
    c.engine = Engine::kScalar;
    c.why =
        "inserted by the compiler for nl.matmul with transpose_x=False: the "
        "transposed tile from PSUM to SBUF, an eviction of TensorE's "
        "result, on ScalarE as every copy out of PSUM";
    work_[Index(c.engine)] += work;
    op.transpose_copy_engine = c.engine;
    out.push_back(std::move(t));
    out.push_back(std::move(c));
  }

 private:
  // The engine of an op whose source leaves it to the compiler, when the
  // rule fixes it; sets balanced_ when VectorE and ScalarE are left, to be
  // chosen by workload (Balance).
  std::pair<Engine, std::string> Choose(const NkiOp& op,
                                        std::vector<Engine>& can, bool psum,
                                        int64_t free) {
    balanced_ = false;
    if (can.size() == 1) {
      return {can.front(),
              absl::StrFormat("the only engine that runs %s (NKI ISA "
                              "reference)",
                              op.op)};
    }
    if (op.op == "transpose") {
      return op.buffer == "psum"
                 ? std::pair{Engine::kTensor,
                             std::string("a transpose into PSUM runs on the "
                                         "PE array")}
                 : std::pair{Engine::kVector,
                             std::string("a transpose within SBUF runs on "
                                         "VectorE")};
    }
    // A copy out of PSUM of what TensorE made there (its eviction): on
    // ScalarE. VectorE and ScalarE cannot access PSUM in parallel
    // (architecture guide, NeuronCore-v2), so the compiler keeps the
    // evictions on one of them, and the NKIBench matmul profiles have
    // it ScalarE (docs/calibration.md, model 12). A broadcast's copy
    // (inserted by the compiler stage) is left to the workload rule.
    if (op.op == "tensor_copy" && psum && !op.compiler_inserted &&
        std::find(can.begin(), can.end(), Engine::kScalar) != can.end()) {
      return {Engine::kScalar,
              "a copy out of PSUM (an eviction of TensorE's result) runs "
              "on ScalarE: VectorE and ScalarE cannot access PSUM in "
              "parallel (NKI architecture guide, NeuronCore-v2) and the "
              "NKIBench matmul profiles evict on ScalarE"};
    }
    // tensor_scalar_reduce runs "using Vector Engine" (ISA reference).
    if (op.op == "tensor_scalar" && op.accumulate) {
      can.erase(std::remove(can.begin(), can.end(), Engine::kScalar),
                can.end());
    }
    // A tensor_scalar whose operators the source states ("alu"): when
    // they are add, subtract and multiply only, its result is affine in
    // the data, one ACTIVATE of the identity with a scale and a bias
    // (architecture guide, "Pipelined Multiply-Add": "combining a
    // nki.isa.tensor_scalar instruction with a non-linear function"; the
    // ISA reference lists multiply then add, multiply, and add for the
    // Scalar Engine, and the guide's softmax folds a subtracted maximum
    // into the bias), and it runs on ScalarE: the performance guide's
    // profile shows the compiler's multiply-adds as ScalarE ACTIVATEs of
    // the identity ("equivalent to calling
    // nki.isa.tensor_scalar(op0=nl.multiply, op1=add)"), and the NKIBench
    // profiles leave VectorE no room for them (rmsnorm_matmul's VectorE
    // 3.9% active; docs/calibration.md, model 14). Any other operator
    // (maximum, a comparison, divide, ...) keeps it off ScalarE (the ISA
    // reference's operator table). Without "alu", by workload as before.
    std::string alu_note;
    if (op.op == "tensor_scalar" && !op.alu.empty()) {
      const bool scalar_can =
          std::find(can.begin(), can.end(), Engine::kScalar) != can.end();
      if (scalar_can && ScalarEngineMultiplyAdd(op.alu)) {
        return {
            Engine::kScalar,
            absl::StrFormat("a tensor_scalar of %s, affine in the data: "
                            "ScalarE's multiply-add, an ACTIVATE of the "
                            "identity with scale and bias (NKI architecture "
                            "guide, Pipelined Multiply-Add; performance "
                            "guide; the NKIBench profiles)",
                            absl::StrJoin(op.alu, " then "))};
      }
      can.erase(std::remove(can.begin(), can.end(), Engine::kScalar),
                can.end());
      alu_note = absl::StrFormat(
          "; not affine in the data (add, subtract, multiply only), so "
          "not ScalarE's multiply-add: %s",
          absl::StrJoin(op.alu, " then "));
    }
    // An NKI-language accumulation (`acc += x`, "auto" with a carried
    // tile: the Mamba tutorial's `scanC_accum += scanC`) may go to GpSimd
    // too, by workload: the tutorial's v2 profile has VectorE 99.63% busy
    // with the five instructions of a state step alone, the accumulation
    // beside them (docs/validation.md, readings that are ours). No
    // published rule says when neuronx-cc does this; GpSimd cannot access
    // PSUM.
    // An NKI-language accumulation (`acc += x`, "auto" with a carried
    // tile: the Mamba tutorial's `scanC_accum += scanC`) may go to GpSimd
    // (our reading of the tutorial's v2 profile: VectorE 99.63% busy with
    // the five instructions of a state step alone, the accumulation beside
    // them; docs/validation.md). VectorE and GpSimdE share SBUF's port, so
    // GpSimd buys no parallelism, only its faster clock: the accumulation
    // goes to GpSimd when it finishes there sooner, by the ISA reference's
    // estimates in each engine's time, GpSimd's with its instruction
    // startup overhead (GPSIMD_START, ~150 cycles): a full tile's sum
    // (Mamba: 512 elements) does, a [P, 1] running max or sum (NKIBench
    // bmm_softmax's loop_reduce, whose profile has GpSimd idle) does not.
    // GpSimd cannot access PSUM.
    std::string accumulation;
    if (op.engine_auto && !op.carry.empty() && !psum &&
        std::find(can.begin(), can.end(), Engine::kGpSimd) != can.end()) {
      const double c = static_cast<double>(EstimatedCycles(op.op, free, psum));
      const double vector_ns =
          std::max(limits_.min_ii_cycles, c) / limits_.vector_clock_ghz;
      const double gpsimd_ns =
          (limits_.gpsimd_start_cycles + c) / limits_.gpsimd_clock_ghz;
      if (gpsimd_ns < vector_ns) {
        return {Engine::kGpSimd,
                absl::StrFormat(
                    "an NKI-language accumulation: GpSimd finishes it "
                    "sooner (%.0f ns with its ~%.0f-cycle startup, VectorE "
                    "%.0f ns; ISA reference estimates), and shares VectorE's "
                    "SBUF port, so it takes nothing else from VectorE",
                    gpsimd_ns, limits_.gpsimd_start_cycles, vector_ns)};
      }
      accumulation = absl::StrFormat(
          "; an NKI-language accumulation, which VectorE finishes sooner "
          "(%.0f ns, GpSimd %.0f ns with its ~%.0f-cycle startup)",
          vector_ns, gpsimd_ns, limits_.gpsimd_start_cycles);
    }
    can.erase(std::remove(can.begin(), can.end(), Engine::kGpSimd), can.end());
    if (can.size() == 1) {
      return {
          can.front(),
          absl::StrFormat(
              "%s runs on VectorE: GpSimd only where the source names "
              "it, since VectorE and GpSimdE cannot access SBUF in "
              "parallel (NKI architecture guide, NeuronCore-v2)%s%s%s",
              op.op, psum ? "; a PSUM access, which GpSimd cannot make" : "",
              accumulation, alu_note)};
    }
    balanced_ = true;
    return {Engine::kVector, ""};
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
    return {best, absl::StrFormat("by engine workload: the fewer estimated "
                                  "cycles placed (ISA reference costs: %s)",
                                  absl::StrJoin(loads, ", "))};
  }

  // The NKI ISA reference's "Estimated instruction cost" in engine cycles,
  // without the minimum interval: what the compiler weighs engines by.
  static int64_t EstimatedCycles(const std::string& op, int64_t n, bool psum) {
    if (op == "tensor_tensor" || op == "select" || op == "tensor_tensor_scan") {
      return psum ? n : 2 * n;
    }
    if (op == "reciprocal") return 8 * n;
    if (op == "bn_aggr") return (13 * n + 2) / 3;
    return n;
  }

  // The N of an op's estimate: a reduction's or statistic's is its
  // input's elements per partition (the ISA reference's cost of
  // tensor_reduce, bn_stats and bn_aggr is by what they read), as the
  // lowering costs them; an elementwise op's is its tile's.
  int64_t CostedElements(const NkiOp& op, int64_t tile_free) const {
    if (op.op != "tensor_reduce" && op.op != "bn_stats" && op.op != "bn_aggr") {
      return tile_free;
    }
    if (!op.slices.empty() && !op.slices.front().empty()) {
      return op.slices.front()[1];
    }
    if (op.inputs.empty()) return tile_free;
    auto it = free_.find(op.inputs.front());
    return it == free_.end() ? tile_free : it->second;
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

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  LoopChain chain_;
  std::array<int64_t, 4> work_{};
  bool balanced_ = false;
  // Whether the tile of each id seen so far is in PSUM (ids are scoped
  // by body; a later body's id of the same name replaces an earlier one).
  std::map<std::string, bool> psum_;
  // The free size of each id's tile seen so far, scoped as psum_.
  std::map<std::string, int64_t> free_;
};

}  // namespace

std::vector<EngineDecision> PlaceEngines(WorkloadSpec& spec,
                                         const MemoryLimits& limits) {
  std::vector<EngineDecision> out;
  if (!spec.kernel.has_value()) return out;
  Placer placer(spec, limits);
  // A first look records each id's tile, which a reduction's weight needs
  // even when the spec lists the reduction before the op that makes its
  // input; then the fixed ops are counted, then the rest placed.
  for (NkiLoop& loop : spec.kernel->loops) placer.Loop(loop, false, 1, out);
  placer.ClearWork();
  for (NkiLoop& loop : spec.kernel->loops) placer.Loop(loop, false, 1, out);
  for (NkiLoop& loop : spec.kernel->loops) placer.Loop(loop, true, 1, out);
  return out;
}

}  // namespace trn
