#include "reports/report_dir.h"

#include "reports/csv_report.h"
#include "reports/json_results.h"

namespace trn {

ReportFiles RenderReportFiles(const ReportInputs& in) {
  const ReportDoc doc = BuildReport(in);
  ReportFiles out;
  out.files.push_back(
      {"results.json", ResultsToJsonText(*in.run, in.comparison)});
  out.files.push_back({"report.md", RenderMarkdown(doc)});
  out.files.push_back({"report.html", RenderHtml(doc)});
  out.files.push_back({"summary.csv", SummaryCsv(*in.run, in.comparison)});
  out.files.push_back({"samples.csv", SamplesCsv(*in.run)});
  for (const DocFigure* f : Figures(doc)) {
    out.files.push_back({f->file, f->svg});
  }
  MarkdownOptions summary;
  summary.link_figures = false;
  out.step_summary = RenderMarkdown(doc, summary);
  return out;
}

std::vector<std::string> ReportFileNames() {
  return {"results.json", "report.md",   "report.html",
          "summary.csv",  "samples.csv", "plots/"};
}

}  // namespace trn
