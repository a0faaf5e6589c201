#include "bench/bench_support.h"

#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "workloads/loading/shape_override.h"
#include "workloads/loading/spec_parser.h"

namespace trn::bench {

std::string SourcePath(const std::string& relative) {
  return std::string(TRNBENCH_SOURCE_DIR) + relative;
}

const DeviceProfile& Trn1() {
  static const DeviceProfile* p = [] {
    auto r = LoadDeviceProfile(SourcePath("/device_model/profiles/trn1.json"));
    if (!r.ok()) std::abort();
    return new DeviceProfile(*std::move(r));
  }();
  return *p;
}

absl::StatusOr<WorkloadSpec> LoadBenchSpec(const std::string& path,
                                           const char* shape) {
  auto spec = LoadSpecFile(SourcePath(path), Trn1().memory);
  if (!spec.ok() || *shape == '\0') return spec;
  auto o = ParseShapeOverride(shape);
  if (!o.ok()) return o.status();
  auto points = ApplyShapeOverrides({*spec}, {*o}, Trn1().memory);
  if (!points.ok()) return points.status();
  if (points->size() != 1) return absl::InternalError("one point expected");
  return std::move(points->front());
}

double CpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace trn::bench
