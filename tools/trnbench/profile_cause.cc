#include "tools/trnbench/profile_cause.h"

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
  // The baseline's hash is neither this profile's nor the shipped one's:
  // the file was edited since, or the baseline ran with --set. A baseline
  // records only the hash, so the parameters cannot be named.
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
