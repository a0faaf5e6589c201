// Escaping for the text formats the report writers emit. Every function
// makes any input safe for its format, so a workload, op or reason string
// with commas, quotes, markup or control characters cannot break a report.
#ifndef TRNBENCH_REPORTS_TEXT_ESCAPE_H_
#define TRNBENCH_REPORTS_TEXT_ESCAPE_H_

#include <string>
#include <string_view>

namespace trn {

// Character data and attribute values of XML 1.0 (so also SVG and HTML).
// Escapes & < > " ' and replaces what XML 1.0 cannot carry at all, even as a
// character reference (control characters other than tab, LF and CR, and
// malformed UTF-8), with U+FFFD.
// Line breaks and tabs become character references, which attribute values
// need (a parser would turn them into spaces).
std::string XmlEscape(std::string_view s);
// The same for element content, where tabs and LF stay literal (CR still
// becomes a reference: parsers turn CRLF into LF).
std::string XmlEscapeText(std::string_view s);

// One RFC 4180 field: quoted when it holds a comma, a double quote, CR or
// LF, with every double quote doubled.
std::string CsvField(std::string_view s);

// Text inside a markdown (GitHub-flavoured) paragraph or table cell:
// backslash-escapes the punctuation that could start markup, turns line
// breaks into spaces (a cell is one line) and escapes `|` for tables.
std::string MarkdownEscape(std::string_view s);

// A markdown code span holding `s` literally, with `|` escaped so that it
// also works inside a table cell.
std::string MarkdownCode(std::string_view s);

// The shortest decimal that reads back as the same double ("0.1", "2389.5",
// "1e-07"); deterministic across compilers. Empty for NaN and infinities,
// which no report format here can carry.
std::string ShortestDouble(double x);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_TEXT_ESCAPE_H_
