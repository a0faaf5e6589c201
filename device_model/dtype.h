#ifndef TRNBENCH_DEVICE_MODEL_DTYPE_H_
#define TRNBENCH_DEVICE_MODEL_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn {

enum class DType : uint8_t { kBf16, kFp16, kFp32, kInt8, kInt32 };
inline constexpr int kNumDTypes = 5;

constexpr int64_t DTypeBytes(DType t) {
  switch (t) {
    case DType::kBf16:
    case DType::kFp16:
      return 2;
    case DType::kFp32:
    case DType::kInt32:
      return 4;
    case DType::kInt8:
      return 1;
  }
  return 0;
}

constexpr std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kBf16:
      return "bf16";
    case DType::kFp16:
      return "fp16";
    case DType::kFp32:
      return "fp32";
    case DType::kInt8:
      return "int8";
    case DType::kInt32:
      return "int32";
  }
  return "?";
}

inline std::optional<DType> ParseDType(std::string_view s) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    if (DTypeName(t) == s) return t;
  }
  return std::nullopt;
}

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DTYPE_H_
