#include "harness/history/history_store.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/statistics/statistics.h"
#include "nlohmann/json.hpp"
#include "support/status_macros.h"

namespace trn::history {
namespace {

// Portable DDL: TEXT, BIGINT, INTEGER and DOUBLE PRECISION mean the same to
// SQLite and PostgreSQL. A seed is a uint64 and PostgreSQL has no unsigned
// 64-bit type, so version 1 keeps it as decimal text. Version 3 gives
// PostgreSQL its natural types where SQL users cast otherwise (date,
// timestamptz, numeric, boolean, jsonb); SQLite's types are affinities, so
// there the version changes nothing but its number.
struct Migration {
  int to;
  std::vector<const char*> statements;
  // Statements only PostgreSQL runs, after `statements`.
  std::vector<const char*> postgresql = {};
};

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      {1,
       {"CREATE TABLE runs ("
        " run_id TEXT PRIMARY KEY,"
        " night TEXT NOT NULL,"
        " recorded_at TEXT NOT NULL,"
        " commit_sha TEXT NOT NULL,"
        " branch TEXT NOT NULL,"
        " ci_run TEXT NOT NULL,"
        " source TEXT NOT NULL,"
        " content_hash TEXT NOT NULL,"
        " device TEXT NOT NULL,"
        " device_hash TEXT NOT NULL,"
        " trnbench_version TEXT NOT NULL,"
        " model_version TEXT NOT NULL,"
        " seed TEXT NOT NULL,"
        " schedule_wait BIGINT NOT NULL,"
        " schedule_warmup BIGINT NOT NULL,"
        " schedule_repeat BIGINT NOT NULL,"
        " confidence DOUBLE PRECISION NOT NULL)",
        "CREATE TABLE metrics ("
        " run_id TEXT NOT NULL REFERENCES runs (run_id),"
        " workload TEXT NOT NULL,"
        " metric TEXT NOT NULL,"
        " unit TEXT NOT NULL,"
        " lower_is_better INTEGER NOT NULL,"
        " n BIGINT NOT NULL,"
        " median DOUBLE PRECISION NOT NULL,"
        " ci_low DOUBLE PRECISION,"
        " ci_high DOUBLE PRECISION,"
        " samples TEXT NOT NULL,"
        " PRIMARY KEY (run_id, workload, metric))",
        "CREATE INDEX runs_night ON runs (night)"}},
      // Version 2: what sharding and the trend report need per workload
      // (instruction counts; the gate's baseline, to mark refreshes), and
      // an index for reading one series.
      {2,
       {"CREATE TABLE workloads ("
        " run_id TEXT NOT NULL REFERENCES runs (run_id),"
        " workload TEXT NOT NULL,"
        " family TEXT NOT NULL,"
        " mode TEXT NOT NULL,"
        " spec_hash TEXT NOT NULL,"
        " instructions BIGINT NOT NULL,"
        " PRIMARY KEY (run_id, workload))",
        "ALTER TABLE metrics ADD COLUMN baseline_median DOUBLE PRECISION",
        "CREATE INDEX metrics_series ON metrics (workload, metric)"}},
      {3,
       {},
       {"ALTER TABLE runs ALTER COLUMN night TYPE date USING night::date",
        "ALTER TABLE runs ALTER COLUMN recorded_at TYPE timestamptz USING "
        "recorded_at::timestamptz",
        "ALTER TABLE runs ALTER COLUMN seed TYPE numeric(20, 0) USING "
        "seed::numeric(20, 0)",
        "ALTER TABLE metrics ALTER COLUMN lower_is_better TYPE boolean USING "
        "lower_is_better <> 0",
        "ALTER TABLE metrics ALTER COLUMN samples TYPE jsonb USING "
        "samples::jsonb"}},
  };
  return kMigrations;
}

absl::Status ApplyMigrations(SqlDatabase& db, int from, int to) {
  if (from == 0) {
    TRN_RETURN_IF_ERROR(db.Query("CREATE TABLE IF NOT EXISTS schema_version ("
                                 " version INTEGER NOT NULL)")
                            .status());
  }
  for (const Migration& m : Migrations()) {
    if (m.to <= from || m.to > to) continue;
    for (const char* sql : m.statements) {
      TRN_RETURN_IF_ERROR(db.Query(sql).status());
    }
    if (db.Dialect() == "postgresql") {
      for (const char* sql : m.postgresql) {
        // A value trnbench never writes (edited by hand) cannot take its
        // native type: bad input, named, and the transaction leaves the
        // database as it was.
        if (absl::Status st = db.Query(sql).status(); !st.ok()) {
          if (st.code() != absl::StatusCode::kInternal) return st;
          return absl::FailedPreconditionError(absl::StrCat(
              st.message(),
              "; while giving the history database schema "
              "version ",
              m.to, "'s native column types (", sql,
              "); expected the values trnbench history ingest writes (was "
              "it altered outside trnbench?)"));
        }
      }
    }
    TRN_RETURN_IF_ERROR(db.Query("DELETE FROM schema_version").status());
    TRN_RETURN_IF_ERROR(
        db.Query("INSERT INTO schema_version (version) VALUES ($1)",
                 {int64_t{m.to}})
            .status());
  }
  return absl::OkStatus();
}

// The tables each schema version has, besides schema_version.
std::vector<std::string> TablesOf(int version) {
  std::vector<std::string> out = {"metrics", "runs"};
  if (version >= 2) out.push_back("workloads");
  return out;
}

absl::StatusOr<std::set<std::string>> TableNames(SqlDatabase& db) {
  TRN_ASSIGN_OR_RETURN(
      auto rows,
      db.Query(db.Dialect() == "postgresql"
                   ? "SELECT table_name FROM information_schema.tables WHERE "
                     "table_schema = current_schema()"
                   : "SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> out;
  for (const SqlRow& row : rows) out.insert(row.Text(0));
  return out;
}

// The schema version of the database, 0 for one with no tables at all (a
// new file), after checking that it holds every table of that version: a
// database altered outside trnbench (a table dropped, schema_version
// emptied) or someone else's is bad input, named, never a failed query.
absl::StatusOr<int> ReadVersion(SqlDatabase& db) {
  TRN_ASSIGN_OR_RETURN(const std::set<std::string> tables, TableNames(db));
  if (!tables.count("schema_version")) {
    if (tables.empty()) return 0;
    return absl::InvalidArgumentError(absl::StrCat(
        db.Label(),
        ": not a trnbench history database (no schema_version table; it "
        "holds ",
        absl::StrJoin(tables, ", "),
        "); expected a database written by trnbench history ingest"));
  }
  TRN_ASSIGN_OR_RETURN(auto rows,
                       db.Query("SELECT MAX(version) FROM schema_version"));
  if (rows.empty() || rows[0].IsNull(0)) {
    if (tables.size() == 1) return 0;  // created, nothing migrated yet
    return absl::InvalidArgumentError(absl::StrCat(
        db.Label(),
        ": the history database's schema_version table is empty; expected "
        "one row holding the schema's version (was it altered outside "
        "trnbench?)"));
  }
  const int version = static_cast<int>(rows[0].Int(0));
  if (version < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(db.Label(), ": the history database's schema_version is ",
                     version, "; expected a version from 1"));
  }
  if (version > kHistorySchemaVersion) return version;  // refused by caller
  std::vector<std::string> missing;
  for (const std::string& t : TablesOf(version)) {
    if (!tables.count(t)) missing.push_back(t);
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        db.Label(), ": the history database lacks the table",
        missing.size() > 1 ? "s " : " ", absl::StrJoin(missing, ", "),
        " of its schema version ", version,
        "; expected every table trnbench history ingest creates (was it "
        "altered outside trnbench?)"));
  }
  return version;
}

absl::Status NewerSchemaError(const SqlDatabase& db, int version) {
  return absl::FailedPreconditionError(absl::StrCat(
      db.Label(), ": the history database has schema version ", version,
      ", newer than this trnbench's ", kHistorySchemaVersion,
      "; expected a trnbench at least as new as the one that last "
      "wrote it (a database is never migrated down)"));
}

std::string SamplesText(const std::vector<double>& samples) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : samples) a.push_back(x);
  return a.dump();
}

std::vector<double> ParseSamples(const std::string& text) {
  std::vector<double> out;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& x : j) {
    if (x.is_number()) out.push_back(x.get<double>());
  }
  return out;
}

// The columns PostgreSQL types natively (schema version 3), read back as
// the text SQLite holds: a night as YYYY-MM-DD, the ingest time as ISO 8601
// UTC, the samples as a JSON array (jsonb keeps each number's decimal
// digits, so every double reads back exactly), the direction as 0 or 1.
struct Columns {
  std::string night;
  std::string recorded_at;
  std::string samples;
  std::string lower_is_better;
};
Columns ColumnsOf(const SqlDatabase& db) {
  if (db.Dialect() == "postgresql") {
    return {"to_char(r.night, 'YYYY-MM-DD')",
            "to_char(r.recorded_at AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
            "m.samples::text", "CAST(m.lower_is_better AS INTEGER)"};
  }
  return {"r.night", "r.recorded_at", "m.samples", "m.lower_is_better"};
}

// "WHERE a = $k AND ..." for the filter's single-valued parts.
std::string Where(const SeriesFilter& f, std::vector<SqlValue>& params) {
  std::vector<std::string> terms;
  if (!f.device.empty()) {
    params.emplace_back(f.device);
    terms.push_back(absl::StrCat("r.device = $", params.size()));
  }
  if (!f.branch.empty()) {
    params.emplace_back(f.branch);
    terms.push_back(absl::StrCat("r.branch = $", params.size()));
  }
  return terms.empty() ? "" : " WHERE " + absl::StrJoin(terms, " AND ");
}

// `select` (over runs aliased r) narrowed by the filter, in `order`.
absl::StatusOr<std::vector<SqlRow>> Filtered(SqlDatabase& db,
                                             const SeriesFilter& filter,
                                             std::string_view select,
                                             std::string_view order) {
  std::vector<SqlValue> params;
  const std::string where = Where(filter, params);
  return db.Query(absl::StrCat(std::string(select), where, " ORDER BY ",
                               std::string(order)),
                  params);
}

bool Selected(const std::vector<std::string>& list, const std::string& x) {
  return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
}

}  // namespace

absl::Status CreateSchemaAt(SqlDatabase& db, int version) {
  return db.WriteTransaction([&]() -> absl::Status {
    TRN_ASSIGN_OR_RETURN(int current, ReadVersion(db));
    return ApplyMigrations(db, current, version);
  });
}

absl::StatusOr<DbLocation> ParseDbUrl(const std::string& url) {
  if (absl::StartsWith(url, "postgresql://") ||
      absl::StartsWith(url, "postgres://")) {
    return DbLocation{true, url};
  }
  if (!absl::StartsWith(url, "sqlite:")) return DbLocation{false, url};
  // SQLAlchemy's form: sqlite:/// then the path, so sqlite:////abs/x.db is
  // absolute and sqlite:///x.db relative.
  const std::string kPrefix = "sqlite:///";
  if (!absl::StartsWith(url, kPrefix) || url.size() == kPrefix.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--db=", url,
        ": expected an SQLite file as sqlite:///relative.db or "
        "sqlite:////absolute/path.db (an in-memory database keeps no "
        "history), a file path, or a postgresql:// URL"));
  }
  return DbLocation{false, url.substr(kPrefix.size())};
}

absl::StatusOr<std::unique_ptr<HistoryStore>> HistoryStore::Open(
    const std::string& url, OpenMode mode) {
  TRN_ASSIGN_OR_RETURN(const DbLocation where, ParseDbUrl(url));
  std::unique_ptr<SqlDatabase> db;
  if (where.postgres) {
    TRN_ASSIGN_OR_RETURN(db, OpenPostgres(where.target));
  } else {
    TRN_ASSIGN_OR_RETURN(
        db, OpenSqlite(where.target, mode == OpenMode::kRead
                                         ? SqliteMode::kReadOnly
                                         : SqliteMode::kReadWrite));
  }
  std::unique_ptr<HistoryStore> store(new HistoryStore(std::move(db)));
  if (mode == OpenMode::kIngest) {
    TRN_RETURN_IF_ERROR(store->Migrate());
    return store;
  }
  TRN_ASSIGN_OR_RETURN(const int version, store->CheckReadable());
  if (version < kHistorySchemaVersion) {
    // An older schema: migrated once, as ingest would (needs write access).
    store.reset();
    return Open(url, OpenMode::kIngest);
  }
  return store;
}

absl::StatusOr<int> HistoryStore::CheckReadable() {
  TRN_ASSIGN_OR_RETURN(const int version, ReadVersion(*db_));
  if (version == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        db_->Label(),
        ": an empty database, with no trnbench history in it; expected a "
        "database written by trnbench history ingest"));
  }
  if (version > kHistorySchemaVersion) {
    return NewerSchemaError(*db_, version);
  }
  schema_version_ = version;
  return version;
}

absl::Status HistoryStore::Migrate() {
  return db_->WriteTransaction([&]() -> absl::Status {
    TRN_ASSIGN_OR_RETURN(int current, ReadVersion(*db_));
    if (current > kHistorySchemaVersion) {
      return NewerSchemaError(*db_, current);
    }
    TRN_RETURN_IF_ERROR(ApplyMigrations(*db_, current, kHistorySchemaVersion));
    schema_version_ = kHistorySchemaVersion;
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> HistoryStore::Ingest(const RunRecord& run) {
  bool inserted = false;
  const absl::Status status = db_->WriteTransaction([&]() -> absl::Status {
    TRN_ASSIGN_OR_RETURN(
        auto existing,
        db_->Query("SELECT content_hash FROM runs WHERE run_id = $1",
                   {run.run_id}));
    if (!existing.empty()) {
      if (existing[0].Text(0) == run.content_hash) return absl::OkStatus();
      return absl::FailedPreconditionError(absl::StrCat(
          db_->Label(), ": run id ", run.run_id,
          " is already in the history with other results (content hash ",
          existing[0].Text(0), ", this file ", run.content_hash,
          "); expected the same file again, or a new `run_id`"));
    }
    TRN_RETURN_IF_ERROR(
        db_->Query(
               "INSERT INTO runs (run_id, night, recorded_at, commit_sha, "
               "branch, ci_run, source, content_hash, device, device_hash, "
               "trnbench_version, model_version, seed, schedule_wait, "
               "schedule_warmup, schedule_repeat, confidence) VALUES ($1, "
               "$2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
               "$15, $16, $17)",
               {run.run_id, run.night, run.recorded_at, run.commit, run.branch,
                run.ci_run, run.source, run.content_hash, run.device,
                run.device_hash, run.trnbench_version, run.model_version,
                absl::StrCat(run.seed), run.schedule.wait, run.schedule.warmup,
                run.schedule.repeat, run.confidence})
            .status());
    for (const auto& w : run.workloads) {
      TRN_RETURN_IF_ERROR(
          db_->Query("INSERT INTO workloads (run_id, workload, family, mode, "
                     "spec_hash, instructions) VALUES ($1, $2, $3, $4, $5, "
                     "$6)",
                     {run.run_id, w.name, w.family, w.mode, w.spec_hash,
                      w.instructions})
              .status());
      for (const auto& m : w.metrics) {
        TRN_RETURN_IF_ERROR(
            db_->Query(
                   "INSERT INTO metrics (run_id, workload, metric, unit, "
                   "lower_is_better, n, median, ci_low, ci_high, samples, "
                   "baseline_median) VALUES ($1, $2, $3, $4, $5, $6, $7, "
                   "$8, $9, $10, $11)",
                   {run.run_id, w.name, m.name, m.unit,
                    int64_t{m.lower_is_better ? 1 : 0},
                    static_cast<int64_t>(m.samples.size()), m.median, m.ci_low,
                    m.ci_high, SamplesText(m.samples), m.baseline_median})
                .status());
      }
    }
    inserted = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return inserted;
}

absl::StatusOr<std::vector<RunInfo>> HistoryStore::Runs(
    const SeriesFilter& filter) {
  TRN_ASSIGN_OR_RETURN(
      auto rows,
      Filtered(*db_, filter,
               absl::StrCat("SELECT r.run_id, ", ColumnsOf(*db_).night, ", ",
                            ColumnsOf(*db_).recorded_at,
                            ", r.commit_sha, r.branch, r.ci_run, r.device, "
                            "r.source, (SELECT COUNT(*) FROM workloads w "
                            "WHERE w.run_id = r.run_id), r.device_hash, "
                            "r.model_version, r.trnbench_version FROM runs "
                            "r"),
               "r.night, r.recorded_at, r.run_id"));
  std::vector<RunInfo> out;
  for (const SqlRow& row : rows) {
    out.push_back(RunInfo{row.Text(0), row.Text(1), row.Text(2), row.Text(3),
                          row.Text(4), row.Text(5), row.Text(6), row.Text(7),
                          row.Int(8), row.Text(9), row.Text(10), row.Text(11)});
  }
  if (filter.last_nights > 0) {
    std::set<std::string> nights;
    for (const auto& r : out) nights.insert(r.night);
    while (static_cast<int>(nights.size()) > filter.last_nights) {
      nights.erase(nights.begin());
    }
    std::erase_if(out,
                  [&](const RunInfo& r) { return !nights.count(r.night); });
  }
  return out;
}

absl::StatusOr<std::vector<Series>> HistoryStore::LoadSeries(
    const SeriesFilter& filter) {
  TRN_ASSIGN_OR_RETURN(
      auto rows,
      Filtered(*db_, filter,
               absl::StrCat("SELECT r.device, m.workload, m.metric, m.unit, ",
                            ColumnsOf(*db_).lower_is_better, ", ",
                            ColumnsOf(*db_).night, ", r.commit_sha, ",
                            ColumnsOf(*db_).samples,
                            ", m.median, m.ci_low, m.ci_high, "
                            "m.baseline_median, r.confidence, w.spec_hash "
                            "FROM metrics m "
                            "JOIN runs r ON r.run_id = m.run_id "
                            "LEFT JOIN workloads w ON w.run_id = m.run_id "
                            "AND w.workload = m.workload"),
               "r.device, m.workload, m.metric, r.night, r.recorded_at, "
               "r.run_id"));
  // Pool each night's runs: (device, workload, metric) -> night -> points.
  struct Night {
    std::string commit;
    std::vector<double> samples;
    double median = NAN;  // of the last run, for summary-only results
    double ci_low = NAN;
    double ci_high = NAN;
    double baseline = NAN;
    double confidence = 0.95;
    std::string spec_hash;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Series> series;
  std::map<std::tuple<std::string, std::string, std::string>,
           std::map<std::string, Night>>
      nights;
  for (const SqlRow& row : rows) {
    const std::string workload = row.Text(1);
    const std::string metric = row.Text(2);
    if (!Selected(filter.workloads, workload) ||
        !Selected(filter.metrics, metric)) {
      continue;
    }
    const auto key = std::make_tuple(row.Text(0), workload, metric);
    Series& s = series[key];
    s.device = row.Text(0);
    s.workload = workload;
    s.metric = metric;
    s.unit = row.Text(3);
    s.lower_is_better = row.Int(4) != 0;
    Night& n = nights[key][row.Text(5)];
    n.commit = row.Text(6);  // runs are in time order: the last one wins
    const std::vector<double> samples = ParseSamples(row.Text(7));
    n.samples.insert(n.samples.end(), samples.begin(), samples.end());
    n.median = row.Double(8);
    n.ci_low = row.Double(9);
    n.ci_high = row.Double(10);
    if (!row.IsNull(11)) n.baseline = row.Double(11);
    n.confidence = row.Double(12);
    if (!row.IsNull(13)) n.spec_hash = row.Text(13);
  }
  std::vector<Series> out;
  for (auto& [key, s] : series) {
    double previous_baseline = NAN;
    for (auto& [night, n] : nights[key]) {
      NightPoint p;
      p.night = night;
      p.commit = n.commit;
      p.spec_hash = n.spec_hash;
      if (!n.samples.empty()) {
        const stats::Summary sum = stats::Summarize(n.samples, n.confidence);
        p.median = sum.median;
        p.ci_low = sum.median_ci.low;
        p.ci_high = sum.median_ci.high;
      } else {
        p.median = n.median;
        p.ci_low = n.ci_low;
        p.ci_high = n.ci_high;
      }
      if (!std::isnan(n.baseline)) {
        p.baseline_refresh =
            !std::isnan(previous_baseline) && n.baseline != previous_baseline;
        previous_baseline = n.baseline;
      }
      s.points.push_back(std::move(p));
    }
    if (filter.last_nights > 0 &&
        static_cast<int>(s.points.size()) > filter.last_nights) {
      s.points.erase(s.points.begin(), s.points.end() - filter.last_nights);
    }
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::vector<WorkloadCost>> HistoryStore::Costs(
    const std::string& device) {
  TRN_ASSIGN_OR_RETURN(
      auto rows,
      db_->Query(
          "SELECT w.workload, w.instructions, m.median, r.schedule_warmup + "
          "r.schedule_repeat FROM workloads w JOIN runs r ON r.run_id = "
          "w.run_id LEFT JOIN metrics m ON m.run_id = w.run_id AND "
          "m.workload = w.workload AND m.metric = 'wall_time_us' WHERE "
          "r.device = $1 ORDER BY r.night, r.recorded_at, r.run_id",
          {device}));
  std::map<std::string, WorkloadCost> latest;
  for (const SqlRow& row : rows) {
    WorkloadCost c;
    c.workload = row.Text(0);
    c.instructions = row.Int(1);
    const double wall_us = row.Double(2);
    c.device_seconds = std::isnan(wall_us)
                           ? 0.0
                           : wall_us * static_cast<double>(row.Int(3)) * 1e-6;
    latest[c.workload] = c;
  }
  std::vector<WorkloadCost> out;
  for (auto& [name, c] : latest) out.push_back(std::move(c));
  return out;
}

}  // namespace trn::history
