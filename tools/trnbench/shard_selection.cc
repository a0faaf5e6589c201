#include "tools/trnbench/shard_selection.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/gate/baseline_store.h"
#include "harness/history/history_store.h"
#include "harness/history/shards.h"
#include "support/hash.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

// Every flag that changes what a shard's results hold, so shards run with
// different commands cannot be merged. --shard, --output and the report
// flags are not among them.
std::string Configuration(const Options& o, const DeviceProfile& profile) {
  std::string text = absl::StrCat(
      "command=", o.command, ";device=", profile.name,
      ";profile=", profile.content_hash, ";seed=", o.seed,
      ";fresh_seeds=", o.fresh_seeds, ";wait=", o.wait, ";warmup=", o.warmup,
      ";repeat=", o.repeat, ";confidence=", o.confidence,
      ";threshold=", o.threshold, ";alpha=", o.alpha,
      ";allow_missing=", o.allow_missing, ";baseline=", o.baseline,
      ";workload=", o.workload, ";specs=", absl::StrJoin(o.specs, ","),
      ";specs_dir=", o.specs_dir, ";shapes=", o.shapes.size());
  for (const auto& [key, value] : o.sets) {
    absl::StrAppend(&text, ";set ", key, "=", value);
  }
  return Fnv1a64Hex(text);
}

}  // namespace

absl::StatusOr<std::vector<WorkloadSpec>> SelectShard(
    const Options& o, const DeviceProfile& profile,
    std::vector<WorkloadSpec> specs, std::optional<ShardInfo>& info) {
  info.reset();
  if (o.shard.empty()) return specs;
  TRN_ASSIGN_OR_RETURN(const history::ShardSpec spec,
                       history::ParseShard(o.shard));
  std::map<std::string, double> recorded;
  if (!o.db.empty()) {
    TRN_ASSIGN_OR_RETURN(auto store, history::HistoryStore::Open(
                                         o.db, history::OpenMode::kRead));
    TRN_ASSIGN_OR_RETURN(auto costs, store->Costs(profile.name));
    for (const auto& c : costs) recorded[c.workload] = c.device_seconds;
  }
  bool all_recorded = !recorded.empty();
  for (const auto& s : specs) {
    auto it = recorded.find(s.name);
    all_recorded = all_recorded && it != recorded.end() && it->second > 0;
  }
  std::vector<history::ShardUnit> units;
  for (const auto& s : specs) {
    double cost = 0;
    if (all_recorded) {
      cost = recorded[s.name];
    } else {
      TRN_ASSIGN_OR_RETURN(Program program, Lower(s, profile));
      cost = static_cast<double>(program.InstructionCount());
    }
    units.push_back({s.name, s.family, cost});
  }
  TRN_ASSIGN_OR_RETURN(std::vector<std::string> mine,
                       history::ShardWorkloads(units, spec));
  ShardInfo shard;
  shard.index = spec.index;
  shard.count = spec.count;
  shard.commit = CurrentGitCommit(SourceDir());
  shard.configuration = Configuration(o, profile);
  for (const auto& s : specs) shard.selected.push_back(s.name);
  shard.selection =
      history::SelectionDigest(shard.configuration, shard.selected);
  shard.workloads = mine;
  std::vector<WorkloadSpec> kept;
  for (auto& s : specs) {
    if (std::find(mine.begin(), mine.end(), s.name) != mine.end()) {
      kept.push_back(std::move(s));
    }
  }
  info = std::move(shard);
  return kept;
}

}  // namespace trn
