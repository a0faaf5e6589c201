// Loading the measured fixtures of tests/data/measured for the import tests.
#ifndef TRNBENCH_TESTS_HARNESS_IMPORT_TEST_UTIL_H_
#define TRNBENCH_TESTS_HARNESS_IMPORT_TEST_UTIL_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/import/importer.h"
#include "harness/import/measured_file.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn::import {

inline std::string MeasuredPath(const std::string& rel) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/tests/data/measured/" + rel;
}

// Reads the fixtures `rels` and imports them; fails the test on error.
inline RunResult ImportFixtures(const std::vector<std::string>& rels,
                                const ImportRequest& request = {}) {
  std::vector<MeasuredFile> files;
  for (const std::string& rel : rels) {
    auto f = ReadMeasuredFile(MeasuredPath(rel));
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return {};
    files.push_back(*std::move(f));
  }
  auto run = ImportMeasured(files, request);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *std::move(run) : RunResult{};
}

// Imports `text` given as the content of a file named `name`.
inline absl::StatusOr<RunResult> ImportText(const std::string& name,
                                            const std::string& text,
                                            const ImportRequest& request = {}) {
  auto f = MeasuredFileFromBytes(name, text);
  if (!f.ok()) return f.status();
  return ImportMeasured({*f}, request);
}

}  // namespace trn::import

#endif  // TRNBENCH_TESTS_HARNESS_IMPORT_TEST_UTIL_H_
