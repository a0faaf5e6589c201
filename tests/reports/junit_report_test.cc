// --junit: well-formed JUnit XML that Jenkins' junit-10.xsd accepts, one
// test case per workload x metric comparison, a regression as a <failure>
// carrying the verdict's reason, and everything XML-escaped.
#include "reports/junit_report.h"

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/text_escape.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;
  std::vector<XmlElement> children;
};

// A strict reader for the XML subset JUnit uses: one prolog, elements,
// attributes in double quotes, the five predefined entities and numeric
// character references, no CDATA or comments. Any violation fails the test.
class XmlReader {
 public:
  explicit XmlReader(const std::string& s) : s_(s) {}

  XmlElement Document() {
    const std::string prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    EXPECT_EQ(s_.substr(0, prolog.size()), prolog);
    i_ = prolog.size();
    XmlElement root = Element();
    SkipSpace();
    EXPECT_EQ(i_, s_.size()) << "content after the root element";
    return root;
  }

 private:
  void SkipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    }
  }
  std::string Name() {
    const size_t start = i_;
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
            s_[i_] == '_' || s_[i_] == ':')) {
      ++i_;
    }
    EXPECT_GT(i_, start) << "expected a name at " << start;
    return s_.substr(start, i_ - start);
  }
  // Character data up to `stop`, with references resolved.
  std::string Chars(char stop) {
    std::string out;
    while (i_ < s_.size() && s_[i_] != stop) {
      const char c = s_[i_];
      EXPECT_NE(c, '<') << "raw < at " << i_;
      if (c == '&') {
        const size_t semi = s_.find(';', i_);
        EXPECT_NE(semi, std::string::npos);
        const std::string ref = s_.substr(i_ + 1, semi - i_ - 1);
        if (ref == "amp")
          out += '&';
        else if (ref == "lt")
          out += '<';
        else if (ref == "gt")
          out += '>';
        else if (ref == "quot")
          out += '"';
        else if (ref == "apos")
          out += '\'';
        else if (!ref.empty() && ref[0] == '#') {
          const int code = std::stoi(ref.substr(1));
          EXPECT_TRUE(code == 9 || code == 10 || code == 13 || code >= 32)
              << "reference to a character XML 1.0 forbids: " << code;
          out += static_cast<char>(code);
        } else {
          ADD_FAILURE() << "unknown entity &" << ref << ";";
        }
        i_ = semi + 1;
        continue;
      }
      const auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 || c == '\n' || c == '\t' || c == '\r')
          << "control character " << static_cast<int>(u) << " at " << i_;
      out += c;
      ++i_;
    }
    return out;
  }
  XmlElement Element() {
    XmlElement e;
    EXPECT_EQ(s_[i_], '<');
    ++i_;
    e.name = Name();
    while (true) {
      SkipSpace();
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return e;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      const std::string attr = Name();
      EXPECT_EQ(s_[i_], '=');
      EXPECT_EQ(s_[i_ + 1], '"') << "attribute " << attr << " not quoted";
      i_ += 2;
      EXPECT_EQ(e.attrs.count(attr), 0u) << "duplicate attribute " << attr;
      e.attrs[attr] = Chars('"');
      ++i_;
    }
    while (true) {
      e.text += Chars('<');
      if (i_ >= s_.size()) {
        ADD_FAILURE() << "unclosed <" << e.name << ">";
        return e;
      }
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        EXPECT_EQ(Name(), e.name) << "mismatched end tag";
        EXPECT_EQ(s_[i_], '>');
        ++i_;
        return e;
      }
      e.children.push_back(Element());
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

// What Jenkins' junit-10.xsd (jenkinsci/xunit-plugin,
// src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/
// junit-10.xsd) allows, element by element: required and optional
// attributes and the child elements each may hold. Checked by hand so the
// test needs no schema tool; every rule below is one of that file's.
struct ElementRule {
  std::set<std::string> required;
  std::set<std::string> optional;
  std::set<std::string> children;
  bool text = false;  // character content (mixed or a string type)
};

const std::map<std::string, ElementRule>& Junit10Rules() {
  static const auto* rules = new std::map<std::string, ElementRule>{
      {"testsuites",
       {{}, {"name", "time", "tests", "failures", "errors"}, {"testsuite"}}},
      {"testsuite",
       {{"name", "tests", "failures", "errors"},
        {"group", "time", "skipped", "timestamp", "hostname", "id", "package",
         "file", "log", "url"},
        {"testsuite", "properties", "testcase", "system-out", "system-err"}}},
      {"properties", {{}, {}, {"property"}}},
      {"property", {{"name", "value"}, {}, {}}},
      {"testcase",
       {{"name"},
        {"time", "classname", "group"},
        {"skipped", "error", "failure", "rerunFailure", "rerunError",
         "flakyFailure", "flakyError", "system-out", "system-err"}}},
      {"failure", {{}, {"type", "message"}, {}, true}},
      {"error", {{}, {"type", "message"}, {}, true}},
      {"skipped", {{}, {"type", "message"}, {}, true}},
      {"system-out", {{}, {}, {}, true}},
      {"system-err", {{}, {}, {}, true}},
  };
  return *rules;
}

// Every violation of junit-10.xsd in `e` and below, one line each.
void CheckJunit10(const XmlElement& e, const std::string& path,
                  std::vector<std::string>& errors) {
  const auto& rules = Junit10Rules();
  const auto rule = rules.find(e.name);
  if (rule == rules.end()) {
    errors.push_back(path + ": element not in the schema");
    return;
  }
  for (const auto& [name, value] : e.attrs) {
    if (!rule->second.required.count(name) &&
        !rule->second.optional.count(name)) {
      errors.push_back(path + ": attribute " + name + " not allowed");
    }
    if (name == "time") {
      // SUREFIRE_TIME: digits, optionally grouped by commas, and decimals.
      static const std::regex kTime(
          R"((([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?)");
      if (!std::regex_match(value, kTime)) {
        errors.push_back(path + ": time \"" + value + "\" is not a number");
      }
    }
  }
  for (const std::string& name : rule->second.required) {
    if (!e.attrs.count(name)) {
      errors.push_back(path + ": required attribute " + name + " missing");
    }
  }
  if (!rule->second.text &&
      e.text.find_first_not_of(" \t\r\n") != std::string::npos) {
    errors.push_back(path + ": text content not allowed");
  }
  for (const XmlElement& child : e.children) {
    const std::string child_path = path + "/" + child.name;
    if (!rule->second.children.count(child.name)) {
      errors.push_back(child_path + ": not allowed inside " + e.name);
      continue;
    }
    CheckJunit10(child, child_path, errors);
  }
}

// Empty when `xml` is valid under junit-10.xsd; the violations otherwise.
std::vector<std::string> Junit10Violations(const std::string& xml) {
  const XmlElement root = XmlReader(xml).Document();
  std::vector<std::string> errors;
  if (root.name != "testsuites" && root.name != "testsuite") {
    errors.push_back("root element " + root.name);
  }
  CheckJunit10(root, "/" + root.name, errors);
  return errors;
}

TEST(Junit10SchemaTest, TheCheckRejectsWhatTheSchemaRejects) {
  // The output of trnbench before this check: `skipped` on <testsuites>.
  EXPECT_THAT(
      Junit10Violations(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites tests=\"1\" skipped=\"1\"><testsuite "
          "name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\" "
          "skipped=\"1\"><testcase name=\"c\"><skipped "
          "message=\"m\"/></testcase></testsuite></testsuites>\n"),
      ::testing::ElementsAre("/testsuites: attribute skipped not allowed"));
  EXPECT_THAT(Junit10Violations("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<testsuites><testsuite name=\"s\" tests=\"1\" "
                                "failures=\"0\"><testcase name=\"c\" "
                                "time=\"1s\"><bogus/></testcase></testsuite>"
                                "</testsuites>\n"),
              ::testing::UnorderedElementsAre(
                  "/testsuites/testsuite: required attribute errors missing",
                  "/testsuites/testsuite/testcase: time \"1s\" is not a number",
                  "/testsuites/testsuite/testcase/bogus: not allowed inside "
                  "testcase"));
}

MetricComparison Row(std::string workload, std::string metric, Verdict v,
                     std::string reason) {
  MetricComparison c;
  c.workload = std::move(workload);
  c.metric = std::move(metric);
  c.verdict = v;
  c.reason = std::move(reason);
  c.change = 0.057;
  c.change_interval = {0.05, 0.06, 0.95};
  c.p_adjusted = NAN;  // undefined figures must not break the XML either
  return c;
}

TEST(JunitReportTest, InterleavedRowsGoToTheirWorkloadsSuiteInOrder) {
  ComparisonReport r;
  r.comparisons = 3;
  r.rows = {Row("w1", "a", Verdict::kUnchanged, "x"),
            Row("w2", "b", Verdict::kRegression, "y"),
            Row("w1", "c", Verdict::kUnchanged, "z")};
  XmlElement root = XmlReader(JunitXml(r)).Document();
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0].attrs.at("name"), "trnbench.w1");
  EXPECT_EQ(root.children[0].attrs.at("tests"), "2");
  ASSERT_EQ(root.children[0].children.size(), 3u);
  EXPECT_EQ(root.children[0].children[1].attrs.at("name"), "w1.a");
  EXPECT_EQ(root.children[0].children[2].attrs.at("name"), "w1.c");
  EXPECT_EQ(root.children[1].attrs.at("name"), "trnbench.w2");
  EXPECT_EQ(root.children[1].attrs.at("failures"), "1");
}

TEST(JunitReportTest, WellFormedWithAFailurePerRegression) {
  ComparisonReport r;
  r.baseline_source = "baselines/<trn1> & \"co\"";
  r.comparisons = 4;
  r.rows = {
      Row("w1", "device_time_us", Verdict::kRegression,
          "higher (worse): interval [+5%, +6%] > 2% & p < 0.05 \"x\" 'y'\x01"),
      Row("w1", "ncl_us", Verdict::kUnchanged,
          "within \xC2\xB1"
          "2%"),
      Row("w2", "device_time_us", Verdict::kInconclusive,
          "straddles; need ~400 repeats"),
      Row("w2", "latency_us", Verdict::kImprovement, "lower")};
  const std::string xml = JunitXml(r);
  EXPECT_THAT(Junit10Violations(xml), ::testing::IsEmpty());
  XmlElement root = XmlReader(xml).Document();
  EXPECT_EQ(root.name, "testsuites");
  EXPECT_EQ(root.attrs["tests"], "4");
  EXPECT_EQ(root.attrs["failures"], "1");
  EXPECT_EQ(root.attrs["errors"], "0");
  // Skipped test cases are counted per suite, where the schema allows it.
  EXPECT_EQ(root.attrs.count("skipped"), 0u);
  EXPECT_EQ(root.children[1].attrs.at("skipped"), "1");
  ASSERT_EQ(root.children.size(), 2u);
  const XmlElement& w1 = root.children[0];
  EXPECT_EQ(w1.name, "testsuite");
  EXPECT_EQ(w1.attrs.at("name"), "trnbench.w1");
  EXPECT_EQ(w1.attrs.at("failures"), "1");
  ASSERT_EQ(w1.children.size(), 3u);  // properties + two test cases
  EXPECT_EQ(w1.children[0].name, "properties");
  EXPECT_EQ(w1.children[0].children[0].attrs.at("value"),
            "baselines/<trn1> & \"co\"");
  const XmlElement& regression = w1.children[1];
  EXPECT_EQ(regression.name, "testcase");
  EXPECT_EQ(regression.attrs.at("name"), "w1.device_time_us");
  EXPECT_TRUE(regression.attrs.count("time"));
  EXPECT_EQ(regression.attrs.at("classname"), "trnbench.w1");
  ASSERT_EQ(regression.children[0].name, "failure");
  // The reason, escaped and read back; the control character is replaced.
  EXPECT_EQ(regression.children[0].attrs.at("message"),
            "higher (worse): interval [+5%, +6%] > 2% & p < 0.05 \"x\" 'y'"
            "\xEF\xBF\xBD");
  EXPECT_EQ(regression.children[0].attrs.at("type"), "regression");
  EXPECT_THAT(regression.children[0].text, HasSubstr("metric: device_time_us"));
  EXPECT_THAT(regression.children[0].text, HasSubstr("adjusted p (Holm): n/a"));
  const XmlElement& unchanged = w1.children[2];
  ASSERT_EQ(unchanged.children.size(), 1u);
  EXPECT_EQ(unchanged.children[0].name, "system-out");
  const XmlElement& inconclusive = root.children[1].children[1];
  EXPECT_EQ(inconclusive.children[0].name, "skipped");
  EXPECT_THAT(inconclusive.children[0].attrs.at("message"),
              HasSubstr("inconclusive: straddles"));
}

TEST(XmlEscapeTest, EverythingIsEscapedOrReplaced) {
  EXPECT_EQ(XmlEscape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(XmlEscape("a\nb\tc\rd"), "a&#10;b&#9;c&#13;d");
  EXPECT_EQ(XmlEscapeText("a\nb\tc\rd"), "a\nb\tc&#13;d");
  EXPECT_EQ(XmlEscape(std::string("nul\0x", 5)), "nul\xEF\xBF\xBDx");
  EXPECT_EQ(XmlEscape("\xC3\xA9\xCE\xBC"), "\xC3\xA9\xCE\xBC");  // valid UTF-8
  EXPECT_EQ(XmlEscape("bad\xC3"), "bad\xEF\xBF\xBD");            // truncated
  EXPECT_EQ(XmlEscape("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
  EXPECT_EQ(XmlEscape("\xEF\xBF\xBE"), "\xEF\xBF\xBD");          // U+FFFE
}

TEST(JunitReportTest, GateWritesItAndARegressionFails) {
  const std::string dir = report_test::FreshDir("junit_cli");
  const std::string file = dir + "/junit.xml";
  const std::string baselines = report_test::SourceDir() + "/baselines/trn1";
  auto o = report_test::RunTrnbench(
      "gate --workload rmsnorm,exp_tiled --baseline " + baselines +
      " --set op_exec_overhead_us=410 --junit " + file);
  ASSERT_EQ(o.code, 1) << o.err;
  const std::string xml = report_test::Slurp(file);
  EXPECT_THAT(Junit10Violations(xml), ::testing::IsEmpty());
  XmlElement root = XmlReader(xml).Document();
  EXPECT_EQ(root.attrs["tests"], "7");
  EXPECT_EQ(root.attrs["failures"], "2");
  int failures = 0;
  for (const auto& suite : root.children) {
    for (const auto& tc : suite.children) {
      for (const auto& c : tc.children) failures += c.name == "failure";
    }
  }
  EXPECT_EQ(failures, 2);
  EXPECT_THAT(xml, HasSubstr("<failure message=\"higher (worse)"));

  // No baseline, no comparisons: refused before anything runs.
  std::filesystem::remove(file);
  o = report_test::RunTrnbench("--workload rmsnorm --repeat 3 --junit " + file);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--baseline"));
  EXPECT_FALSE(std::filesystem::exists(file));

  // trnbench compare writes it too.
  o = report_test::RunTrnbench("compare " + baselines + "/rmsnorm_naive.json " +
                               baselines + "/rmsnorm_naive.json --junit " +
                               file);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(Junit10Violations(report_test::Slurp(file)),
              ::testing::IsEmpty());
  root = XmlReader(report_test::Slurp(file)).Document();
  EXPECT_EQ(root.attrs["failures"], "0");
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

using ::testing::Not;

// Issue 24: a `new` workload read "baseline median 0 (n = 0)" and "current
// median 0 (n = 0)" although it ran, and a row without a rank test printed
// a line " p: n/a" with an empty name.
TEST(JunitReportTest, NewWorkloadsShowTheirFiguresAndNoEmptyNames) {
  ComparisonReport r;
  MetricComparison added;
  added.workload = "w_new";
  added.metric = "device_time_us";
  added.verdict = Verdict::kNew;
  added.reason = "no baseline for this workload";
  added.n_current = 100;
  added.current_median = 19.93;
  added.baseline_median = NAN;
  added.change = NAN;
  MetricComparison ar1;
  ar1.workload = "w";
  ar1.metric = "ncl_us";
  ar1.verdict = Verdict::kUnchanged;
  ar1.reason = "within";
  ar1.rank_test = "";
  ar1.p_rank = NAN;
  ar1.t_test = "welch-t-log-ar1";
  ar1.p_t = 0.5;
  ar1.n_baseline = ar1.n_current = 10;
  ar1.baseline_median = ar1.current_median = 20;
  r.rows = {added, ar1};
  r.comparisons = 1;
  const std::string xml = JunitXml(r);
  EXPECT_THAT(Junit10Violations(xml), ::testing::IsEmpty());
  EXPECT_THAT(xml, HasSubstr("current median: 19.93 (n = 100)"));
  EXPECT_THAT(xml, Not(HasSubstr("median: 0 (n = 0)")));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"w_new.device_time_us\" "
                             "classname=\"trnbench.w_new\" time=\"0.001993\""));
  EXPECT_THAT(xml, HasSubstr("welch-t-log-ar1 p: 0.5000\n"));
  EXPECT_THAT(xml, Not(HasSubstr("\n p:")));
}

}  // namespace
}  // namespace trn
