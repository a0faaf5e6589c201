// `history ingest`: a results file read into the record the history keeps.
#ifndef TRNBENCH_HARNESS_HISTORY_RUN_RECORD_H_
#define TRNBENCH_HARNESS_HISTORY_RUN_RECORD_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/history/history_store.h"

namespace trn::history {

// Where and when a run happened: not in the results file (which must stay
// byte-identical for a seed), so the ingest supplies it.
struct RunContext {
  std::string run_id;  // empty: the results file's content hash
  std::string night;   // YYYY-MM-DD
  std::string recorded_at;
  std::string commit;
  std::string branch;
  std::string ci_run;
};

// Whether `night` is a date YYYY-MM-DD (a real day of the Gregorian
// calendar), the form every night is stored in so that they sort.
bool IsNight(absl::string_view night);

// Reads a trnbench.results document (modelled or measured, with or without
// the gate's comparison). A shard of a split run is refused: the history
// holds whole runs, so ingest the merged file. Errors are InvalidArgument
// naming `label` and the JSON field.
absl::StatusOr<RunRecord> RunRecordFromResults(absl::string_view text,
                                               absl::string_view label,
                                               const RunContext& context);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_RUN_RECORD_H_
