#include "tools/trnbench/diagnostics.h"

#include <ostream>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "support/message_text.h"
#include "tools/trnbench/options.h"

namespace trn {

absl::Status FromFlag(absl::string_view flag, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(flag, " ", status.message()));
}

std::string WithFlagSpellings(absl::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t at = 0;
  while (at < message.size()) {
    const size_t open = message.find('`', at);
    if (open == absl::string_view::npos) break;
    const size_t close = message.find('`', open + 1);
    if (close == absl::string_view::npos) break;
    const absl::string_view name = message.substr(open + 1, close - open - 1);
    out.append(message.data() + at, open - at);
    if (!name.empty() &&
        IsFlagName(std::string_view(name.data(), name.size()))) {
      out += Dashed(std::string_view(name.data(), name.size()));
      at = close + 1;
    } else {
      // Not a flag: keep the backquote and look for a name after it.
      out += '`';
      at = open + 1;
    }
  }
  out.append(message.data() + at, message.size() - at);
  return out;
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    // What the user gave or pointed at is wrong or cannot be used as it is:
    // Abseil's codes for bad arguments and for a system state the caller
    // must fix (status.h), and errno's mapping of a full disk
    // (ResourceExhausted) and a missing or unwritable place.
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDataLoss:
      return kExitBadInput;
    default:
      return kExitInternal;
  }
}

int Fail(std::ostream& err, const absl::Status& status) {
  const int code = ExitCodeFor(status);
  const char* prefix = code == kExitInternal
                           ? "trnbench: internal error (a bug; please report "
                             "it): "
                           : "trnbench: error: ";
  const std::string message = WithFlagSpellings(status.message());
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    err << prefix
        << ShortenForTerminal(std::string_view(line.data(), line.size()))
        << "\n";
  }
  return code;
}

}  // namespace trn
