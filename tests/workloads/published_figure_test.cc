// Tests of the "published" array of a spec (docs/spec-format.md): what the
// parser keeps, what it refuses and with which message, and the unit and
// statistic helpers the validation suite uses.
#include "workloads/spec/published_figure.h"

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "device_model/memory_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/loading/spec_parser.h"
#include "workloads/spec/spec.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

// An NKI kernel with ops on lines 3 and 4, and a "published" array made of
// `figures` (JSON objects, comma-separated).
std::string Spec(std::string_view figures) {
  return std::string(R"({
  "schema_version": 1, "name": "k", "family": "t", "description": "d",
  "mode": "nki",
  "tensors": [{"name": "x", "shape": [128, 64], "dtype": "fp32"},
              {"name": "y", "shape": [128, 64], "dtype": "fp32"}],
  "kernel": {"source_file": "k.py", "loops": [{
    "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
    "body": [
      {"id": "t", "op": "load", "tensor": "x", "line": 3},
      {"id": "u", "op": "activation", "engine": "scalar", "func": "exp",
       "inputs": ["t"], "line": 4},
      {"op": "store", "tensor": "y", "inputs": ["u"], "line": 5}]}]},
  "published": [)") +
         std::string(figures) + "]}";
}

// A figure in `unit` with the metric and the other keys in
// `metric_and_more`.
std::string Figure(std::string_view metric_and_more,
                   std::string_view unit = "us") {
  return std::string(R"({"statistic": "p50", "figure": 20, "unit": ")") +
         std::string(unit) +
         R"(", "device": "trn1", "hardware": "trn1.32xlarge",
    "method": "nki.benchmark", "source": "a tutorial", )" +
         std::string(metric_and_more) + "}";
}

absl::StatusOr<WorkloadSpec> Parse(std::string_view text) {
  return ParseSpec(text, "k.json", MemoryLimits{});
}

std::string Error(std::string_view figures) {
  auto spec = Parse(Spec(figures));
  EXPECT_FALSE(spec.ok());
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(PublishedFigureTest, KeepsEveryField) {
  auto spec = Parse(
      Spec(Figure(R"("metric": "ncl_us", "tolerance": 0.15, "url": "https://x",
               "runs": 10,
               "order": "tutorial", "shape": ["x,y=256x64"])") +
           "," + Figure(R"("metric": "instruction_us", "line": 4,
               "range": [1, 30])")));
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->published.size(), 2u);
  const PublishedFigure& a = spec->published[0];
  EXPECT_EQ(a.metric, "ncl_us");
  EXPECT_EQ(a.statistic, "p50");
  EXPECT_EQ(a.figure, 20);
  EXPECT_EQ(a.unit, "us");
  EXPECT_EQ(a.tolerance, 0.15);
  EXPECT_FALSE(a.range.has_value());
  EXPECT_EQ(a.device, "trn1");
  EXPECT_EQ(a.hardware, "trn1.32xlarge");
  EXPECT_EQ(a.method, "nki.benchmark");
  EXPECT_EQ(a.source, "a tutorial");
  EXPECT_EQ(a.url, "https://x");
  EXPECT_EQ(a.order, "tutorial");
  EXPECT_EQ(a.shape, std::vector<std::string>{"x,y=256x64"});
  EXPECT_EQ(a.json_path, "/published/0");
  EXPECT_EQ(a.runs, 10);
  const PublishedFigure& b = spec->published[1];
  EXPECT_EQ(b.line, 4);
  EXPECT_EQ(b.runs, 0);
  EXPECT_FALSE(b.tolerance.has_value());
  EXPECT_EQ(b.range, (std::pair<double, double>{1, 30}));
}

TEST(PublishedFigureTest, ASpecWithoutPublishedHasNone) {
  std::string text = Spec("");
  const size_t at = text.find(",\n  \"published\": [");
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) + "}";
  auto spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->published.empty());
}

TEST(PublishedFigureTest, RefusesWhatItCannotCompare) {
  EXPECT_THAT(Error(Figure(R"("metric": "speed", "tolerance": 0.1)")),
              HasSubstr("k.json: /published/0/metric: unknown metric "
                        "\"speed\"; expected one of device_time_us"));
  EXPECT_THAT(
      Error(Figure(R"("metric": "ncl_us", "tolerance": 0.1)") + "," +
            Figure(R"("metric": "ncl_us", "tolerance": 0.1, "bogus": 1)")),
      HasSubstr("/published/1/bogus: unknown key \"bogus\""));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "tolerance": 0.1,
                              "statistic2": 1)")),
              HasSubstr("unknown key"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "tolerance": 0.1)", "GB/s")),
              HasSubstr("/published/0/unit: unit \"GB/s\" does not fit "
                        "metric \"ncl_us\" (in us); expected one of ns, us, "
                        "ms, s"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "line": 4,
                              "tolerance": 0.1)")),
              HasSubstr("/published/0/line: key \"line\" applies only to "
                        "the event metrics"));
  EXPECT_THAT(Error(Figure(R"("metric": "instruction_us", "tolerance": 0.1)")),
              HasSubstr("/published/0/line: required key \"line\" is "
                        "missing"));
  EXPECT_THAT(Error(Figure(R"("metric": "dma_transfer_us", "line": 9,
                              "tolerance": 0.1)")),
              HasSubstr("/published/0/line: no op of the kernel has line 9"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us")")),
              HasSubstr("/published/0/tolerance: expected exactly one of "
                        "\"tolerance\""));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "tolerance": 0.1,
                              "range": [1, 2])")),
              HasSubstr("/published/0/range: expected exactly one of"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "tolerance": 0)")),
              HasSubstr("/published/0/tolerance: expected a number in (0, "
                        "1]"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "range": [5, 1])")),
              HasSubstr("/published/0/range: expected [low, high] with 0 <= "
                        "low <= high"));
  EXPECT_THAT(Error(Figure(R"("metric": "ncl_us", "tolerance": 0.1,
                              "shape": ["x,y=256x64,512x64"])")),
              HasSubstr("/published/0/shape/0: expected one shape"));
}

TEST(PublishedFigureTest, RefusesAFigureThatIsNotAPositiveNumber) {
  std::string figure = Figure(R"("metric": "ncl_us", "tolerance": 0.1)");
  figure.replace(figure.find("\"figure\": 20"), 12, "\"figure\": -3");
  EXPECT_THAT(Error(figure), HasSubstr("/published/0/figure: expected a "
                                       "positive number, got number -3"));
}

TEST(PublishedFigureTest, RefusesABadStatisticAndEmptyProvenance) {
  std::string figure = Figure(R"("metric": "ncl_us", "tolerance": 0.1)");
  std::string p101 = figure;
  p101.replace(p101.find("\"p50\""), 5, "\"p101\"");
  EXPECT_THAT(Error(p101), HasSubstr("/published/0/statistic: unknown "
                                     "statistic \"p101\""));
  std::string no_source = figure;
  no_source.replace(no_source.find("\"a tutorial\""), 12, "\"\"");
  EXPECT_THAT(Error(no_source),
              HasSubstr("/published/0/source: expected a non-empty string, "
                        "got string \"\""));
}

TEST(PublishedFigureTest, StatisticsAreMeanOrAPercentile) {
  EXPECT_TRUE(ParseStatistic("mean")->mean);
  EXPECT_EQ(ParseStatistic("p0")->percent, 0);
  EXPECT_EQ(ParseStatistic("p50")->percent, 50);
  EXPECT_EQ(ParseStatistic("p99")->percent, 99);
  EXPECT_EQ(ParseStatistic("p100")->percent, 100);
  for (std::string_view bad : {"p", "p101", "p050", "P50", "median", "p5x"}) {
    EXPECT_FALSE(ParseStatistic(bad).has_value()) << bad;
  }
}

TEST(PublishedFigureTest, UnitsConvertToTheMetricsUnit) {
  EXPECT_EQ(UnitFactor("ms", "us"), 1000.0);
  EXPECT_EQ(UnitFactor("ns", "us"), 1e-3);
  EXPECT_EQ(UnitFactor("%", "fraction"), 0.01);
  EXPECT_EQ(UnitFactor("KiB", "B"), 1024.0);
  EXPECT_FALSE(UnitFactor("ms", "GB/s").has_value());
  EXPECT_EQ(MetricUnit("ncl_us"), "us");
  EXPECT_EQ(MetricUnit("dma_bandwidth_gbps"), "GB/s");
  EXPECT_EQ(MetricUnit("instruction_interval_us"), "us");
  EXPECT_EQ(MetricUnit("nonsense"), "");
}

}  // namespace
}  // namespace trn
