// Checks every project #include of the tree against the include matrix in
// docs/architecture.md, so that no layer includes one above it. The matrix
// is read from the document, so the document and the check cannot drift.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;

// Folder (with a trailing '/') -> folders it may include from.
using Matrix = std::map<std::string, std::set<std::string>>;

std::string Root() { return TRNBENCH_SOURCE_DIR; }

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Rows of the "Include matrix" table: | `folder/` | `a/`, `b/` |.
Matrix ReadMatrix() {
  Matrix matrix;
  std::istringstream doc(Slurp(Root() + "/docs/architecture.md"));
  std::string line;
  bool in_section = false;
  const std::regex row(R"(^\| `([a-z_/]+/)` \| (.*) \|\s*$)");
  const std::regex folder(R"(`([a-z_/]+/)`)");
  while (std::getline(doc, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Include matrix";
    std::smatch m;
    if (!in_section || !std::regex_match(line, m, row)) continue;
    std::set<std::string> allowed;
    const std::string cell = m[2];
    for (std::sregex_iterator it(cell.begin(), cell.end(), folder), end;
         it != end; ++it) {
      allowed.insert((*it)[1]);
    }
    matrix[m[1]] = allowed;
  }
  return matrix;
}

// The matrix folder a path belongs to: the longest folder that prefixes it.
std::string FolderOf(const Matrix& matrix, const std::string& path) {
  std::string best;
  for (const auto& [folder, unused] : matrix) {
    if (path.rfind(folder, 0) == 0 && folder.size() > best.size()) {
      best = folder;
    }
  }
  return best;
}

bool IsSource(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".cc";
}

// Every source file of the project, relative to the root, outside build
// trees and hidden folders.
std::vector<std::string> ProjectSources() {
  std::vector<std::string> files;
  const fs::path root(Root());
  for (auto it = fs::recursive_directory_iterator(root);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (name.empty() || name[0] == '.' || name.rfind("build", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && IsSource(it->path())) {
      files.push_back(fs::relative(it->path(), root).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The project's top-level folders: an include naming one of them is a
// project include; anything else ("absl/…", "gtest/…") is a library.
std::set<std::string> TopLevels(const Matrix& matrix) {
  std::set<std::string> tops;
  for (const auto& [folder, unused] : matrix) {
    tops.insert(folder.substr(0, folder.find('/') + 1));
  }
  return tops;
}

TEST(Layering, MatrixIsReadFromTheDocument) {
  const Matrix matrix = ReadMatrix();
  ASSERT_TRUE(matrix.count("support/")) << "docs/architecture.md";
  EXPECT_TRUE(matrix.at("support/").empty());
  EXPECT_THAT(matrix.at("harness/"),
              ::testing::Not(::testing::Contains("reports/")));
  EXPECT_TRUE(matrix.at("tools/trnbench/").count("reports/"));
  EXPECT_GE(matrix.size(), 10u);
}

TEST(Layering, EverySourceFileHasALayer) {
  const Matrix matrix = ReadMatrix();
  for (const std::string& file : ProjectSources()) {
    EXPECT_NE(FolderOf(matrix, file), "")
        << file << " is in no folder of the include matrix";
  }
}

TEST(Layering, NoIncludeRunsUpTheLayers) {
  const Matrix matrix = ReadMatrix();
  const std::set<std::string> tops = TopLevels(matrix);
  const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
  int checked = 0;
  for (const std::string& file : ProjectSources()) {
    const std::string from = FolderOf(matrix, file);
    if (from.empty()) continue;  // reported by EverySourceFileHasALayer
    std::istringstream text(Slurp(Root() + "/" + file));
    std::string line;
    int line_no = 0;
    while (std::getline(text, line)) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[1];
      const std::string top = target.substr(0, target.find('/') + 1);
      if (!tops.count(top)) continue;
      ++checked;
      const std::string to = FolderOf(matrix, target);
      bool ok = to == from;
      for (const std::string& allowed : matrix.at(from)) {
        ok = ok || to.rfind(allowed, 0) == 0;  // `tests/` admits its subfolders
      }
      EXPECT_TRUE(ok) << file << ":" << line_no << " includes " << target
                      << " (" << (to.empty() ? "no layer" : to) << "), which "
                      << from << " may not include (docs/architecture.md)";
    }
  }
  EXPECT_GT(checked, 200);
}

// The rule holds for a planted violation: the check is not vacuous.
TEST(Layering, AViolationIsSeen) {
  const Matrix matrix = ReadMatrix();
  const std::string from = FolderOf(matrix, "harness/runner/runner.cc");
  const std::string to = FolderOf(matrix, "reports/console_report.h");
  EXPECT_EQ(from, "harness/runner/");
  EXPECT_EQ(to, "reports/");
  EXPECT_FALSE(matrix.at(from).count(to));
}

// The harness is layered inside: statistics know nothing of baselines, and
// the gate nothing of validation, while the layers above see every part.
TEST(Layering, HarnessSubfoldersAreLayered) {
  const Matrix matrix = ReadMatrix();
  for (const char* sub : {"statistics", "runner", "profile", "import", "gate",
                          "validation", "history"}) {
    const std::string folder = std::string("harness/") + sub + "/";
    EXPECT_TRUE(matrix.count(folder)) << folder << " has no row";
    EXPECT_FALSE(matrix.at(folder).count("harness/")) << folder;
  }
  const auto allows = [&](const std::string& from, const std::string& to) {
    return matrix.at(FolderOf(matrix, from)).count(FolderOf(matrix, to)) > 0;
  };
  EXPECT_FALSE(allows("harness/statistics/statistics.cc",
                      "harness/gate/baseline_store.h"));
  EXPECT_FALSE(
      allows("harness/gate/comparison.cc", "harness/validation/validation.h"));
  EXPECT_FALSE(allows("harness/runner/runner.cc", "harness/import/imported.h"));
  EXPECT_TRUE(
      allows("harness/gate/comparison.cc", "harness/statistics/statistics.h"));
  // Every file of the harness lives in one of its subfolders.
  for (const auto& entry : fs::directory_iterator(Root() + "/harness")) {
    EXPECT_FALSE(IsSource(entry.path())) << entry.path();
  }
}

// The workloads layer is layered the same way: the spec format knows no
// compiler, the compiler no lowering and no parser, so that a new construct
// has one home per stage.
TEST(Layering, WorkloadsSubfoldersAreLayered) {
  const Matrix matrix = ReadMatrix();
  for (const char* sub : {"spec", "compiler", "lowering", "loading"}) {
    const std::string folder = std::string("workloads/") + sub + "/";
    ASSERT_TRUE(matrix.count(folder)) << folder << " has no row";
    EXPECT_FALSE(matrix.at(folder).count("workloads/")) << folder;
  }
  const auto allows = [&](const std::string& from, const std::string& to) {
    return matrix.at(FolderOf(matrix, from)).count(FolderOf(matrix, to)) > 0;
  };
  EXPECT_FALSE(allows("workloads/spec/spec_validator.cc",
                      "workloads/compiler/compiler.h"));
  EXPECT_FALSE(allows("workloads/compiler/compiler.cc",
                      "workloads/lowering/lowering.h"));
  EXPECT_FALSE(allows("workloads/compiler/compiler.cc",
                      "workloads/loading/spec_parser.h"));
  EXPECT_FALSE(allows("workloads/lowering/lowering.cc",
                      "workloads/loading/spec_parser.h"));
  EXPECT_TRUE(allows("workloads/loading/spec_parser.cc",
                     "workloads/compiler/compiler.h"));
  EXPECT_TRUE(
      allows("workloads/lowering/lowering.cc", "workloads/spec/nki_loops.h"));
  // Every C++ file of the layer lives in one of its subfolders.
  for (const auto& entry : fs::directory_iterator(Root() + "/workloads")) {
    EXPECT_FALSE(IsSource(entry.path())) << entry.path();
  }
}

}  // namespace
