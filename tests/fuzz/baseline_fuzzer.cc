// libFuzzer target: the baseline loader (ParseBaselineOrResults on
// trnbench.baseline files, seeded with baselines/). See baseline_checks.h
// for what is demanded of it.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/baseline_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trn::fuzz::CheckBaselineOrResults(data, size, "fuzz_baseline.json");
  return 0;
}
