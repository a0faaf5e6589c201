// report.html: one self-contained page with the markdown report's content
// and the plots inlined, and a real-browser check: headless Chromium renders
// it to a PNG that must show the plots, not a blank page.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/report_builder.h"
#include "reports/report_dir.h"
#include "reports/report_doc.h"
#include "tests/reports/report_test_util.h"

#ifdef TRNBENCH_HAVE_ZLIB
#include <zlib.h>
#endif

namespace trn {
namespace {

using report_test::Count;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(HtmlReportTest, SelfContainedWithTheMarkdownContent) {
  const RunResult run = report_test::MakeRun(report_test::kSeeds, 10);
  ReportInputs in;
  in.run = &run;
  const ReportDoc doc = BuildReport(in);
  const std::string html = RenderHtml(doc);
  const std::string md = RenderMarkdown(doc);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
  // Nothing to fetch: no scripts, links, external images or fonts.
  for (const char* bad : {"<script", "src=", "href=", "url(", "@import"}) {
    EXPECT_THAT(html, Not(HasSubstr(bad))) << bad;
  }
  const auto figures = Figures(doc);
  EXPECT_EQ(Count(html, "<svg "), static_cast<int>(figures.size()));
  EXPECT_EQ(Count(html, "</svg>"), static_cast<int>(figures.size()));
  for (const char* tag : {"table", "details", "figure", "summary", "thead",
                          "tbody", "tr", "code", "p", "h2", "h3", "div"}) {
    EXPECT_EQ(Count(html, absl::StrCat("<", tag, ">")) +
                  Count(html, absl::StrCat("<", tag, " ")),
              Count(html, absl::StrCat("</", tag, ">")))
        << tag;
  }
  // The same content as report.md: as many tables, every op and workload.
  EXPECT_EQ(Count(html, "<table>"), Count(md, "\n| :--- |"));
  for (const auto& w : run.workloads) {
    EXPECT_THAT(html, HasSubstr("<code>" + w.name + "</code>"));
    for (const auto& op : w.ops) {
      EXPECT_THAT(html, HasSubstr("<code>" + op.name + "</code>"));
    }
  }
}

TEST(HtmlReportTest, EscapesNames) {
  ReportDoc doc;
  doc.title = "a <b> & \"c\"";
  doc.blocks.push_back(Paragraph(CodeText("<script>alert(1)</script>")));
  const std::string html = RenderHtml(doc);
  EXPECT_THAT(html,
              HasSubstr("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
  EXPECT_THAT(html,
              HasSubstr("<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"));
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
}

// --- The real-browser check ------------------------------------------------

std::string FindChromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

struct Picture {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgb;  // decoded, 3 bytes a pixel (empty without zlib)
};

uint32_t Be32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 3]));
}

// A minimal PNG reader: 8-bit RGB or RGBA, not interlaced, which is what
// Chromium writes; the scanline filters are undone as the PNG spec says.
Picture ReadPng(const std::string& bytes) {
  Picture pic;
  EXPECT_GE(bytes.size(), 33u);
  if (bytes.size() < 33) return pic;
  EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  pic.width = Be32(bytes, 16);
  pic.height = Be32(bytes, 20);
#ifdef TRNBENCH_HAVE_ZLIB
  const int depth = static_cast<uint8_t>(bytes[24]);
  const int color = static_cast<uint8_t>(bytes[25]);
  const int interlace = static_cast<uint8_t>(bytes[28]);
  EXPECT_EQ(depth, 8);
  EXPECT_TRUE(color == 2 || color == 6) << color;
  EXPECT_EQ(interlace, 0);
  const size_t channels = color == 6 ? 4 : 3;
  std::string idat;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t len = Be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (type == "IDAT") idat += bytes.substr(at + 8, len);
    at += 12 + len;
  }
  const size_t stride = pic.width * channels;
  std::vector<uint8_t> raw((stride + 1) * pic.height);
  uLongf raw_len = static_cast<uLongf>(raw.size());
  const int rc = uncompress(raw.data(), &raw_len,
                            reinterpret_cast<const Bytef*>(idat.data()),
                            static_cast<uLong>(idat.size()));
  EXPECT_EQ(rc, Z_OK);
  if (rc != Z_OK) return pic;
  std::vector<uint8_t> prev(stride, 0);
  std::vector<uint8_t> cur(stride);
  pic.rgb.reserve(static_cast<size_t>(pic.width) * pic.height * 3);
  for (uint32_t y = 0; y < pic.height; ++y) {
    const uint8_t* line = raw.data() + y * (stride + 1);
    const int filter = line[0];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= channels ? cur[x - channels] : 0;
      const int b = prev[x];
      const int c = x >= channels ? prev[x - channels] : 0;
      int pred = 0;
      switch (filter) {
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c;
          const int pa = std::abs(p - a);
          const int pb = std::abs(p - b);
          const int pc = std::abs(p - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          break;
      }
      cur[x] = static_cast<uint8_t>(line[1 + x] + pred);
    }
    for (uint32_t x = 0; x < pic.width; ++x) {
      for (size_t k = 0; k < 3; ++k) pic.rgb.push_back(cur[x * channels + k]);
    }
    std::swap(prev, cur);
  }
#endif
  return pic;
}

#ifdef TRNBENCH_HAVE_ZLIB
struct Ink {
  size_t colours = 0;
  double non_white = 0;  // fraction of pixels
  size_t blue = 0;       // pixels of the plots' "current" colour family
};

Ink Measure(const Picture& pic) {
  Ink ink;
  std::set<uint32_t> colours;
  size_t non_white = 0;
  const size_t n = pic.rgb.size() / 3;
  for (size_t i = 0; i < n; ++i) {
    const int r = pic.rgb[3 * i];
    const int g = pic.rgb[3 * i + 1];
    const int b = pic.rgb[3 * i + 2];
    colours.insert(static_cast<uint32_t>(r << 16 | g << 8 | b));
    non_white += (r < 245 || g < 245 || b < 245);
    ink.blue += b > r + 40 && b > g + 15;
  }
  ink.colours = colours.size();
  ink.non_white =
      n == 0 ? 0 : static_cast<double>(non_white) / static_cast<double>(n);
  return ink;
}
#endif

// Renders `url` to a PNG with the flags this offline machine needs.
std::string Screenshot(const std::string& chromium, const std::string& url,
                       const std::string& dir, const std::string& size) {
  const std::string png = dir + "/shot.png";
  const std::string profile = dir + "/chromium-profile";
  std::filesystem::remove(png);
  std::filesystem::remove_all(profile);
  const std::string cmd =
      "timeout 120 " + chromium +
      " --headless --no-sandbox --disable-gpu --user-data-dir=" + profile +
      " --disable-background-networking --disable-component-update"
      " --disable-sync --no-first-run --disable-quic --hide-scrollbars"
      " --screenshot=" +
      png + " --window-size=" + size + " " + url + " >" + dir +
      "/chromium.log 2>&1";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << cmd << "\n"
                       << report_test::Slurp(dir + "/chromium.log");
  std::filesystem::remove_all(profile);
  return report_test::Slurp(png);
}

TEST(HtmlReportTest, RendersInHeadlessChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium; "
                    ".ci/run installs it), so the render test cannot run";
  }
  const RunResult run = report_test::MakeRun(report_test::kSeeds, 50, 11);
  std::vector<Baseline> baselines;
  const ComparisonReport c = report_test::MakeComparison(
      run, report_test::MakeRun(report_test::kSeeds, 50, 12), &baselines);
  ReportInputs in;
  in.run = &run;
  in.comparison = &c;
  in.baselines = &baselines;
  const std::string dir = report_test::FreshDir("chromium");
  const std::string report = dir + "/report";
  ASSERT_TRUE(
      WriteFolderAtomic("--report-dir", report, RenderReportFiles(in).files)
          .ok());

  const std::string page = Screenshot(
      chromium, "file://" + report + "/report.html", dir, "1200,2000");
  const Picture pic = ReadPng(page);
  EXPECT_EQ(pic.width, 1200u);
  EXPECT_EQ(pic.height, 2000u);
  // A standalone plot, as report.md links it: an SVG with an XML error
  // renders as Chromium's error page, which has no plot colours.
  const std::string plot = Screenshot(
      chromium, "file://" + report + "/plots/rmsnorm-device_time_us.svg", dir,
      "800,600");
  const Picture plot_pic = ReadPng(plot);
  EXPECT_EQ(plot_pic.width, 800u);
#ifdef TRNBENCH_HAVE_ZLIB
  const Ink ink = Measure(pic);
  EXPECT_GT(ink.colours, 64u) << "a page of text, tables and plots";
  EXPECT_GT(ink.non_white, 0.03);
  EXPECT_GT(ink.blue, 500u) << "the plots' boxes and dots are drawn";
  const Ink plot_ink = Measure(plot_pic);
  EXPECT_GT(plot_ink.blue, 300u);
  EXPECT_GT(plot_ink.colours, 16u);
#else
  // Without zlib the picture is not decoded: a blank 1200x2000 page
  // compresses to a few kilobytes, this one cannot.
  EXPECT_GT(page.size(), 60000u);
  EXPECT_GT(plot.size(), 8000u);
#endif
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

// The gate's page in a real browser window. At 1400 and 1920 pixels every
// table fits the page whole (with a baseline a family table has 13 columns
// and was 1390 px wide, its speed-up interval behind a scrollbar); at 800
// the widest tables scroll inside their box, but the page itself never
// scrolls sideways, every plot fits, and the change, its interval and the
// verdict of every table are in sight. A script appended to a copy of the
// page (the report has none) measures the layout; Chromium prints the
// resulting DOM.
TEST(HtmlReportTest, TablesFitThePageAndTheVerdictIsInSight) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium; "
                    ".ci/run installs it), so the layout test cannot run";
  }
  const char* kFamilies = "rmsnorm,rmsnorm_llm,exp";
  const RunResult run = report_test::MakeRun(kFamilies, 20, 11);
  std::vector<Baseline> baselines;
  const ComparisonReport c = report_test::MakeComparison(
      run, report_test::MakeRun(kFamilies, 20, 12), &baselines);
  ReportInputs in;
  in.run = &run;
  in.comparison = &c;
  in.baselines = &baselines;
  std::string html;
  for (const OutputFile& f : RenderReportFiles(in).files) {
    if (f.path == "report.html") html = f.content;
  }
  ASSERT_FALSE(html.empty());
  ASSERT_NE(html.find("<th class=\"r\">speed-up interval</th>"),
            std::string::npos)
      << "the widest table, a family's with a baseline and speed-ups";
  const std::string probe = R"js(<script>
const bad = [];
const wide = [];
let checked = 0;
let tables = 0;
for (const table of document.querySelectorAll('table')) {
  const box = table.closest('div');
  const edge = Math.min(box.getBoundingClientRect().right, window.innerWidth);
  ++tables;
  if (table.getBoundingClientRect().width > box.clientWidth + 0.5)
    wide.push(table.querySelector('th:last-child').textContent + ' ' +
              Math.round(table.getBoundingClientRect().width) + ' of ' +
              box.clientWidth);
  for (const th of table.querySelectorAll('th')) {
    const name = th.textContent;
    if (!['change', 'change interval', 'verdict', '95% interval']
             .includes(name)) continue;
    if (name === '95% interval' &&
        ![...table.querySelectorAll('th')].some(h => h.textContent === 'verdict'))
      continue;
    ++checked;
    const r = th.getBoundingClientRect();
    if (r.right > edge + 0.5)
      bad.push(name + ' ends at ' + Math.round(r.right) + ' of ' +
               Math.round(edge));
  }
}
let figures = 0;
for (const svg of document.querySelectorAll('figure svg')) {
  ++figures;
  if (svg.getBoundingClientRect().right > window.innerWidth + 0.5)
    bad.push('a plot ends at ' + Math.round(svg.getBoundingClientRect().right));
}
const page = document.documentElement.scrollWidth;
document.body.setAttribute('data-layout',
    'checked=' + checked + ';tables=' + tables + ';figures=' + figures +
    ';page=' + page + ';window=' + window.innerWidth + ';wide=' +
    wide.join('|') + ';hidden=' + bad.join('|'));
</script>
</body>)js";
  const size_t end = html.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  html.replace(end, 7, probe);
  const std::string dir = report_test::FreshDir("html_layout");
  std::ofstream(dir + "/page.html", std::ios::binary) << html;
  for (const int width : {1400, 1920, 800}) {
    const std::string profile = dir + "/chromium-profile";
    std::filesystem::remove_all(profile);
    const std::string cmd =
        "timeout 120 " + chromium +
        " --headless --no-sandbox --disable-gpu --user-data-dir=" + profile +
        " --disable-background-networking --disable-component-update"
        " --disable-sync --no-first-run --hide-scrollbars --window-size=" +
        std::to_string(width) + ",1000 --dump-dom file://" + dir +
        "/page.html >" + dir + "/dom.html 2>" + dir + "/chromium.log";
    ASSERT_EQ(std::system(cmd.c_str()), 0)
        << cmd << "\n"
        << report_test::Slurp(dir + "/chromium.log");
    const std::string dom = report_test::Slurp(dir + "/dom.html");
    const std::regex result(
        R"re(data-layout="checked=([0-9]+);tables=([0-9]+);figures=([0-9]+);page=([0-9]+);window=([0-9]+);wide=([^;]*);hidden=([^"]*)")re");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(dom, m, result)) << width << "\n"
                                                   << dom.substr(0, 300);
    // Per family: change, change interval, verdict in the summary; verdict,
    // change, 95% interval in the comparison table.
    EXPECT_GE(std::stoi(m[1]), 18) << width;
    EXPECT_GE(std::stoi(m[2]), 12) << width;
    EXPECT_GE(std::stoi(m[3]), 10) << width;
    EXPECT_EQ(std::stoi(m[5]), width);
    EXPECT_LE(std::stoi(m[4]), width) << "the page scrolls sideways";
    EXPECT_EQ(m[7], "") << "at " << width << " px";
    if (width >= 1400) {
      EXPECT_EQ(m[6], "") << "wider than the page at " << width << " px";
    }
  }
}

}  // namespace
}  // namespace trn
