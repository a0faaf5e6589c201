#include "support/interval_union.h"

#include <algorithm>

namespace trn {

// Merges intervals in place and returns their union.
std::vector<TimeInterval> UnionOf(std::vector<TimeInterval> v) {
  std::sort(v.begin(), v.end());
  std::vector<TimeInterval> out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

double LengthOf(const std::vector<TimeInterval>& u) {
  double s = 0;
  for (const auto& iv : u) s += iv.second - iv.first;
  return s;
}

// Length of the intersection of two unions.
double OverlapOf(const std::vector<TimeInterval>& a,
                 const std::vector<TimeInterval>& b) {
  double s = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].first, b[j].first);
    double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return s;
}

}  // namespace trn
