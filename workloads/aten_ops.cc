#include "workloads/aten_ops.h"

#include <array>

namespace trn {
namespace {

using E = Engine;
using W = WorkBasis;

constexpr AtenStep kMul[] = {{E::kVector, "TensorTensor.mult", W::kFree}};
constexpr AtenStep kAdd[] = {{E::kVector, "TensorTensor.add", W::kFree}};
constexpr AtenStep kSub[] = {{E::kVector, "TensorTensor.subtract", W::kFree}};
constexpr AtenStep kDiv[] = {{E::kVector, "TensorTensor.divide", W::kFree}};
constexpr AtenStep kMean[] = {{E::kVector, "TensorReduce.mean", W::kFree}};
constexpr AtenStep kSum[] = {{E::kVector, "TensorReduce.add", W::kFree}};
constexpr AtenStep kAmax[] = {{E::kVector, "TensorReduce.max", W::kFree}};
constexpr AtenStep kRsqrt[] = {{E::kScalar, "Activation.rsqrt", W::kFree}};
constexpr AtenStep kSqrt[] = {{E::kScalar, "Activation.sqrt", W::kFree}};
constexpr AtenStep kExp[] = {{E::kScalar, "Activation.exp", W::kFree}};
constexpr AtenStep kTanh[] = {{E::kScalar, "Activation.tanh", W::kFree}};
constexpr AtenStep kGelu[] = {{E::kScalar, "Activation.gelu", W::kFree}};
constexpr AtenStep kRelu[] = {{E::kScalar, "Activation.relu", W::kFree}};
// RMSNorm as one kernel: square, mean, rsqrt of (mean + eps), scale by the
// row's factor, scale by the weight.
constexpr AtenStep kRmsNorm[] = {
    {E::kScalar, "Activation.square", W::kFree},
    {E::kVector, "TensorReduce.mean", W::kFree},
    {E::kScalar, "Activation.rsqrt", W::kOne},
    {E::kVector, "TensorScalar.mult", W::kFree},
    {E::kVector, "TensorTensor.mult", W::kFree},
};
// Softmax along the last dim: max, exp(x - max) with a running sum, divide.
constexpr AtenStep kSoftmax[] = {
    {E::kVector, "TensorReduce.max", W::kFree},
    {E::kScalar, "Activation.exp", W::kFree},
    {E::kVector, "TensorReduce.add", W::kFree},
    {E::kVector, "TensorScalar.divide", W::kFree},
};
constexpr AtenStep kMatmul[] = {{E::kTensor, "MatMult", W::kFree}};

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
    AtenOpInfo{"aten::rms_norm", 2, 2, ShapeRule::kSameAsFirst, kRmsNorm},
    AtenOpInfo{"aten::softmax", 1, 1, ShapeRule::kSameAsFirst, kSoftmax},
    AtenOpInfo{"aten::matmul", 2, 2, ShapeRule::kMatmul, kMatmul},
};

}  // namespace

const AtenOpInfo* FindAtenOp(std::string_view name) {
  for (const auto& op : kOps) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

std::span<const AtenOpInfo> AllAtenOps() { return kOps; }

}  // namespace trn
