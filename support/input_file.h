// Reading an input file (a spec, a device profile, a baseline, a results
// file) with bounded time and memory: anything that is not a regular file
// is refused at once, before a read could block, and no more than one byte
// past the size limit is ever read.
#ifndef TRNBENCH_SUPPORT_INPUT_FILE_H_
#define TRNBENCH_SUPPORT_INPUT_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trn {

// The bytes of `path`, at most `max_bytes` of them. `what` names the kind of
// file in messages ("spec file", "baseline or results file").
//
// Refused, each with one line naming `path`: a missing file (NotFound), a
// folder, a named pipe (FIFO), a device or a socket (InvalidArgument: a
// FIFO nobody writes would block the reader forever, /dev/zero never
// ends), a file that cannot be read (PermissionDenied), and a file larger
// than `max_bytes` (InvalidArgument, "<path>: /: <too_large>", by default
// "file is larger than N MiB").
// The one kind of pipe accepted is the anonymous one a shell hands over for
// `<(command)`, which has a writer by construction.
absl::StatusOr<std::string> ReadInputFile(const std::string& path,
                                          int64_t max_bytes,
                                          absl::string_view what,
                                          absl::string_view too_large = {});

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_INPUT_FILE_H_
