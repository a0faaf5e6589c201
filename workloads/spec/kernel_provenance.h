// The optional top-level "kernel_source" key of a spec: which NKI kernel
// source a traced spec was made from (docs/spec-format.md, "Traced specs").
// The NKI front end (workloads/frontends/nki/nki_frontend/) writes it; the
// compiler stage and lowering never read it. Its sha256 is part of the spec's
// bytes, so a changed kernel source changes the spec's content hash, which the
// regression gate compares.
#ifndef TRNBENCH_WORKLOADS_SPEC_KERNEL_PROVENANCE_H_
#define TRNBENCH_WORKLOADS_SPEC_KERNEL_PROVENANCE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json_fwd.hpp"

namespace trn {

class JsonReader;

struct KernelSource {
  std::string path;      // the kernel file, as the user named it
  std::string sha256;    // 64 lowercase hex digits of the file's bytes
  std::string function;  // the traced function
  std::map<std::string, std::string> args;    // name -> "8192x4096:bfloat16"
  std::map<std::string, std::string> kwargs;  // name -> "16"
};

// A validation spec's upstream kernel ("traced_from"): what `trnbench
// validate --sources DIR` traces to predict the spec's figures from source.
struct KernelReference {
  std::string file;                 // relative to DIR
  std::string function;             // FUNCTION or FUNCTION[grid]
  std::string args;                 // as --args
  std::vector<std::string> kwargs;  // NAME=VALUE each, as --kwarg
};

// Reads root["traced_from"]; nullopt when the spec has none.
absl::StatusOr<std::optional<KernelReference>> ReadKernelReference(
    const nlohmann::json& root, const JsonReader& r);

// Reads root["kernel_source"]; nullopt when the spec has none.
absl::StatusOr<std::optional<KernelSource>> ReadKernelSource(
    const nlohmann::json& root, const JsonReader& r);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_KERNEL_PROVENANCE_H_
