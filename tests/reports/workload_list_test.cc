#include "reports/workload_list.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

TEST(FirstSentenceTest, StopsAtTheFirstSentence) {
  EXPECT_EQ(FirstSentence("One thing (a.b). Then more. And more.", 100),
            "One thing (a.b).");
  EXPECT_EQ(FirstSentence("No full stop at all", 100), "No full stop at all");
}

TEST(FirstSentenceTest, CutsALongSentenceAtAWordWithAnEllipsis) {
  const std::string s = FirstSentence("alpha beta gamma delta epsilon", 16);
  EXPECT_EQ(s, "alpha beta...");
  EXPECT_LE(s.size(), 16u);
}

TEST(FirstSentenceTest, NeverSplitsAUtf8Character) {
  // "×" is two bytes; 40 of them and no space to cut at.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "\xc3\x97";
  const std::string s = FirstSentence(text, 10);
  EXPECT_THAT(s, EndsWith("..."));
  EXPECT_EQ((s.size() - 3) % 2, 0u) << s;
  EXPECT_LE(s.size(), 10u);
}

TEST(WorkloadListTest, ShippedSpecsFitOneAlignedLineEach) {
  const DeviceProfile trn1 = report_test::Trn1();
  const std::vector<WorkloadSpec> specs = report_test::Specs("all", trn1);
  const std::string list = RenderWorkloadList(specs, 100);
  EXPECT_THAT(list, HasSubstr("\nfamily rmsnorm\n"));
  // It starts with the first family, not an empty line.
  EXPECT_EQ(list.rfind("family ", 0), 0u) << list.substr(0, 40);
  size_t rows = 0;
  size_t mode_column = std::string::npos;
  for (absl::string_view line : absl::StrSplit(list, '\n')) {
    EXPECT_LE(line.size(), 100u) << line;
    if (!absl::StartsWith(line, "  ")) continue;
    ++rows;
    // Every mode starts in the same column, whatever the name's length.
    size_t name_end = line.find(' ', 2);
    size_t col = line.find_first_not_of(' ', name_end);
    if (mode_column == std::string::npos) mode_column = col;
    EXPECT_EQ(col, mode_column) << line;
  }
  EXPECT_EQ(rows, specs.size());
}

}  // namespace
}  // namespace trn
