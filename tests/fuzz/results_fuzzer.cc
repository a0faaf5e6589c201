// libFuzzer target: the results loader (ParseBaselineOrResults on
// trnbench.results files written by --output, which `trnbench compare`
// reads). Seeded with tests/fuzz/corpus/results; the properties are those
// of baseline_checks.h.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/baseline_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trn::fuzz::CheckBaselineOrResults(data, size, "fuzz_results.json");
  return 0;
}
