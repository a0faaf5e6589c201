#include "device_model/host_driver.h"

#include <algorithm>
#include <string>
#include <utility>

#include "device_model/timeline.h"

namespace trn {
namespace {

double Draw(const QuantileTable& q, CounterRng& rng) {
  return q.Sample(rng.NextUniform());
}

void Span(SimListener& out, uint32_t lane, std::string name, double start,
          double end, int32_t dispatch, int64_t bytes = 0,
          std::string detail = "") {
  out.Host(
      {lane, std::move(name), std::move(detail), start, end, dispatch, bytes});
}

// PyTorch on the device: one hardware execution per dispatch (an ATen op,
// a fused op or a compiled graph). The host runs ahead asynchronously and
// waits for the device at the end (torch.neuron.synchronize()).
class TorchDriver : public HostDriver {
 public:
  explicit TorchDriver(bool compiled) : compiled_(compiled) {}

  void Run(const Program& p, const DeviceProfile& prof,
           const KernelRunner& kernels, CounterRng& rng,
           SimListener& out) const override {
    const QuantileTable& overhead =
        compiled_ ? prof.graph_exec_overhead_us : prof.op_exec_overhead_us;
    double fw = 0.0;   // framework lane cursor
    double rt = 0.0;   // runtime lane cursor
    double hw = 0.0;   // hardware lane cursor: executions are in order
    double h2d = 0.0;  // host-to-device copy lane cursor
    for (size_t d = 0; d < p.dispatches.size(); ++d) {
      const Dispatch& disp = p.dispatches[d];
      const auto di = static_cast<int32_t>(d);
      double inputs_ready = 0.0;
      for (const HostCopy& c : disp.host_copies) {
        const double op = Draw(prof.host_op_dispatch_us, rng);
        Span(out, kFrameworkLane, "aten::copy_", fw, fw + op, di, c.bytes,
             c.tensor);
        fw += op;
        const double dur = Draw(prof.h2d_copy_latency_us, rng) +
                           static_cast<double>(c.bytes) / (prof.h2d_gbps * 1e3);
        const double s = std::max(fw, h2d);
        Span(out, kHostToDeviceLane, "host_to_device_copy", s, s + dur, di,
             c.bytes, c.tensor);
        h2d = s + dur;
        inputs_ready = std::max(inputs_ready, h2d);
      }
      const double op = Draw(prof.host_op_dispatch_us, rng);
      Span(out, kFrameworkLane, disp.name, fw, fw + op, di);
      fw += op;
      const double sched = Draw(prof.runtime_schedule_us, rng);
      const double rs = std::max(fw, rt);
      Span(out, kRuntimeLane, "nrta_execute_schedule", rs, rs + sched, di, 0,
           disp.name);
      rt = rs + sched;
      const double hw_start = std::max({rt, hw, inputs_ready});
      const double fixed = Draw(overhead, rng);
      const double end = kernels.RunKernel(d, hw_start + fixed, rng, out);
      Span(out, kHardwareLane, "nc_exec_running", hw_start, end, di, 0,
           disp.name);
      hw = end;
    }
    if (hw > fw) {
      Span(out, kFrameworkLane, "torch.neuron.synchronize", fw, hw, -1);
    }
  }

 private:
  bool compiled_;
};

// nki.benchmark: the host launches the kernel (its latency is what
// separates L from NCL), then spends a gap before the next iteration, which
// sets the throughput.
class NkiBenchmarkDriver : public HostDriver {
 public:
  void Run(const Program& p, const DeviceProfile& prof,
           const KernelRunner& kernels, CounterRng& rng,
           SimListener& out) const override {
    const double host = Draw(prof.nki_host_latency_us, rng);
    const double gap = Draw(prof.nki_iteration_gap_us, rng);
    Span(out, kRuntimeLane, "nrta_execute_schedule", 0.0, host, 0);
    double t = host;
    for (size_t d = 0; d < p.dispatches.size(); ++d) {
      const auto di = static_cast<int32_t>(d);
      const double end = kernels.RunKernel(d, t, rng, out);
      Span(out, kHardwareLane, "nc_exec_running", t, end, di, 0,
           p.dispatches[d].name);
      t = end;
    }
    Span(out, kFrameworkLane, "nki.benchmark loop", t, t + gap, -1);
  }
};

}  // namespace

std::unique_ptr<HostDriver> MakeHostDriver(ExecMode mode) {
  switch (mode) {
    case ExecMode::kNki:
      return std::make_unique<NkiBenchmarkDriver>();
    case ExecMode::kCompiled:
      return std::make_unique<TorchDriver>(/*compiled=*/true);
    case ExecMode::kEager:
    case ExecMode::kFusedOp:
      break;
  }
  return std::make_unique<TorchDriver>(/*compiled=*/false);
}

}  // namespace trn
