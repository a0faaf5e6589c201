// A small document model for the human-readable reports. report.md and
// report.html are two renderings of one ReportDoc, so they always carry the
// same content; neither is derived from the other's text.
#ifndef TRNBENCH_REPORTS_REPORT_DOC_H_
#define TRNBENCH_REPORTS_REPORT_DOC_H_

#include <string>
#include <string_view>
#include <vector>

namespace trn {

struct Span {
  enum class Style { kPlain, kCode, kStrong, kEmphasis };
  Style style = Style::kPlain;
  std::string text;
};
using Text = std::vector<Span>;

Text PlainText(std::string s);
Text CodeText(std::string s);
Text StrongText(std::string s);
// Concatenation, for building a line from parts.
Text operator+(Text a, const Text& b);

struct DocTable {
  std::vector<std::string> header;
  // Numbers are right-aligned; the first column (a name) is left-aligned.
  std::vector<bool> right_align;
  std::vector<std::vector<Text>> rows;
};

// A plot: written as `file` (relative to the report folder) and linked from
// markdown, inlined in HTML.
struct DocFigure {
  std::string file;
  std::string caption;
  std::string svg;
};

struct DocBlock {
  enum class Kind { kHeading, kParagraph, kList, kTable, kFigure, kDetails };
  Kind kind = Kind::kParagraph;
  int level = 2;                 // kHeading: 1..6
  Text text;                     // kHeading, kParagraph, kDetails' summary
  std::vector<Text> items;       // kList
  DocTable table;                // kTable
  DocFigure figure;              // kFigure
  std::vector<DocBlock> blocks;  // kDetails: the folded content
};

DocBlock Heading(int level, Text text);
DocBlock Paragraph(Text text);
DocBlock List(std::vector<Text> items);
DocBlock Table(DocTable table);
DocBlock Figure(DocFigure figure);
DocBlock Details(Text summary, std::vector<DocBlock> blocks);

struct ReportDoc {
  std::string title;
  std::vector<DocBlock> blocks;
};

struct MarkdownOptions {
  // false: each figure becomes a line naming its file instead of an image
  // link, for places where the file cannot be reached (a CI step summary).
  bool link_figures = true;
};

// GitHub-flavoured markdown.
std::string RenderMarkdown(const ReportDoc& doc,
                           const MarkdownOptions& options = {});
// One self-contained HTML5 page: styles inline, figures inlined as SVG, no
// scripts and no external resources.
std::string RenderHtml(const ReportDoc& doc);
// The stylesheet of every HTML page trnbench writes (report.html, the
// history's trend page), so they look alike.
std::string_view HtmlStyle();

// Every figure of the document, in order (including folded ones).
std::vector<const DocFigure*> Figures(const ReportDoc& doc);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_REPORT_DOC_H_
