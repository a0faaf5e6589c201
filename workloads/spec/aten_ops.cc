#include "workloads/spec/aten_ops.h"

#include <array>

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
