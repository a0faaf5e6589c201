// Loads the PostgreSQL backend (libtrnbench_postgres.so) on first use, so
// that a trnbench that never talks to a server never loads libpqxx, libpq
// and the libraries they need (issue 42: about 15 ms of every start).
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/history/sql_database.h"

namespace trn::history {
namespace {

using Version = int (*)();
using Connect = void (*)(const std::string&,
                         absl::StatusOr<std::unique_ptr<SqlDatabase>>&);

struct Module {
  absl::Status status;
  Connect connect = nullptr;
};

Module Load(const std::string& path) {
  Module m;
  // RTLD_LOCAL: the module's libraries serve it alone. Never closed: the
  // connections it makes live until the program ends.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    std::string why = error != nullptr ? error : "";
    // dlerror() starts with the path, which the message already names.
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    m.status = absl::FailedPreconditionError(absl::StrCat(
        "cannot load the PostgreSQL history module ", path, " (",
        why.empty() ? "unknown reason" : why,
        "): build it with trnbench (cmake --build build), or use a SQLite "
        "file as the history"));
    return m;
  }
  auto version =
      reinterpret_cast<Version>(dlsym(handle, "TrnbenchPostgresModuleVersion"));
  m.connect =
      reinterpret_cast<Connect>(dlsym(handle, "TrnbenchConnectPostgres"));
  if (version == nullptr || m.connect == nullptr ||
      version() != kPostgresModuleVersion) {
    m.connect = nullptr;
    m.status = absl::FailedPreconditionError(absl::StrCat(
        path,
        ": not the PostgreSQL history module of this trnbench "
        "(interface version ",
        version != nullptr ? absl::StrCat(version()) : "missing", ", expected ",
        kPostgresModuleVersion, "): rebuild trnbench"));
  }
  return m;
}

// Beside the running program (an installed or copied trnbench carries its
// module), else where this build put it (the test programs, in a folder of
// their own).
std::string DefaultModulePath() {
  std::error_code ec;
  const std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path beside = self.parent_path() / kPostgresModuleName;
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return TRNBENCH_POSTGRES_MODULE;  // harness/history/CMakeLists.txt
}

absl::StatusOr<std::unique_ptr<SqlDatabase>> ConnectThrough(
    const Module& m, const std::string& url) {
  if (!m.status.ok()) {
    return absl::Status(m.status.code(),
                        absl::StrCat(RedactUrl(url), ": ", m.status.message()));
  }
  absl::StatusOr<std::unique_ptr<SqlDatabase>> out =
      absl::InternalError("the PostgreSQL module returned nothing");
  m.connect(url, out);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgresWith(
    const std::string& module_path, const std::string& url) {
  return ConnectThrough(Load(module_path), url);
}

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenPostgres(
    const std::string& url) {
  // Loaded once, by whichever thread asks first.
  static const Module* const module = new Module(Load(DefaultModulePath()));
  return ConnectThrough(*module, url);
}

}  // namespace trn::history
