#include "workloads/spec/aten_ops.h"

#include <algorithm>
#include <array>
#include <string>

namespace trn {
namespace {

using E = Engine;
using W = WorkBasis;
using R = CostRule;

constexpr AtenStep kMul[] = {
    {E::kVector, "TensorTensor.mult", W::kFree, R::kStream2}};
constexpr AtenStep kAdd[] = {
    {E::kVector, "TensorTensor.add", W::kFree, R::kStream2}};
constexpr AtenStep kSub[] = {
    {E::kVector, "TensorTensor.subtract", W::kFree, R::kStream2}};
constexpr AtenStep kDiv[] = {
    {E::kVector, "TensorTensor.divide", W::kFree, R::kStream2}};
constexpr AtenStep kMean[] = {
    {E::kVector, "TensorReduce.mean", W::kFree, R::kStream}};
constexpr AtenStep kSum[] = {
    {E::kVector, "TensorReduce.add", W::kFree, R::kStream}};
constexpr AtenStep kAmax[] = {
    {E::kVector, "TensorReduce.max", W::kFree, R::kStream}};
constexpr AtenStep kRsqrt[] = {
    {E::kScalar, "Activation.rsqrt", W::kFree, R::kActivation}};
constexpr AtenStep kSqrt[] = {
    {E::kScalar, "Activation.sqrt", W::kFree, R::kActivation}};
constexpr AtenStep kExp[] = {
    {E::kScalar, "Activation.exp", W::kFree, R::kActivation}};
constexpr AtenStep kTanh[] = {
    {E::kScalar, "Activation.tanh", W::kFree, R::kActivation}};
constexpr AtenStep kGelu[] = {
    {E::kScalar, "Activation.gelu", W::kFree, R::kActivation}};
constexpr AtenStep kRelu[] = {
    {E::kScalar, "Activation.relu", W::kFree, R::kActivation}};
constexpr AtenStep kSilu[] = {
    {E::kScalar, "Activation.silu", W::kFree, R::kActivation}};
constexpr AtenStep kSigmoid[] = {
    {E::kScalar, "Activation.sigmoid", W::kFree, R::kActivation}};
constexpr AtenStep kLog[] = {
    {E::kScalar, "Activation.log", W::kFree, R::kActivation}};
// x ** c: the activation function table's power (square for c = 2).
constexpr AtenStep kPow[] = {
    {E::kScalar, "Activation.pow", W::kFree, R::kActivation}};
// -x: tensor_scalar multiply by -1.
constexpr AtenStep kNeg[] = {
    {E::kVector, "TensorScalar.mult", W::kFree, R::kStream}};
// 1 / x: nki.isa.reciprocal on VectorE, its own cost rule.
constexpr AtenStep kReciprocal[] = {
    {E::kVector, "Reciprocal", W::kFree, R::kReciprocal}};
// A dtype cast: nki.isa.tensor_copy to a tile of the other dtype.
constexpr AtenStep kTo[] = {{E::kVector, "TensorCopy", W::kFree, R::kStream}};
// LayerNorm as one kernel: bn_stats and bn_aggr give each row's mean and
// variance (the NKI performance guide: "the first step in layernorm to
// calculate mean and variance, nisa.bn_stats"), rsqrt(var + eps) on
// ScalarE, (x - mean) * rstd in one tensor_scalar of two operators, then
// the weight and the bias when given.
constexpr AtenStep kLayerNorm[] = {
    {E::kVector, "BNStats", W::kFree, R::kStream},
    {E::kVector, "BNAggr", W::kOne, R::kBnAggr},
    {E::kScalar, "Activation.rsqrt", W::kOne, R::kActivation},
    {E::kVector, "TensorScalar.subtract_mult", W::kFree, R::kStream},
    {E::kVector, "TensorTensor.mult", W::kFree, R::kStream2},
    {E::kVector, "TensorTensor.add", W::kFree, R::kStream2},
};
// RMSNorm as one kernel: square, mean, rsqrt of (mean + eps), scale by the
// row's factor, scale by the weight.
constexpr AtenStep kRmsNorm[] = {
    {E::kScalar, "Activation.square", W::kFree, R::kActivation},
    {E::kVector, "TensorReduce.mean", W::kFree, R::kStream},
    {E::kScalar, "Activation.rsqrt", W::kOne, R::kActivation},
    {E::kVector, "TensorScalar.mult", W::kFree, R::kStream},
    {E::kVector, "TensorTensor.mult", W::kFree, R::kStream2},
};
// Softmax along the last dim: max, exp(x - max) with a running sum, divide.
constexpr AtenStep kSoftmax[] = {
    {E::kVector, "TensorReduce.max", W::kFree, R::kStream},
    {E::kScalar, "Activation.exp", W::kFree, R::kActivation},
    {E::kVector, "TensorReduce.add", W::kFree, R::kStream},
    {E::kVector, "TensorScalar.divide", W::kFree, R::kStream},
};
constexpr AtenStep kMatmul[] = {{E::kTensor, "MatMult", W::kFree, R::kMatmul}};
// x @ w.T, then the bias when given (a tensor_tensor add of the result).
constexpr AtenStep kLinear[] = {
    {E::kTensor, "MatMult", W::kFree, R::kMatmul},
    {E::kVector, "TensorTensor.add", W::kFree, R::kStream2},
};
// The rows are gathered by an indirect DMA (lowering.cc); no compute.
constexpr std::span<const AtenStep> kNoSteps;

constexpr std::array kOps = {
    AtenOpInfo{"aten::mul", 2, 2, ShapeRule::kElementwise, kMul},
    AtenOpInfo{"aten::add", 2, 2, ShapeRule::kElementwise, kAdd},
    AtenOpInfo{"aten::sub", 2, 2, ShapeRule::kElementwise, kSub},
    AtenOpInfo{"aten::div", 2, 2, ShapeRule::kElementwise, kDiv},
    AtenOpInfo{"aten::mean", 1, 1, ShapeRule::kReduceLast, kMean},
    AtenOpInfo{"aten::sum", 1, 1, ShapeRule::kReduceLast, kSum},
    AtenOpInfo{"aten::amax", 1, 1, ShapeRule::kReduceLast, kAmax},
    AtenOpInfo{"aten::rsqrt", 1, 1, ShapeRule::kElementwise, kRsqrt},
    AtenOpInfo{"aten::sqrt", 1, 1, ShapeRule::kElementwise, kSqrt},
    AtenOpInfo{"aten::exp", 1, 1, ShapeRule::kElementwise, kExp},
    AtenOpInfo{"aten::tanh", 1, 1, ShapeRule::kElementwise, kTanh},
    AtenOpInfo{"aten::gelu", 1, 1, ShapeRule::kElementwise, kGelu},
    AtenOpInfo{"aten::relu", 1, 1, ShapeRule::kElementwise, kRelu},
    AtenOpInfo{"aten::silu", 1, 1, ShapeRule::kElementwise, kSilu},
    AtenOpInfo{"aten::sigmoid", 1, 1, ShapeRule::kElementwise, kSigmoid},
    AtenOpInfo{"aten::log", 1, 1, ShapeRule::kElementwise, kLog},
    AtenOpInfo{"aten::pow", 1, 1, ShapeRule::kElementwise, kPow},
    AtenOpInfo{"aten::neg", 1, 1, ShapeRule::kElementwise, kNeg},
    AtenOpInfo{"aten::reciprocal", 1, 1, ShapeRule::kElementwise, kReciprocal},
    AtenOpInfo{"aten::to", 1, 1, ShapeRule::kElementwise, kTo},
    AtenOpInfo{"aten::rms_norm", 1, 2, ShapeRule::kSameAsFirst, kRmsNorm},
    AtenOpInfo{"aten::layer_norm", 1, 3, ShapeRule::kSameAsFirst, kLayerNorm},
    AtenOpInfo{"aten::softmax", 1, 1, ShapeRule::kSameAsFirst, kSoftmax},
    AtenOpInfo{"aten::matmul", 2, 2, ShapeRule::kMatmul, kMatmul},
    AtenOpInfo{"aten::mm", 2, 2, ShapeRule::kMatmul, kMatmul},
    AtenOpInfo{"aten::bmm", 2, 2, ShapeRule::kMatmul, kMatmul},
    AtenOpInfo{"aten::linear", 2, 3, ShapeRule::kLinear, kLinear},
    AtenOpInfo{"aten::embedding", 2, 2, ShapeRule::kEmbedding, kNoSteps},
    AtenOpInfo{"aten::view", 1, 1, ShapeRule::kView, kNoSteps},
};

std::string DimsText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(s[i]);
  }
  return out + "]";
}

// numpy broadcasting of batch dims.
std::optional<std::vector<int64_t>> BroadcastDims(
    const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

int64_t Elements(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

}  // namespace

const AtenOpInfo* FindAtenOp(std::string_view name) {
  for (const auto& op : kOps) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

std::span<const AtenOpInfo> AllAtenOps() { return kOps; }

std::span<const AtenStep> StepsFor(const AtenOpInfo& op, size_t inputs) {
  const size_t optional_left =
      static_cast<size_t>(op.max_inputs) -
      std::min(inputs, static_cast<size_t>(op.max_inputs));
  if (op.max_inputs == op.min_inputs || op.steps.size() <= optional_left) {
    return op.steps;
  }
  return op.steps.first(op.steps.size() - optional_left);
}

std::optional<std::vector<int64_t>> AtenOutputShape(
    const AtenOpInfo& op, const std::vector<std::vector<int64_t>>& in,
    const std::vector<int64_t>& out, std::string* why) {
  std::string scratch;
  std::string& w = why != nullptr ? *why : scratch;
  if (in.empty()) return std::nullopt;
  const auto& a = in[0];
  switch (op.rule) {
    case ShapeRule::kElementwise: {
      std::vector<int64_t> s = a;
      for (size_t k = 1; k < in.size(); ++k) {
        auto b = BroadcastDims(s, in[k]);
        if (!b) {
          w = "input shapes " + DimsText(s) + " and " + DimsText(in[k]) +
              " do not broadcast";
          return std::nullopt;
        }
        s = *std::move(b);
      }
      return s;
    }
    case ShapeRule::kReduceLast: {
      if (a.empty()) {
        w = "reduces the last dim, so its input needs rank >= 1";
        return std::nullopt;
      }
      std::vector<int64_t> s = a;
      s.back() = 1;
      return s;
    }
    case ShapeRule::kSameAsFirst:
      return a;
    case ShapeRule::kMatmul: {
      const auto& b = in.size() > 1 ? in[1] : a;
      std::optional<std::vector<int64_t>> batch;
      if (a.size() >= 2 && b.size() >= 2 && a.back() == b[b.size() - 2]) {
        batch =
            BroadcastDims({a.begin(), a.end() - 2}, {b.begin(), b.end() - 2});
      }
      if (!batch) {
        w = std::string(op.name) + " multiplies [..., m, k] by [k, n]; got " +
            DimsText(a) + " and " + DimsText(b) +
            " (a right operand [..., k, n] has batch dims that broadcast "
            "with the left's)";
        return std::nullopt;
      }
      batch->push_back(a[a.size() - 2]);
      batch->push_back(b.back());
      return batch;
    }
    case ShapeRule::kLinear: {
      const auto& wt = in[1];
      if (a.empty() || wt.size() != 2 || wt[1] != a.back() ||
          (in.size() > 2 && !(in[2].size() == 1 && in[2][0] == wt[0]))) {
        w = std::string(op.name) +
            " multiplies [..., k] by a weight [n, k] and adds a bias [n]; "
            "got " +
            DimsText(a) + " and " + DimsText(wt) +
            (in.size() > 2 ? " and " + DimsText(in[2]) : "");
        return std::nullopt;
      }
      std::vector<int64_t> s = a;
      s.back() = wt[0];
      return s;
    }
    case ShapeRule::kEmbedding: {
      if (a.size() != 2) {
        w = std::string(op.name) + " reads a table [rows, dim]; got " +
            DimsText(a);
        return std::nullopt;
      }
      std::vector<int64_t> s = in[1];
      s.push_back(a[1]);
      return s;
    }
    case ShapeRule::kView: {
      auto b = BroadcastDims(a, out);
      if (Elements(out) == Elements(a) || (b && *b == out)) return out;
      w = std::string(op.name) + " of " + DimsText(a) + " (" +
          std::to_string(Elements(a)) + " elements) cannot be " +
          DimsText(out) +
          ": a view keeps the element count or broadcasts (expand)";
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace trn
