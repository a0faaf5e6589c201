// A device profile with round numbers and constant costs, so the tests of
// the timing model can work out every expected time by hand.
#ifndef TRNBENCH_TESTS_DEVICE_MODEL_TEST_PROFILE_H_
#define TRNBENCH_TESTS_DEVICE_MODEL_TEST_PROFILE_H_

#include <string>

#include "nlohmann/json.hpp"

namespace trn::testing {

// Every parameter as `{"value": v, "unit": ..., "source": "test"}`.
// Costs in microseconds; rates as the profile states them:
//   engines: tensor 1 GHz x 1 elem/cycle, vector 1 GHz x 2, scalar 2 GHz x 1,
//            gpsimd 0.5 GHz x 4 (so 1000 cycles are 1 us on tensor and
//            vector, 0.5 us on scalar, 2 us on gpsimd); minimum initiation
//            interval 10 cycles; static overhead 100 cycles (tensor: 50
//            cycles plus the stationary columns); dependency hand-off 0.5 us;
//            two-input 2N, reciprocal 8N, bn_aggr 4N, index generation
//            150 + N; no narrow-dtype speed-up; fp32 matmul 4x, transpose 2x;
//   DMA: 4 engines of 32 partitions each at 10 GB/s (1e4 B/us), HBM 20 GB/s
//        (2e4 B/us), no descriptor overhead (one descriptor per row),
//        transpose at half speed,
//        latency 2 us, no issue cost;
//   host: dispatch 3 us, runtime 2 us, op execution overhead 10 us, graph
//         execution overhead 5 us, host-to-device copy 4 us + 1 GB/s
//         (1e3 B/us); NKI host latency 30 us, iteration gap 100 us.
inline nlohmann::json TestProfile() {
  nlohmann::json params = nlohmann::json::object();
  auto set = [&params](const std::string& key, double value,
                       const std::string& unit) {
    params[key] = {{"value", value}, {"unit", unit}, {"source", "test"}};
  };
  set("partitions", 128, "partitions");
  set("sbuf_bytes_per_partition", 196608, "B");
  set("psum_bytes_per_partition", 16384, "B");
  set("psum_banks", 8, "banks");
  set("tensor_clock_ghz", 1, "GHz");
  set("vector_clock_ghz", 1, "GHz");
  set("scalar_clock_ghz", 2, "GHz");
  set("gpsimd_clock_ghz", 0.5, "GHz");
  set("tensor_elements_per_cycle", 1, "columns/cycle");
  set("vector_elements_per_cycle", 2, "elements/partition/cycle");
  set("scalar_elements_per_cycle", 1, "elements/partition/cycle");
  set("gpsimd_elements_per_cycle", 4, "elements/partition/cycle");
  set("tensor_fp32_rate", 0.25, "x bf16 rate");
  set("tensor_fp32_transpose_rate", 0.5, "x bf16 rate");
  set("min_initiation_interval_cycles", 10, "cycles");
  set("static_overhead_cycles", 100, "cycles");
  // All of the static overhead: an instruction's span is its latency
  // unless a test sets less.
  set("sbuf_access_overhead_cycles", 100, "cycles");
  set("tensor_pipeline_latency_cycles", 50, "cycles");
  set("dependency_sync_us", 0.5, "us");
  set("two_input_cycles_per_element", 2, "cycles/element");
  set("reciprocal_cycles_per_element", 8, "cycles/element");
  set("bn_aggr_cycles_per_element", 4, "cycles/element");
  set("index_gen_fixed_cycles", 150, "cycles");
  set("vector_narrow_speedup_1input", 1, "x");
  set("vector_narrow_speedup_2input", 1, "x");
  set("dma_queues", 4, "queues");
  set("dma_queue_gbps", 10, "GB/s");
  set("hbm_gbps", 20, "GB/s");
  set("dma_descriptor_overhead_bytes", 0, "B");
  set("dma_rows_per_descriptor", 1, "rows");
  set("dma_transpose_efficiency", 0.5, "x copy rate");
  set("dma_latency_us", 2, "us");
  set("dma_issue_us", 0, "us");
  set("dma_issuers", 1, "units");
  set("dma_queue_gap_us", 0, "us");
  set("op_exec_overhead_us", 10, "us");
  set("graph_exec_overhead_us", 5, "us");
  set("host_op_dispatch_us", 3, "us");
  set("runtime_schedule_us", 2, "us");
  set("h2d_copy_latency_us", 4, "us");
  set("h2d_gbps", 1, "GB/s");
  set("nki_host_latency_us", 30, "us");
  set("nki_iteration_gap_us", 100, "us");
  return {{"schema_version", 2},
          {"name", "test"},
          {"description", "round numbers for hand-computed tests"},
          {"calibrated", false},
          {"parameters", params}};
}

}  // namespace trn::testing

#endif  // TRNBENCH_TESTS_DEVICE_MODEL_TEST_PROFILE_H_
