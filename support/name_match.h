// Matching what a user typed against the names a program knows: shell-style
// globs (`rmsnorm_*`) for selections, and "did you mean" suggestions by edit
// distance for names that match nothing.
#ifndef TRNBENCH_SUPPORT_NAME_MATCH_H_
#define TRNBENCH_SUPPORT_NAME_MATCH_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trn {

// The optimal-string-alignment distance: insertions, deletions,
// substitutions and transpositions of adjacent characters each cost 1
// (so "matmull" is 1 from "matmul", "wrokload" 1 from "workload").
size_t EditDistance(std::string_view a, std::string_view b);

// True if `pattern` holds a glob character (* ? [).
bool IsGlob(std::string_view pattern);

// fnmatch(3) without flags: `*` any run, `?` one character, `[abc]`,
// `[a-z]` and `[!abc]` one of (or none of) a set. A `[` without its `]`
// matches itself.
bool GlobMatch(std::string_view pattern, std::string_view text);

// The candidates closest to `typed`, best first (at most `max`): those
// within a distance of a third of the longer name's length (at least 1,
// at most 3), or that hold `typed` as a prefix or the other way round.
std::vector<std::string> ClosestNames(std::string_view typed,
                                      const std::vector<std::string>& names,
                                      size_t max = 3);

// "; did you mean rmsnorm_fused?" (or "... a or b?"), empty when nothing
// is close. `prefix` goes before each name ("--" for flags).
std::string DidYouMean(std::string_view typed,
                       const std::vector<std::string>& names,
                       std::string_view prefix = "");

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_NAME_MATCH_H_
