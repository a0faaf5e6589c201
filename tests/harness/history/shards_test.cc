#include "harness/history/shards.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace trn::history {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseShard, AcceptsKOfN) {
  auto s = ParseShard("2/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 4);
  for (const char* bad : {"0/4", "5/4", "1/0", "2", "a/4", "+1/4", "1/4/2",
                          "1/ 4", "", "1/1001", "-1/4"}) {
    auto b = ParseShard(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_THAT(b.status().message(), HasSubstr("expected K/N")) << bad;
  }
}

std::vector<ShardUnit> Suite() {
  return {{"a1", "a", 50}, {"a2", "a", 50}, {"b1", "b", 70},
          {"c1", "c", 20}, {"c2", "c", 20}, {"d1", "d", 5}};
}

TEST(ShardWorkloads, EveryWorkloadOnceFamiliesWholeNoneEmpty) {
  for (int n = 1; n <= 4; ++n) {
    std::multiset<std::string> seen;
    for (int k = 1; k <= n; ++k) {
      auto w = ShardWorkloads(Suite(), ShardSpec{k, n});
      ASSERT_TRUE(w.ok()) << w.status();
      EXPECT_FALSE(w->empty()) << k << "/" << n;
      seen.insert(w->begin(), w->end());
    }
    EXPECT_EQ(seen.size(), 6u);
    for (const auto& u : Suite()) EXPECT_EQ(seen.count(u.workload), 1u);
  }
}

TEST(ShardWorkloads, BalancedByCostLargestFirst) {
  // Families a 100, b 70, c 40, d 5 over 2 shards: a, b, then c to the
  // lighter (b: 110), then d to the lighter (a: 105).
  EXPECT_THAT(*ShardWorkloads(Suite(), ShardSpec{1, 2}),
              ElementsAre("a1", "a2", "d1"));
  EXPECT_THAT(*ShardWorkloads(Suite(), ShardSpec{2, 2}),
              ElementsAre("b1", "c1", "c2"));
  EXPECT_THAT(ShardCosts(Suite(), 2), ElementsAre(105, 110));
  EXPECT_THAT(ShardCosts(Suite(), 3), ElementsAre(100, 70, 45));
}

TEST(ShardWorkloads, MoreShardsThanFamiliesIsRefused) {
  auto w = ShardWorkloads(Suite(), ShardSpec{1, 5});
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("`shard` 1/5"));
  EXPECT_THAT(w.status().message(), HasSubstr("expected at most 4 shards"));
}

// A results document of `names`, as shard k/n of a split of `selected`.
std::string ShardDoc(int k, int n, const std::vector<std::string>& names,
                     const std::vector<std::string>& selected,
                     const std::string& commit = "abc",
                     const std::string& device = "trn1") {
  nlohmann::ordered_json j;
  j["schema"] = "trnbench.results";
  j["schema_version"] = 1;
  j["device"] = {{"name", device}, {"content_hash", "h"}};
  j["seed"] = 1;
  nlohmann::ordered_json ws = nlohmann::ordered_json::array();
  for (const auto& w : names) ws.push_back({{"name", w}, {"x", 1.5}});
  j["workloads"] = ws;
  j["shard"] = {{"version", 2},
                {"index", k},
                {"count", n},
                {"commit", commit},
                {"configuration", "cfg"},
                {"selected", selected},
                {"selection", SelectionDigest("cfg", selected)},
                {"workloads", names}};
  return j.dump(2) + "\n";
}

// Issue 26: the regressed workload deleted from `selected` and from the
// results of every shard merged into a smaller suite that passed.
TEST(MergeShards, ASelectionEditedInEveryShardIsRefused) {
  const std::vector<std::string> all = {"a", "b", "c"};
  auto edit = [](std::string text) {
    auto j = nlohmann::ordered_json::parse(text);
    j["shard"]["selected"] = {"a", "c"};
    return j.dump(2);
  };
  auto merged = MergeShards({{"s1.json", edit(ShardDoc(1, 2, {"a", "c"}, all))},
                             {"s2.json", edit(ShardDoc(2, 2, {}, all))}});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(),
              HasSubstr("s1.json: /shard/selected: does not match "
                        "/shard/selection"));
}

// A shard written before shard version 2 has no selection digest: refused
// by name, not merged unchecked.
TEST(MergeShards, AShardOfVersionOneIsRefusedNamingTheSelection) {
  const std::vector<std::string> all = {"a", "b"};
  auto old_format = [](std::string text) {
    auto j = nlohmann::ordered_json::parse(text);
    j["shard"].erase("version");
    j["shard"].erase("selection");
    return j.dump(2);
  };
  auto merged =
      MergeShards({{"s1.json", old_format(ShardDoc(1, 2, {"a"}, all))},
                   {"s2.json", old_format(ShardDoc(2, 2, {"b"}, all))}});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(),
              HasSubstr("s1.json: /shard/selection: missing: a shard of "
                        "version 1"));
  auto newer = nlohmann::ordered_json::parse(ShardDoc(1, 2, {"a"}, all));
  newer["shard"]["version"] = 3;
  merged = MergeShards(
      {{"s1.json", newer.dump()}, {"s2.json", ShardDoc(2, 2, {"b"}, all)}});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(),
              HasSubstr("s1.json: /shard/version: shard version 3 is newer"));
}

TEST(MergeShards, RebuildsTheWholeRunInSelectionOrder) {
  const std::vector<std::string> all = {"a", "b", "c"};
  auto merged = MergeShards({{"s2.json", ShardDoc(2, 2, {"b"}, all)},
                             {"s1.json", ShardDoc(1, 2, {"a", "c"}, all)}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  const auto j = nlohmann::ordered_json::parse(*merged);
  EXPECT_FALSE(j.contains("shard"));
  ASSERT_EQ(j["workloads"].size(), 3u);
  EXPECT_EQ(j["workloads"][0]["name"], "a");
  EXPECT_EQ(j["workloads"][1]["name"], "b");
  EXPECT_EQ(j["workloads"][2]["name"], "c");
  EXPECT_EQ(j.begin().key(), "schema");
}

TEST(MergeShards, Refusals) {
  const std::vector<std::string> all = {"a", "b"};
  auto bad_selected = nlohmann::ordered_json::parse(ShardDoc(1, 2, {"a"}, all));
  bad_selected["shard"]["selected"].push_back(3);
  struct Case {
    std::vector<ShardFile> files;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"s1", ShardDoc(1, 2, {"a"}, all)}}, "shard 2/2 missing"},
      {{{"s1", ShardDoc(1, 2, {"a"}, all)},
        {"s2", ShardDoc(2, 2, {"b"}, all, "def")}},
       "s2: /shard/commit: def, but s1 ran abc"},
      {{{"s1", ShardDoc(1, 2, {"a"}, all)},
        {"s2", ShardDoc(2, 2, {"b"}, all, "abc", "trn2")}},
       "s2: /device: differs from s1"},
      {{{"s1", ShardDoc(1, 2, {"a"}, all)},
        {"s1 again", ShardDoc(1, 2, {"a"}, all)}},
       "shard 1/2 is also s1"},
      {{{"s1", ShardDoc(1, 2, {"a", "b"}, all)},
        {"s2", ShardDoc(2, 2, {"b"}, all)}},
       "workload b is in both s1 and s2"},
      {{{"s1", ShardDoc(1, 2, {"a"}, all)}, {"s2", ShardDoc(2, 2, {}, all)}},
       "workload b was selected but no shard ran it"},
      {{{"s1", ShardDoc(1, 2, {"a"}, all)}, {"s2", ShardDoc(2, 3, {"b"}, all)}},
       "s2: /shard/count: 3 shards"},
      {{{"whole", R"({"schema": "trnbench.results", "workloads": []})"}},
       "whole: /shard: required key \"shard\" is missing: expected a shard's "
       "results (run with `shard` K/N), not a whole run"},
      {{{"s1", bad_selected.dump()}},
       "s1: /shard/selected/2: expected a string, got number 3"},
      {{{"s0", ShardDoc(0, 2, {"a"}, all)}},
       "s0: /shard/index: expected an integer from 1 to 1000, got number 0"},
      {{{"base", R"({"schema": "trnbench.baseline"})"}},
       "base: /schema: expected \"trnbench.results\", a shard written by "
       "trnbench gate `shard` K/N `output` FILE, got string "
       "\"trnbench.baseline\""},
      {{{"dup", R"({"schema": "trnbench.results", "schema": 1})"}}, "dup"},
  };
  for (const Case& c : cases) {
    auto m = MergeShards(c.files);
    ASSERT_FALSE(m.ok()) << c.message;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status().message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace trn::history
