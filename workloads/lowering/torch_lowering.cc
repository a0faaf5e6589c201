// The torch modes' lowering (workloads/lowering/torch_lowering.h).
#include "workloads/lowering/torch_lowering.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/lowering/kernel_builder.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn::lowering_internal {
namespace {

// A tensor seen as [rows, free]: every dim but the last goes to rows, which
// map onto SBUF partitions.
struct Layout {
  int64_t rows = 1;
  int64_t free = 1;
};

Layout LayoutOf(const TensorDecl& t) {
  Layout l;
  if (t.shape.empty()) return l;
  l.free = t.shape.back();
  for (size_t i = 0; i + 1 < t.shape.size(); ++i) l.rows *= t.shape[i];
  return l;
}

// Lowers torch ops into one kernel. Tensors in `resident` are already on
// chip (produced earlier in the same kernel), so they are neither loaded
// nor stored: that is what a compiled graph saves over eager execution.
// `earlier` counts the instructions of the program's earlier dispatches:
// the limit is on the program, not on each of its kernels.
absl::Status LowerTorchOps(const WorkloadSpec& spec,
                           const std::vector<const TorchOp*>& ops,
                           const DeviceProfile& profile, size_t earlier,
                           Kernel& kernel) {
  KernelBuilder b(kernel, profile);
  const int64_t pmax = profile.memory.partitions;
  // Reads of each tensor inside this kernel, per row tile: every tile runs
  // the whole chain, so each tile starts from these counts (a tile's
  // intermediate is stored only when no later op of the chain reads it).
  std::map<std::string, int> reads;
  for (const TorchOp* op : ops) {
    for (const auto& in : op->inputs) ++reads[in];
  }
  // Rows tile over partitions; every tile runs the whole chain.
  int64_t rows = 1;
  for (const TorchOp* op : ops) {
    rows = std::max(rows, LayoutOf(*spec.FindTensor(op->output)).rows);
  }
  const int64_t tiles = (rows + pmax - 1) / pmax;
  // At least one instruction per op and tile: refuse a huge shape up front
  // instead of building 20 million instructions first.
  TRN_RETURN_IF_ERROR(CheckSize(
      spec,
      earlier + static_cast<size_t>(tiles * static_cast<int64_t>(ops.size()))));
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t tile_rows = std::min(pmax, rows - t * pmax);
    std::map<std::string, int> uses = reads;  // reads left in this tile
    std::map<std::string, Deps> ready;  // tensor -> instructions making it
    for (const TorchOp* op : ops) {
      const AtenOpInfo* info = FindAtenOp(op->op);
      if (info == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            spec.file, ": ", op->json_path, ": unknown op ", op->op));
      }
      const TensorDecl& out = *spec.FindTensor(op->output);
      // `as`: the tensor whose tile holds the data (a view's input).
      auto store_if_last = [&](const Deps& after, const TensorDecl& as) {
        if (uses[op->output] > 0) return;
        const Layout o = LayoutOf(as);
        const int64_t r = std::min(tile_rows, o.rows);
        b.Dma("dma_store", op->output,
              DmaShape{r, r, r * o.free * DTypeBytes(as.dtype),
                       /*whole_rows=*/true},
              after);
      };
      if (info->rule == ShapeRule::kView) {
        // A view moves no data: on chip it is the tile it views, and a
        // view of a tensor in HBM is read where it is.
        --uses[op->inputs[0]];
        auto it = ready.find(op->inputs[0]);
        if (it != ready.end()) {
          ready[op->output] = it->second;
          store_if_last(it->second, *spec.FindTensor(op->inputs[0]));
        }
        continue;
      }
      const bool matmul =
          info->rule == ShapeRule::kMatmul || info->rule == ShapeRule::kLinear;
      Deps deps;
      for (size_t k = 0; k < op->inputs.size(); ++k) {
        const std::string& name = op->inputs[k];
        // An embedding's table is not loaded: its rows are gathered below.
        if (info->rule == ShapeRule::kEmbedding && k == 0) continue;
        auto it = ready.find(name);
        if (it == ready.end()) {
          const TensorDecl& td = *spec.FindTensor(name);
          Layout l = LayoutOf(td);
          const int64_t r = std::min(tile_rows, l.rows);
          DmaShape shape{r, r, r * l.free * DTypeBytes(td.dtype),
                         /*whole_rows=*/true};
          if (matmul && k == 1) {
            // The right operand is read whole for each batch the tile's
            // rows cover (a 2-d weight: once), its contraction dim on
            // partitions.
            const int64_t batches =
                td.shape.size() <= 2
                    ? 1
                    : std::max<int64_t>(1,
                                        l.rows / td.shape[td.shape.size() - 2]);
            const int64_t mat_rows = l.rows / batches;
            const int64_t m = std::max<int64_t>(
                1, LayoutOf(out).rows / std::max<int64_t>(1, batches));
            const int64_t covered =
                std::min<int64_t>(batches, (tile_rows + m - 1) / m);
            shape = DmaShape{std::min(mat_rows, pmax), covered * mat_rows,
                             covered * mat_rows * l.free * DTypeBytes(td.dtype),
                             /*whole_rows=*/true};
          }
          it = ready.emplace(name, Deps{b.Dma("dma_load", name, shape, {})})
                   .first;
        }
        Append(deps, it->second);
      }
      if (info->rule == ShapeRule::kEmbedding) {
        // Each output row is a table row, gathered through its index by
        // an indirect DMA (the DMA guide's indirect access).
        const Layout o = LayoutOf(out);
        const TensorDecl& table = *spec.FindTensor(op->inputs[0]);
        const int64_t r = std::min(tile_rows, o.rows);
        DmaShape gather{r, r, r * o.free * DTypeBytes(table.dtype)};
        gather.indirect = true;
        const uint32_t g = b.Dma("dma_gather", op->output, gather, deps);
        ready[op->output] = {g};
        for (const auto& name : op->inputs) --uses[name];
        store_if_last({g}, out);
        TRN_RETURN_IF_ERROR(CheckSize(spec, earlier + b.size()));
        continue;
      }
      const TensorDecl& first = *spec.FindTensor(op->inputs.front());
      Layout in_l = LayoutOf(first);
      int64_t work = in_l.free;
      int64_t matmul_flops = 0;
      int64_t stationary = tile_rows;
      if (matmul) {
        // TensorE streams the moving operand once per 128-deep slice of
        // the contraction, for each batch (each its own right operand)
        // among the tile's rows.
        const TensorDecl& rhs = *spec.FindTensor(op->inputs[1]);
        const int64_t k_dim = first.shape.back();
        const int64_t n_dim = out.shape.back();
        const int64_t m =
            first.shape.size() >= 2 ? first.shape[first.shape.size() - 2] : 1;
        const int64_t batched =
            info->rule == ShapeRule::kMatmul && rhs.shape.size() > 2
                ? std::max<int64_t>(1, (tile_rows + m - 1) / m)
                : 1;
        stationary = std::max<int64_t>(1, tile_rows / batched);
        work = batched * n_dim * ((k_dim + pmax - 1) / pmax);
        matmul_flops = 2 * k_dim * tile_rows * n_dim;
        if (info->rule == ShapeRule::kLinear) in_l.free = n_dim;
      }
      uint32_t last = 0;
      for (const AtenStep& s : StepsFor(*info, op->inputs.size())) {
        const bool pe = s.cost == CostRule::kMatmul;
        // After the matmul, the bias add streams the [rows, n] result.
        int64_t w =
            s.work == WorkBasis::kFree ? (pe || !matmul ? work : in_l.free) : 1;
        // About one operation per element, except the PE array's 2*K*M*N.
        const int64_t flops = pe ? matmul_flops : tile_rows * w;
        ComputeCost cost;
        cost.rule = s.cost;
        cost.work = w;
        cost.aux = pe ? stationary : tile_rows;  // a matmul's stationary cols
        cost.narrow_dtype = IsNarrow(first.dtype);
        last = b.Compute(s.engine, std::string(s.opcode), op->output,
                         first.dtype, tile_rows, cost, deps, flops);
        deps = {last};
      }
      ready[op->output] = {last};
      for (const auto& name : op->inputs) --uses[name];
      store_if_last({last}, out);
      TRN_RETURN_IF_ERROR(CheckSize(spec, earlier + b.size()));
    }
  }
  return absl::OkStatus();
}

std::vector<HostCopy> HostCopiesFor(const WorkloadSpec& spec,
                                    const std::vector<const TorchOp*>& ops) {
  std::vector<HostCopy> copies;
  for (const TorchOp* op : ops) {
    for (const auto& name : op->inputs) {
      const TensorDecl& t = *spec.FindTensor(name);
      if (t.placement != Placement::kHost) continue;
      int64_t n = 1;
      for (int64_t d : t.shape) n *= d;
      bool seen = false;
      for (const auto& c : copies) seen = seen || c.tensor == name;
      if (!seen) copies.push_back({name, n * DTypeBytes(t.dtype)});
    }
  }
  return copies;
}

}  // namespace

absl::StatusOr<Program> LowerTorch(const WorkloadSpec& spec,
                                   const DeviceProfile& profile) {
  Program p;
  p.name = spec.name;
  p.mode = spec.mode;
  if (spec.mode == ExecMode::kCompiled) {
    std::vector<const TorchOp*> ops;
    for (const auto& op : spec.ops) ops.push_back(&op);
    Dispatch d;
    d.name = "Torch-Compiled Region";
    d.host_copies = HostCopiesFor(spec, ops);
    d.kernel.name = spec.name;
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, 0, d.kernel));
    p.dispatches.push_back(std::move(d));
    return p;
  }
  size_t earlier = 0;
  for (const auto& op : spec.ops) {
    // A view is no dispatch: it is metadata of a tensor in HBM.
    const AtenOpInfo* info = FindAtenOp(op.op);
    if (info != nullptr && info->rule == ShapeRule::kView) continue;
    std::vector<const TorchOp*> ops = {&op};
    Dispatch d;
    d.name = op.op;
    d.host_copies = HostCopiesFor(spec, ops);
    d.kernel.name = op.op;
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, earlier, d.kernel));
    earlier += d.kernel.instrs.size();
    p.dispatches.push_back(std::move(d));
  }
  return p;
}

}  // namespace trn::lowering_internal
