// End to end: `history ingest|show|trend|detect` on SQLite and, when
// TRNBENCH_TEST_PG_URL names a server, PostgreSQL; `--shard K/N` and
// `merge` giving back the unsplit run byte for byte.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using test::RunTrnbench;
using test::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path Fresh(const std::string& name) {
  return test::FreshDir("history_" + name);
}

TEST(ShardCli, MergedShardsAreTheUnsplitRunByteForByte) {
  const fs::path dir = Fresh("shards");
  const std::string d = dir.string();
  // 12 repeats: the merged suite is gated (paired, 38 comparisons need 11).
  const std::string common = "--workload all --repeat 12 --seed 3";
  ASSERT_EQ(RunTrnbench(common + " --output " + d + "/full.json").code, 0);
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    const std::string out = d + "/shard-" + std::to_string(k) + ".json";
    const auto r = RunTrnbench(common + " --shard " + std::to_string(k) +
                               "/3 --output " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(Slurp(out), HasSubstr("\"shard\""));
    shards += " " + out;
  }
  const auto merged =
      RunTrnbench("merge" + shards + " --output " + d + "/merged.json");
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(Slurp(d + "/merged.json"), Slurp(d + "/full.json"));
  // A shard missing, or one from another seed: refused, nothing written.
  const auto missing = RunTrnbench("merge " + d + "/shard-1.json " + d +
                                   "/shard-3.json --output " + d + "/m2.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("shard 2/3 missing"));
  EXPECT_FALSE(fs::exists(d + "/m2.json"));
  ASSERT_EQ(RunTrnbench("--workload all --repeat 5 --seed 4 --shard 2/3 "
                        "--output " +
                        d + "/other-2.json")
                .code,
            0);
  const auto other =
      RunTrnbench("merge " + d + "/shard-1.json " + d + "/other-2.json " + d +
                  "/shard-3.json --output " + d + "/m3.json");
  EXPECT_EQ(other.code, 2);
  EXPECT_THAT(other.err, HasSubstr("expected every shard run with the same"));
  // The merged file is gated as one suite against a baseline folder: one
  // verdict, Holm over every workload of every shard.
  ASSERT_EQ(RunTrnbench(common + " --save-baseline " + d + "/bl").code, 0);
  const auto gated =
      RunTrnbench("compare " + d + "/bl " + d + "/merged.json --format json");
  ASSERT_EQ(gated.code, 0) << gated.err;
  const auto report = nlohmann::json::parse(gated.out);
  const auto full = nlohmann::json::parse(Slurp(d + "/full.json"));
  std::set<std::string> compared;
  for (const auto& row : report["rows"]) {
    compared.insert(row["workload"].get<std::string>());
  }
  EXPECT_EQ(compared.size(), full["workloads"].size());
  EXPECT_GE(report["comparisons"].get<int>(),
            static_cast<int>(full["workloads"].size()));
  fs::remove(dir / "bl" / "exp_tiled.json");
  const auto lacking =
      RunTrnbench("compare " + d + "/bl " + d + "/merged.json");
  EXPECT_EQ(lacking.code, 2);
  EXPECT_THAT(lacking.err, HasSubstr("exp_tiled"));
  // Too many shards for the families of the selection.
  const auto many = RunTrnbench("--workload rmsnorm --repeat 5 --shard 1/2");
  EXPECT_EQ(many.code, 2);
  EXPECT_THAT(many.err, HasSubstr("expected at most 1 shards"));
}

class HistoryCliTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = Fresh(GetParam());
    if (GetParam() == "sqlite") {
      db_ = (dir_ / "history.sqlite").string();
      return;
    }
    const char* pg = std::getenv("TRNBENCH_TEST_PG_URL");
    if (pg == nullptr || *pg == '\0') {
      const char* ci = std::getenv("CI");
      if (ci != nullptr && std::string(ci) == "true") {
        FAIL() << "CI=true but TRNBENCH_TEST_PG_URL is not set";
      }
      GTEST_SKIP() << "TRNBENCH_TEST_PG_URL not set (no PostgreSQL server)";
    }
    schema_ = "cli_" + std::to_string(getpid());
    ASSERT_EQ(Psql(pg, "DROP SCHEMA IF EXISTS " + schema_ +
                           " CASCADE; CREATE SCHEMA " + schema_),
              0);
    const std::string base = pg;
    db_ = base + (base.find('?') == std::string::npos ? "?" : "&") +
          "options=-csearch_path%3D" + schema_;
  }
  void TearDown() override {
    if (!schema_.empty()) {
      Psql(std::getenv("TRNBENCH_TEST_PG_URL"),
           "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    }
    fs::remove_all(dir_);
  }
  static int Psql(const std::string& url, const std::string& sql) {
    return std::system(
        ("psql -q '" + url + "' -c '" + sql + "' >/dev/null").c_str());
  }

  // Night k (0-based) of rmsnorm_fused, 10% slower from night `slow_from`.
  void Night(int k, int slow_from) {
    const std::string results = (dir_ / "night.json").string();
    std::string run = "--workload rmsnorm_fused --repeat 30 --seed " +
                      std::to_string(100 + k) + " --output " + results;
    if (k >= slow_from) run += " --set op_exec_overhead_us=430";
    ASSERT_EQ(RunTrnbench(run).code, 0);
    // Room for any int: g++ at -O1 cannot bound k and warns otherwise.
    char night[32];
    std::snprintf(night, sizeof(night), "2026-11-%02d", k + 1);
    const auto ingest =
        RunTrnbench("history ingest " + results + " --db '" + db_ +
                    "' --night " + night + " --commit c" + std::to_string(k));
    ASSERT_EQ(ingest.code, 0) << ingest.err;
    EXPECT_THAT(ingest.out, HasSubstr("ingested run"));
    const auto again =
        RunTrnbench("history ingest " + results + " --db '" + db_ +
                    "' --night " + night + " --commit c" + std::to_string(k));
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_THAT(again.out, HasSubstr("already in the history"));
  }

  fs::path dir_;
  std::string db_;
  std::string schema_;
};

TEST_P(HistoryCliTest, IngestDetectTrendOverNights) {
  constexpr int kSlowFrom = 8;
  for (int k = 0; k < 10; ++k) Night(k, kSlowFrom);
  // Two slow nights: provisional, no exit 1.
  auto d = RunTrnbench("history detect --db '" + db_ + "'");
  EXPECT_EQ(d.code, 0) << d.out << d.err;
  EXPECT_THAT(d.out, HasSubstr("provisional"));
  // The third: confirmed, new, exit 1, with its commit range.
  Night(10, kSlowFrom);
  d = RunTrnbench("history detect --db '" + db_ + "'");
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_THAT(d.out, HasSubstr("rmsnorm_fused device_time_us (trn1): step"));
  EXPECT_THAT(d.out, HasSubstr("c7..c8"));
  const auto json = RunTrnbench("history detect --format json --db '" + db_ +
                                "' --output " + (dir_ / "d.json").string());
  EXPECT_EQ(json.code, 1);
  EXPECT_EQ(Slurp((dir_ / "d.json").string()), json.out);
  EXPECT_THAT(json.out, HasSubstr("\"schema\": \"trnbench.history.detect\""));
  EXPECT_THAT(json.out, HasSubstr("\"new_confirmed_regression\": true"));
  // A night later it is known, no longer new: exit 0.
  Night(11, kSlowFrom);
  d = RunTrnbench("history detect --db '" + db_ + "'");
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_THAT(d.out, HasSubstr("confirmed regression"));
  // show and trend.
  const auto show = RunTrnbench("history show --db '" + db_ + "'");
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("12 runs in the history"));
  EXPECT_THAT(show.out, HasSubstr("2026-11-12"));
  const std::string report = (dir_ / "trend").string();
  const auto trend =
      RunTrnbench("history trend --db '" + db_ + "' --report-dir " + report);
  ASSERT_EQ(trend.code, 0) << trend.err;
  const std::string svg =
      Slurp(report + "/plots/rmsnorm_fused.device_time_us.trn1.svg");
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("stroke=\"#d62728\""));  // the regression
  EXPECT_THAT(Slurp(report + "/report.md"), HasSubstr("rmsnorm\\_fused"));
  EXPECT_THAT(Slurp(report + "/report.html"), HasSubstr("<svg"));
}

// show for programs: JSON and CSV with the same nights the table shows,
// exact numbers; and detect names the profile change of the step's night.
TEST_P(HistoryCliTest, ShowAsJsonAndCsvAndTheStepsCause) {
  for (int k = 0; k < 11; ++k) Night(k, 8);
  const auto json =
      RunTrnbench("history show --format json --db '" + db_ + "'");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema"], "trnbench.history.show");
  ASSERT_EQ(j["runs"].size(), 11u);
  EXPECT_EQ(j["runs"][0]["night"], "2026-11-01");
  EXPECT_EQ(j["runs"][0]["recorded_at"].get<std::string>().size(), 20u);
  EXPECT_NE(j["runs"][7]["device_hash"], j["runs"][8]["device_hash"]);
  const auto& series = j["series"];
  ASSERT_FALSE(series.empty());
  EXPECT_EQ(series[0]["points"].size(), 11u);
  EXPECT_TRUE(series[0]["points"][0]["median"].is_number());
  const auto csv = RunTrnbench("history show --format csv --db '" + db_ + "'");
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("workload,metric,device,unit,lower_is_better,night,"
                          "commit,median,ci_low,ci_high,baseline_refresh\r\n",
                          0),
            0u);
  EXPECT_THAT(csv.out, HasSubstr(",TRUE,2026-11-01,c0,"));
  EXPECT_EQ(
      RunTrnbench("history show --format markdown --db '" + db_ + "'").code, 2);
  const auto d = RunTrnbench("history detect --db '" + db_ + "'");
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_THAT(d.out, HasSubstr("likely cause: device profile changed ("));
}

TEST_P(HistoryCliTest, RefusalsNameTheInput) {
  const std::string shard = (dir_ / "shard.json").string();
  ASSERT_EQ(
      RunTrnbench("--workload all --repeat 3 --shard 1/2 --output " + shard)
          .code,
      0);
  auto r = RunTrnbench("history ingest " + shard + " --db '" + db_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("/shard: this is shard 1/2 of a split run"));
  r = RunTrnbench("history ingest " + shard + " --db '" + db_ +
                  "' --night 2026-02-30");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--night=2026-02-30: expected a date"));
  r = RunTrnbench("history detect");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("needs --db"));
  r = RunTrnbench("history show --db '" + db_ + "' --report-dir x");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--report-dir: trnbench history show does not"));
  r = RunTrnbench("history frobnicate --db '" + db_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("expected one of history ingest"));
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryCliTest,
                         ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace trn
