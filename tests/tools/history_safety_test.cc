// The history's faults as bad input (issues 24 and 26): a reading command
// never creates a database and refuses one that is missing, empty, a
// special file or altered outside trnbench; ingest on a full disk leaves
// nothing behind; a filter that selects nothing is an error. Each is exit
// 2 with one line naming the database.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using test::RunTrnbench;
using ::testing::HasSubstr;

class HistorySafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshDir("history_safety");
    results_ = dir_ + "/results.json";
    ASSERT_EQ(
        RunTrnbench("--workload rmsnorm --repeat 5 --output " + results_).code,
        0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A database holding one ingested run.
  std::string Ingested(const std::string& name) {
    const std::string db = dir_ + "/" + name;
    const auto r = RunTrnbench("history ingest " + results_ + " --db " + db +
                               " --night 2026-11-01");
    EXPECT_EQ(r.code, 0) << r.err;
    return db;
  }
  static int Sql(const std::string& db, const std::string& sql) {
    return std::system(
        ("sqlite3 '" + db + "' '" + sql + "' >/dev/null 2>&1").c_str());
  }
  // Exit 2, exactly one line, naming `what`.
  static void ExpectOneLine(const test::Outcome& r, const std::string& what) {
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(what));
    EXPECT_THAT(r.err, Not(HasSubstr("internal error")));
  }

  std::string dir_;
  std::string results_;
};

using ::testing::Not;

TEST_F(HistorySafetyTest, ReadersNeverCreateADatabase) {
  const std::string typo = dir_ + "/typo.db";
  for (const std::string& sub : {std::string("show"), std::string("detect"),
                                 "trend --report-dir " + dir_ + "/trend"}) {
    const auto r = RunTrnbench("history " + sub + " --db " + typo);
    ExpectOneLine(r, typo + ": no history database there");
    EXPECT_FALSE(fs::exists(typo)) << sub;
    EXPECT_FALSE(fs::exists(dir_ + "/trend")) << sub;
  }
  // gate --shard --db reads the recorded durations: a history that is not
  // there is an error, not an even split.
  const auto gate = RunTrnbench("--workload all --repeat 3 --shard 1/2 --db " +
                                typo + " --output " + dir_ + "/s.json");
  ExpectOneLine(gate, typo + ": no history database there");
  EXPECT_FALSE(fs::exists(typo));
  EXPECT_FALSE(fs::exists(dir_ + "/s.json"));
  // An empty file is no history either.
  const std::string empty = dir_ + "/empty.db";
  { std::ofstream(empty).flush(); }
  ExpectOneLine(RunTrnbench("history detect --db " + empty),
                empty + ": an empty database");
  EXPECT_EQ(fs::file_size(empty), 0u);
}

TEST_F(HistorySafetyTest, SpecialFilesAreRefused) {
  ExpectOneLine(RunTrnbench("history show --db /dev/null"),
                "/dev/null: not a regular file");
  ExpectOneLine(RunTrnbench("history ingest " + results_ + " --db /dev/null"),
                "/dev/null: not a regular file");
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectOneLine(RunTrnbench("history detect --db " + fifo, "timeout 20"),
                fifo + ": not a regular file");
  ExpectOneLine(
      RunTrnbench("history ingest " + results_ + " --db " + fifo, "timeout 20"),
      fifo + ": not a regular file");
  ExpectOneLine(RunTrnbench("history show --db " + dir_),
                dir_ + ": not a regular file");
}

TEST_F(HistorySafetyTest, AlteredDatabasesAreRefused) {
  const std::string emptied = Ingested("emptied.db");
  ASSERT_EQ(Sql(emptied, "DELETE FROM schema_version"), 0);
  ExpectOneLine(RunTrnbench("history detect --db " + emptied),
                "schema_version table is empty");
  ExpectOneLine(RunTrnbench("history ingest " + results_ + " --db " + emptied +
                            " --run-id other"),
                "schema_version table is empty");
  const std::string dropped = Ingested("dropped.db");
  ASSERT_EQ(Sql(dropped, "DROP TABLE workloads"), 0);
  ExpectOneLine(RunTrnbench("history show --db " + dropped),
                "lacks the table workloads");
  ExpectOneLine(RunTrnbench("history ingest " + results_ + " --db " + dropped +
                            " --run-id other"),
                "lacks the table workloads");
  const std::string foreign = dir_ + "/foreign.db";
  ASSERT_EQ(Sql(foreign, "CREATE TABLE t (x INTEGER)"), 0);
  ExpectOneLine(RunTrnbench("history ingest " + results_ + " --db " + foreign),
                "not a trnbench history database");
}

TEST_F(HistorySafetyTest, IngestOnAFullDiskLeavesNothingBehind) {
  // SIGXFSZ ignored and a 40 KiB file size limit: the first writes succeed,
  // a later one fails as on a full disk.
  const std::string fresh = dir_ + "/fresh.db";
  const auto r = RunTrnbench("history ingest " + results_ + " --db " + fresh,
                             "trap '' XFSZ; ulimit -f 40;");
  ExpectOneLine(r, fresh + ": ");
  EXPECT_THAT(r.err, HasSubstr("cannot read or write the database file"));
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    EXPECT_FALSE(fs::exists(fresh + suffix)) << suffix;
  }
  // An existing database keeps its last committed state.
  const std::string kept = Ingested("kept.db");
  const std::string before = test::Slurp(kept);
  const std::string big = dir_ + "/big.json";
  ASSERT_EQ(RunTrnbench("--workload all --repeat 20 --output " + big).code, 0);
  const auto full =
      RunTrnbench("history ingest " + big + " --db " + kept,
                  "trap '' XFSZ; ulimit -f " +
                      std::to_string(fs::file_size(kept) / 1024 + 8) + ";");
  ExpectOneLine(full, kept + ": ");
  // The database file is untouched (a torn write stays in SQLite's
  // write-ahead log, which the next open discards) and reads as before.
  EXPECT_EQ(test::Slurp(kept), before);
  const auto show = RunTrnbench("history show --db " + kept);
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("1 run in the history"));
}

TEST_F(HistorySafetyTest, SqliteUrlsAndEmptyFilters) {
  // SQLAlchemy's form: sqlite:/// then the path.
  const std::string db = dir_ + "/url.db";
  auto r = RunTrnbench("history ingest " + results_ + " --db sqlite:///" + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(db));
  r = RunTrnbench("history show --db sqlite:///" + db);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 run in the history"));
  ExpectOneLine(RunTrnbench("history show --db sqlite://"),
                "--db=sqlite://: expected an SQLite file");
  // A filter that matches nothing is a typo, not "no alerts".
  r = RunTrnbench("history detect --db " + db + " --workload rmsnorm_fuse");
  ExpectOneLine(r, "no series matches the filter (--workload=rmsnorm_fuse");
  EXPECT_THAT(r.err, HasSubstr("rmsnorm_fused"));
  ExpectOneLine(RunTrnbench("history detect --db " + db + " --device trn2"),
                "--device=trn2");
  EXPECT_EQ(RunTrnbench("history detect --db " + db + " --workload " +
                        "rmsnorm_fused")
                .code,
            0);
}

}  // namespace
}  // namespace trn
