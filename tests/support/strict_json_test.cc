#include "support/strict_json.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// Collects what ParseStrictJson hands it; takes the elements when `take`.
class RecordingSink : public JsonElementSink {
 public:
  explicit RecordingSink(bool take) : take_(take) {}
  std::string_view key() const override { return "w"; }
  bool Open(const nlohmann::json& root) override {
    root_at_open = root;
    return take_;
  }
  void Element(size_t index, nlohmann::json&& element) override {
    elements.emplace_back(index, element.dump());
  }
  nlohmann::json root_at_open;
  std::vector<std::pair<size_t, std::string>> elements;

 private:
  bool take_;
};

TEST(StrictJsonTest, ASinkTakesTheElementsOfItsArrayInOrder) {
  RecordingSink sink(/*take=*/true);
  auto r = ParseStrictJson(R"({"a": 1, "w": [{"x": [1, 2]}, 3, []], "b": 2})",
                           "f", {}, nullptr, &sink);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(sink.root_at_open.dump(), R"({"a":1,"w":null})");
  EXPECT_THAT(sink.elements,
              ::testing::ElementsAre(
                  std::pair<size_t, std::string>(0, R"({"x":[1,2]})"),
                  std::pair<size_t, std::string>(1, "3"),
                  std::pair<size_t, std::string>(2, "[]")));
  EXPECT_EQ(r->dump(), R"({"a":1,"b":2,"w":[]})");
}

TEST(StrictJsonTest, ASinkThatDeclinesLeavesTheTreeWhole) {
  RecordingSink sink(/*take=*/false);
  auto r =
      ParseStrictJson(R"({"w": [1, {"w": [2]}]})", "f", {}, nullptr, &sink);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(sink.elements.empty());
  EXPECT_EQ(r->dump(), R"({"w":[1,{"w":[2]}]})");
}

TEST(StrictJsonTest, AStreamedArrayKeepsItsChecksAndPaths) {
  RecordingSink sink(/*take=*/true);
  EXPECT_THAT(Message(ParseStrictJson(R"({"w": [{}, {"k": 1, "k": 2}]})", "f",
                                      {}, nullptr, &sink)),
              StartsWith("f: /w/1/k: duplicate key \"k\""));
}

TEST(StrictJsonTest, ReleaseJsonTreeEmptiesATree) {
  auto r = ParseStrictJson(R"({"a": [1, {"b": [[], {}]}], "c": "s"})", "f");
  ASSERT_TRUE(r.ok()) << r.status();
  ReleaseJsonTree(*r);
  EXPECT_EQ(r->dump(), "{}");
}

}  // namespace
}  // namespace trn
