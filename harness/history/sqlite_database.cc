// The SQLite backend: the embedded default, a file on disk.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/history/sql_database.h"
#include "support/status_macros.h"

namespace trn::history {
namespace {

// Long enough for another CI job's ingest to finish; an ingest holds the
// write lock for milliseconds.
constexpr int kBusyTimeoutMs = 60000;

absl::Status SqliteError(sqlite3* db, int rc, const std::string& label,
                         const std::string& what) {
  const std::string message =
      absl::StrCat(label, ": ", what, ": ",
                   db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(message);
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return absl::PermissionDeniedError(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(
          absl::StrCat(message, " (another writer held the database for ",
                       kBusyTimeoutMs / 1000, " s)"));
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": not a trnbench history database (", sqlite3_errstr(rc),
          "); expected an SQLite file written by trnbench history ingest"));
    case SQLITE_IOERR:
      // The disk, not trnbench: a full disk, a file size limit, a failing
      // device. errno says which.
      return absl::ResourceExhaustedError(absl::StrCat(
          label, ": ", what, ": cannot read or write the database file (",
          db != nullptr && sqlite3_system_errno(db) != 0
              ? std::strerror(sqlite3_system_errno(db))
              : sqlite3_errstr(rc),
          "); expected a disk with room and a file within its size limit"));
    case SQLITE_CANTOPEN:
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": cannot open the history database (", sqlite3_errstr(rc),
          "); expected a file path in an existing, writable folder"));
    default:
      return absl::InternalError(message);
  }
}

class SqliteDatabase : public SqlDatabase {
 public:
  SqliteDatabase(sqlite3* db, std::string label)
      : db_(db), label_(std::move(label)) {}
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }

  absl::Status WriteTransaction(
      const std::function<absl::Status()>& body) override {
    TRN_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    absl::Status s = body();
    if (s.ok()) s = Exec("COMMIT");
    if (!s.ok()) (void)Exec("ROLLBACK");
    return s;
  }

  absl::StatusOr<std::vector<SqlRow>> Query(
      std::string_view sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                                &raw, nullptr);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(
        raw, sqlite3_finalize);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, label_, "prepare");
    for (size_t i = 0; i < params.size(); ++i) {
      const int k = static_cast<int>(i) + 1;
      const SqlValue& v = params[i];
      if (const auto* x = std::get_if<int64_t>(&v)) {
        rc = sqlite3_bind_int64(raw, k, *x);
      } else if (const auto* d = std::get_if<double>(&v)) {
        rc = std::isnan(*d) ? sqlite3_bind_null(raw, k)
                            : sqlite3_bind_double(raw, k, *d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        rc = sqlite3_bind_text(raw, k, s->data(), static_cast<int>(s->size()),
                               SQLITE_TRANSIENT);
      } else {
        rc = sqlite3_bind_null(raw, k);
      }
      if (rc != SQLITE_OK) return SqliteError(db_, rc, label_, "bind");
    }
    std::vector<SqlRow> rows;
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      const int n = sqlite3_column_count(raw);
      std::vector<SqlValue> values;
      values.reserve(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(raw, c)) {
          case SQLITE_INTEGER:
            values.emplace_back(
                static_cast<int64_t>(sqlite3_column_int64(raw, c)));
            break;
          case SQLITE_FLOAT:
            values.emplace_back(sqlite3_column_double(raw, c));
            break;
          case SQLITE_NULL:
            values.emplace_back(std::monostate{});
            break;
          default: {
            const auto* text =
                reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
            values.emplace_back(std::string(
                text, static_cast<size_t>(sqlite3_column_bytes(raw, c))));
          }
        }
      }
      rows.emplace_back(std::move(values));
    }
    if (rc != SQLITE_DONE) return SqliteError(db_, rc, label_, "query");
    return rows;
  }

  std::string_view Dialect() const override { return "sqlite"; }
  const std::string& Label() const override { return label_; }

  absl::Status Exec(const char* sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
    sqlite3_free(error);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, label_, sql);
    return absl::OkStatus();
  }

 private:
  sqlite3* db_;
  std::string label_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenSqlite(const std::string& path,
                                                        SqliteMode mode) {
  // SQLite opens whatever the path names; a device or a FIFO would be read
  // (or block) as if it were a database, so only a regular file is taken.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          ": not a regular file (a folder, device or FIFO); expected an "
          "SQLite file written by trnbench history ingest"));
    }
  } else if (errno == ENOENT && mode == SqliteMode::kReadOnly) {
    return absl::NotFoundError(absl::StrCat(
        path,
        ": no history database there; expected a database written by "
        "trnbench history ingest (only ingest creates one)"));
  }
  const int flags = mode == SqliteMode::kReadOnly
                        ? SQLITE_OPEN_READONLY
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status s = SqliteError(db, rc, path, "open");
    sqlite3_close_v2(db);
    return s;
  }
  auto out = std::make_unique<SqliteDatabase>(db, path);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 0);
  if (mode == SqliteMode::kReadOnly) return out;
  // WAL: readers never block the writer, and a crash mid-ingest leaves the
  // last committed state. The mode is stored in the file, so setting it
  // again is a no-op.
  TRN_RETURN_IF_ERROR(out->Exec("PRAGMA journal_mode=WAL"));
  TRN_RETURN_IF_ERROR(out->Exec("PRAGMA foreign_keys=ON"));
  return out;
}

}  // namespace trn::history
