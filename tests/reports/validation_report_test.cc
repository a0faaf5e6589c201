// Tests of the validate output (docs/validation.md): the terminal table,
// the markdown with sources and the versioned JSON, on a result built here.
#include "reports/validation_report.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

ValidationResult Result() {
  ValidationResult r;
  r.model_version = "1";
  r.seed = 1;
  r.repeat = 100;
  ValidationRow a;
  a.key = "mm ncl_us p99 trn1";
  a.workload = "mm";
  a.spec_file = "workloads/validation/mm.json";
  a.published.metric = "ncl_us";
  a.published.statistic = "p99";
  a.published.figure = 51.8;
  a.published.unit = "ms";
  a.published.tolerance = 0.15;
  a.published.device = "trn1";
  a.published.hardware = "trn1.32xlarge";
  a.published.method = "nki.benchmark p99";
  a.published.source = "NKI tutorial | matmul";
  a.published.url = "https://example.com/mm";
  a.published.order = "tutorial";
  a.runs = 10;
  a.model = 285.2;
  a.error = 285.2 / 51.8 - 1;
  a.low = 51.8 * 0.85;
  a.high = 51.8 * 1.15;
  a.known_gap = true;
  ValidationRow b = a;
  b.key = "dma bw p50 trn2";
  b.workload = "dma";
  b.published.metric = "dma_bandwidth_gbps";
  b.published.statistic = "p50";
  b.published.unit = "GB/s";
  b.published.figure = 272;
  b.published.tolerance.reset();
  b.published.range = {0, 68};
  b.published.url.clear();
  b.published.order.clear();
  b.model = 3.9;
  b.error = 3.9 / 272 - 1;
  b.low = 0;
  b.high = 68;
  b.within = true;
  b.known_gap = false;
  r.rows = {a, b};
  OrderCheck c;
  c.group = "tutorial";
  c.key = "order tutorial";
  c.workloads = {"mm"};
  c.published = {51.8};
  c.model = {285.2};
  c.holds = true;
  r.orders = {c};
  r.mean_abs_error = a.error;
  r.with_tolerance = 1;
  r.within = 1;
  r.out = 1;
  r.known_gaps = 1;
  r.passed = true;
  return r;
}

TEST(ValidationReportTest, TableShowsEachFigureAndTheSummary) {
  const std::string t = ValidationTable(Result());
  for (const char* s :
       {"model 1, seed 1, 100 recorded runs per workload", "every device", "mm",
        "ncl_us", "p99", "51.8", "285.2", "+450.6%", "±15%", "OUT (known gap)",
        "0 to 68 GB/s", "within",
        "mean |error| 450.6% over the 1 figures with a tolerance; 1 of 2 "
        "figures within, 1 out (1 of them known gaps)",
        "order tutorial (mm): published 51.8, model 285.2: holds",
        "validation passed"}) {
    EXPECT_THAT(t, HasSubstr(s));
  }
}

TEST(ValidationReportTest, MarkdownLinksSourcesAndEscapesPipes) {
  const std::string m = ValidationMarkdown(Result());
  EXPECT_THAT(m, HasSubstr("| `mm` | trn1 | ncl_us p99 | 51.8 ms | 285.2 ms | "
                           "+450.6% | ±15% | OUT (known gap) | trn1.32xlarge | "
                           "nki.benchmark p99 | [NKI tutorial \\| matmul]"
                           "(https://example.com/mm) |"));
  // No URL: the source's title alone.
  EXPECT_THAT(m, HasSubstr("| NKI tutorial \\| matmul |\n"));
  EXPECT_THAT(m, HasSubstr("- validation passed\n"));
}

TEST(ValidationReportTest, JsonIsTheVersionedContract) {
  const ValidationResult r = Result();
  auto j = ValidationToJson(r);
  EXPECT_EQ(j["schema"], "trnbench.validation");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_TRUE(j["device"].is_null());
  ASSERT_EQ(j["figures"].size(), 2u);
  EXPECT_EQ(j["figures"][0]["key"], "mm ncl_us p99 trn1");
  EXPECT_EQ(j["figures"][0]["runs"], 10);
  EXPECT_EQ(j["figures"][0]["tolerance"], 0.15);
  EXPECT_FALSE(j["figures"][0].contains("range"));
  EXPECT_EQ(j["figures"][0]["known_gap"], true);
  EXPECT_EQ(j["figures"][1]["range"], (std::vector<double>{0, 68}));
  EXPECT_TRUE(j["figures"][1]["order"].is_null());
  EXPECT_EQ(j["orders"][0]["holds"], true);
  EXPECT_EQ(j["summary"]["passed"], true);
  EXPECT_EQ(j["summary"]["known_gaps"], 1);
  EXPECT_EQ(ValidationJsonText(r), ValidationJsonText(r));
  EXPECT_EQ(ValidationJsonText(r).back(), '\n');
}

}  // namespace
}  // namespace trn
