// A suite too big for one CI job, split across N jobs and merged back
// (docs/history.md, docs/ci.md).
#ifndef TRNBENCH_HARNESS_HISTORY_SHARDS_H_
#define TRNBENCH_HARNESS_HISTORY_SHARDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trn::history {

// The version of a results file's `shard` object (docs/results-format.md).
// 2 added `selection`, the digest of the suite the shards were cut from;
// a shard without `version` is version 1, which merge refuses: without the
// digest it cannot tell a whole split from one whose regressed workloads
// were deleted from every shard.
inline constexpr int kShardFormatVersion = 2;

// `--shard K/N`: shard K (1-based) of N.
struct ShardSpec {
  int index = 1;
  int count = 1;
};
inline constexpr int kMaxShards = 1000;

// "K/N" with 1 <= K <= N <= kMaxShards, decimal digits only.
absl::StatusOr<ShardSpec> ParseShard(std::string_view text);

// One selected workload and what running it costs (recorded seconds on the
// device, or instructions: any unit, the same for all).
struct ShardUnit {
  std::string workload;
  std::string family;
  double cost = 0;
};

// The workloads of shard `spec`, in their order in `units`. A family stays
// whole (its speed-ups are over its first variant, which must run in the
// same job). Families go, largest first (ties in order of appearance), to
// the shard with the least cost so far (ties to the lowest index): the
// longest-processing-time rule, deterministic, and no shard is empty
// because the first N families each open one. More shards than families is
// an InvalidArgument error naming the flag.
absl::StatusOr<std::vector<std::string>> ShardWorkloads(
    const std::vector<ShardUnit>& units, ShardSpec spec);

// The cost of each shard under the same split, for the docs and tests.
std::vector<double> ShardCosts(const std::vector<ShardUnit>& units, int count);

// The digest every shard carries of the selection it was cut from
// (`shard.selection`): FNV-1a 64 over the configuration and the selected
// workloads' names in order, "fnv1a64:" and 16 hex digits. Merge recomputes
// it, so a `selected` list edited in every shard (the regressed workloads
// deleted from it and from the shards' results) is refused instead of
// merged into a smaller suite that passes.
std::string SelectionDigest(std::string_view configuration,
                            const std::vector<std::string>& selected);

// One shard's results file, as read.
struct ShardFile {
  std::string label;  // the path, for messages
  std::string text;
};

// Merges the results files of every shard of one split run into the
// results file the unsplit run would have written (workloads in selection
// order, no "shard" object, no per-shard "comparison": gate the merged file
// instead). Refused, as InvalidArgument naming the files: a file that is
// not a shard; shards of different commits, configurations, devices or
// splits; a shard given twice; a missing shard; a workload missing or
// present twice; a `selected` list that does not match `selection`.
absl::StatusOr<std::string> MergeShards(const std::vector<ShardFile>& files);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_SHARDS_H_
