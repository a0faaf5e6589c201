// Tests of loading a spec directory and of the --workload selector.
#include "workloads/loading/spec_catalog.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "device_model/memory_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/spec/spec.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kSpecDir =
    std::string(TRNBENCH_SOURCE_DIR) + "/workloads/specs";

// Debian's Abseil returns its own string_view, which gmock cannot match.
std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

std::vector<std::string> Names(const std::vector<WorkloadSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return names;
}

std::string SmallSpec(std::string_view name, std::string_view family) {
  return std::string(R"({"schema_version": 1, "name": ")") + std::string(name) +
         R"(", "family": ")" + std::string(family) +
         R"(", "description": "d", "mode": "eager",
  "tensors": [{"name": "x", "shape": [4], "dtype": "fp32"},
              {"name": "y", "shape": [4], "dtype": "fp32"}],
  "ops": [{"op": "aten::exp", "inputs": ["x"], "output": "y"}]})";
}

// A fresh directory under the test temp dir, removed again at the end.
class TempSpecDir {
 public:
  explicit TempSpecDir(std::string_view test_name)
      : path_(::testing::TempDir() + "/spec_catalog_test_" +
              std::string(test_name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempSpecDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempSpecDir(const TempSpecDir&) = delete;
  TempSpecDir& operator=(const TempSpecDir&) = delete;

  void Write(std::string_view file, std::string_view text) const {
    std::ofstream out(path_ + "/" + std::string(file), std::ios::binary);
    out << text;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ShippedCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<WorkloadSpec>> all =
        LoadSpecDir(kSpecDir, MemoryLimits{});
    ASSERT_TRUE(all.ok()) << all.status();
    all_ = *std::move(all);
  }
  std::vector<WorkloadSpec> all_;
};

TEST_F(ShippedCatalogTest, LoadsAllSortedByName) {
  EXPECT_THAT(
      Names(all_),
      ElementsAre("exp_size1_250x512", "exp_size2_2048x1024",
                  "exp_size3_8192x2048", "exp_size4_32768x2048", "exp_tiled",
                  "exp_tiled_pipelined", "matmul_bf16_2048", "rmsnorm_compiled",
                  "rmsnorm_fused", "rmsnorm_llm_compiled", "rmsnorm_llm_fused",
                  "rmsnorm_llm_naive", "rmsnorm_naive", "softmax_nki"));
  for (const auto& spec : all_) {
    EXPECT_THAT(spec.file, StartsWith(kSpecDir + "/")) << spec.name;
    EXPECT_EQ(spec.file, kSpecDir + "/" + spec.name + ".json");
  }
}

TEST_F(ShippedCatalogTest, SelectsByFamily) {
  absl::StatusOr<std::vector<WorkloadSpec>> chosen =
      SelectWorkloads(all_, "rmsnorm");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_THAT(Names(*chosen), ElementsAre("rmsnorm_compiled", "rmsnorm_fused",
                                          "rmsnorm_naive"));
}

TEST_F(ShippedCatalogTest, SelectsByName) {
  absl::StatusOr<std::vector<WorkloadSpec>> chosen =
      SelectWorkloads(all_, "rmsnorm_fused");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_THAT(Names(*chosen), ElementsAre("rmsnorm_fused"));
}

TEST_F(ShippedCatalogTest, SelectsAll) {
  absl::StatusOr<std::vector<WorkloadSpec>> chosen =
      SelectWorkloads(all_, "all");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->size(), all_.size());
  EXPECT_GE(chosen->size(), 14u);
}

TEST_F(ShippedCatalogTest, SelectsAListOnceEachInCatalogOrder) {
  absl::StatusOr<std::vector<WorkloadSpec>> chosen =
      SelectWorkloads(all_, "rmsnorm_naive, exp,rmsnorm_naive");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_THAT(Names(*chosen),
              ElementsAre("exp_tiled", "exp_tiled_pipelined", "rmsnorm_naive"));
}

TEST_F(ShippedCatalogTest, UnknownSelectorListsWhatThereIs) {
  absl::StatusOr<std::vector<WorkloadSpec>> chosen =
      SelectWorkloads(all_, "layernorm");
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(chosen.status()),
              HasSubstr("no workload matches \"layernorm\""));
  EXPECT_THAT(Message(chosen.status()),
              HasSubstr("workloads: exp_size1_250x512, exp_size2_2048x1024, "
                        "exp_size3_8192x2048, exp_size4_32768x2048, exp_tiled, "
                        "exp_tiled_pipelined, matmul_bf16_2048, "
                        "rmsnorm_compiled, rmsnorm_fused, "
                        "rmsnorm_llm_compiled, rmsnorm_llm_fused, "
                        "rmsnorm_llm_naive, rmsnorm_naive, softmax_nki; "
                        "families: exp, exp_sizes, matmul, rmsnorm, "
                        "rmsnorm_llm, softmax; or \"all\""));
}

TEST_F(ShippedCatalogTest, EmptySelectorIsAnError) {
  for (std::string_view selector : {"", " , "}) {
    absl::StatusOr<std::vector<WorkloadSpec>> chosen =
        SelectWorkloads(all_, selector);
    ASSERT_FALSE(chosen.ok()) << "selector: '" << selector << "'";
    EXPECT_THAT(Message(chosen.status()), HasSubstr("empty workload selector"));
  }
}

TEST(LoadSpecDirTest, DuplicateNamesNameBothFiles) {
  TempSpecDir dir("duplicate");
  dir.Write("a.json", SmallSpec("same", "f"));
  dir.Write("b.json", SmallSpec("same", "f"));
  absl::StatusOr<std::vector<WorkloadSpec>> all =
      LoadSpecDir(dir.path(), MemoryLimits{});
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(all.status()), StartsWith(dir.path() +
                                                "/b.json: /name: workload name "
                                                "\"same\" is also defined by " +
                                                dir.path() + "/a.json"));
}

TEST(LoadSpecDirTest, ReportsEveryBadFile) {
  TempSpecDir dir("bad_files");
  dir.Write("a.json", "{");
  dir.Write("b.json", SmallSpec("good", "f"));
  dir.Write("c.json", "{}");
  absl::StatusOr<std::vector<WorkloadSpec>> all =
      LoadSpecDir(dir.path(), MemoryLimits{});
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(Message(all.status()),
              StartsWith(dir.path() + "/a.json: /: malformed JSON"));
  EXPECT_THAT(Message(all.status()),
              HasSubstr("\n" + dir.path() + "/c.json: /schema_version: "));
}

TEST(LoadSpecDirTest, SkipsOtherFilesAndSortsByName) {
  TempSpecDir dir("skips");
  dir.Write("1.json", SmallSpec("zeta", "f"));
  dir.Write("2.json", SmallSpec("alpha", "f"));
  dir.Write("notes.txt", "not a spec");
  dir.Write(".backup.json", "{");
  std::filesystem::create_directories(dir.path() + "/sub.json");
  absl::StatusOr<std::vector<WorkloadSpec>> all =
      LoadSpecDir(dir.path(), MemoryLimits{});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Names(*all), ElementsAre("alpha", "zeta"));
}

TEST(LoadSpecDirTest, MissingDirectoryIsNotFound) {
  const std::string path = kSpecDir + "/no_such_dir";
  absl::StatusOr<std::vector<WorkloadSpec>> all =
      LoadSpecDir(path, MemoryLimits{});
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(all.status()), StartsWith(path + ": "));
}

TEST(LoadSpecDirTest, DirectoryWithoutSpecsIsAnError) {
  TempSpecDir dir("empty");
  absl::StatusOr<std::vector<WorkloadSpec>> all =
      LoadSpecDir(dir.path(), MemoryLimits{});
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(all.status()), HasSubstr("holds no spec files"));
}

}  // namespace
}  // namespace trn
