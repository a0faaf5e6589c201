// `trnbench merge shard-*.json --output all.json`: the shards of a split
// run back into the results file the whole run would have written.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/baseline_store.h"
#include "harness/history/shards.h"
#include "support/atomic_file.h"
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
  std::vector<history::ShardFile> files;
  for (const std::string& path : o.positional) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      return Fail(err, absl::InvalidArgumentError(
                           absl::StrCat(path, ": no such shard results file")));
    }
    if (std::filesystem::file_size(path, ec) >
        static_cast<uintmax_t>(kMaxBaselineBytes)) {
      return Fail(err, absl::InvalidArgumentError(
                           absl::StrCat(path, ": /: file is larger than ",
                                        kMaxBaselineBytes >> 20, " MiB")));
    }
    std::ifstream in(path, std::ios::binary);
    files.push_back({path, std::string((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>())});
  }
  auto merged = history::MergeShards(files);
  if (!merged.ok()) return Fail(err, merged.status());
  StagedFiles staged;
  if (auto s = staged.Stage(o.output, *merged); !s.ok()) return Fail(err, s);
  if (auto s = staged.Commit(); !s.ok()) return Fail(err, s);
  out << "trnbench: merged " << files.size() << " shard"
      << (files.size() == 1 ? "" : "s") << " into " << o.output << "\n";
  return kExitOk;
}

}  // namespace

const CommandInfo kMergeCommand = {"merge", RunMerge, kFlags,
                                   /*takes_positional=*/true};

}  // namespace trn
