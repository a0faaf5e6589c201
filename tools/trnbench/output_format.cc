#include "tools/trnbench/output_format.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/message_text.h"

namespace trn {
namespace {

constexpr OutputFormat kAll[] = {OutputFormat::kTable, OutputFormat::kJson,
                                 OutputFormat::kGbenchJson,
                                 OutputFormat::kMarkdown, OutputFormat::kCsv};

std::optional<OutputFormat> Parse(std::string_view name) {
  for (OutputFormat f : kAll) {
    if (FormatName(f) == name) return f;
  }
  return std::nullopt;
}

}  // namespace

std::string_view FormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kGbenchJson:
      return "gbench-json";
    case OutputFormat::kMarkdown:
      return "markdown";
    case OutputFormat::kCsv:
      return "csv";
  }
  return "table";
}

std::string FormatList(std::span<const OutputFormat> formats) {
  std::string out;
  for (size_t i = 0; i < formats.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, i + 1 == formats.size() ? " or " : ", ");
    absl::StrAppend(&out, absl::string_view(FormatName(formats[i]).data(),
                                            FormatName(formats[i]).size()));
  }
  return out;
}

absl::StatusOr<OutputFormat> FormatFor(const Options& options,
                                       std::span<const OutputFormat> writes,
                                       std::string_view command) {
  const std::optional<OutputFormat> f = Parse(options.format);
  if (f.has_value() &&
      std::find(writes.begin(), writes.end(), *f) != writes.end()) {
    return *f;
  }
  std::string message =
      absl::StrCat("--format=", EscapeControl(options.format), ": ");
  if (command.empty()) {
    absl::StrAppend(&message, "expected ", FormatList(writes));
  } else {
    absl::StrAppend(&message, absl::string_view(command.data(), command.size()),
                    " writes --format ", FormatList(writes));
  }
  if (f == OutputFormat::kGbenchJson) {
    absl::StrAppend(&message,
                    "; gbench-json needs a run (trnbench --workload ... or "
                    "gate)");
  }
  return absl::InvalidArgumentError(message);
}

}  // namespace trn
