#include "reports/finding_text.h"

#include <cmath>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/number_format.h"

namespace trn {
namespace {

// The figures of a finding by key, formatted in their units.
class Figures {
 public:
  explicit Figures(const Finding& f) : f_(f) {}
  std::string operator[](std::string_view key) const {
    const FindingFigure* x = f_.Find(key);
    return x == nullptr ? kNotAvailable : FormatQuantity(x->value, x->unit);
  }
  double Value(std::string_view key) const {
    const FindingFigure* x = f_.Find(key);
    return x == nullptr ? NAN : x->value;
  }

 private:
  const Finding& f_;
};

std::string EngineList(const std::vector<Engine>& engines) {
  std::vector<std::string> names;
  for (Engine e : engines) names.push_back(EngineTitle(e));
  if (names.size() <= 1) return absl::StrJoin(names, "");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " and ", last);
}

// "; with 2 buffers the model predicts 18.92 μs (-5.20%)", or why the
// variant would not fit; "" when the finding quotes no what-if.
std::string Prediction(const Finding& f, const WorkloadProfile& p,
                       const std::string& how) {
  if (f.what_if.empty()) return "";
  for (const WhatIf& w : p.what_ifs) {
    if (w.id != f.what_if) continue;
    if (!w.feasible)
      return absl::StrCat("; ", how, " would not fit: ", w.why_not);
    std::string out =
        absl::StrCat("; ", how, " the model predicts ",
                     FormatQuantity(w.time_us, Unit::kMicroseconds), " (",
                     FormatSignedPercent(w.relative), ")");
    if (f.id == "no_dma_compute_overlap") {
      absl::StrAppend(&out, ", with DMA overlapping compute for ",
                      FormatPercent(w.dma_compute_overlap), " of DMA time");
    }
    return out;
  }
  return "";
}

std::string FixedCosts(const Figures& x) {
  if (!(x.Value("attained_fraction") < 0.25)) return "";
  return absl::StrCat(" At ", x["attained_fraction"],
                      " of what the roofline allows, fixed costs set its time "
                      "rather than either roof.");
}

}  // namespace

std::string EngineTitle(Engine e) {
  switch (e) {
    case Engine::kTensor:
      return "TensorE";
    case Engine::kVector:
      return "VectorE";
    case Engine::kScalar:
      return "ScalarE";
    case Engine::kGpSimd:
      return "GpSimdE";
  }
  return "?";
}

std::string FindingText(const Finding& f, const WorkloadProfile& p) {
  const Figures x(f);
  const std::string& id = f.id;
  if (id == "memory_bound") {
    return absl::StrCat(
        "Memory-bound: its arithmetic intensity of ", x["arithmetic_intensity"],
        " (FLOP per HBM byte) is below the ridge "
        "point of ",
        x["ridge_point"],
        ", so HBM bandwidth would limit it before compute; it moves ",
        x["hbm_bytes"], " at ", x["bandwidth"], ", ", x["bandwidth_share"],
        " of the ", x["dma_peak"], " the DMA queues can draw from HBM.",
        FixedCosts(x));
  }
  if (id == "compute_bound") {
    return absl::StrCat("Compute-bound: its arithmetic intensity of ",
                        x["arithmetic_intensity"],
                        " (FLOP per HBM byte) is above the ridge "
                        "point of ",
                        x["ridge_point"], "; it reaches ", x["achieved"], ", ",
                        x["peak_share"], " of the ", x["device_peak"],
                        " TensorE bf16 peak and ", x["attained_fraction"],
                        " of the ", x["compute_roof"], " its engines allow.",
                        FixedCosts(x));
  }
  if (id == "launch_overhead") {
    const double n = x.Value("hardware_executions");
    return absl::StrCat(
        "Fixed execution overhead: ", x["launch_overhead"], " of the ",
        x["total_time"], " device time (", x["share"],
        ") is the cost of launching ", x["hardware_executions"],
        n == 1 ? " hardware execution" : " hardware executions",
        ", not kernel work", Prediction(f, p, "compiled into one graph"), ".");
  }
  if (id == "no_dma_compute_overlap") {
    return absl::StrCat("DMA and compute never overlap (", x["overlap"],
                        " of DMA time): every tile is loaded whole before it "
                        "is computed",
                        Prediction(f, p, "with 2 buffers"), ".");
  }
  if (id == "dma_compute_overlap") {
    return absl::StrCat(
        "DMA overlaps compute for ", x["overlap"], " of DMA time (",
        x["overlap_time"], " of ", x["dma_active"], ")",
        Prediction(f, p, "double-buffering its single-buffered loops"), ".");
  }
  if (id == "engines_take_turns") {
    return absl::StrCat(EngineList(f.engines),
                        " are busy one at a time: no two engines ever compute "
                        "together (compute active ",
                        x["compute_active"], " of ", x["total_time"], ").");
  }
  if (id == "engines_overlap") {
    return absl::StrCat(EngineList(f.engines), " compute concurrently for ",
                        x["concurrent_share"],
                        " of the time at least one of them is busy.");
  }
  if (id == "dma_latency_bound") {
    return absl::StrCat(
        "DMA is latency-bound: for ", x["latency_share"], " of the time (",
        x["latency_only"],
        ") the kernel waits on nothing but the completion latency of its ",
        x["transfers"], " transfers (~", x["latency"], " each; ", x["pieces"],
        " pieces averaging ", x["piece_bytes"], ", ", x["bandwidth"],
        " while moving); more transfers in flight (more buffers) or fewer, "
        "larger ones would hide it.");
  }
  if (absl::EndsWith(id, "_issue_overhead")) {
    return absl::StrCat(EngineList(f.engines), " spends ", x["overhead_share"],
                        " of its instruction time on the fixed issue overhead "
                        "of its ",
                        x["instructions"],
                        " instructions; larger tiles would amortise it.");
  }
  // A finding this renderer does not know yet: its id and figures.
  std::vector<std::string> parts;
  for (const FindingFigure& fig : f.figures) {
    parts.push_back(
        absl::StrCat(fig.key, " ", FormatQuantity(fig.value, fig.unit)));
  }
  return absl::StrCat(id, ": ", absl::StrJoin(parts, ", "), ".");
}

}  // namespace trn
