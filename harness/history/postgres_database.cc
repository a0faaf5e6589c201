// The PostgreSQL backend, for a team's shared history (libpqxx 6). Built as
// a module of its own (libtrnbench_postgres.so) that postgres_loader.cc
// loads when a history URL names a server: libpqxx and libpq bring some
// twenty libraries (TLS, Kerberos, LDAP) whose loading and relocation cost
// every trnbench start about 15 ms, used or not (issue 42).
#include <cmath>
#include <cstdio>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/history/sql_database.h"

namespace trn::history {
namespace {

// Any constant works; it only has to be the same for every trnbench.
constexpr int64_t kWriteLockKey = 0x74726e62656e6368;  // "trnbench"

std::string FirstLine(const std::string& s) {
  std::string out = s.substr(0, s.find('\n'));
  return out;
}

class PostgresDatabase : public SqlDatabase {
 public:
  PostgresDatabase(std::unique_ptr<pqxx::connection> conn, std::string label)
      : conn_(std::move(conn)), label_(std::move(label)) {}

  absl::Status WriteTransaction(
      const std::function<absl::Status()>& body) override {
    try {
      pqxx::work tx(*conn_);
      current_ = &tx;
      // Writers queue on one lock, so concurrent migrations and ingests
      // never race (CREATE TABLE IF NOT EXISTS alone is not safe).
      tx.exec_params("SELECT pg_advisory_xact_lock($1)", kWriteLockKey);
      absl::Status s = body();
      current_ = nullptr;
      if (s.ok()) tx.commit();  // else the destructor rolls back
      return s;
    } catch (const std::exception& e) {
      current_ = nullptr;
      return Error(e);
    }
  }

  absl::StatusOr<std::vector<SqlRow>> Query(
      std::string_view sql, const std::vector<SqlValue>& params) override {
    // Parameters travel as text: 17 significant digits give a double back
    // exactly, and a NaN is NULL.
    std::vector<std::string> text(params.size());
    std::vector<const char*> args(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (const auto* x = std::get_if<int64_t>(&v)) {
        text[i] = absl::StrCat(*x);
      } else if (const auto* d = std::get_if<double>(&v)) {
        if (std::isnan(*d)) continue;
        text[i] = absl::StrFormat("%.17g", *d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        text[i] = *s;
      } else {
        continue;
      }
      args[i] = text[i].c_str();
    }
    try {
      pqxx::result r;
      const std::string statement(sql);
      if (current_ != nullptr) {
        r = current_->exec_params(statement,
                                  pqxx::prepare::make_dynamic_params(args));
      } else {
        pqxx::nontransaction tx(*conn_);
        r = tx.exec_params(statement, pqxx::prepare::make_dynamic_params(args));
      }
      std::vector<SqlRow> rows;
      rows.reserve(r.size());
      for (const auto& row : r) {
        std::vector<SqlValue> values;
        values.reserve(row.size());
        for (const auto& field : row) {
          if (field.is_null()) {
            values.emplace_back(std::monostate{});
          } else {
            values.emplace_back(std::string(field.c_str(), field.size()));
          }
        }
        rows.emplace_back(std::move(values));
      }
      return rows;
    } catch (const std::exception& e) {
      return Error(e);
    }
  }

  std::string_view Dialect() const override { return "postgresql"; }
  const std::string& Label() const override { return label_; }

 private:
  absl::Status Error(const std::exception& e) const {
    const std::string what = FirstLine(e.what());
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
      const std::string state = sql->sqlstate();
      if (state == "53100") {
        return absl::ResourceExhaustedError(
            absl::StrCat(label_, ": the server's disk is full: ", what));
      }
      if (state.rfind("42501", 0) == 0) {
        return absl::PermissionDeniedError(absl::StrCat(label_, ": ", what));
      }
    }
    if (dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr) {
      return absl::UnavailableError(
          absl::StrCat(label_, ": lost the connection: ", what));
    }
    return absl::InternalError(absl::StrCat(label_, ": ", what));
  }

  std::unique_ptr<pqxx::connection> conn_;
  std::string label_;
  pqxx::work* current_ = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlDatabase>> ConnectPostgres(
    const std::string& url) {
  const std::string label = RedactUrl(url);
  try {
    auto conn = std::make_unique<pqxx::connection>(url);
    // Notices (e.g. "relation already exists, skipping") are not errors.
    pqxx::nontransaction tx(*conn);
    tx.exec("SET client_min_messages TO WARNING");
    tx.commit();
    return std::unique_ptr<SqlDatabase>(
        new PostgresDatabase(std::move(conn), label));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        label,
        ": cannot connect to the PostgreSQL server: ", FirstLine(e.what()),
        "; expected postgresql://USER:PASSWORD@HOST/DATABASE of "
        "a running server"));
  }
}

}  // namespace trn::history

// The module's entry points, looked up by name (postgres_loader.cc). C
// names, C++ types: the module is built with the program, from the same
// sources, and says which version of this interface it has.
extern "C" __attribute__((visibility("default"))) int
TrnbenchPostgresModuleVersion() {
  return trn::history::kPostgresModuleVersion;
}

extern "C" __attribute__((visibility("default"))) void TrnbenchConnectPostgres(
    const std::string& url,
    absl::StatusOr<std::unique_ptr<trn::history::SqlDatabase>>& out) {
  out = trn::history::ConnectPostgres(url);
}
