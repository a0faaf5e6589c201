// The sentences of `trnbench profile`'s findings. The harness finds (an id
// and its figures, harness/profile/profile_analysis.h); this says it in words,
// each figure formatted like every other figure of the reports.
#ifndef TRNBENCH_REPORTS_FINDING_TEXT_H_
#define TRNBENCH_REPORTS_FINDING_TEXT_H_

#include <string>

#include "harness/profile/profile_analysis.h"

namespace trn {

// One sentence or two with the finding's figures and, when it quotes a
// what-if of `profile`, the model's prediction. An id this version does
// not know is rendered as its figures.
std::string FindingText(const Finding& finding, const WorkloadProfile& profile);

// "TensorE", "VectorE", ...: the engine as the Neuron documentation names it.
std::string EngineTitle(Engine engine);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_FINDING_TEXT_H_
