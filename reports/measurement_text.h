// How every output says that its figures were measured, not modelled.
#ifndef TRNBENCH_REPORTS_MEASUREMENT_TEXT_H_
#define TRNBENCH_REPORTS_MEASUREMENT_TEXT_H_

#include <string>

#include "harness/runner/results.h"

namespace trn {

// "measured by neuron-bench 2.20 on trn1.2xlarge · device trn1 · 2 files
// imported", for a results document of source "measured".
std::string MeasurementLine(const RunResult& run);

// What a reader of a measured report should know about its figures.
std::string MeasurementNote(const RunResult& run);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_MEASUREMENT_TEXT_H_
