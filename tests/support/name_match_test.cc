#include "support/name_match.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

using ::testing::ElementsAre;

TEST(EditDistance, CountsEditsAndTranspositions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("matmull", "matmul"), 1u);
  EXPECT_EQ(EditDistance("worklaod", "workload"), 1u);  // transposition
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(GlobMatch, ShellRules) {
  EXPECT_TRUE(GlobMatch("rmsnorm_*", "rmsnorm_fused"));
  EXPECT_FALSE(GlobMatch("rmsnorm_*", "exp_tiled"));
  EXPECT_TRUE(GlobMatch("*_fused", "rmsnorm_llm_fused"));
  EXPECT_TRUE(GlobMatch("exp_size?_*", "exp_size3_8192x2048"));
  EXPECT_TRUE(GlobMatch("exp_size[1-2]*", "exp_size2_2048x1024"));
  EXPECT_FALSE(GlobMatch("exp_size[1-2]*", "exp_size3_8192x2048"));
  EXPECT_TRUE(GlobMatch("exp_size[!1]*", "exp_size3_8192x2048"));
  EXPECT_TRUE(GlobMatch("a[b", "a[b"));  // an unclosed set is literal
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("?", ""));
  EXPECT_TRUE(GlobMatch("*a*b*c", "xxaybzzc"));
  EXPECT_FALSE(GlobMatch("*a*b*c", "xxaybzz"));
  EXPECT_TRUE(IsGlob("rms*"));
  EXPECT_FALSE(IsGlob("rmsnorm"));
}

TEST(DidYouMean, SuggestsCloseNamesOnly) {
  const std::vector<std::string> names = {"rmsnorm_fused", "rmsnorm_naive",
                                          "matmul_bf16_2048", "matmul",
                                          "exp_tiled"};
  EXPECT_THAT(ClosestNames("rmsnorm_fuse", names),
              ElementsAre("rmsnorm_fused"));
  EXPECT_EQ(DidYouMean("matmull", names), "; did you mean matmul?");
  EXPECT_EQ(DidYouMean("zzz", names), "");
  EXPECT_EQ(DidYouMean("worklaod", {"workload", "warmup"}, "--"),
            "; did you mean --workload?");
}

}  // namespace
}  // namespace trn
