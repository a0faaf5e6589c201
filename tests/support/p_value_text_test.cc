// One p-value format in tables and sentences: the gate's reasons, the
// history's alerts and every report write p-values through these.
#include "support/p_value_text.h"

#include <limits>

#include "gtest/gtest.h"

namespace trn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(PValueTextTest, CellsHaveFourDecimalsAndAFloor) {
  EXPECT_EQ(FormatPValue(0.04321), "0.0432");
  EXPECT_EQ(FormatPValue(1), "1.0000");
  EXPECT_EQ(FormatPValue(1e-4), "0.0001");
  EXPECT_EQ(FormatPValue(1.5e-16), "<0.0001");
  EXPECT_EQ(FormatPValue(0), "<0.0001");
  EXPECT_EQ(FormatPValue(kNaN), "n/a");
}

// The console said "adjusted p = 1.5e-16" where the table said "<0.0001".
TEST(PValueTextTest, SentencesAgreeWithTheTables) {
  EXPECT_EQ(PValueClause("adjusted p", 1.5e-16), "adjusted p < 0.0001");
  EXPECT_EQ(PValueClause("adjusted p", 0.0123), "adjusted p = 0.0123");
  EXPECT_EQ(PValueClause("q", 0.00034), "q = 0.0003");
  EXPECT_EQ(PValueClause("p", kNaN), "p n/a");
}

}  // namespace
}  // namespace trn
