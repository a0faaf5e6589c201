// Scratch copies of a series of samples for the statistics. Summaries are
// computed for every metric of every workload a file holds (a results file
// of 100k workloads has 100k of them, most with tens of samples), so short
// series are copied, sorted and transformed on the stack: a heap
// allocation per copy was most of their cost.
#ifndef TRNBENCH_HARNESS_STATISTICS_SAMPLE_BUFFER_H_
#define TRNBENCH_HARNESS_STATISTICS_SAMPLE_BUFFER_H_

#include "absl/container/inlined_vector.h"

namespace trn::stats {

template <typename T>
using SampleBuffer = absl::InlinedVector<T, 32>;

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_SAMPLE_BUFFER_H_
