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
  std::map<std::string, int> uses;  // reads left inside this kernel
  std::map<std::string, bool> produced_here;
  for (const TorchOp* op : ops) {
    for (const auto& in : op->inputs) ++uses[in];
    produced_here[op->output] = true;
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
    std::map<std::string, Deps> ready;  // tensor -> instructions making it
    for (const TorchOp* op : ops) {
      const AtenOpInfo* info = FindAtenOp(op->op);
      if (info == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            spec.file, ": ", op->json_path, ": unknown op ", op->op));
      }
      Deps deps;
      for (const auto& name : op->inputs) {
        auto it = ready.find(name);
        if (it == ready.end()) {
          const TensorDecl& td = *spec.FindTensor(name);
          Layout l = LayoutOf(td);
          const int64_t r = std::min(tile_rows, l.rows);
          const DmaShape shape{r, r, r * l.free * DTypeBytes(td.dtype),
                               /*whole_rows=*/true};
          it = ready.emplace(name, Deps{b.Dma("dma_load", name, shape, {})})
                   .first;
        }
        deps.insert(deps.end(), it->second.begin(), it->second.end());
      }
      const TensorDecl& first = *spec.FindTensor(op->inputs.front());
      const TensorDecl& out = *spec.FindTensor(op->output);
      Layout in_l = LayoutOf(first);
      int64_t work = in_l.free;
      int64_t matmul_flops = 0;
      if (info->rule == ShapeRule::kMatmul) {
        // TensorE streams the moving operand once per 128-deep slice of
        // the contraction.
        const TensorDecl& rhs = *spec.FindTensor(op->inputs[1]);
        Layout r_l = LayoutOf(rhs);
        work = r_l.free * ((r_l.rows + pmax - 1) / pmax);
        matmul_flops = 2 * r_l.rows * tile_rows * r_l.free;
      }
      uint32_t last = 0;
      for (const AtenStep& s : info->steps) {
        int64_t w = s.work == WorkBasis::kFree ? work : 1;
        // About one operation per element, except the PE array's 2*K*M*N.
        const int64_t flops =
            info->rule == ShapeRule::kMatmul ? matmul_flops : tile_rows * w;
        ComputeCost cost;
        cost.rule = s.cost;
        cost.work = w;
        cost.aux = tile_rows;  // a matmul's stationary columns
        cost.narrow_dtype = IsNarrow(first.dtype);
        last = b.Compute(s.engine, std::string(s.opcode), op->output,
                         first.dtype, tile_rows, cost, deps, flops);
        deps = {last};
      }
      ready[op->output] = {last};
      for (const auto& name : op->inputs) --uses[name];
      bool consumed_later = uses[op->output] > 0;
      if (!consumed_later) {
        const Layout o = LayoutOf(out);
        const int64_t r = std::min(tile_rows, o.rows);
        b.Dma("dma_store", op->output,
              DmaShape{r, r, r * o.free * DTypeBytes(out.dtype),
                       /*whole_rows=*/true},
              {last});
      }
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
