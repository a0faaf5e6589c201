#include "support/message_text.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(EscapeControlTest, EscapesEveryControlCharacterAndKeepsTheRest) {
  EXPECT_EQ(EscapeControl("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(EscapeControl(std::string("\x1b[2J\x7f\x00", 6)),
            "\\u001b[2J\\u007f\\u0000");
  EXPECT_EQ(EscapeControl("plain \"text\" \\ µs"), "plain \"text\" \\ µs");
}

TEST(ShortenForTerminalTest, LeavesAnOrdinaryMessageAlone) {
  const std::string m =
      "spec.json: /tensors/0/dtype: unknown dtype \"fp8\"; expected one of "
      "bf16, fp16, fp32, int8, int32";
  EXPECT_EQ(ShortenForTerminal(m), m);
}

TEST(ShortenForTerminalTest, CutsAnEchoedValueToItsHeadAndTail) {
  const std::string key(900000, 'k');
  const std::string m = "spec.json: /" + key + ": unknown key \"" + key +
                        "\" in a spec; allowed keys: name, family";
  const std::string shown = ShortenForTerminal(m);
  EXPECT_LE(shown.size(), kMaxMessageLineBytes);
  EXPECT_THAT(shown, StartsWith("spec.json: /kkkk"));
  EXPECT_THAT(shown, HasSubstr("...[899"));
  EXPECT_THAT(shown, EndsWith("in a spec; allowed keys: name, family"));
}

TEST(ShortenForTerminalTest, BoundsALineOfManyShortWords) {
  std::string m = "spec.json: /: ";
  for (int i = 0; i < 100000; ++i) m += "word ";
  m += "and what was expected";
  const std::string shown = ShortenForTerminal(m);
  EXPECT_LE(shown.size(), kMaxMessageLineBytes);
  EXPECT_THAT(shown, StartsWith("spec.json: /: word"));
  EXPECT_THAT(shown, EndsWith("and what was expected"));
}

TEST(ShortenForTerminalTest, NeverCutsAUtf8Character) {
  std::string key;
  for (int i = 0; i < 1000; ++i) key += "µ";  // two bytes each
  const std::string shown = ShortenForTerminal("f: /" + key + ": bad");
  // Every multi-byte sequence is whole: lead bytes and continuation bytes
  // come in pairs.
  int lead = 0;
  int continuation = 0;
  for (char c : shown) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0xC0) ++lead;
    if (u >= 0x80 && u < 0xC0) ++continuation;
  }
  EXPECT_EQ(lead, continuation);
  EXPECT_LT(shown.size(), key.size());
}

TEST(ShortenForTerminalTest, EscapesWhatItShows) {
  EXPECT_EQ(ShortenForTerminal("f: /a\nb: bad"), "f: /a\\nb: bad");
}

}  // namespace
}  // namespace trn
