// Live and peak heap bytes of the benchmark process, counted by replacing
// the global operator new and delete (heap_meter.cc), so a benchmark can
// report the memory a run takes as well as its time.
#ifndef TRNBENCH_BENCH_HEAP_METER_H_
#define TRNBENCH_BENCH_HEAP_METER_H_

#include <cstddef>

namespace trn::bench {

// Bytes allocated through operator new and not yet freed (the allocator's
// usable size of each block, so a little above what was asked).
size_t HeapLiveBytes();
// The most HeapLiveBytes() has been since the last ResetHeapPeak().
size_t HeapPeakBytes();
// Starts a new peak at the current live bytes.
void ResetHeapPeak();

}  // namespace trn::bench

#endif  // TRNBENCH_BENCH_HEAP_METER_H_
