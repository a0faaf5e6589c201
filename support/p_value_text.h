// The one way a p-value (or a false-discovery q-value) is written for
// people, in tables and in sentences alike, by every layer: the gate's
// reasons, the statistics' notes, the console, markdown, HTML, the step
// summary, JUnit and the history's alerts. Files for programs (JSON, CSV)
// carry the exact number instead.
#ifndef TRNBENCH_SUPPORT_P_VALUE_TEXT_H_
#define TRNBENCH_SUPPORT_P_VALUE_TEXT_H_

#include <string>
#include <string_view>

namespace trn {

// A table cell: four decimals, "<0.0001" below that, "n/a" when undefined
// (NaN): "0.0432", "1.0000", "<0.0001". Four decimals are enough to read
// against any false-alarm rate a gate uses; below that the digits are
// float noise of a tail probability (1.5e-16 said nothing 1e-9 would not).
std::string FormatPValue(double p);

// The same inside a sentence, with its name: "adjusted p = 0.0432",
// "adjusted p < 0.0001", "q = 0.0031", "p n/a".
std::string PValueClause(std::string_view name, double p);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_P_VALUE_TEXT_H_
