#include "support/json_reader.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace trn {
namespace {

using Json = nlohmann::json;
using ::testing::ElementsAre;

constexpr int64_t kIntMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kIntMax = std::numeric_limits<int64_t>::max();

// The whole message of a refusal, which must be InvalidArgument.
template <typename T>
std::string Refusal(const absl::StatusOr<T>& r) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}
std::string Refusal(const absl::Status& s) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  return std::string(s.message());
}

class JsonReaderTest : public ::testing::Test {
 protected:
  const JsonReader r_{"f.json"};
};

TEST(JsonLocationTest, WritesThePointerOnlyWhenAsked) {
  EXPECT_EQ(JsonLocation("").Pointer(), "");
  EXPECT_EQ(JsonLocation("/a/0").Pointer(), "/a/0");
  EXPECT_EQ(JsonLocation(std::string("/a")).Pointer(), "/a");
  EXPECT_EQ(JsonLocation("/a", "b").Pointer(), "/a/b");
  EXPECT_EQ(JsonLocation("", "a/b~c").Pointer(), "/a~1b~0c");
  EXPECT_EQ(JsonLocation("/a", size_t{3}).Pointer(), "/a/3");
}

TEST(DescribeJsonTest, SaysTheKindAndTheValue) {
  EXPECT_EQ(DescribeJson(Json{{"a", 1}}), "an object");
  EXPECT_EQ(DescribeJson(Json::object()), "an empty object");
  EXPECT_EQ(DescribeJson(Json::array({1})), "an array");
  EXPECT_EQ(DescribeJson(Json::array()), "an empty array");
  EXPECT_EQ(DescribeJson(Json(nullptr)), "null");
  EXPECT_EQ(DescribeJson(Json(true)), "boolean true");
  EXPECT_EQ(DescribeJson(Json("x")), "string \"x\"");
  EXPECT_EQ(DescribeJson(Json(3)), "number 3");
  EXPECT_EQ(DescribeJson(Json(-2.5)), "number -2.5");
  EXPECT_EQ(DescribeJson(Json(std::string(100, 'a'))),
            "string \"" + std::string(56, 'a') + "...");
}

TEST(JoinNamesTest, CommaSeparated) {
  constexpr std::string_view kNames[] = {"a", "b", "c"};
  EXPECT_EQ(JoinNames(kNames), "a, b, c");
  EXPECT_EQ(JoinNames({}), "");
}

TEST_F(JsonReaderTest, ErrorAndExpected) {
  EXPECT_EQ(r_.file(), "f.json");
  EXPECT_EQ(Refusal(r_.Error("", "bad")), "f.json: /: bad");
  EXPECT_EQ(Refusal(r_.Error({"/a", "b"}, "bad")), "f.json: /a/b: bad");
  EXPECT_EQ(Refusal(r_.Expected("/x", "a dim", Json("4x8"))),
            "f.json: /x: expected a dim, got string \"4x8\"");
  // Quoted input cannot split the line.
  EXPECT_EQ(Refusal(r_.Expected("/x", "a dim", Json("a\nb"))),
            "f.json: /x: expected a dim, got string \"a\\nb\"");
}

TEST_F(JsonReaderTest, ObjectAndArray) {
  EXPECT_TRUE(r_.Object(Json::object(), "/o").ok());
  EXPECT_EQ(Refusal(r_.Object(Json::array({1, 2}), "")),
            "f.json: /: expected an object, got an array");
  EXPECT_EQ(Refusal(r_.Object(Json::array(), "")),
            "f.json: /: expected an object, got an empty array");
  EXPECT_EQ(Refusal(r_.Object(Json(1), "/o", "a tensor object")),
            "f.json: /o: expected a tensor object, got number 1");
  EXPECT_TRUE(r_.Array(Json::array(), "/a").ok());
  EXPECT_EQ(Refusal(r_.Array(Json{{"a", 1}}, "/a")),
            "f.json: /a: expected an array, got an object");
  EXPECT_EQ(
      Refusal(r_.Array(Json(nullptr), {"/a", size_t{2}}, "an array of dims")),
      "f.json: /a/2: expected an array of dims, got null");
}

TEST_F(JsonReaderTest, RequiredAndOptional) {
  const Json obj = {{"a", 1}};
  auto a = r_.Required(obj, "/o", "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(**a, Json(1));
  EXPECT_EQ(Refusal(r_.Required(obj, "/o", "b")),
            "f.json: /o/b: required key \"b\" is missing");
  EXPECT_EQ(Refusal(r_.Required(Json::array({1}), "/o", "a")),
            "f.json: /o: expected an object, got an array");
  EXPECT_EQ(Refusal(r_.Required(obj, "", "a/b")),
            "f.json: /a~1b: required key \"a/b\" is missing");
  ASSERT_NE(JsonReader::Optional(obj, "a"), nullptr);
  EXPECT_EQ(*JsonReader::Optional(obj, "a"), Json(1));
  EXPECT_EQ(JsonReader::Optional(obj, "b"), nullptr);
  EXPECT_EQ(JsonReader::Optional(Json(3), "a"), nullptr);
}

TEST_F(JsonReaderTest, Strings) {
  EXPECT_EQ(*r_.String(Json("x"), "/s"), "x");
  EXPECT_EQ(*r_.String(Json(""), "/s"), "");
  EXPECT_EQ(Refusal(r_.String(Json(5), "/s")),
            "f.json: /s: expected a string, got number 5");
  EXPECT_EQ(*r_.NonEmptyString(Json("x"), "/s"), "x");
  EXPECT_EQ(Refusal(r_.NonEmptyString(Json(""), "/s")),
            "f.json: /s: expected a non-empty string, got string \"\"");
  EXPECT_EQ(Refusal(r_.NonEmptyString(Json(nullptr), "/s")),
            "f.json: /s: expected a non-empty string, got null");
  const Json obj = {{"name", "n"}, {"n", 1}};
  EXPECT_EQ(*r_.RequiredString(obj, "/o", "name"), "n");
  EXPECT_EQ(Refusal(r_.RequiredString(obj, "/o", "n")),
            "f.json: /o/n: expected a string, got number 1");
  EXPECT_EQ(Refusal(r_.RequiredString(obj, "/o", "family")),
            "f.json: /o/family: required key \"family\" is missing");
}

TEST_F(JsonReaderTest, Bool) {
  EXPECT_TRUE(*r_.Bool(Json(true), "/b"));
  EXPECT_FALSE(*r_.Bool(Json(false), "/b"));
  EXPECT_EQ(Refusal(r_.Bool(Json("yes"), "/b")),
            "f.json: /b: expected true or false, got string \"yes\"");
  EXPECT_EQ(Refusal(r_.Bool(Json(1), "/b")),
            "f.json: /b: expected true or false, got number 1");
}

TEST_F(JsonReaderTest, OptionalMembersAreReadOnlyWhenPresent) {
  const Json obj = {{"s", "x"}, {"b", true}, {"a", {"p", "q"}}, {"n", 3}};
  // Absent: `out` keeps what it held.
  std::string s = "kept";
  EXPECT_TRUE(r_.OptionalString(obj, "/o", "t", s).ok());
  EXPECT_EQ(s, "kept");
  bool b = false;
  EXPECT_TRUE(r_.OptionalBool(obj, "/o", "t", b).ok());
  EXPECT_FALSE(b);
  std::vector<std::string> a = {"kept"};
  EXPECT_TRUE(r_.OptionalStringArray(obj, "/o", "t", a).ok());
  EXPECT_THAT(a, ElementsAre("kept"));
  // Present: read.
  ASSERT_TRUE(r_.OptionalString(obj, "/o", "s", s).ok());
  ASSERT_TRUE(r_.OptionalBool(obj, "/o", "b", b).ok());
  ASSERT_TRUE(r_.OptionalStringArray(obj, "/o", "a", a).ok());
  EXPECT_EQ(s, "x");
  EXPECT_TRUE(b);
  EXPECT_THAT(a, ElementsAre("p", "q"));

  EXPECT_EQ(Refusal(r_.OptionalString(obj, "/o", "n", s)),
            "f.json: /o/n: expected a string, got number 3");
  EXPECT_EQ(Refusal(r_.OptionalBool(obj, "/o", "s", b)),
            "f.json: /o/s: expected true or false, got string \"x\"");
  EXPECT_EQ(Refusal(r_.OptionalStringArray(obj, "/o", "b", a)),
            "f.json: /o/b: expected an array of strings, got boolean true");
  // A refused value leaves `out` as it was.
  EXPECT_EQ(s, "x");
}

TEST_F(JsonReaderTest, IntInRange) {
  EXPECT_EQ(*r_.Int(Json(5), "/i", 1, 10), 5);
  EXPECT_EQ(*r_.Int(Json(-3), "/i", -5, 10), -3);
  EXPECT_EQ(*r_.Int(Json(1), "/i", 1, 10), 1);
  EXPECT_EQ(*r_.Int(Json(10), "/i", 1, 10), 10);
  // A number with no fraction is an integer.
  EXPECT_EQ(*r_.Int(Json::parse("5.0"), "/i", 1, 10), 5);
  EXPECT_EQ(*r_.Int(Json::parse("1e3"), "/i", 1, 1000), 1000);
  EXPECT_EQ(*r_.Int(Json(uint64_t{1} << 40), "/i", 0, int64_t{1} << 40),
            int64_t{1} << 40);
  EXPECT_EQ(*r_.Int(Json(kIntMin), "/i", kIntMin, kIntMax), kIntMin);
  EXPECT_EQ(Refusal(r_.Int(Json(0), "/i", 1, 10)),
            "f.json: /i: expected an integer from 1 to 10, got number 0");
  EXPECT_EQ(Refusal(r_.Int(Json(11), "/i", 1, 10)),
            "f.json: /i: expected an integer from 1 to 10, got number 11");
  EXPECT_EQ(Refusal(r_.Int(Json(-1), "/i", 0, 10)),
            "f.json: /i: expected an integer from 0 to 10, got number -1");
  EXPECT_EQ(Refusal(r_.Int(Json(uint64_t{18446744073709551615u}), "/i", 0, 10)),
            "f.json: /i: expected an integer from 0 to 10, got number "
            "18446744073709551615");
  EXPECT_EQ(Refusal(r_.Int(Json(4.5), "/i", 1, 10)),
            "f.json: /i: expected an integer from 1 to 10, got a fractional "
            "number 4.5");
  EXPECT_EQ(Refusal(r_.Int(Json::parse("1e300"), "/i", 1, 10)),
            "f.json: /i: expected an integer from 1 to 10, got number 1e+300");
  EXPECT_EQ(Refusal(r_.Int(Json::parse("1e300"), "/i", kIntMin, kIntMax)),
            "f.json: /i: expected an integer, got number 1e+300");
  EXPECT_EQ(Refusal(r_.Int(Json("1"), "/i", kIntMin, kIntMax)),
            "f.json: /i: expected an integer, got string \"1\"");
  EXPECT_EQ(Refusal(r_.Int(Json(0), {"/loops/0", "step"}, 1, 10,
                           "a positive integer")),
            "f.json: /loops/0/step: expected a positive integer, got number 0");
}

TEST_F(JsonReaderTest, Uint) {
  EXPECT_EQ(*r_.Uint(Json(0), "/u"), 0u);
  EXPECT_EQ(*r_.Uint(Json(uint64_t{18446744073709551615u}), "/u"),
            18446744073709551615u);
  EXPECT_EQ(*r_.Uint(Json::parse("4.0"), "/u"), 4u);
  EXPECT_EQ(Refusal(r_.Uint(Json(-1), "/u")),
            "f.json: /u: expected a non-negative integer, got number -1");
  EXPECT_EQ(Refusal(r_.Uint(Json(1.5), "/u")),
            "f.json: /u: expected a non-negative integer, got a fractional "
            "number 1.5");
  EXPECT_EQ(Refusal(r_.Uint(Json::parse("1e20"), "/u")),
            "f.json: /u: expected a non-negative integer, got number 1e+20");
  EXPECT_EQ(Refusal(r_.Uint(Json("7"), "/u")),
            "f.json: /u: expected a non-negative integer, got string \"7\"");
}

TEST_F(JsonReaderTest, NumberWithinBounds) {
  EXPECT_EQ(*r_.Number(Json(2.5), "/n"), 2.5);
  EXPECT_EQ(*r_.Number(Json(-7), "/n"), -7.0);
  const NumberBounds fraction{.min = 0, .max = 1, .max_open = true};
  EXPECT_EQ(*r_.Number(Json(0), "/n", fraction, "a fraction"), 0.0);
  EXPECT_EQ(Refusal(r_.Number(Json(1), "/n", fraction, "a number in [0, 1)")),
            "f.json: /n: expected a number in [0, 1), got number 1");
  const NumberBounds positive{.min = 0, .min_open = true};
  EXPECT_EQ(*r_.Number(Json(1e-300), "/n", positive), 1e-300);
  EXPECT_EQ(
      Refusal(r_.Number(Json(0), {"/s", size_t{1}}, positive, "a number > 0")),
      "f.json: /s/1: expected a number > 0, got number 0");
  EXPECT_EQ(Refusal(r_.Number(Json("3"), "/n")),
            "f.json: /n: expected a number, got string \"3\"");
  EXPECT_FALSE(
      r_.Number(Json(std::numeric_limits<double>::infinity()), "/n").ok());
  const NumberBounds closed{.min = 0, .max = 1};
  EXPECT_EQ(*r_.Number(Json(1), "/n", closed), 1.0);
  EXPECT_FALSE(r_.Number(Json(1.5), "/n", closed).ok());
  EXPECT_FALSE(r_.Number(Json(-0.5), "/n", closed).ok());
}

TEST_F(JsonReaderTest, Enum) {
  constexpr std::string_view kModes[] = {"eager", "nki"};
  EXPECT_EQ(*r_.Enum(Json("eager"), "/mode", "mode", kModes), 0u);
  EXPECT_EQ(*r_.Enum(Json("nki"), "/mode", "mode", kModes), 1u);
  EXPECT_EQ(Refusal(r_.Enum(Json("lazy"), "/mode", "mode", kModes)),
            "f.json: /mode: unknown mode \"lazy\"; expected one of eager, nki");
  EXPECT_EQ(Refusal(r_.Enum(Json(3), "/mode", "mode", kModes)),
            "f.json: /mode: expected a mode string: one of eager, nki, got "
            "number 3");
  EXPECT_EQ(Refusal(r_.Enum(Json(nullptr), "/e", "engine", kModes)),
            "f.json: /e: expected an engine string: one of eager, nki, got "
            "null");
}

TEST_F(JsonReaderTest, StringArray) {
  EXPECT_THAT(*r_.StringArray(Json::array({"a", "b"}), "/a"),
              ElementsAre("a", "b"));
  EXPECT_TRUE(r_.StringArray(Json::array(), "/a")->empty());
  EXPECT_EQ(Refusal(r_.StringArray(Json("x"), "/a")),
            "f.json: /a: expected an array of strings, got string \"x\"");
  EXPECT_EQ(Refusal(r_.StringArray(Json("x"), "/a", "an array of tile ids")),
            "f.json: /a: expected an array of tile ids, got string \"x\"");
  EXPECT_EQ(Refusal(r_.StringArray(Json::array({"a", 2}), {"/op", "inputs"})),
            "f.json: /op/inputs/1: expected a string, got number 2");
}

TEST_F(JsonReaderTest, CheckKeys) {
  constexpr std::string_view kAllowed[] = {"name", "shape"};
  constexpr std::string_view kKnown[] = {"name", "shape", "engine"};
  EXPECT_TRUE(r_.CheckKeys(Json{{"name", 1}}, "/t", kAllowed, "a tensor").ok());
  EXPECT_TRUE(r_.CheckKeys(Json::object(), "/t", kAllowed, "a tensor").ok());
  EXPECT_EQ(
      Refusal(r_.CheckKeys(Json{{"layout", 1}}, "/t", kAllowed, "a tensor")),
      "f.json: /t/layout: unknown key \"layout\" in a tensor; allowed "
      "keys: name, shape");
  EXPECT_EQ(Refusal(r_.CheckKeys(Json{{"engine", 1}}, "/t", kAllowed,
                                 "a load op", kKnown)),
            "f.json: /t/engine: key \"engine\" does not apply to a load op; "
            "allowed keys: name, shape");
  EXPECT_EQ(Refusal(r_.CheckKeys(Json::array(), "/t", kAllowed, "a tensor")),
            "f.json: /t: expected an object, got an empty array");
}

TEST_F(JsonReaderTest, SchemaVersion) {
  EXPECT_TRUE(r_.SchemaVersion(Json{{"schema_version", 1}}, "", 1).ok());
  EXPECT_TRUE(r_.SchemaVersion(Json{{"schema_version", 1.0}}, "", 1).ok());
  EXPECT_EQ(Refusal(r_.SchemaVersion(Json{{"schema_version", 2}}, "", 1)),
            "f.json: /schema_version: unsupported schema_version 2; this "
            "trnbench reads 1");
  EXPECT_EQ(Refusal(r_.SchemaVersion(Json{{"schema_version", "1"}}, "", 1)),
            "f.json: /schema_version: expected an integer, got string \"1\"");
  EXPECT_EQ(Refusal(r_.SchemaVersion(Json::object(), "", 1)),
            "f.json: /schema_version: required key \"schema_version\" is "
            "missing");
}

}  // namespace
}  // namespace trn
