// Runs the trnbench binary the way a user does, for the end-to-end tests
// of every part.
#ifndef TRNBENCH_TESTS_RUN_TRNBENCH_H_
#define TRNBENCH_TESTS_RUN_TRNBENCH_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

#ifndef TRNBENCH_BINARY
#define TRNBENCH_BINARY "trnbench"
#endif

namespace trn::test {

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An empty folder under the test temp folder, named `name` and this
// process's pid (ctest -j runs the tests of one file in parallel).
inline std::string FreshDir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      ("trnbench_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` through the shell, stdin empty; `prefix`
// goes before it (environment assignments, `ulimit -f`, `trap`), in that
// shell only.
inline Outcome RunTrnbench(const std::string& args,
                           const std::string& prefix = "") {
  static int counter = 0;
  const std::string dir = ::testing::TempDir();
  // The pid too: ctest -j runs the tests of one file in parallel processes.
  const std::string tag =
      std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string out = dir + "/trnbench_out_" + tag;
  const std::string err = dir + "/trnbench_err_" + tag;
  // A CI job's own step summary must not collect the tests' reports.
  const std::string cmd = "unset GITHUB_STEP_SUMMARY; " + prefix + " " +
                          std::string(TRNBENCH_BINARY) + " " + args + " >" +
                          out + " 2>" + err + " </dev/null";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = Slurp(out);
  o.err = Slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return o;
}

}  // namespace trn::test

#endif  // TRNBENCH_TESTS_RUN_TRNBENCH_H_
