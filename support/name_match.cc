#include "support/name_match.h"

#include <algorithm>
#include <utility>

namespace trn {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the one before the previous is
  // what a transposition reaches back to.
  const size_t m = b.size();
  std::vector<size_t> two(m + 1), one(m + 1), row(m + 1);
  for (size_t j = 0; j <= m; ++j) one[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], two[j - 2] + 1);
      }
    }
    std::swap(two, one);
    std::swap(one, row);
  }
  return one[m];
}

bool IsGlob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

namespace {

// Matches the set at pattern[p] (which is '[') against c; returns the index
// after the set's ']', or npos when there is no ']' (then '[' is literal).
size_t MatchSet(std::string_view pattern, size_t p, char c, bool& matched) {
  size_t i = p + 1;
  const bool negate = i < pattern.size() && pattern[i] == '!';
  if (negate) ++i;
  bool in = false;
  bool first = true;
  for (; i < pattern.size() && (first || pattern[i] != ']'); ++i) {
    first = false;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' &&
        pattern[i + 2] != ']') {
      in = in || (pattern[i] <= c && c <= pattern[i + 2]);
      i += 2;
    } else {
      in = in || pattern[i] == c;
    }
  }
  if (i >= pattern.size()) return std::string_view::npos;
  matched = in != negate;
  return i + 1;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative with one backtrack point: the last `*` seen.
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      bool ok = false;
      size_t next = p + 1;
      if (pattern[p] == '?') {
        ok = true;
      } else if (pattern[p] == '[') {
        bool matched = false;
        const size_t end = MatchSet(pattern, p, text[t], matched);
        if (end == std::string_view::npos) {
          ok = text[t] == '[';
        } else {
          ok = matched;
          next = end;
        }
      } else {
        ok = pattern[p] == text[t];
      }
      if (ok) {
        p = next;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string> ClosestNames(std::string_view typed,
                                      const std::vector<std::string>& names,
                                      size_t max) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& name : names) {
    if (name == typed || name.empty() || typed.empty()) continue;
    const size_t longer = std::max(name.size(), typed.size());
    const size_t limit = std::clamp<size_t>(longer / 3, 1, 3);
    const size_t d = EditDistance(typed, name);
    const bool prefix = name.starts_with(typed) || typed.starts_with(name);
    if (d <= limit || (prefix && std::min(name.size(), typed.size()) >= 3)) {
      scored.emplace_back(d, name);
    }
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, name] : scored) {
    if (out.size() == max) break;
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

std::string DidYouMean(std::string_view typed,
                       const std::vector<std::string>& names,
                       std::string_view prefix) {
  const std::vector<std::string> close = ClosestNames(typed, names);
  if (close.empty()) return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) out += i + 1 == close.size() ? " or " : ", ";
    out += std::string(prefix) + close[i];
  }
  return out + "?";
}

}  // namespace trn
