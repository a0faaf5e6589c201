// Reading one measured file as the tools wrote it: plain or gzip-compressed
// bytes, its content hash for provenance, and JSON that tolerates the
// non-finite literals some tools write.
#ifndef TRNBENCH_HARNESS_IMPORT_MEASURED_FILE_H_
#define TRNBENCH_HARNESS_IMPORT_MEASURED_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace trn::import {

// A measured file larger than this, on disk or decompressed, is refused:
// the readers hold it in memory as a JSON tree.
inline constexpr int64_t kMaxMeasuredFileBytes = int64_t{512} << 20;

// A gzip stream that decompresses to more than this many times the bytes
// read of it (once past kGzipRatioFloorBytes) is refused while it is being
// read: JSON and text compress 5-20x (the fixtures: 7-11x), and what
// compresses far better is padding or a decompression bomb (deflate can
// reach ~1000x), whose memory would be spent before the size limit stops it.
inline constexpr int64_t kMaxGzipRatio = 200;
inline constexpr int64_t kGzipRatioFloorBytes = int64_t{1} << 20;

struct MeasuredFile {
  std::string path;     // as given; names the file in every message
  std::string text;     // the content, decompressed when it was gzip
  std::string fnv1a64;  // FNV-1a 64 of the bytes on disk, hex
  int64_t bytes = 0;    // size on disk
  bool gzipped = false;
};

// A measured file from memory (tests, fuzzing): `bytes` as stored on disk.
absl::StatusOr<MeasuredFile> MeasuredFileFromBytes(std::string path,
                                                   std::string bytes);
absl::StatusOr<MeasuredFile> ReadMeasuredFile(const std::string& path);

// Parses the file as JSON with the strict reader, after turning the bare
// literals NaN, Infinity and -Infinity outside strings into null (Google
// Benchmark writes them for counters it could not compute).
absl::StatusOr<nlohmann::json> ParseMeasuredJson(const MeasuredFile& file);

// An InvalidArgument error "<file>: <pointer>: <what>", escaped for one line.
absl::Status BadInput(absl::string_view file, absl::string_view pointer,
                      absl::string_view what);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_MEASURED_FILE_H_
