#include "tools/trnbench/profile_cause.h"

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trn {
namespace {

// A parameter's median as the profile holds it ("387.4 us"), or "unset".
std::string ParamText(const DeviceProfile& p, const std::string& key) {
  const auto it = p.params.find(key);
  if (it == p.params.end()) return "unset";
  const std::string unit = it->second.unit.empty() ? "" : " " + it->second.unit;
  return absl::StrFormat("%.6g", it->second.dist.Median()) + unit;
}

}  // namespace

std::string ProfileDifferenceNote(
    const Baseline& baseline, const DeviceProfile& shipped,
    const DeviceProfile& run_profile,
    const std::vector<std::pair<std::string, double>>& overrides) {
  if (baseline.measured() || baseline.device_hash.empty() ||
      baseline.device_hash == run_profile.content_hash) {
    return "";
  }
  std::string sets;
  for (const auto& [key, value] : overrides) {
    absl::StrAppend(&sets, sets.empty() ? "" : ", ", key, " ",
                    ParamText(shipped, key), " -> ",
                    ParamText(run_profile, key), " (--set)");
  }
  if (baseline.device_hash == shipped.content_hash) {
    // The baseline ran the profile file as it is now: only --set differs.
    return absl::StrCat("profile parameters that differ: ", sets);
  }
  if (!baseline.device_params.empty()) {
    // The baseline recorded what it ran with: name what moved, whether by
    // an edit of the file or a --set on either side.
    std::string moved;
    auto add = [&](const std::string& key, const std::string& was,
                   const std::string& now) {
      const bool set =
          std::any_of(overrides.begin(), overrides.end(),
                      [&](const auto& o) { return o.first == key; });
      absl::StrAppend(&moved, moved.empty() ? "" : ", ", key, " ", was, " -> ",
                      now, set ? " (--set)" : "");
    };
    std::map<std::string, double> was(baseline.device_params.begin(),
                                      baseline.device_params.end());
    for (const auto& [key, param] : run_profile.params) {
      const auto it = was.find(key);
      const std::string unit = param.unit.empty() ? "" : " " + param.unit;
      if (it == was.end()) {
        add(key, "unset", ParamText(run_profile, key));
      } else if (it->second != param.dist.Median()) {
        add(key, absl::StrFormat("%.6g", it->second) + unit,
            ParamText(run_profile, key));
      }
    }
    for (const auto& [key, value] : was) {
      if (!run_profile.params.contains(key)) {
        add(key, absl::StrFormat("%.6g", value), "unset");
      }
    }
    if (moved.empty()) {
      return absl::StrCat(
          "profile parameters that differ: none of the medians the baseline "
          "recorded (the profile file differs otherwise: hash ",
          baseline.device_hash, ", now ", run_profile.content_hash, ")");
    }
    return absl::StrCat("profile parameters that differ: ", moved);
  }
  // The baseline's hash is neither this profile's nor the shipped one's,
  // and it was written before baselines recorded their parameters: the
  // file was edited since, or the baseline ran with --set, and which
  // parameters moved cannot be named.
  return absl::StrCat(
      "profile parameters that differ: not recorded; the baseline ran a "
      "profile other than ",
      shipped.name, " as it is now (hash ", baseline.device_hash, ", now ",
      shipped.content_hash, "): edited since, or run with --set",
      sets.empty() ? "" : "; this run also sets ", sets);
}

void NoteProfileDifferences(
    const std::vector<Baseline>& baselines, const DeviceProfile& shipped,
    const DeviceProfile& run_profile,
    const std::vector<std::pair<std::string, double>>& overrides,
    ComparisonReport& report) {
  for (const Baseline& b : baselines) {
    const std::string note =
        ProfileDifferenceNote(b, shipped, run_profile, overrides);
    if (note.empty()) continue;
    for (MetricComparison& row : report.rows) {
      if (row.workload == b.workload) row.notes.push_back(note);
    }
  }
}

}  // namespace trn
