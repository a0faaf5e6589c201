#include "harness/import/hyperfine_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/input_error.h"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn::import {

bool LooksLikeHyperfine(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("results")) return false;
  const nlohmann::json& r = json["results"];
  return r.is_array() && !r.empty() && r[0].is_object() &&
         r[0].contains("command");
}

absl::StatusOr<Imported> ReadHyperfine(const std::vector<ParsedInput>& inputs) {
  Imported out;
  out.tool = "hyperfine";
  for (const ParsedInput& in : inputs) {
    const std::string& file = in.file->path;
    const JsonReader r(file);
    const nlohmann::json& j = in.json;
    if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) {
      return BadInput(file, "/results",
                      "expected an array of commands (hyperfine "
                      "--export-json output)");
    }
    const nlohmann::json& results = j["results"];
    for (size_t i = 0; i < results.size(); ++i) {
      const std::string p = JsonChild("/results", i);
      const nlohmann::json& result = results[i];
      TRN_ASSIGN_OR_RETURN(const std::string name,
                           r.RequiredString(result, p, "command"));
      const nlohmann::json* times = JsonReader::Optional(result, "times");
      if (times == nullptr) {
        return r.Error({p, "times"},
                       "required key \"times\" is missing: hyperfine writes "
                       "the run times from version 1.9 on");
      }
      const std::string times_at = JsonChild(p, "times");
      TRN_RETURN_IF_ERROR(
          r.Array(*times, times_at, "an array of run times in seconds"));
      const nlohmann::json* codes = JsonReader::Optional(result, "exit_codes");
      const std::string codes_at = JsonChild(p, "exit_codes");
      if (codes != nullptr && codes->is_null()) codes = nullptr;
      const std::string expected_codes = absl::StrCat(
          "an array of ", times->size(), " exit codes, one per time");
      if (codes != nullptr) {
        TRN_RETURN_IF_ERROR(r.Array(*codes, codes_at, expected_codes));
        if (codes->size() != times->size()) {
          return r.Error(codes_at, absl::StrCat("expected ", expected_codes,
                                                ", got ", codes->size()));
        }
      }
      std::vector<double> samples;
      for (size_t k = 0; k < times->size(); ++k) {
        // A time of 0 (hyperfine's rounding of a run faster than its
        // clock) is no measurement, and the results reader refuses it.
        TRN_ASSIGN_OR_RETURN(
            const double t,
            r.Number((*times)[k], {times_at, k}, {.min = 0, .min_open = true},
                     "a time in seconds > 0"));
        if (!std::isfinite(t * 1e6)) {
          return r.Error(
              {times_at, k},
              absl::StrCat(t,
                           " s overflows in microseconds; "
                           "expected a time in seconds below ",
                           std::numeric_limits<double>::max() / 1e6));
        }
        if (codes != nullptr) {
          // A failed run (or one killed by a signal: null) is not a
          // measurement of the command.
          const nlohmann::json& c = (*codes)[k];
          if (c.is_null()) continue;
          TRN_ASSIGN_OR_RETURN(
              const int64_t code,
              r.Int(c, {codes_at, k}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(),
                    "an integer exit code or null"));
          if (code != 0) continue;
        }
        samples.push_back(t * 1e6);
      }
      if (samples.empty()) {
        return BadInput(file, p + "/exit_codes",
                        "expected at least one run with exit code 0");
      }
      // One command twice in one file is two benchmarks that happen to
      // share a name (a parameter sweep without --parameter-*): pooling
      // them would mix two distributions. Across files the same command
      // is the same benchmark measured again, and its runs are pooled.
      for (size_t prev = 0; prev < i; ++prev) {
        const nlohmann::json* c =
            JsonReader::Optional(results[prev], "command");
        if (c != nullptr && c->is_string() && *c == name) {
          return r.Error(
              {p, "command"},
              absl::StrCat("\"", name, "\" is also ",
                           JsonChild("/results", prev),
                           "; expected each command once per file (its runs "
                           "would be pooled with another benchmark's)"));
        }
      }
      ImportedWorkload* w = nullptr;
      for (auto& existing : out.workloads) {
        if (existing.name == name) w = &existing;
      }
      if (w == nullptr) {
        out.workloads.push_back(
            {name, {MeasuredMetric("wall_time_us", {})}, {}});
        w = &out.workloads.back();
      }
      auto& s = w->metrics[0].samples;
      s.insert(s.end(), samples.begin(), samples.end());
    }
  }
  if (out.workloads.empty()) {
    return BadInput(inputs.front().file->path, "/results",
                    "expected at least one command");
  }
  return out;
}

}  // namespace trn::import
