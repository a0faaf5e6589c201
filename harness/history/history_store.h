// The run history: every ingested run with its raw samples, in SQLite (a
// file path) or PostgreSQL (a postgresql:// URL), under one portable schema
// with a schema_version table and migrations (docs/history.md).
#ifndef TRNBENCH_HARNESS_HISTORY_HISTORY_STORE_H_
#define TRNBENCH_HARNESS_HISTORY_HISTORY_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/history/detection.h"
#include "harness/history/sql_database.h"
#include "harness/runner/results.h"

namespace trn::history {

// The schema this trnbench writes; a database of a newer one is refused.
inline constexpr int kHistorySchemaVersion = 3;

// One run as ingested: the results file's content plus where and when it
// ran (which the results file deliberately does not hold).
struct RunRecord {
  std::string run_id;
  std::string night;        // YYYY-MM-DD, the unit of every trend
  std::string recorded_at;  // ISO 8601 UTC, provenance only
  std::string commit;
  std::string branch;
  std::string ci_run;
  std::string source = "model";  // or "measured"
  std::string content_hash;      // FNV-1a 64 of the results file
  std::string device;
  std::string device_hash;
  std::string trnbench_version;
  std::string model_version;
  uint64_t seed = 0;
  Schedule schedule;
  double confidence = 0.95;

  struct Metric {
    std::string name;
    std::string unit;
    bool lower_is_better = true;
    std::vector<double> samples;
    double median = 0;
    double ci_low = NAN;
    double ci_high = NAN;
    double baseline_median = NAN;  // the gate's baseline, when compared
  };
  struct Workload {
    std::string name;
    std::string family;
    std::string mode;
    std::string spec_hash;
    int64_t instructions = 0;
    std::vector<Metric> metrics;
  };
  std::vector<Workload> workloads;
};

struct RunInfo {
  std::string run_id;
  std::string night;
  std::string recorded_at;
  std::string commit;
  std::string branch;
  std::string ci_run;
  std::string device;
  std::string source;
  int64_t workloads = 0;
  // What the run ran on: a change between two nights is a likely cause of
  // a step between them.
  std::string device_hash;
  std::string model_version;
  std::string trnbench_version;
};

struct SeriesFilter {
  std::string device;                  // empty: every device
  std::vector<std::string> workloads;  // empty: every workload
  std::vector<std::string> metrics;    // empty: every metric
  std::string branch;                  // empty: every branch
  int last_nights = 0;                 // 0: all
};

// What a shard split needs per workload: the latest recorded instruction
// count and the latest run's time on the device (median wall time x runs).
struct WorkloadCost {
  std::string workload;
  int64_t instructions = 0;
  double device_seconds = 0;
};

// Where `--db` points: a PostgreSQL URL (postgresql:// or postgres://),
// or an SQLite file given as a path or as an SQLAlchemy-style URL
// (sqlite:///relative.db, sqlite:////absolute.db; `sqlite://` alone, an
// in-memory database, keeps nothing and is refused).
struct DbLocation {
  bool postgres = false;
  std::string target;  // the URL, or the SQLite file's path
};
absl::StatusOr<DbLocation> ParseDbUrl(const std::string& url);

// How a command opens the history. Only ingest creates a database; the
// reading commands refuse one that does not exist or has no history
// schema, and open SQLite read-only (an older schema is migrated once,
// which needs write access).
enum class OpenMode { kIngest, kRead };

class HistoryStore {
 public:
  // Opens the history at `url` (ParseDbUrl), checking its schema: ingest
  // creates or migrates it as needed; a reader requires an existing one.
  static absl::StatusOr<std::unique_ptr<HistoryStore>> Open(
      const std::string& url, OpenMode mode = OpenMode::kIngest);

  // Adds a run and returns true, or returns false when a run of that id
  // with the same content is already there (ingest is idempotent). The
  // same id with different content is a FailedPrecondition error.
  absl::StatusOr<bool> Ingest(const RunRecord& run);

  absl::StatusOr<std::vector<RunInfo>> Runs(const SeriesFilter& filter);
  // Every workload x metric x device, one point per night: the median of
  // the night's pooled samples and its distribution-free interval.
  absl::StatusOr<std::vector<Series>> LoadSeries(const SeriesFilter& filter);
  absl::StatusOr<std::vector<WorkloadCost>> Costs(const std::string& device);

  int schema_version() const { return schema_version_; }
  SqlDatabase& db() { return *db_; }

 private:
  explicit HistoryStore(std::unique_ptr<SqlDatabase> db) : db_(std::move(db)) {}
  absl::Status Migrate();
  absl::StatusOr<int> CheckReadable();

  std::unique_ptr<SqlDatabase> db_;
  int schema_version_ = 0;
};

// The DDL of schema version `version` applied to an empty database, step
// by step (exposed so tests can build an old database and migrate it).
absl::Status CreateSchemaAt(SqlDatabase& db, int version);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_HISTORY_STORE_H_
