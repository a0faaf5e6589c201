#include "support/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "input_file" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(InputFileTest, ReadsARegularFile) {
  const fs::path dir = FreshDir("regular");
  std::ofstream(dir / "a.json") << "{\"x\": 1}";
  auto text = ReadInputFile((dir / "a.json").string(), 100, "spec file");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{\"x\": 1}");
}

// A FIFO that nobody writes would block a plain open() forever: it is
// refused at once.
TEST(InputFileTest, ANamedPipeIsRefusedAtOnce) {
  const fs::path dir = FreshDir("fifo");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto text = ReadInputFile(fifo, 100, "baseline or results file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(text.status().message(),
            fifo +
                ": is a named pipe (FIFO); expected a regular baseline or "
                "results file");
}

TEST(InputFileTest, DevicesFoldersAndMissingFilesAreRefused) {
  const fs::path dir = FreshDir("kinds");
  auto zero = ReadInputFile("/dev/zero", 100, "spec file");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "/dev/zero: is a device; expected a regular spec file");
  auto folder = ReadInputFile(dir.string(), 100, "spec file");
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.status().message(), HasSubstr(": is a folder"));
  auto missing = ReadInputFile((dir / "nope.json").string(), 100, "spec file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no such spec file"));
}

TEST(InputFileTest, AFileOverTheLimitIsRefusedWithoutReadingIt) {
  const fs::path dir = FreshDir("large");
  std::ofstream(dir / "big.json") << std::string(2000, ' ');
  auto text = ReadInputFile((dir / "big.json").string(), 1024, "spec file");
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr(": /: file is larger than"));
  auto custom = ReadInputFile((dir / "big.json").string(), 1024, "spec file",
                              "a spec may be at most 1 KiB");
  ASSERT_FALSE(custom.ok());
  EXPECT_EQ(custom.status().message(),
            (dir / "big.json").string() + ": /: a spec may be at most 1 KiB");
}

// `compare <(git show REV:file) file`: the shell hands over an anonymous
// pipe, which has a writer; it is read, up to the limit.
TEST(InputFileTest, AnAnonymousPipeIsRead) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "{}", 2), 2);
  close(fds[1]);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  auto text = ReadInputFile(path, 100, "baseline or results file");
  close(fds[0]);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{}");
}

}  // namespace
}  // namespace trn
