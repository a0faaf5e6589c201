// The shipped trn1 device profile and workloads/specs, read from the
// source tree (TRNBENCH_SOURCE_DIR) once per test binary, for the tests
// that run shipped workloads through the runner.
#ifndef TRNBENCH_TESTS_HARNESS_SHIPPED_INPUTS_H_
#define TRNBENCH_TESTS_HARNESS_SHIPPED_INPUTS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn::test {

struct ShippedInputs {
  DeviceProfile profile;
  std::vector<WorkloadSpec> specs;

  // The spec named `name`; a test failure, and the first spec, if none is.
  const WorkloadSpec& Spec(std::string_view name) const {
    for (const WorkloadSpec& s : specs) {
      if (s.name == name) return s;
    }
    ADD_FAILURE() << "no spec " << name;
    return specs.front();
  }
};

// nullptr, with the reason added as a test failure, when they do not load.
inline const ShippedInputs* Shipped() {
  static const ShippedInputs* const shipped = []() -> const ShippedInputs* {
    auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                               "/device_model/profiles/trn1.json");
    if (!p.ok()) {
      ADD_FAILURE() << p.status();
      return nullptr;
    }
    auto s = LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/workloads/specs",
                         p->memory);
    if (!s.ok()) {
      ADD_FAILURE() << s.status();
      return nullptr;
    }
    return new ShippedInputs{*std::move(p), *std::move(s)};
  }();
  return shipped;
}

}  // namespace trn::test

#endif  // TRNBENCH_TESTS_HARNESS_SHIPPED_INPUTS_H_
