// `trnbench merge shard-*.json --output all.json`: the shards of a split
// run back into the results file the whole run would have written.
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/gate/baseline_store.h"
#include "harness/history/shards.h"
#include "support/input_file.h"
#include "support/output_transaction.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {"output"};

int RunMerge(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.positional.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "merge needs the shards' results files: trnbench "
                         "merge shard-*.json --output all.json"));
  }
  if (o.output.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "merge needs --output FILE for the merged results"));
  }
  // The merged file replaces none of the shards, checked before reading.
  OutputTransaction outputs;
  for (const std::string& path : o.positional) outputs.AddInput("merge", path);
  outputs.PlanFile("--output", o.output);
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  std::vector<history::ShardFile> files;
  for (const std::string& path : o.positional) {
    auto text = ReadInputFile(path, kMaxBaselineBytes, "shard results file");
    if (!text.ok()) return Fail(err, text.status());
    files.push_back({path, *std::move(text)});
  }
  auto merged = history::MergeShards(files);
  if (!merged.ok()) return Fail(err, merged.status());
  if (auto s = outputs.StageFile(o.output, *merged); !s.ok()) {
    return Fail(err, s);
  }
  if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
  out << "trnbench: merged " << files.size() << " shard"
      << (files.size() == 1 ? "" : "s") << " into " << o.output << "\n";
  return kExitOk;
}

}  // namespace

const CommandInfo kMergeCommand = {"merge", RunMerge, kFlags,
                                   /*takes_positional=*/true};

}  // namespace trn
