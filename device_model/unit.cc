#include "device_model/unit.h"

#include <array>
#include <utility>

namespace trn {
namespace {

constexpr std::array<std::pair<Unit, std::string_view>, 9> kSymbols = {{
    {Unit::kMicroseconds, "us"},
    {Unit::kFraction, "fraction"},
    {Unit::kBytes, "B"},
    {Unit::kGigabytesPerSecond, "GB/s"},
    {Unit::kPerSecond, "1/s"},
    {Unit::kFlops, "FLOP"},
    {Unit::kFlopsPerSecond, "FLOP/s"},
    {Unit::kFlopsPerByte, "FLOP/B"},
    {Unit::kCount, ""},
}};

}  // namespace

std::string_view UnitSymbol(Unit unit) {
  for (const auto& [u, symbol] : kSymbols) {
    if (u == unit) return symbol;
  }
  return "";
}

std::optional<Unit> UnitFromSymbol(std::string_view symbol) {
  for (const auto& [u, s] : kSymbols) {
    if (s == symbol) return u;
  }
  return std::nullopt;
}

}  // namespace trn
