#include "workloads/lowering.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "device_model/status_macros.h"
#include "workloads/aten_ops.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

using Deps = std::vector<uint32_t>;

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

int64_t FreeSize(const std::vector<int64_t>& shape) {
  int64_t f = 1;
  for (size_t i = 1; i < shape.size(); ++i) f *= shape[i];
  return f;
}

class KernelBuilder {
 public:
  KernelBuilder(Kernel& k, const DeviceProfile& profile)
      : k_(k), queues_(profile.dma_queues) {}

  // A transfer of `rows` partitions × `row_bytes`, spread over up to all
  // DMA queues as the compiler does; returns the chunk instructions.
  Deps Dma(const std::string& opcode, const std::string& label, int64_t rows,
           int64_t row_bytes, const Deps& deps, int line = 0,
           int iteration = -1) {
    Deps out;
    const auto transfer = static_cast<uint32_t>(k_.instrs.size());
    int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(queues_, rows));
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t r = rows / chunks + (c < rows % chunks ? 1 : 0);
      Instruction in;
      in.kind = InstrKind::kDma;
      in.queue = static_cast<int32_t>(next_queue_++ % queues_);
      in.partitions = static_cast<int32_t>(r);
      in.work = r * row_bytes;
      in.opcode = k_.Intern(opcode);
      in.label = k_.Intern(label);
      in.source_line = line;
      in.iteration = iteration;
      in.transfer = transfer;
      out.push_back(k_.Add(in, deps));
    }
    return out;
  }

  uint32_t Compute(Engine engine, const std::string& opcode,
                   const std::string& label, DType dtype, int64_t partitions,
                   int64_t work, const Deps& deps, int line = 0,
                   int iteration = -1) {
    Instruction in;
    in.kind = InstrKind::kCompute;
    in.engine = engine;
    in.dtype = dtype;
    in.partitions = static_cast<int32_t>(partitions);
    in.work = work;
    in.opcode = k_.Intern(opcode);
    in.label = k_.Intern(label);
    in.source_line = line;
    in.iteration = iteration;
    return k_.Add(in, deps);
  }

  size_t size() const { return k_.instrs.size(); }

 private:
  Kernel& k_;
  int queues_;
  int64_t next_queue_ = 0;
};

absl::Status CheckSize(const WorkloadSpec& spec, size_t n) {
  if (static_cast<int64_t>(n) > kMaxInstructions) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.file, ": the program lowers to more than ",
                     kMaxInstructions, " instructions; use a smaller shape"));
  }
  return absl::OkStatus();
}

// Lowers torch ops into one kernel. Tensors in `resident` are already on
// chip (produced earlier in the same kernel), so they are neither loaded
// nor stored: that is what a compiled graph saves over eager execution.
absl::Status LowerTorchOps(const WorkloadSpec& spec,
                           const std::vector<const TorchOp*>& ops,
                           const DeviceProfile& profile, Kernel& kernel) {
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
          int64_t r = std::min(tile_rows, l.rows);
          it = ready
                   .emplace(name, b.Dma("dma_load", name, r,
                                        l.free * DTypeBytes(td.dtype), {}))
                   .first;
        }
        deps.insert(deps.end(), it->second.begin(), it->second.end());
      }
      const TensorDecl& first = *spec.FindTensor(op->inputs.front());
      const TensorDecl& out = *spec.FindTensor(op->output);
      Layout in_l = LayoutOf(first);
      int64_t work = in_l.free;
      if (info->rule == ShapeRule::kMatmul) {
        // TensorE streams the moving operand once per 128-deep slice of
        // the contraction.
        const TensorDecl& rhs = *spec.FindTensor(op->inputs[1]);
        Layout r_l = LayoutOf(rhs);
        work = r_l.free * ((r_l.rows + pmax - 1) / pmax);
      }
      uint32_t last = 0;
      for (const AtenStep& s : info->steps) {
        int64_t w = s.work == WorkBasis::kFree ? work : 1;
        last = b.Compute(s.engine, std::string(s.opcode), op->output,
                         first.dtype, tile_rows, w, deps);
        deps = {last};
      }
      ready[op->output] = {last};
      for (const auto& name : op->inputs) --uses[name];
      bool consumed_later = uses[op->output] > 0;
      if (!consumed_later) {
        Layout o = LayoutOf(out);
        b.Dma("dma_store", op->output, std::min(tile_rows, o.rows),
              o.free * DTypeBytes(out.dtype), {last});
      }
      TRN_RETURN_IF_ERROR(CheckSize(spec, b.size()));
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
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, d.kernel));
    p.dispatches.push_back(std::move(d));
    return p;
  }
  for (const auto& op : spec.ops) {
    std::vector<const TorchOp*> ops = {&op};
    Dispatch d;
    d.name = op.op;
    d.host_copies = HostCopiesFor(spec, ops);
    d.kernel.name = op.op;
    TRN_RETURN_IF_ERROR(LowerTorchOps(spec, ops, profile, d.kernel));
    p.dispatches.push_back(std::move(d));
  }
  return p;
}

// Body statements in dependency order (stable: body order breaks ties).
std::vector<size_t> BodyOrder(const NkiLoop& loop) {
  const size_t n = loop.body.size();
  std::map<std::string, size_t> by_id;
  for (size_t i = 0; i < n; ++i) {
    if (!loop.body[i].id.empty()) by_id[loop.body[i].id] = i;
  }
  std::vector<std::vector<size_t>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    const NkiOp& op = loop.body[i];
    auto add = [&](const std::string& id) {
      auto it = by_id.find(id);
      if (it != by_id.end()) preds[i].push_back(it->second);
    };
    for (const auto& id : op.inputs) add(id);
    for (const auto& id : op.after) add(id);
    if (!op.mask.empty()) add(op.mask);
  }
  std::vector<size_t> order;
  std::vector<char> placed(n, 0);
  while (order.size() < n) {
    bool progress = false;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      bool ok = true;
      for (size_t pr : preds[i]) ok = ok && placed[pr];
      if (ok) {
        order.push_back(i);
        placed[i] = 1;
        progress = true;
        break;
      }
    }
    if (!progress) break;  // the validator rejects cycles
  }
  return order;
}

absl::StatusOr<Program> LowerNki(const WorkloadSpec& spec,
                                 const DeviceProfile& profile) {
  Program p;
  p.name = spec.name;
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = spec.name;
  d.kernel.name = spec.name;
  d.kernel.source_file = spec.kernel->source_file;
  KernelBuilder b(d.kernel, profile);
  Deps previous_loop_sinks;
  for (const NkiLoop& loop : spec.kernel->loops) {
    const TensorDecl& lt = *spec.FindTensor(loop.tensor);
    const int64_t dim0 = lt.shape.front();
    const int64_t trips =
        (dim0 + loop.tile_partitions - 1) / loop.tile_partitions;
    const std::vector<size_t> order = BodyOrder(loop);
    std::vector<Deps> sinks_of(static_cast<size_t>(trips));
    for (int64_t it = 0; it < trips; ++it) {
      const int64_t rows =
          std::min(loop.tile_partitions, dim0 - it * loop.tile_partitions);
      const int iter = static_cast<int>(it);
      // Buffer rotation: with B tile sets, iteration i reuses the buffers
      // of iteration i - B and so waits for it; a sequential range also
      // carries a dependency from every iteration to the next.
      Deps gate = it == 0 ? previous_loop_sinks : Deps{};
      int64_t wait_for = loop.range == LoopRange::kSequential
                             ? it - 1
                             : it - static_cast<int64_t>(loop.buffers);
      if (wait_for >= 0) gate = sinks_of[static_cast<size_t>(wait_for)];
      std::map<std::string, Deps> made;
      std::vector<char> consumed(loop.body.size(), 0);
      Deps all;
      for (size_t idx : order) {
        const NkiOp& op = loop.body[idx];
        Deps deps;
        auto need = [&](const std::string& id) {
          auto m = made.find(id);
          if (m != made.end())
            deps.insert(deps.end(), m->second.begin(), m->second.end());
        };
        for (const auto& id : op.inputs) need(id);
        for (const auto& id : op.after) need(id);
        if (!op.mask.empty()) need(op.mask);
        if (deps.empty()) deps = gate;
        // One rule for tile shapes, shared with the validator's SBUF check.
        const NkiTile tile = ResolveNkiTile(spec, loop, op);
        const DType dt = tile.dtype;
        const int64_t tile_p = op.tile.empty() ? rows : tile.partitions;
        const int64_t tile_f = tile.free;
        Deps produced;
        if (op.op == "load" || op.op == "store") {
          const std::string& src =
              op.op == "load" ? op.tensor : loop.body[idx].inputs.front();
          const TensorDecl& t = *spec.FindTensor(op.tensor);
          int64_t row_bytes = FreeSize(t.shape) * DTypeBytes(t.dtype);
          produced = b.Dma(absl::StrCat("dma_", op.op), src, rows, row_bytes,
                           deps, op.source_line, iter);
        } else {
          std::string opcode = op.op;
          if (!op.func.empty()) absl::StrAppend(&opcode, ".", op.func);
          produced = {b.Compute(*op.engine, opcode,
                                op.id.empty() ? op.op : op.id, dt, tile_p,
                                tile_f, deps, op.source_line, iter)};
        }
        if (!op.id.empty()) made[op.id] = produced;
        all.insert(all.end(), produced.begin(), produced.end());
        TRN_RETURN_IF_ERROR(CheckSize(spec, b.size()));
      }
      sinks_of[static_cast<size_t>(it)] = all;
    }
    previous_loop_sinks = trips > 0 ? sinks_of.back() : previous_loop_sinks;
  }
  p.dispatches.push_back(std::move(d));
  return p;
}

}  // namespace

absl::StatusOr<Program> Lower(const WorkloadSpec& spec,
                              const DeviceProfile& profile) {
  if (spec.mode == ExecMode::kNki) {
    if (!spec.kernel.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.file, ": /kernel: an nki spec needs a kernel"));
    }
    return LowerNki(spec, profile);
  }
  return LowerTorch(spec, profile);
}

}  // namespace trn
