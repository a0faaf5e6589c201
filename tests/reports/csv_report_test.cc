// summary.csv and samples.csv: RFC 4180 quoting (commas, quotes, line
// breaks), a header with units in the names, one row per workload x metric
// or per sample, and exact round trips of every number.
#include "reports/csv_report.h"

#include <charconv>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reports/json_results.h"
#include "reports/text_escape.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

// A strict RFC 4180 reader: records end with CRLF, a quoted field may hold
// commas, CRLF and doubled quotes. Fails the test on anything else.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  size_t i = 0;
  bool at_field_start = true;
  while (i < text.size()) {
    const char c = text[i];
    if (at_field_start && c == '"') {
      ++i;
      while (true) {
        if (i >= text.size()) {
          ADD_FAILURE() << "unterminated quoted field";
          return records;
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      at_field_start = false;
      continue;
    }
    if (c == ',') {
      record.push_back(field);
      field.clear();
      at_field_start = true;
      ++i;
    } else if (c == '\r') {
      EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n')
          << "CR without LF at " << i;
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
      at_field_start = true;
      i += 2;
    } else {
      EXPECT_NE(c, '"') << "quote inside an unquoted field at " << i;
      EXPECT_NE(c, '\n') << "bare LF at " << i;
      field += c;
      at_field_start = false;
      ++i;
    }
  }
  EXPECT_TRUE(record.empty() && field.empty()) << "last record lacks CRLF";
  return records;
}

TEST(CsvFieldTest, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(CsvField(" spaces kept "), " spaces kept ");
}

TEST(CsvFieldTest, ShortestDoubleRoundTrips) {
  for (double x :
       {0.1, 2389.125, 1e-7, 123456789.0, 19.952871451509672, -3.5, 5e300}) {
    const std::string s = ShortestDouble(x);
    double back = 0;
    std::from_chars(s.data(), s.data() + s.size(), back);
    EXPECT_EQ(back, x) << s;
  }
  EXPECT_EQ(ShortestDouble(0.1), "0.1");
  EXPECT_EQ(ShortestDouble(NAN), "");
  EXPECT_EQ(ShortestDouble(INFINITY), "");
}

// A run whose names and reasons contain every character CSV must quote.
RunResult AwkwardRun() {
  RunResult run;
  run.seed = 42;
  WorkloadResult w;
  w.name = "odd,name";
  w.family = "fam \"quoted\"";
  w.mode = "eager";
  MetricResult m;
  m.name = "device_time_us";
  m.unit = "us";
  m.samples = {1.5, 2.25, 3.0};
  m.summary = stats::Summarize(m.samples, 0.95);
  w.metrics.push_back(m);
  MetricResult one;
  one.name = "dma_bytes";
  one.unit = "B";
  one.samples = {7};
  one.summary = stats::Summarize(one.samples, 0.95);  // stddev undefined
  w.metrics.push_back(one);
  w.speedup.metric = "device_time_us";
  run.workloads.push_back(w);
  return run;
}

TEST(SummaryCsvTest, QuotingSurvivesAStrictReader) {
  const RunResult run = AwkwardRun();
  ComparisonReport c;
  MetricComparison row;
  row.workload = "odd,name";
  row.metric = "device_time_us";
  row.change = 0.05;
  row.verdict = Verdict::kRegression;
  row.reason = "higher, \"worse\"\nsecond line";
  c.rows.push_back(row);
  const std::string text = SummaryCsv(run, &c);
  const auto records = ParseCsv(text);
  ASSERT_EQ(records.size(), 3u);  // header + two metrics
  const auto& header = records[0];
  for (const auto& r : records) EXPECT_EQ(r.size(), header.size());
  auto col = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  EXPECT_EQ(records[1][col("workload")], "odd,name");
  EXPECT_EQ(records[1][col("family")], "fam \"quoted\"");
  EXPECT_EQ(records[1][col("reason")], "higher, \"worse\"\nsecond line");
  EXPECT_EQ(records[1][col("verdict")], "regression");
  EXPECT_EQ(records[1][col("change")], "0.05");
  EXPECT_EQ(records[1][col("median")], "2.25");
  // Undefined statistics are empty cells, never "nan".
  EXPECT_EQ(records[2][col("stddev")], "");
  EXPECT_EQ(records[2][col("cv")], "");
  EXPECT_EQ(records[2][col("verdict")], "");
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
}

TEST(SummaryCsvTest, HeaderIsStableAndCarriesUnits) {
  const RunResult run = report_test::MakeRun("exp_tiled", 12);
  const auto without = ParseCsv(SummaryCsv(run));
  std::vector<Baseline> baselines;
  const ComparisonReport c = report_test::MakeComparison(
      run, report_test::MakeRun("exp_tiled", 12, 2), &baselines);
  const auto with = ParseCsv(SummaryCsv(run, &c));
  ASSERT_FALSE(without.empty());
  EXPECT_EQ(without[0], with[0]) << "the header must not depend on a baseline";
  EXPECT_THAT(with[0], Contains("unit"));
  // One row per workload x metric.
  EXPECT_EQ(with.size(), 1 + run.workloads[0].metrics.size());
  const size_t verdict =
      std::find(with[0].begin(), with[0].end(), "verdict") - with[0].begin();
  int compared = 0;
  for (size_t r = 1; r < with.size(); ++r)
    compared += !with[r][verdict].empty();
  EXPECT_EQ(compared, 4);  // device time, NCL, latency, throughput
}

// One name and one unit per figure: every CSV column of a statistic, a
// speed-up or a comparison is the results document's key (objects joined
// with '_') and holds the same number.
TEST(SummaryCsvTest, ColumnsAreTheResultsDocumentsNamesAndValues) {
  const RunResult run = report_test::MakeRun("exp", 12);
  std::vector<Baseline> baselines;
  const ComparisonReport c = report_test::MakeComparison(
      run, report_test::MakeRun("exp", 12, 2), &baselines);
  const auto csv = ParseCsv(SummaryCsv(run, &c));
  const nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(ResultsToJsonText(run, &c));
  const auto& header = csv[0];
  auto col = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  auto same = [](const nlohmann::ordered_json& v, const std::string& cell) {
    if (v.is_null()) return cell.empty();
    if (v.is_string()) return cell == v.get<std::string>();
    // R's read.csv and pandas both read TRUE / FALSE as booleans.
    if (v.is_boolean()) return cell == (v.get<bool>() ? "TRUE" : "FALSE");
    if (v.is_array()) {  // notes: joined by "; "
      std::string joined;
      for (const auto& x : v) {
        joined += (joined.empty() ? "" : "; ") + x.get<std::string>();
      }
      return cell == joined;
    }
    return !cell.empty() && std::stod(cell) == v.get<double>();
  };
  size_t row = 1;
  int compared = 0;
  for (const auto& w : doc["workloads"]) {
    for (const auto& [metric, m] : w["metrics"].items()) {
      ASSERT_LT(row, csv.size());
      const auto& cells = csv[row++];
      EXPECT_EQ(cells[col("metric")], metric);
      for (const auto& [key, v] : m.items()) {
        // The samples (and their checksum) are samples.csv's.
        if (key == "samples" || key == "samples_checksum" ||
            key == "lower_is_better") {
          continue;
        }
        if (v.is_object()) {
          for (const auto& [inner, x] : v.items()) {
            EXPECT_TRUE(same(x, cells[col(key + "_" + inner)]))
                << x.dump() << " vs " << cells[col(key + "_" + inner)] << metric
                << " " << key << "_" << inner;
          }
        } else {
          EXPECT_TRUE(same(v, cells[col(key)])) << metric << " " << key;
        }
      }
      if (metric == w["speedup"]["metric"]) {
        for (const char* key : {"baseline", "ratio", "ci_low", "ci_high"}) {
          EXPECT_TRUE(same(w["speedup"][key],
                           cells[col(std::string("speedup_") + key)]))
              << key;
        }
      }
      for (const auto& r : doc["comparison"]["rows"]) {
        if (r["workload"] != w["name"] || r["metric"] != metric) continue;
        ++compared;
        for (const char* key : {"baseline_median", "change", "change_ci_low",
                                "change_ci_high", "p_rank", "p_t", "test", "p",
                                "p_adjusted", "verdict", "reason"}) {
          EXPECT_TRUE(same(r[key], cells[col(key)])) << key;
        }
      }
    }
  }
  EXPECT_EQ(row, csv.size());
  EXPECT_EQ(compared, 8);  // two workloads x four gated metrics
}

TEST(SamplesCsvTest, LongFormatWithExactValues) {
  const RunResult run = report_test::MakeRun("rmsnorm", 4, 9);
  const auto records = ParseCsv(SamplesCsv(run));
  ASSERT_FALSE(records.empty());
  EXPECT_THAT(records[0],
              ElementsAre("workload", "metric", "repeat", "seed", "value"));
  size_t expected = 1;
  for (const auto& w : run.workloads) {
    for (const auto& m : w.metrics) expected += m.samples.size();
  }
  ASSERT_EQ(records.size(), expected);
  size_t r = 1;
  for (const auto& w : run.workloads) {
    for (const auto& m : w.metrics) {
      for (size_t k = 0; k < m.samples.size(); ++k, ++r) {
        ASSERT_EQ(records[r][0], w.name);
        ASSERT_EQ(records[r][1], m.name);
        ASSERT_EQ(records[r][2], std::to_string(k));
        ASSERT_EQ(records[r][3], "9");
        double v = 0;
        const std::string& s = records[r][4];
        std::from_chars(s.data(), s.data() + s.size(), v);
        ASSERT_EQ(v, m.samples[k]) << s;
      }
    }
  }
}

TEST(SamplesCsvTest, QuotesAwkwardNames) {
  const auto records = ParseCsv(SamplesCsv(AwkwardRun()));
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[1][0], "odd,name");
  EXPECT_EQ(records[1][4], "1.5");
}

}  // namespace
}  // namespace trn
