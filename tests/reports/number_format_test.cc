// The presentation layer's formatters: one rule per kind of figure, so a
// time, a percent, a ratio, an interval or a p-value reads the same in
// every output.
#include "reports/number_format.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace trn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(NumberFormatTest, TimesScaleToAReadableUnit) {
  EXPECT_EQ(FormatQuantity(19.92, Unit::kMicroseconds), "19.92 \xCE\xBCs");
  EXPECT_EQ(FormatQuantity(405.34, Unit::kMicroseconds), "405.3 \xCE\xBCs");
  EXPECT_EQ(FormatQuantity(2389.125, Unit::kMicroseconds), "2.389 ms");
  EXPECT_EQ(FormatQuantity(3.5e6, Unit::kMicroseconds), "3.500 s");
  EXPECT_EQ(FormatQuantity(kNaN, Unit::kMicroseconds), "n/a");
}

TEST(NumberFormatTest, BytesAreDecimalEverywhere) {
  // One convention, the one of the GB/s they are read against.
  EXPECT_EQ(FormatQuantity(512, Unit::kBytes), "512 B");
  EXPECT_EQ(FormatQuantity(524288, Unit::kBytes), "524.29 kB");
  EXPECT_EQ(FormatQuantity(2.5e6, Unit::kBytes), "2.50 MB");
  EXPECT_EQ(FormatQuantity(2e9, Unit::kBytes), "2.00 GB");
  EXPECT_EQ(FormatQuantity(410, Unit::kGigabytesPerSecond), "410 GB/s");
  EXPECT_EQ(FormatQuantity(5.734, Unit::kGigabytesPerSecond), "5.73 GB/s");
}

TEST(NumberFormatTest, RatesCountsAndIntensities) {
  EXPECT_EQ(FormatQuantity(5288.7, Unit::kPerSecond), "5289 /s");
  EXPECT_EQ(FormatQuantity(91.75e12, Unit::kFlopsPerSecond), "91.8 TFLOP/s");
  EXPECT_EQ(FormatQuantity(143.4e9, Unit::kFlopsPerSecond), "143 GFLOP/s");
  EXPECT_EQ(FormatQuantity(1.72e10, Unit::kFlops), "17.2 GFLOP");
  EXPECT_EQ(FormatQuantity(0.125, Unit::kFlopsPerByte), "0.125 FLOP/B");
  EXPECT_EQ(FormatQuantity(INFINITY, Unit::kFlopsPerByte), "inf");
  EXPECT_EQ(FormatQuantity(3, Unit::kCount), "3");
  EXPECT_EQ(FormatQuantity(0.5, Unit::kCount), "0.500");
}

TEST(NumberFormatTest, PercentsKeepTwoDecimalsAndTinyValuesStayVisible) {
  EXPECT_EQ(FormatPercent(0.412), "41.20%");
  EXPECT_EQ(FormatPercent(0), "0.00%");
  EXPECT_EQ(FormatPercent(3.1e-5), "0.0031%");
  // Float noise (a CV of identical samples) is zero, not 1.2e-14%.
  EXPECT_EQ(FormatPercent(1.2e-16), "0.00%");
  EXPECT_EQ(FormatPercent(-3e-15), "0.00%");
  EXPECT_EQ(FormatPercent(2e-9), "2e-07%");
  EXPECT_EQ(FormatSignedPercent(0.0571), "+5.71%");
  EXPECT_EQ(FormatSignedPercent(-0.0093), "-0.93%");
  EXPECT_EQ(FormatQuantity(0.25, Unit::kFraction), "25.00%");
  EXPECT_EQ(FormatPercent(kNaN), "n/a");
}

TEST(NumberFormatTest, RatiosHaveSignificantDigitsNotFixedDecimals) {
  // A 190-fold slowdown is not "0.01x".
  EXPECT_EQ(FormatRatio(0.005272), "0.00527x");
  EXPECT_EQ(FormatRatio(0.1072), "0.107x");
  EXPECT_EQ(FormatRatio(1.0), "1.00x");
  EXPECT_EQ(FormatRatio(6.034), "6.03x");
  EXPECT_EQ(FormatRatio(12.34), "12.3x");
  EXPECT_EQ(FormatRatio(189.6), "190x");
}

TEST(NumberFormatTest, PValuesIntervalsAndLevels) {
  EXPECT_EQ(FormatPValue(0.04321), "0.0432");
  EXPECT_EQ(FormatPValue(3e-7), "<0.0001");
  EXPECT_EQ(FormatPValue(kNaN), "n/a");
  EXPECT_EQ(FormatInterval(0.05, 0.06, FormatSignedPercent),
            "[+5.00%, +6.00%]");
  EXPECT_EQ(FormatInterval(kNaN, 0.06, FormatSignedPercent), "n/a");
  EXPECT_EQ(FormatLevel(0.95), "95%");
  EXPECT_EQ(FormatLevel(0.995), "99.5%");
}

}  // namespace
}  // namespace trn
