#include "harness/import/measured_file.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "support/hash.h"
#include "support/input_error.h"
#include "support/message_text.h"
#include "support/strict_json.h"

namespace trn::import {
namespace {

bool IsGzip(absl::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates one gzip stream chunk by chunk, checking the decompressed size
// and the compression ratio as it goes, so that neither a bomb nor padding
// costs more memory than the limits allow; bytes after the stream's end (a
// second member, or anything else) are refused: the tools write one.
absl::StatusOr<std::string> Gunzip(absl::string_view bytes,
                                   absl::string_view label) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer, checked by zlib.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    return absl::InternalError(absl::StrCat(label, ": zlib did not start"));
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char chunk[1 << 16];
  int rc = Z_OK;
  auto fail = [&](std::string what) -> absl::Status {
    inflateEnd(&z);
    return BadInput(label, "/", what);
  };
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      return fail(
          "expected gzip-compressed data (the file starts like gzip but does "
          "not decompress: truncated or corrupt)");
    }
    out.append(chunk, sizeof(chunk) - z.avail_out);
    const auto produced = static_cast<int64_t>(out.size());
    const auto consumed = static_cast<int64_t>(bytes.size() - z.avail_in);
    if (produced > kMaxMeasuredFileBytes) {
      return fail(absl::StrCat("expected at most ", kMaxMeasuredFileBytes >> 20,
                               " MiB once decompressed"));
    }
    if (produced > kGzipRatioFloorBytes &&
        produced > kMaxGzipRatio * std::max<int64_t>(1, consumed)) {
      return fail(absl::StrCat(
          "decompresses to more than ", kMaxGzipRatio, " times its size (",
          produced, " bytes from the first ", consumed,
          "); expected a compressed measurement, not padding or a "
          "decompression bomb"));
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      return fail("expected a complete gzip stream (it ends early)");
    }
  }
  if (z.avail_in != 0) {
    const uInt after = z.avail_in;
    return fail(absl::StrCat(after, " byte", after == 1 ? "" : "s",
                             " after the end of the gzip stream; expected one "
                             "gzip stream and nothing after it"));
  }
  inflateEnd(&z);
  return out;
}

// Copies `text`, writing null for NaN, Infinity and -Infinity where a JSON
// value may start (outside strings).
std::string NullForNonFinite(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      continue;
    }
    for (absl::string_view lit : {"-Infinity", "Infinity", "NaN"}) {
      if (text.substr(i, lit.size()) == lit) {
        const size_t end = i + lit.size();
        const bool boundary =
            end == text.size() ||
            !std::isalnum(static_cast<unsigned char>(text[end]));
        if (boundary) {
          out += "null";
          i = end - 1;
          goto next;
        }
      }
    }
    out.push_back(c);
  next:;
  }
  return out;
}

}  // namespace

absl::Status BadInput(absl::string_view file, absl::string_view pointer,
                      absl::string_view what) {
  return InputError(std::string_view(file.data(), file.size()),
                    std::string_view(pointer.data(), pointer.size()),
                    std::string_view(what.data(), what.size()));
}

absl::StatusOr<MeasuredFile> MeasuredFileFromBytes(std::string path,
                                                   std::string bytes) {
  MeasuredFile f;
  f.bytes = static_cast<int64_t>(bytes.size());
  f.fnv1a64 = Fnv1a64Hex(bytes);
  f.gzipped = IsGzip(bytes);
  if (f.gzipped) {
    auto text = Gunzip(bytes, path);
    if (!text.ok()) return text.status();
    f.text = *std::move(text);
  } else {
    f.text = std::move(bytes);
  }
  f.path = std::move(path);
  return f;
}

absl::StatusOr<MeasuredFile> ReadMeasuredFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::InvalidArgumentError(
        EscapeControl(absl::StrCat(path, ": no such measured file")));
  }
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(EscapeControl(
        absl::StrCat(path, ": is a folder; expected a measured file")));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        EscapeControl(absl::StrCat(path, ": cannot read")));
  }
  // At most one chunk past the limit, so a huge pipe cannot exhaust memory.
  std::string bytes;
  char chunk[1 << 16];
  while (in && static_cast<int64_t>(bytes.size()) <= kMaxMeasuredFileBytes) {
    in.read(chunk, sizeof(chunk));
    bytes.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (static_cast<int64_t>(bytes.size()) > kMaxMeasuredFileBytes) {
    return BadInput(
        path, "/",
        absl::StrCat("expected at most ", kMaxMeasuredFileBytes >> 20, " MiB"));
  }
  return MeasuredFileFromBytes(path, std::move(bytes));
}

absl::StatusOr<nlohmann::json> ParseMeasuredJson(const MeasuredFile& file) {
  return ParseStrictJson(NullForNonFinite(file.text), file.path);
}

}  // namespace trn::import
