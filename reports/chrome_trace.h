// The timeline of one run in the Chrome trace event format (JSON object
// form), which Perfetto UI and chrome://tracing open (docs/reports.md).
#ifndef TRNBENCH_REPORTS_CHROME_TRACE_H_
#define TRNBENCH_REPORTS_CHROME_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "device_model/timeline.h"
#include "harness/runner/results.h"

namespace trn {

struct TraceInput {
  std::string workload;
  int64_t repeat = 0;        // recorded run k, 0-based
  int64_t repeat_index = 0;  // its random-stream key, wait + warmup + k
  const Timeline* timeline = nullptr;
};

// One trace file for any number of workloads: workload i gets two
// processes, pid 2i+1 for the host (framework and runtime lanes) and pid
// 2i+2 for the NeuronCore (hardware, host-to-device, engine and DMA queue
// lanes), one thread per lane, each named by metadata events. Every event is
// a complete event ("ph":"X", ts and dur in microseconds) with its args;
// events are sorted by start within each thread. `run` supplies the
// provenance written to "otherData".
std::string ChromeTraceJson(const std::vector<TraceInput>& traces,
                            const RunResult& run);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CHROME_TRACE_H_
