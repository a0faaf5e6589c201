// What `trnbench list` prints: the workloads by family, one line each.
#ifndef TRNBENCH_REPORTS_WORKLOAD_LIST_H_
#define TRNBENCH_REPORTS_WORKLOAD_LIST_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "workloads/spec/spec.h"

namespace trn {

// The first sentence of `text` (up to the first ". "), cut at a word
// boundary to at most `max_bytes` with "..." when it is longer.
std::string FirstSentence(std::string_view text, size_t max_bytes);

// `specs` (already in display order) under a heading per family: name,
// execution mode and the first sentence of the description, each line at
// most `width` columns when the names allow it. Specs hold whole
// paragraphs; the list is for choosing one.
std::string RenderWorkloadList(std::span<const WorkloadSpec> specs,
                               size_t width = 100);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_WORKLOAD_LIST_H_
