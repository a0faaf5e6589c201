// What differs in the device profile between a run and its baselines, named
// parameter by parameter where the tool can know it: the gate's own note
// says only that the profile hashes differ, and the likely cause of a
// regression is the parameter that moved.
#ifndef TRNBENCH_TOOLS_TRNBENCH_PROFILE_CAUSE_H_
#define TRNBENCH_TOOLS_TRNBENCH_PROFILE_CAUSE_H_

#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"

namespace trn {

// The note for a baseline whose profile hash differs from the run's, given
// the profile as shipped (`shipped`, no --set) and the run's overrides.
// When the baseline ran the shipped profile, the difference is exactly the
// overrides: "profile parameters that differ: op_exec_overhead_us 387.4 us
// -> 410 us (--set)". Otherwise the profile file differs from the
// baseline's (or the baseline ran with --set), and the note says so with
// both hashes. Empty when the hashes
// agree or the baseline is a measurement.
std::string ProfileDifferenceNote(
    const Baseline& baseline, const DeviceProfile& shipped,
    const DeviceProfile& run_profile,
    const std::vector<std::pair<std::string, double>>& overrides);

// Adds ProfileDifferenceNote to every comparison row of each workload it
// concerns (after the gate's "device profile differs" note).
void NoteProfileDifferences(
    const std::vector<Baseline>& baselines, const DeviceProfile& shipped,
    const DeviceProfile& run_profile,
    const std::vector<std::pair<std::string, double>>& overrides,
    ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_PROFILE_CAUSE_H_
