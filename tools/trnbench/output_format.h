// The formats --format names, in one registry: a command says which ones it
// writes, gets the user's choice back as an enum and dispatches on that, so
// no command compares format names and every refusal reads the same.
#ifndef TRNBENCH_TOOLS_TRNBENCH_OUTPUT_FORMAT_H_
#define TRNBENCH_TOOLS_TRNBENCH_OUTPUT_FORMAT_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tools/trnbench/options.h"

namespace trn {

enum class OutputFormat { kTable, kJson, kGbenchJson, kMarkdown, kCsv };

// The --format spelling.
std::string_view FormatName(OutputFormat format);

// What each kind of command writes.
inline constexpr OutputFormat kRunFormats[] = {
    OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kGbenchJson};
inline constexpr OutputFormat kReportFormats[] = {OutputFormat::kTable,
                                                  OutputFormat::kJson};
inline constexpr OutputFormat kDocumentFormats[] = {
    OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kMarkdown};
// `history show`: the table, or the runs and series for programs.
inline constexpr OutputFormat kHistoryShowFormats[] = {
    OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv};

// "table, json or gbench-json".
std::string FormatList(std::span<const OutputFormat> formats);

// The format --format asks for, when `command` (its words, such as
// "history detect"; empty for a run) writes it; otherwise
// InvalidArgument naming the flag, the value and what the command writes.
absl::StatusOr<OutputFormat> FormatFor(const Options& options,
                                       std::span<const OutputFormat> writes,
                                       std::string_view command);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_OUTPUT_FORMAT_H_
