#ifndef TRNBENCH_DEVICE_MODEL_EXEC_MODE_H_
#define TRNBENCH_DEVICE_MODEL_EXEC_MODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn {

// How the host drives the device: one hardware execution per ATen op
// (eager), one per fused op, one per compiled graph, or an NKI kernel under
// a benchmark loop.
enum class ExecMode : uint8_t { kEager, kFusedOp, kCompiled, kNki };
inline constexpr int kNumExecModes = 4;

constexpr std::string_view ExecModeName(ExecMode m) {
  switch (m) {
    case ExecMode::kEager:
      return "eager";
    case ExecMode::kFusedOp:
      return "fused_op";
    case ExecMode::kCompiled:
      return "compiled";
    case ExecMode::kNki:
      return "nki";
  }
  return "?";
}

inline std::optional<ExecMode> ParseExecMode(std::string_view s) {
  for (int i = 0; i < kNumExecModes; ++i) {
    auto m = static_cast<ExecMode>(i);
    if (ExecModeName(m) == s) return m;
  }
  return std::nullopt;
}

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_EXEC_MODE_H_
