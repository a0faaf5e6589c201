#include "reports/report_doc.h"

#include "absl/strings/str_cat.h"
#include "reports/text_escape.h"

namespace trn {

Text PlainText(std::string s) { return {{Span::Style::kPlain, std::move(s)}}; }
Text CodeText(std::string s) { return {{Span::Style::kCode, std::move(s)}}; }
Text StrongText(std::string s) {
  return {{Span::Style::kStrong, std::move(s)}};
}
Text operator+(Text a, const Text& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

DocBlock Heading(int level, Text text) {
  DocBlock b;
  b.kind = DocBlock::Kind::kHeading;
  b.level = level;
  b.text = std::move(text);
  return b;
}
DocBlock Paragraph(Text text) {
  DocBlock b;
  b.kind = DocBlock::Kind::kParagraph;
  b.text = std::move(text);
  return b;
}
DocBlock List(std::vector<Text> items) {
  DocBlock b;
  b.kind = DocBlock::Kind::kList;
  b.items = std::move(items);
  return b;
}
DocBlock Table(DocTable table) {
  DocBlock b;
  b.kind = DocBlock::Kind::kTable;
  b.table = std::move(table);
  return b;
}
DocBlock Figure(DocFigure figure) {
  DocBlock b;
  b.kind = DocBlock::Kind::kFigure;
  b.figure = std::move(figure);
  return b;
}
DocBlock Details(Text summary, std::vector<DocBlock> blocks) {
  DocBlock b;
  b.kind = DocBlock::Kind::kDetails;
  b.text = std::move(summary);
  b.blocks = std::move(blocks);
  return b;
}

namespace {

std::string InlineMarkdown(const Text& text) {
  std::string out;
  for (const Span& s : text) {
    if (s.text.empty()) continue;
    switch (s.style) {
      case Span::Style::kPlain:
        out += MarkdownEscape(s.text);
        break;
      case Span::Style::kCode:
        out += MarkdownCode(s.text);
        break;
      case Span::Style::kStrong:
        absl::StrAppend(&out, "**", MarkdownEscape(s.text), "**");
        break;
      case Span::Style::kEmphasis:
        absl::StrAppend(&out, "*", MarkdownEscape(s.text), "*");
        break;
    }
  }
  return out;
}

// How a cell's text may break across lines.
enum class Breaks {
  kAnywhere,     // prose: at every space
  kAfterCommas,  // a figure: only between an interval's bounds
};

// `text` escaped; with kAfterCommas every space that does not follow a comma
// is a no-break space, so "[19.89 us, 20.00 us]" can fold into its two
// bounds when a table needs the width, but a number never parts from its
// unit.
std::string EscapeHtmlText(std::string_view text, Breaks breaks) {
  std::string escaped = XmlEscapeText(text);
  if (breaks == Breaks::kAnywhere) return escaped;
  std::string out;
  out.reserve(escaped.size());
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == ' ' && (i == 0 || escaped[i - 1] != ',')) {
      out += "&#160;";
    } else {
      out += escaped[i];
    }
  }
  return out;
}

std::string InlineHtml(const Text& text, Breaks breaks = Breaks::kAnywhere) {
  std::string out;
  for (const Span& s : text) {
    const std::string escaped = EscapeHtmlText(s.text, breaks);
    switch (s.style) {
      case Span::Style::kPlain:
        out += escaped;
        break;
      case Span::Style::kCode:
        absl::StrAppend(&out, "<code>", escaped, "</code>");
        break;
      case Span::Style::kStrong:
        absl::StrAppend(&out, "<strong>", escaped, "</strong>");
        break;
      case Span::Style::kEmphasis:
        absl::StrAppend(&out, "<em>", escaped, "</em>");
        break;
    }
  }
  return out;
}

void MarkdownBlocks(const std::vector<DocBlock>& blocks,
                    const MarkdownOptions& options, std::string& out) {
  for (const DocBlock& b : blocks) {
    switch (b.kind) {
      case DocBlock::Kind::kHeading:
        absl::StrAppend(&out, std::string(static_cast<size_t>(b.level), '#'),
                        " ", InlineMarkdown(b.text), "\n\n");
        break;
      case DocBlock::Kind::kParagraph:
        absl::StrAppend(&out, InlineMarkdown(b.text), "\n\n");
        break;
      case DocBlock::Kind::kList:
        for (const Text& item : b.items) {
          absl::StrAppend(&out, "- ", InlineMarkdown(item), "\n");
        }
        out += "\n";
        break;
      case DocBlock::Kind::kTable: {
        const DocTable& t = b.table;
        out += "|";
        for (const auto& h : t.header) {
          absl::StrAppend(&out, " ", MarkdownEscape(h), " |");
        }
        out += "\n|";
        for (size_t c = 0; c < t.header.size(); ++c) {
          const bool right = c < t.right_align.size() && t.right_align[c];
          out += right ? " ---: |" : " :--- |";
        }
        out += "\n";
        for (const auto& row : t.rows) {
          out += "|";
          for (size_t c = 0; c < t.header.size(); ++c) {
            const std::string cell =
                c < row.size() ? InlineMarkdown(row[c]) : "";
            absl::StrAppend(&out, " ", cell, " |");
          }
          out += "\n";
        }
        out += "\n";
        break;
      }
      case DocBlock::Kind::kFigure:
        if (options.link_figures) {
          absl::StrAppend(&out, "![", MarkdownEscape(b.figure.caption), "](",
                          b.figure.file, ")\n\n");
        } else {
          absl::StrAppend(&out, "Plot: ", MarkdownEscape(b.figure.caption),
                          " (", MarkdownCode(b.figure.file),
                          " in the report folder)\n\n");
        }
        break;
      case DocBlock::Kind::kDetails:
        // GitHub renders markdown inside <details> only after a blank line,
        // and not inside <summary>, which therefore gets HTML.
        absl::StrAppend(&out, "<details>\n<summary>", InlineHtml(b.text),
                        "</summary>\n\n");
        MarkdownBlocks(b.blocks, options, out);
        out += "</details>\n\n";
        break;
    }
  }
}

void HtmlBlocks(const std::vector<DocBlock>& blocks, std::string& out) {
  for (const DocBlock& b : blocks) {
    switch (b.kind) {
      case DocBlock::Kind::kHeading:
        absl::StrAppend(&out, "<h", b.level, ">", InlineHtml(b.text), "</h",
                        b.level, ">\n");
        break;
      case DocBlock::Kind::kParagraph:
        absl::StrAppend(&out, "<p>", InlineHtml(b.text), "</p>\n");
        break;
      case DocBlock::Kind::kList:
        out += "<ul>\n";
        for (const Text& item : b.items) {
          absl::StrAppend(&out, "<li>", InlineHtml(item), "</li>\n");
        }
        out += "</ul>\n";
        break;
      case DocBlock::Kind::kTable: {
        const DocTable& t = b.table;
        auto right = [&](size_t c) {
          return c < t.right_align.size() && t.right_align[c];
        };
        auto cls = [&](size_t c) { return right(c) ? " class=\"r\"" : ""; };
        // A table wider than the page first folds its intervals and headers
        // (a comparison with a baseline has 13 columns, 1390 px unfolded);
        // what still does not fit scrolls inside its box instead of
        // widening the page.
        out += "<div class=\"scroll\">\n<table>\n<thead><tr>";
        for (size_t c = 0; c < t.header.size(); ++c) {
          absl::StrAppend(&out, "<th", cls(c), ">", XmlEscapeText(t.header[c]),
                          "</th>");
        }
        out += "</tr></thead>\n<tbody>\n";
        for (const auto& row : t.rows) {
          out += "<tr>";
          for (size_t c = 0; c < t.header.size(); ++c) {
            absl::StrAppend(
                &out, "<td", cls(c), ">",
                c < row.size()
                    ? InlineHtml(row[c], right(c) ? Breaks::kAfterCommas
                                                  : Breaks::kAnywhere)
                    : "",
                "</td>");
          }
          out += "</tr>\n";
        }
        out += "</tbody>\n</table>\n</div>\n";
        break;
      }
      case DocBlock::Kind::kFigure:
        absl::StrAppend(&out, "<figure>\n", b.figure.svg, "<figcaption>",
                        XmlEscapeText(b.figure.caption),
                        "</figcaption>\n</figure>\n");
        break;
      case DocBlock::Kind::kDetails:
        absl::StrAppend(&out, "<details>\n<summary>", InlineHtml(b.text),
                        "</summary>\n");
        HtmlBlocks(b.blocks, out);
        out += "</details>\n";
        break;
    }
  }
}

constexpr char kHtmlStyle[] =
    "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;"
    "color:#1f2328;background:#fff;margin:2em auto;max-width:1280px;"
    "padding:0 1em;line-height:1.45}\n"
    "h1,h2,h3,h4{line-height:1.25}\n"
    "h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}"
    "\n"
    "div.scroll{overflow-x:auto;max-width:100%}\n"
    "table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:13px}\n"
    "th,td{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top}\n"
    "th{background:#f6f8fa}\n"
    "td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;"
    "font-size:90%;background:#f6f8fa;padding:0 3px;border-radius:3px}\n"
    "figure{margin:.5em 0 1.5em}\n"
    "figcaption{font-size:13px;color:#57606a}\n"
    "figure svg{max-width:100%;height:auto;display:block}\n"
    "details{margin:.5em 0 1em}\n"
    "summary{cursor:pointer;font-weight:600}\n";

void CollectFigures(const std::vector<DocBlock>& blocks,
                    std::vector<const DocFigure*>& out) {
  for (const DocBlock& b : blocks) {
    if (b.kind == DocBlock::Kind::kFigure) out.push_back(&b.figure);
    if (b.kind == DocBlock::Kind::kDetails) CollectFigures(b.blocks, out);
  }
}

}  // namespace

std::string RenderMarkdown(const ReportDoc& doc,
                           const MarkdownOptions& options) {
  std::string out = absl::StrCat("# ", MarkdownEscape(doc.title), "\n\n");
  MarkdownBlocks(doc.blocks, options, out);
  while (out.size() > 1 && out[out.size() - 1] == '\n' &&
         out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  return out;
}

std::string_view HtmlStyle() { return kHtmlStyle; }

std::string RenderHtml(const ReportDoc& doc) {
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>",
      XmlEscape(doc.title), "</title>\n<style>\n", kHtmlStyle,
      "</style>\n</head>\n<body>\n<h1>", XmlEscape(doc.title), "</h1>\n");
  HtmlBlocks(doc.blocks, out);
  out += "</body>\n</html>\n";
  return out;
}

std::vector<const DocFigure*> Figures(const ReportDoc& doc) {
  std::vector<const DocFigure*> out;
  CollectFigures(doc.blocks, out);
  return out;
}

}  // namespace trn
