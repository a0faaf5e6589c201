#include "support/strict_json.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Message(const absl::StatusOr<nlohmann::json>& r) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

TEST(StrictJsonTest, ParsesAnOrdinaryDocument) {
  auto r = ParseStrictJson(R"({"a": [1, {"b": 2.5}], "c": null})", "f.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)["a"][1]["b"].get<double>(), 2.5);
}

TEST(StrictJsonTest, TheSameKeyInDifferentObjectsIsFine) {
  EXPECT_TRUE(ParseStrictJson(R"({"a": {"x": 1}, "b": {"x": 2}})", "f").ok());
  EXPECT_TRUE(ParseStrictJson(R"([{"x": 1}, {"x": 2}])", "f").ok());
}

TEST(StrictJsonTest, RefusesADuplicateKeyWithItsPath) {
  // nlohmann alone would keep the second list and say nothing.
  auto r = ParseStrictJson(
      R"({"metrics": [{"ok": 1}, {"samples": [1], "samples": [9]}]})",
      "b.json");
  EXPECT_EQ(Message(r),
            "b.json: /metrics/1/samples: duplicate key \"samples\"; each key "
            "may appear once in an object");
}

TEST(StrictJsonTest, EscapesPointerTokensAndControlCharacters) {
  auto r = ParseStrictJson("{\"a/b~\\n\": 1, \"a/b~\\n\": 2}", "f");
  EXPECT_THAT(Message(r), StartsWith("f: /a~1b~0\\n: duplicate key"));
}

TEST(StrictJsonTest, RefusesDeepNestingWhereItStartsAndAppendsTheNote) {
  const std::string text(kMaxJsonDepth + 1, '[');
  auto r = ParseStrictJson(text + std::string(kMaxJsonDepth + 1, ']'), "d",
                           "this file needs 3");
  const std::string m = Message(r);
  EXPECT_THAT(m, StartsWith("d: /0/0/0"));
  EXPECT_THAT(m, HasSubstr("JSON nested deeper than 64 levels; this file "
                           "needs 3"));
  // Exactly at the limit is accepted.
  EXPECT_TRUE(ParseStrictJson(std::string(kMaxJsonDepth, '[') +
                                  std::string(kMaxJsonDepth, ']'),
                              "d")
                  .ok());
}

TEST(StrictJsonTest, MalformedJsonSaysWhereAndWhy) {
  EXPECT_THAT(Message(ParseStrictJson("{\"a\": 1,}", "m.json")),
              StartsWith("m.json: /: malformed JSON: parse error at line 1, "
                         "column 9"));
  EXPECT_THAT(Message(ParseStrictJson("", "m.json")),
              StartsWith("m.json: /: malformed JSON"));
  EXPECT_THAT(Message(ParseStrictJson("[NaN]", "m.json")),
              HasSubstr("malformed JSON"));
  EXPECT_THAT(Message(ParseStrictJson("[1e400]", "m.json")),
              HasSubstr("number overflow parsing '1e400'"));
  EXPECT_THAT(Message(ParseStrictJson("{} {}", "m.json")),
              HasSubstr("malformed JSON"));
}

}  // namespace
}  // namespace trn
