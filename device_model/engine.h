#ifndef TRNBENCH_DEVICE_MODEL_ENGINE_H_
#define TRNBENCH_DEVICE_MODEL_ENGINE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn {

// The four compute engines of a NeuronCore.
enum class Engine : uint8_t { kTensor, kVector, kScalar, kGpSimd };
inline constexpr int kNumEngines = 4;

constexpr std::string_view EngineName(Engine e) {
  switch (e) {
    case Engine::kTensor:
      return "tensor";
    case Engine::kVector:
      return "vector";
    case Engine::kScalar:
      return "scalar";
    case Engine::kGpSimd:
      return "gpsimd";
  }
  return "?";
}

inline std::optional<Engine> ParseEngine(std::string_view s) {
  for (int i = 0; i < kNumEngines; ++i) {
    auto e = static_cast<Engine>(i);
    if (EngineName(e) == s) return e;
  }
  return std::nullopt;
}

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_ENGINE_H_
