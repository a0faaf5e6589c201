#include "harness/import/hyperfine_json.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

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
    const nlohmann::json& j = in.json;
    if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) {
      return BadInput(file, "/results",
                      "expected an array of commands (hyperfine "
                      "--export-json output)");
    }
    const nlohmann::json& results = j["results"];
    for (size_t i = 0; i < results.size(); ++i) {
      const std::string p = absl::StrCat("/results/", i);
      const nlohmann::json& r = results[i];
      if (!r.is_object()) return BadInput(file, p, "expected an object");
      auto cmd = r.find("command");
      if (cmd == r.end() || !cmd->is_string()) {
        return BadInput(file, p + "/command", "expected the command string");
      }
      auto times = r.find("times");
      if (times == r.end() || !times->is_array()) {
        return BadInput(file, p + "/times",
                        "expected the array of run times in seconds "
                        "(written by hyperfine 1.9 and later)");
      }
      const nlohmann::json* codes = nullptr;
      if (auto c = r.find("exit_codes"); c != r.end() && !c->is_null()) {
        if (!c->is_array() || c->size() != times->size()) {
          return BadInput(file, p + "/exit_codes",
                          absl::StrCat("expected an array of ", times->size(),
                                       " exit codes, one per time"));
        }
        codes = &*c;
      }
      std::vector<double> samples;
      for (size_t k = 0; k < times->size(); ++k) {
        const nlohmann::json& t = (*times)[k];
        if (!t.is_number() || !std::isfinite(t.get<double>()) ||
            t.get<double>() < 0) {
          return BadInput(file, absl::StrCat(p, "/times/", k),
                          "expected a time in seconds of at least 0");
        }
        if (codes != nullptr) {
          const nlohmann::json& c = (*codes)[k];
          if (!c.is_number_integer() && !c.is_null()) {
            return BadInput(file, absl::StrCat(p, "/exit_codes/", k),
                            "expected an integer exit code");
          }
          // A failed run (or one killed by a signal: null) is not a
          // measurement of the command.
          if (c.is_null() || c.get<int64_t>() != 0) continue;
        }
        samples.push_back(t.get<double>() * 1e6);
      }
      if (samples.empty()) {
        return BadInput(file, p + "/exit_codes",
                        "expected at least one run with exit code 0");
      }
      const std::string name = cmd->get<std::string>();
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
