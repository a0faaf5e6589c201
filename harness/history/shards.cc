#include "harness/history/shards.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "support/input_error.h"
#include "support/json_reader.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn::history {
namespace {

using nlohmann::ordered_json;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

struct Family {
  std::string name;
  double cost = 0;
  size_t first = 0;  // order of appearance
};

// Shard index (0-based) of every family, by the longest-processing-time
// rule.
std::map<std::string, int> Assign(const std::vector<ShardUnit>& units,
                                  int count) {
  std::vector<Family> families;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < units.size(); ++i) {
    auto [it, added] = index.emplace(units[i].family, families.size());
    if (added) families.push_back(Family{units[i].family, 0, i});
    families[it->second].cost += std::max(0.0, units[i].cost);
  }
  std::stable_sort(
      families.begin(), families.end(),
      [](const Family& a, const Family& b) { return a.cost > b.cost; });
  std::vector<double> load(static_cast<size_t>(count), 0.0);
  std::vector<int> members(static_cast<size_t>(count), 0);
  std::map<std::string, int> out;
  for (const Family& f : families) {
    // An empty shard first, so none stays empty; then the lightest.
    size_t best = 0;
    for (size_t k = 1; k < load.size(); ++k) {
      const bool k_empty = members[k] == 0;
      const bool best_empty = members[best] == 0;
      if (k_empty != best_empty) {
        if (k_empty) best = k;
        continue;
      }
      if (load[k] < load[best]) best = k;
    }
    load[best] += f.cost;
    members[best] += 1;
    out[f.name] = static_cast<int>(best);
  }
  return out;
}

absl::Status Bad(std::string_view message) {
  return absl::InvalidArgumentError(EscapeControl(message));
}

struct ShardMeta {
  int index = 0;
  int count = 0;
};

}  // namespace

std::string SelectionDigest(std::string_view configuration,
                            const std::vector<std::string>& selected) {
  std::string text(configuration);
  for (const std::string& name : selected) absl::StrAppend(&text, "\n", name);
  return absl::StrCat("fnv1a64:", Fnv1a64Hex(text));
}

namespace {

// Checks what merge reads of one shard's results file: the schema, the
// shard's metadata and the workloads' names.
absl::StatusOr<ShardMeta> ReadShardMeta(const nlohmann::json& doc,
                                        const JsonReader& r) {
  TRN_ASSIGN_OR_RETURN(const nlohmann::json* schema,
                       r.Required(doc, "", "schema"));
  if (*schema != "trnbench.results") {
    return r.Expected("/schema",
                      "\"trnbench.results\", a shard written by trnbench "
                      "gate `shard` K/N `output` FILE",
                      *schema);
  }
  const nlohmann::json* meta = JsonReader::Optional(doc, "shard");
  if (meta == nullptr) {
    return r.Error("/shard",
                   "required key \"shard\" is missing: expected a shard's "
                   "results (run with `shard` K/N), not a whole run");
  }
  // Shard version 1 (no `version`) has no selection digest; a newer one
  // may mean something this merge does not check.
  int64_t version = 1;
  if (const nlohmann::json* v = JsonReader::Optional(*meta, "version")) {
    TRN_ASSIGN_OR_RETURN(version, r.Int(*v, {"/shard", "version"}, 1,
                                        std::numeric_limits<int>::max()));
  }
  if (version > kShardFormatVersion) {
    return r.Error(
        "/shard/version",
        absl::StrCat("shard version ", version,
                     " is newer than this trnbench's ", kShardFormatVersion,
                     "; expected shards written by the trnbench "
                     "that merges them"));
  }
  if (version < kShardFormatVersion) {
    return r.Error(
        "/shard/selection",
        absl::StrCat("missing: a shard of version ", version,
                     " (written before shard version 2) carries no digest of "
                     "the selection it was cut from, so merge cannot check "
                     "that no workload was left out; expected shard version ",
                     kShardFormatVersion,
                     ": run the split again with this trnbench"));
  }
  ShardMeta out;
  for (auto [key, field] :
       {std::pair{"index", &out.index}, std::pair{"count", &out.count}}) {
    TRN_ASSIGN_OR_RETURN(const nlohmann::json* v,
                         r.Required(*meta, "/shard", key));
    TRN_ASSIGN_OR_RETURN(const int64_t n,
                         r.Int(*v, {"/shard", key}, 1, kMaxShards));
    *field = static_cast<int>(n);
  }
  for (const char* key : {"commit", "configuration", "selection"}) {
    TRN_RETURN_IF_ERROR(r.RequiredString(*meta, "/shard", key).status());
  }
  for (const char* key : {"selected", "workloads"}) {
    TRN_ASSIGN_OR_RETURN(const nlohmann::json* names,
                         r.Required(*meta, "/shard", key));
    TRN_RETURN_IF_ERROR(
        r.StringArray(*names, {"/shard", key}, "an array of workload names")
            .status());
  }
  const std::vector<std::string> selected =
      (*meta)["selected"].get<std::vector<std::string>>();
  if ((*meta)["selection"].get<std::string>() !=
      SelectionDigest((*meta)["configuration"].get<std::string>(), selected)) {
    return r.Error("/shard/selected",
                   "does not match /shard/selection, the digest of the "
                   "selection the shards were cut from; expected the shard "
                   "as trnbench wrote it (was a workload removed?)");
  }
  TRN_ASSIGN_OR_RETURN(const nlohmann::json* workloads,
                       r.Required(doc, "", "workloads"));
  TRN_RETURN_IF_ERROR(r.Array(*workloads, "/workloads"));
  for (size_t i = 0; i < workloads->size(); ++i) {
    TRN_RETURN_IF_ERROR(
        r.RequiredString((*workloads)[i], JsonChild("/workloads", i), "name")
            .status());
  }
  return out;
}

}  // namespace

absl::StatusOr<ShardSpec> ParseShard(std::string_view text) {
  const size_t slash = text.find('/');
  ShardSpec s;
  const std::string expected = absl::StrCat(
      "`shard` ", std::string(text),
      ": expected K/N, shard K of N with 1 <= K <= N <= ", kMaxShards,
      ", such as `shard` 2/4");
  if (slash == std::string_view::npos) return Bad(expected);
  const std::string_view k = text.substr(0, slash);
  const std::string_view n = text.substr(slash + 1);
  if (!AllDigits(k) || !AllDigits(n) || k.size() > 4 || n.size() > 4 ||
      !absl::SimpleAtoi(std::string(k), &s.index) ||
      !absl::SimpleAtoi(std::string(n), &s.count) || s.index < 1 ||
      s.count < 1 || s.index > s.count || s.count > kMaxShards) {
    return Bad(expected);
  }
  return s;
}

absl::StatusOr<std::vector<std::string>> ShardWorkloads(
    const std::vector<ShardUnit>& units, ShardSpec spec) {
  std::set<std::string> families;
  for (const auto& u : units) families.insert(u.family);
  if (static_cast<int>(families.size()) < spec.count) {
    return Bad(absl::StrCat(
        "`shard` ", spec.index, "/", spec.count, ": the selection has ",
        units.size(), " workloads in ", families.size(),
        families.size() == 1 ? " family" : " families",
        ", and a family is never split (its speed-ups are over its first "
        "variant); expected at most ",
        families.size(), " shards"));
  }
  const std::map<std::string, int> shard_of = Assign(units, spec.count);
  std::vector<std::string> out;
  for (const auto& u : units) {
    if (shard_of.at(u.family) == spec.index - 1) out.push_back(u.workload);
  }
  return out;
}

std::vector<double> ShardCosts(const std::vector<ShardUnit>& units, int count) {
  std::vector<double> costs(static_cast<size_t>(std::max(count, 0)), 0.0);
  if (count <= 0) return costs;
  const std::map<std::string, int> shard_of = Assign(units, count);
  for (const auto& u : units) {
    costs[static_cast<size_t>(shard_of.at(u.family))] += u.cost;
  }
  return costs;
}

absl::StatusOr<std::string> MergeShards(const std::vector<ShardFile>& files) {
  if (files.empty()) return Bad("merge: expected the shards' results files");
  struct Shard {
    const ShardFile* file;
    ordered_json doc;
    int index = 0;
    int count = 0;
  };
  std::vector<Shard> shards;
  for (const ShardFile& f : files) {
    // The strict reader refuses duplicate keys and deep nesting, and its
    // tree is checked; the ordered tree keeps the writer's key order for
    // the merged file.
    TRN_ASSIGN_OR_RETURN(const nlohmann::json checked,
                         ParseStrictJson(f.text, f.label));
    TRN_ASSIGN_OR_RETURN(const ShardMeta meta,
                         ReadShardMeta(checked, JsonReader(f.label)));
    shards.push_back({&f, ordered_json::parse(f.text), meta.index, meta.count});
  }
  const Shard& first = shards.front();
  const ordered_json& m0 = first.doc["shard"];
  // What must agree: the split, the commit, the configuration (flags that
  // change results), and everything the results say about the run.
  for (const Shard& s : shards) {
    const ordered_json& m = s.doc["shard"];
    const std::string& a = first.file->label;
    const std::string& b = s.file->label;
    if (s.count != first.count) {
      return Bad(absl::StrCat(b, ": /shard/count: ", s.count, " shards, but ",
                              a, " is one of ", first.count,
                              "; expected shards of one split"));
    }
    if (m["commit"] != m0["commit"]) {
      return Bad(
          absl::StrCat(b, ": /shard/commit: ", m["commit"].get<std::string>(),
                       ", but ", a, " ran ", m0["commit"].get<std::string>(),
                       "; expected every shard from the same commit"));
    }
    if (m["configuration"] != m0["configuration"] ||
        m["selected"] != m0["selected"]) {
      return Bad(absl::StrCat(
          b, ": /shard/configuration: differs from ", a,
          " (other flags or another selection of workloads); expected "
          "every shard run with the same command but `shard`"));
    }
    for (const char* key :
         {"schema_version", "trnbench_version", "model_version", "device",
          "seed", "schedule", "confidence", "source"}) {
      const bool in_a = first.doc.contains(key);
      const bool in_b = s.doc.contains(key);
      if (in_a != in_b || (in_a && s.doc[key] != first.doc[key])) {
        return Bad(absl::StrCat(b, ": /", key, ": differs from ", a,
                                "; expected every shard from the same "
                                "configuration and device"));
      }
    }
  }
  // Every shard exactly once.
  std::vector<const Shard*> by_index(static_cast<size_t>(first.count) + 1,
                                     nullptr);
  for (const Shard& s : shards) {
    if (s.index < 1 || s.index > s.count) {
      return Bad(absl::StrCat(s.file->label, ": /shard/index: ", s.index,
                              "; expected 1 to ", s.count));
    }
    const Shard*& slot = by_index[static_cast<size_t>(s.index)];
    if (slot != nullptr) {
      return Bad(absl::StrCat(s.file->label, ": shard ", s.index, "/", s.count,
                              " is also ", slot->file->label,
                              "; expected each shard once"));
    }
    slot = &s;
  }
  std::vector<std::string> missing;
  for (int k = 1; k <= first.count; ++k) {
    if (by_index[static_cast<size_t>(k)] == nullptr) {
      missing.push_back(absl::StrCat(k, "/", first.count));
    }
  }
  if (!missing.empty()) {
    return Bad(absl::StrCat("merge: shard", missing.size() == 1 ? " " : "s ",
                            absl::StrJoin(missing, ", "), " missing (given ",
                            files.size(), " of ", first.count,
                            "); expected every shard of the split"));
  }
  // Every selected workload exactly once, taken from the shard that ran it.
  std::map<std::string, std::pair<const Shard*, const ordered_json*>> found;
  for (const Shard& s : shards) {
    for (const ordered_json& w : s.doc["workloads"]) {
      const std::string name = w["name"].get<std::string>();
      auto [it, added] = found.emplace(name, std::make_pair(&s, &w));
      if (!added) {
        return Bad(absl::StrCat("merge: workload ", name, " is in both ",
                                it->second.first->file->label, " and ",
                                s.file->label,
                                "; expected every workload in one shard"));
      }
    }
  }
  ordered_json merged;
  for (auto it = first.doc.begin(); it != first.doc.end(); ++it) {
    if (it.key() == "shard" || it.key() == "comparison") continue;
    merged[it.key()] =
        it.key() == "workloads" ? ordered_json::array() : it.value();
  }
  std::set<std::string> selected;
  for (const ordered_json& n : m0["selected"]) {
    const std::string name = n.get<std::string>();
    selected.insert(name);
    auto it = found.find(name);
    if (it == found.end()) {
      return Bad(absl::StrCat("merge: workload ", name,
                              " was selected but no shard ran it; expected "
                              "every selected workload once"));
    }
    merged["workloads"].push_back(*it->second.second);
  }
  for (const auto& [name, where] : found) {
    if (!selected.count(name)) {
      return Bad(absl::StrCat(where.first->file->label, ": workload ", name,
                              " is not in the split's selection"));
    }
  }
  return merged.dump(2) + "\n";
}

}  // namespace trn::history
