#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/history/sql_database.h"

namespace trn::history {

bool SqlRow::IsNull(size_t i) const {
  return i >= values_.size() ||
         std::holds_alternative<std::monostate>(values_[i]);
}

int64_t SqlRow::Int(size_t i) const {
  if (IsNull(i)) return 0;
  const SqlValue& v = values_[i];
  if (const auto* x = std::get_if<int64_t>(&v)) return *x;
  if (const auto* x = std::get_if<double>(&v)) return static_cast<int64_t>(*x);
  int64_t out = 0;
  return absl::SimpleAtoi(std::get<std::string>(v), &out) ? out : 0;
}

double SqlRow::Double(size_t i) const {
  if (IsNull(i)) return NAN;
  const SqlValue& v = values_[i];
  if (const auto* x = std::get_if<double>(&v)) return *x;
  if (const auto* x = std::get_if<int64_t>(&v)) return static_cast<double>(*x);
  // strtod reads PostgreSQL's shortest round-trip output exactly.
  const std::string& s = std::get<std::string>(v);
  if (s == "NaN") return NAN;
  return std::strtod(s.c_str(), nullptr);
}

std::string SqlRow::Text(size_t i) const {
  if (IsNull(i)) return "";
  const SqlValue& v = values_[i];
  if (const auto* x = std::get_if<std::string>(&v)) return *x;
  if (const auto* x = std::get_if<int64_t>(&v)) return absl::StrCat(*x);
  return absl::StrCat(std::get<double>(v));
}

std::string RedactUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t at = url.find('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos ||
      at < scheme) {
    return std::string(url);
  }
  const size_t colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return absl::StrCat(std::string(url.substr(0, colon + 1)), "***",
                      std::string(url.substr(at)));
}

}  // namespace trn::history
