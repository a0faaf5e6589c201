// The history store against both backends: SQLite always, PostgreSQL when
// TRNBENCH_TEST_PG_URL names a server (.ci/run starts one). On CI the
// PostgreSQL half must run: without the URL it fails instead of skipping.
#include "harness/history/history_store.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/history/run_record.h"
#include "harness/history/sql_database.h"

namespace trn::history {
namespace {

using ::testing::HasSubstr;

const char* PgUrl() {
  const char* url = std::getenv("TRNBENCH_TEST_PG_URL");
  return url != nullptr && *url != '\0' ? url : nullptr;
}

bool OnCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

RunRecord MakeRun(const std::string& id, const std::string& night, double level,
                  const std::string& commit = "c0") {
  RunRecord r;
  r.run_id = id;
  r.night = night;
  r.recorded_at = night + "T03:17:00Z";
  r.commit = commit;
  r.branch = "main";
  r.ci_run = "42";
  r.content_hash = "hash-" + id;
  r.device = "trn1";
  r.device_hash = "abcd";
  r.trnbench_version = "0.1.0";
  r.model_version = "1";
  r.seed = 18446744073709551615ull;  // the largest seed survives the trip
  r.schedule.repeat = 4;
  RunRecord::Workload w;
  w.name = "exp_tiled";
  w.family = "exp";
  w.mode = "nki";
  w.spec_hash = "s1";
  w.instructions = 70;
  RunRecord::Metric m;
  m.name = "device_time_us";
  m.unit = "us";
  m.samples = {level, level * 1.01, level * 0.99, level + 0.1};
  m.median = level;
  m.baseline_median = 20.0;
  w.metrics.push_back(m);
  RunRecord::Metric wall = m;
  wall.name = "wall_time_us";
  wall.samples = {100.0, 100.0, 100.0, 100.0};
  wall.median = 100.0;
  w.metrics.push_back(wall);
  r.workloads.push_back(w);
  return r;
}

class HistoryStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string name = absl::StrCat(
        "t_", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
        "_", getpid());
    std::string clean;
    for (char c : name) {
      clean += std::isalnum(static_cast<unsigned char>(c))
                   ? static_cast<char>(std::tolower(c))
                   : '_';
    }
    if (GetParam() == "sqlite") {
      dir_ = std::filesystem::temp_directory_path() / clean;
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      url_ = (dir_ / "history.sqlite").string();
      return;
    }
    const char* pg = PgUrl();
    if (pg == nullptr) {
      if (OnCi()) {
        FAIL() << "CI=true but TRNBENCH_TEST_PG_URL is not set: .ci/run "
                  "must start PostgreSQL for these tests";
      }
      GTEST_SKIP() << "TRNBENCH_TEST_PG_URL not set (no PostgreSQL server)";
    }
    // A schema of its own per test, so tests can run in parallel.
    schema_ = clean.substr(0, 60);
    auto admin = OpenPostgres(pg);
    ASSERT_TRUE(admin.ok()) << admin.status();
    ASSERT_TRUE(
        (*admin)->Query("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE").ok());
    ASSERT_TRUE((*admin)->Query("CREATE SCHEMA " + schema_).ok());
    const std::string base = pg;
    url_ = absl::StrCat(base, base.find('?') == std::string::npos ? "?" : "&",
                        "options=-csearch_path%3D", schema_);
  }

  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    if (!schema_.empty()) {
      auto admin = OpenPostgres(PgUrl());
      if (admin.ok()) {
        (void)(*admin)->Query("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
      }
    }
  }

  std::unique_ptr<HistoryStore> Open() {
    auto store = HistoryStore::Open(url_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  std::string url_;
  std::filesystem::path dir_;
  std::string schema_;
};

TEST_P(HistoryStoreTest, IngestIsIdempotentByRunId) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->schema_version(), kHistorySchemaVersion);
  auto first = store->Ingest(MakeRun("r1", "2026-11-01", 20.0));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  auto again = store->Ingest(MakeRun("r1", "2026-11-01", 20.0));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(*again);
  auto runs = store->Runs({});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].run_id, "r1");
  EXPECT_EQ((*runs)[0].commit, "c0");
  EXPECT_EQ((*runs)[0].workloads, 1);
  auto rows = store->db().Query("SELECT COUNT(*) FROM metrics");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].Int(0), 2);
  auto seed = store->db().Query("SELECT seed FROM runs");
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ((*seed)[0].Text(0), "18446744073709551615");
}

TEST_P(HistoryStoreTest, SameRunIdWithOtherResultsIsRefused) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Ingest(MakeRun("r1", "2026-11-01", 20.0)).ok());
  RunRecord other = MakeRun("r1", "2026-11-01", 21.0);
  other.content_hash = "something else";
  auto s = store->Ingest(other);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("run id r1"));
  auto runs = store->Runs({});
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
}

TEST_P(HistoryStoreTest, SeriesPoolTheNightsRunsAndKeepExactSamples) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // 0.1 + 0.2 is not 0.3: a sample must come back bit for bit.
  RunRecord a = MakeRun("a", "2026-11-01", 0.1 + 0.2, "c1");
  RunRecord b = MakeRun("b", "2026-11-02", 30.0, "c2");
  RunRecord c = MakeRun("c", "2026-11-02", 32.0, "c3");
  c.workloads[0].metrics[0].baseline_median = 25.0;  // refreshed
  c.workloads[0].spec_hash = "s2";                   // the spec edited
  for (const auto& r : {a, b, c}) ASSERT_TRUE(store->Ingest(r).ok());
  SeriesFilter f;
  f.metrics = {"device_time_us"};
  auto series = store->LoadSeries(f);
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 1u);
  const Series& s = (*series)[0];
  EXPECT_EQ(s.workload, "exp_tiled");
  EXPECT_EQ(s.device, "trn1");
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].night, "2026-11-01");
  EXPECT_EQ(s.points[0].median, (0.1 + 0.2 + (0.1 + 0.2) * 1.01) / 2);
  // Night 2 pools both runs' samples; its commit is the later run's.
  EXPECT_EQ(s.points[1].commit, "c3");
  EXPECT_GT(s.points[1].median, 30.0);
  EXPECT_LT(s.points[1].median, 32.0);
  EXPECT_FALSE(s.points[0].baseline_refresh);
  EXPECT_TRUE(s.points[1].baseline_refresh);
  // Each night's spec hash is its last run's.
  EXPECT_EQ(s.points[0].spec_hash, "s1");
  EXPECT_EQ(s.points[1].spec_hash, "s2");
  f.last_nights = 1;
  auto last = store->LoadSeries(f);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ((*last)[0].points.size(), 1u);
  auto costs = store->Costs("trn1");
  ASSERT_TRUE(costs.ok());
  ASSERT_EQ(costs->size(), 1u);
  EXPECT_EQ((*costs)[0].instructions, 70);
  EXPECT_DOUBLE_EQ((*costs)[0].device_seconds, 100.0 * 5 * 1e-6);
}

TEST_P(HistoryStoreTest, NewerSchemaIsRefused) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(
        store->db().Query("UPDATE schema_version SET version = 99").ok());
  }
  auto again = HistoryStore::Open(url_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(),
              HasSubstr("schema version 99, newer than this trnbench's 3"));
}

TEST_P(HistoryStoreTest, VersionOneIsMigratedWithItsRuns) {
  {
    std::unique_ptr<SqlDatabase> db;
    if (GetParam() == "sqlite") {
      db = *OpenSqlite(url_);
    } else {
      db = *OpenPostgres(url_);
    }
    ASSERT_TRUE(CreateSchemaAt(*db, 1).ok());
    ASSERT_TRUE(
        db->Query("INSERT INTO runs VALUES ('old', '2026-10-01', "
                  "'2026-10-01T03:17:00Z', 'c', "
                  "'main', '', 'model', 'h', 'trn1', 'd', '0.1.0', '1', '1', "
                  "0, 1, 2, 0.95)")
            .ok());
    ASSERT_TRUE(db->Query("INSERT INTO metrics VALUES ('old', 'w', "
                          "'device_time_us', 'us', 1, 2, 5.0, NULL, NULL, "
                          "'[5.0, 5.0]')")
                    .ok());
    auto v = db->Query("SELECT version FROM schema_version");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ((*v)[0].Int(0), 1);
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->schema_version(), kHistorySchemaVersion);
  auto series = store->LoadSeries({});
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 1u);
  EXPECT_EQ((*series)[0].points[0].median, 5.0);
  // Version 2's table is there and usable.
  ASSERT_TRUE(store->Ingest(MakeRun("new", "2026-10-02", 5.0)).ok());
  auto runs = store->Runs({});
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].night, "2026-10-01");
  EXPECT_EQ((*runs)[0].recorded_at, "2026-10-01T03:17:00Z");
}

// Schema version 3: on PostgreSQL the columns SQL users had to cast have
// their natural types, so `night >= current_date - 14`, time-zone-aware
// times, `WHERE lower_is_better` and jsonb operators work unchanged; the
// values read back as before, every sample bit for bit.
TEST_P(HistoryStoreTest, PostgresColumnsHaveNativeTypes) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "PostgreSQL types";
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Ingest(MakeRun("r1", "2026-11-01", 0.1 + 0.2)).ok());
  auto types = store->db().Query(
      "SELECT table_name || '.' || column_name, data_type FROM "
      "information_schema.columns WHERE table_schema = current_schema() "
      "ORDER BY 1");
  ASSERT_TRUE(types.ok()) << types.status();
  std::map<std::string, std::string> type;
  for (const SqlRow& row : *types) type[row.Text(0)] = row.Text(1);
  EXPECT_EQ(type["runs.night"], "date");
  EXPECT_EQ(type["runs.recorded_at"], "timestamp with time zone");
  EXPECT_EQ(type["runs.seed"], "numeric");
  EXPECT_EQ(type["metrics.lower_is_better"], "boolean");
  EXPECT_EQ(type["metrics.samples"], "jsonb");
  auto q = store->db().Query(
      "SELECT COUNT(*) FROM metrics m JOIN runs r USING (run_id) WHERE "
      "m.lower_is_better AND r.night >= DATE '2026-10-25' AND "
      "jsonb_array_length(m.samples) = 4");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ((*q)[0].Int(0), 2);
  auto series = store->LoadSeries({});
  ASSERT_TRUE(series.ok()) << series.status();
  EXPECT_EQ((*series)[0].points[0].night, "2026-11-01");
  // The median of the four samples, from their exact doubles.
  const double level = 0.1 + 0.2;
  EXPECT_EQ((*series)[0].points[0].median, (level + level * 1.01) / 2);
}

// A version-2 database holding a value trnbench never writes cannot be
// given its native types: refused with the column named, and left as it was.
TEST_P(HistoryStoreTest, PostgresMigrationRefusesAnAlteredValue) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "PostgreSQL types";
  {
    std::unique_ptr<SqlDatabase> db = *OpenPostgres(url_);
    ASSERT_TRUE(CreateSchemaAt(*db, 2).ok());
    ASSERT_TRUE(
        db->Query("INSERT INTO runs VALUES ('old', 'last tuesday', "
                  "'2026-10-01T03:17:00Z', 'c', 'main', '', 'model', 'h', "
                  "'trn1', 'd', '0.1.0', '1', '1', 0, 1, 2, 0.95)")
            .ok());
  }
  auto store = HistoryStore::Open(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("night"));
  EXPECT_THAT(store.status().message(), HasSubstr("altered outside trnbench"));
  std::unique_ptr<SqlDatabase> db = *OpenPostgres(url_);
  auto v = db->Query("SELECT version FROM schema_version");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)[0].Int(0), 2);
}

TEST_P(HistoryStoreTest, ConcurrentWritersAllLand) {
  ASSERT_NE(Open(), nullptr);
  constexpr int kWriters = 4;
  constexpr int kRunsEach = 8;
  std::vector<std::thread> writers;
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      // One connection per writer, as separate CI jobs would have.
      auto store = HistoryStore::Open(url_);
      if (!store.ok()) {
        errors[w] = store.status().ToString();
        return;
      }
      for (int k = 0; k < kRunsEach; ++k) {
        auto s = (*store)->Ingest(
            MakeRun(absl::StrCat("w", w, "-", k), "2026-11-01", 20.0 + k));
        if (!s.ok()) errors[w] = s.status().ToString();
      }
    });
  }
  for (auto& t : writers) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto runs = store->Runs({});
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), static_cast<size_t>(kWriters * kRunsEach));
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryStoreTest,
                         ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param) { return param.param; });

TEST(HistoryStore, NotADatabaseIsBadInput) {
  const auto path =
      std::filesystem::temp_directory_path() / "trnbench_not_a_db.sqlite";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "this is a results file, not a database\n"
        "................................................"
        "................................................",
        f);
    std::fclose(f);
  }
  auto store = HistoryStore::Open(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(),
              HasSubstr("not a trnbench history database"));
}

TEST(HistoryStore, UnreachableServerIsUnavailable) {
  auto store = HistoryStore::Open(
      "postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("nobody:***@127.0.0.1"));
  EXPECT_THAT(std::string(store.status().message()),
              ::testing::Not(HasSubstr("secret")));
}

TEST(HistoryStore, AMissingPostgresModuleIsAFailedPrecondition) {
  auto db = OpenPostgresWith("/nonexistent/libtrnbench_postgres.so",
                             "postgresql://nobody:secret@127.0.0.1:1/none");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(),
              HasSubstr("/nonexistent/libtrnbench_postgres.so"));
  EXPECT_THAT(db.status().message(), HasSubstr("nobody:***@127.0.0.1"));
  EXPECT_THAT(std::string(db.status().message()),
              ::testing::Not(HasSubstr("secret")));
}

TEST(HistoryStore, ALibraryThatIsNotTheModuleIsRefused) {
  // A shared library without the module's entry points: libz, which the
  // program links anyway.
  auto db = OpenPostgresWith("libz.so.1", "postgresql://nobody@127.0.0.1:1/x");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(),
              HasSubstr("not the PostgreSQL history module"));
}

TEST(RunRecord, NightsAreRealDays) {
  EXPECT_TRUE(IsNight("2026-11-30"));
  EXPECT_TRUE(IsNight("2024-02-29"));
  EXPECT_FALSE(IsNight("2026-02-29"));
  EXPECT_FALSE(IsNight("2026-13-01"));
  EXPECT_FALSE(IsNight("2026-1-01"));
  EXPECT_FALSE(IsNight("2026-11-30T00"));
  EXPECT_FALSE(IsNight("+026-11-30"));
}

}  // namespace
}  // namespace trn::history
