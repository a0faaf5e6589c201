// The little SQL the history needs, over SQLite or PostgreSQL: one
// portable dialect (standard types, $1-style parameters, which SQLite reads
// as named parameters in order), write transactions that serialise
// concurrent writers, and typed reads of every column.
#ifndef TRNBENCH_HARNESS_HISTORY_SQL_DATABASE_H_
#define TRNBENCH_HARNESS_HISTORY_SQL_DATABASE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trn::history {

// NULL, an integer, a double or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

// One row of a result. PostgreSQL hands every value over as text; the
// getters convert, so callers never see the difference.
class SqlRow {
 public:
  explicit SqlRow(std::vector<SqlValue> values) : values_(std::move(values)) {}
  bool IsNull(size_t i) const;
  int64_t Int(size_t i) const;
  double Double(size_t i) const;  // NaN for NULL
  std::string Text(size_t i) const;

 private:
  std::vector<SqlValue> values_;
};

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  // Runs `body` as one write transaction, holding the database's write lock
  // from the start (SQLite: BEGIN IMMEDIATE, waiting out other writers up
  // to the busy timeout; PostgreSQL: a transaction-scoped advisory lock),
  // so concurrent writers queue instead of failing. Committed if `body`
  // returns OK, rolled back otherwise.
  virtual absl::Status WriteTransaction(
      const std::function<absl::Status()>& body) = 0;
  // One statement; inside WriteTransaction's body it joins that
  // transaction.
  virtual absl::StatusOr<std::vector<SqlRow>> Query(
      std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual std::string_view Dialect() const = 0;  // "sqlite", "postgresql"
  // What to call the database in messages (a path or a URL without its
  // password).
  virtual const std::string& Label() const = 0;
};

// kReadOnly opens an existing regular file without writing to it (the
// reading commands); kReadWrite creates the file if needed (ingest).
enum class SqliteMode { kReadOnly, kReadWrite };
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenSqlite(
    const std::string& path, SqliteMode mode = SqliteMode::kReadWrite);
// A connection to the PostgreSQL server at `url`, through the module
// libtrnbench_postgres.so (postgres_loader.cc), which is loaded on first
// use: from beside the running program, else from where the build put it.
// FailedPrecondition when no module loads; Unavailable when the server
// cannot be reached.
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgres(
    const std::string& url);
// The same through the module at `module_path`.
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgresWith(
    const std::string& module_path, const std::string& url);
// The module's side (postgres_database.cc): a connection, in the module.
absl::StatusOr<std::unique_ptr<SqlDatabase>> ConnectPostgres(
    const std::string& url);
// The version of the program-module interface; a module of another version
// is not used.
inline constexpr int kPostgresModuleVersion = 1;
// The module's file name.
inline constexpr char kPostgresModuleName[] = "libtrnbench_postgres.so";

// A URL's password replaced by "***", for messages.
std::string RedactUrl(std::string_view url);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_SQL_DATABASE_H_
