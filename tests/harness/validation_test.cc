// Tests of the validation suite (workloads/validation/, docs/validation.md):
// every published figure within its tolerance or listed as a known gap of
// the model, and the comparison itself on small suites built here.
#include "harness/validation/validation.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <semaphore>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "device_model/device_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "harness/validation/training_figures.h"
#include "nlohmann/json.hpp"
#include "workloads/loading/spec_catalog.h"
#include "workloads/loading/spec_parser.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::HasSubstr;

std::string SourcePath(std::string_view relative) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/" + std::string(relative);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

const ProfileSet& Profiles() {
  static const ProfileSet* profiles = [] {
    auto* set = new ProfileSet;
    for (const char* name : {"trn1", "trn2"}) {
      auto p = LoadDeviceProfile(
          SourcePath(std::string("device_model/profiles/") + name + ".json"));
      EXPECT_TRUE(p.ok()) << p.status();
      if (p.ok()) set->emplace(name, *std::move(p));
    }
    return set;
  }();
  return *profiles;
}

// ---------------------------------------------------------------------------
// The shipped suite, exactly as `trnbench validate --known-gaps
// workloads/validation/known_gaps.txt` runs it in CI.

TEST(ValidationSuiteTest, EveryFigureIsWithinToleranceOrAListedGap) {
  auto suite = LoadSpecDir(SourcePath("workloads/validation"),
                           Profiles().at("trn1").memory);
  ASSERT_TRUE(suite.ok()) << suite.status();
  const std::string gaps_file =
      SourcePath("workloads/validation/known_gaps.txt");
  auto gaps = ParseKnownGaps(ReadFile(gaps_file), gaps_file);
  ASSERT_TRUE(gaps.ok()) << gaps.status();
  ValidationOptions options;  // seed 1, 100 runs: the command's defaults
  // The training figures' gaps are theirs (validate runs those kernels
  // from their source, docs/validation.md); the rest are the suite's.
  auto training =
      LoadTrainingKernels(SourcePath("workloads/validation/training"));
  ASSERT_TRUE(training.ok()) << training.status();
  for (const std::string& g : *gaps) {
    bool theirs = false;
    for (const TrainingKernel& k : *training) {
      theirs = theirs || absl::StartsWith(g, k.name + " ");
    }
    if (!theirs) options.known_gaps.push_back(g);
  }
  auto result = RunValidation(*suite, Profiles(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->rows.empty());
  for (const ValidationRow& r : result->rows) {
    const std::string what =
        absl::StrCat(r.key, ": published ", r.published.figure, " ",
                     r.published.unit, ", model ", r.model, " (error ",
                     100 * r.error, "%, allowed ", r.low, " to ", r.high, ")");
    if (r.known_gap) {
      EXPECT_FALSE(r.within)
          << what << " is now met: remove it from " << gaps_file;
    } else {
      EXPECT_TRUE(r.within) << what;
    }
  }
  for (const OrderCheck& c : result->orders) {
    if (c.known_gap) {
      EXPECT_FALSE(c.holds)
          << c.key << " now holds: remove it from " << gaps_file;
    } else {
      EXPECT_TRUE(c.holds) << c.key << " is broken";
    }
  }
  EXPECT_TRUE(result->passed);
  // Every figure a shipped profile's parameter says it was fitted on is a
  // figure of the suite or of its training kernels: a misspelt key would
  // leave a fit counted as a prediction.
  std::set<std::string> keys;
  for (const ValidationRow& r : result->rows) keys.insert(r.key);
  for (const TrainingKernel& k : *training) {
    for (const PublishedFigure& f : k.published) {
      keys.insert(
          absl::StrCat(k.name, " ", f.metric, " ", f.statistic, " ", f.device));
    }
  }
  for (const auto& [device, profile] : Profiles()) {
    for (const auto& [name, param] : profile.params) {
      for (const std::string& key : param.fitted_on) {
        EXPECT_TRUE(keys.contains(key))
            << device << " " << name << ": fitted_on \"" << key
            << "\" names no figure of the suite";
      }
    }
  }
  // The fitted figures are marked, and the predictions summed apart.
  EXPECT_GT(result->fitted, 0);
  EXPECT_EQ(result->fitted + result->predictions,
            static_cast<int>(result->rows.size()));
}

// The seeds are in the suite as copies of the shipped specs (the shipped
// files keep their spec hashes, which baselines record): a copy must not
// drift from its original.
TEST(ValidationSuiteTest, SeedCopiesMatchTheShippedSpecs) {
  int copies = 0;
  for (const auto& e : std::filesystem::directory_iterator(
           SourcePath("workloads/validation"))) {
    if (e.path().extension() != ".json") continue;
    const std::string shipped =
        SourcePath("workloads/specs/" + e.path().filename().string());
    if (!std::filesystem::exists(shipped)) continue;
    ++copies;
    auto copy = nlohmann::json::parse(ReadFile(e.path().string()));
    copy.erase("published");
    EXPECT_EQ(copy, nlohmann::json::parse(ReadFile(shipped)))
        << e.path() << " differs from " << shipped
        << " in more than its published figures";
  }
  EXPECT_EQ(copies, 4);  // rmsnorm naive, fused, compiled; exp_tiled
}

// ---------------------------------------------------------------------------
// The comparison on small suites. Figures are placed relative to what the
// model gives, so that these tests follow the model's mechanism and not its
// figures.

constexpr std::string_view kKernel = R"({
  "schema_version": 1, "name": "%NAME%", "family": "t", "description": "d",
  "mode": "nki",
  "tensors": [{"name": "x", "shape": [%ROWS%, 512], "dtype": "fp32"},
              {"name": "y", "shape": [%ROWS%, 512], "dtype": "fp32"},
              {"name": "steps", "shape": [1024, 1], "dtype": "fp32"}],
  "kernel": {"source_file": "k.py", "loops": [{
    "var": "p", "range": "affine", "tensor": "x", "tile_partitions": 128,
    "body": [
      {"id": "t", "op": "load", "tensor": "x", "line": 3},
      {"id": "u", "op": "activation", "engine": "scalar", "func": "exp",
       "inputs": ["t"], "line": 4},
      {"op": "loop", "var": "i", "range": "sequential", "tensor": "steps",
       "tile_partitions": 128, "line": 5, "body": [
        {"id": "v", "op": "activation", "engine": "scalar", "func": "copy",
         "inputs": ["u"], "tile": [128, 1], "line": 6}]},
      {"op": "store", "tensor": "y", "inputs": ["u"], "line": 7}]}]},
  "published": [%FIGURES%]
})";

std::string Replace(std::string text, std::string_view from,
                    std::string_view to) {
  for (size_t at; (at = text.find(from)) != std::string::npos;) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// A figure of `metric` (and `more` keys) at `figure` `unit`.
std::string Fig(std::string_view metric, double figure,
                std::string_view more = R"("tolerance": 0.05)",
                std::string_view unit = "us", std::string_view device = "trn1",
                std::string_view statistic = "p50") {
  std::ostringstream out;
  out.precision(17);
  out << R"({"metric": ")" << metric << R"(", "statistic": ")" << statistic
      << R"(", "figure": )" << figure << R"(, "unit": ")" << unit
      << R"(", "device": ")" << device
      << R"(", "hardware": "h", "method": "m", "source": "s", )" << more << "}";
  return out.str();
}

WorkloadSpec Kernel(std::string_view name, const std::vector<std::string>& figs,
                    int rows = 256) {
  std::string figures;
  for (const std::string& f : figs) {
    figures += (figures.empty() ? "" : ",") + f;
  }
  std::string text = Replace(std::string(kKernel), "%NAME%", name);
  text = Replace(text, "%ROWS%", std::to_string(rows));
  text = Replace(text, "%FIGURES%", figures);
  auto spec = ParseSpec(text, std::string(name) + ".json", MemoryLimits{});
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *std::move(spec) : WorkloadSpec{};
}

ValidationOptions Fast() {
  ValidationOptions o;
  o.repeat = 5;
  return o;
}

// What the model gives for `metric` of Kernel(name) at `rows` (the name
// keys the model's random streams, so a probe must use the test's).
double ModelOf(std::string_view name, std::string_view metric, int rows = 256,
               std::string_view more = R"("tolerance": 1)") {
  auto r = RunValidation({Kernel(name, {Fig(metric, 1, more)}, rows)},
                         Profiles(), Fast());
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->rows.at(0).model : NAN;
}

TEST(ValidationTest, ScoresAFigureAgainstItsTolerance) {
  const double m = ModelOf("a", "ncl_us");
  ASSERT_GT(m, 0);
  const double mb = ModelOf("b", "ncl_us");
  const double mc = ModelOf("c", "ncl_us");
  auto r = RunValidation(
      {Kernel("a", {Fig("ncl_us", m * 1.02)}),
       Kernel("b", {Fig("ncl_us", mb * 1.2)}),
       Kernel("c", {Fig("ncl_us", mc / 1000, R"("tolerance": 0.05)", "ms")})},
      Profiles(), Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_TRUE(r->rows[0].within);
  EXPECT_NEAR(r->rows[0].error, 1 / 1.02 - 1, 1e-12);
  EXPECT_NEAR(r->rows[0].low, m * 1.02 * 0.95, 1e-9);
  EXPECT_FALSE(r->rows[1].within);
  EXPECT_NEAR(r->rows[1].error, 1 / 1.2 - 1, 1e-12);
  // Compared in the figure's unit.
  EXPECT_NEAR(r->rows[2].model, mc / 1000, 1e-12);
  EXPECT_TRUE(r->rows[2].within);
  EXPECT_EQ(r->within, 2);
  EXPECT_EQ(r->out, 1);
  EXPECT_EQ(r->with_tolerance, 3);
  EXPECT_NEAR(r->mean_abs_error,
              (std::fabs(1 / 1.02 - 1) + std::fabs(1 / 1.2 - 1) + 0) / 3, 1e-9);
  EXPECT_FALSE(r->passed);
  EXPECT_EQ(r->rows[1].key, "b ncl_us p50 trn1");
}

// A figure a parameter of its device's profile names in `fitted_on` checks
// the fit, not a prediction: it is marked with the parameter and left out
// of the predictions' totals; the same figure against a profile whose
// parameter names nothing is a prediction.
TEST(ValidationTest, FiguresAParameterWasFittedOnAreMarkedAndSummedApart) {
  const double ma = ModelOf("a", "ncl_us");
  const double mb = ModelOf("b", "ncl_us");
  const std::vector<WorkloadSpec> suite = {
      Kernel("a", {Fig("ncl_us", ma * 1.02)}),
      Kernel("b", {Fig("ncl_us", mb * 1.04)})};
  ProfileSet fitted = Profiles();
  for (auto& [name, param] : fitted.at("trn1").params) param.fitted_on.clear();
  fitted.at("trn1").params.at("dma_latency_us").fitted_on = {
      "a ncl_us p50 trn1", "elsewhere ncl_us p50 trn1"};
  fitted.at("trn1").params.at("hbm_gbps").fitted_on = {"a ncl_us p50 trn1"};
  auto r = RunValidation(suite, fitted, Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_THAT(r->rows[0].fitted_by,
              ::testing::ElementsAre("dma_latency_us", "hbm_gbps"));
  EXPECT_TRUE(r->rows[1].fitted_by.empty());
  EXPECT_EQ(r->fitted, 1);
  EXPECT_EQ(r->predictions, 1);
  EXPECT_EQ(r->predictions_within, 1);
  EXPECT_EQ(r->predictions_with_tolerance, 1);
  EXPECT_NEAR(r->predictions_mean_abs_error, std::fabs(1 / 1.04 - 1), 1e-9);
  EXPECT_NEAR(r->mean_abs_error,
              (std::fabs(1 / 1.02 - 1) + std::fabs(1 / 1.04 - 1)) / 2, 1e-9);
  // Another device's fit marks nothing here.
  ProfileSet other = Profiles();
  for (auto& [device, profile] : other) {
    for (auto& [name, param] : profile.params) param.fitted_on.clear();
  }
  other.at("trn2").params.at("dma_latency_us").fitted_on = {
      "a ncl_us p50 trn1"};
  r = RunValidation(suite, other, Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->rows[0].fitted_by.empty());
  EXPECT_EQ(r->fitted, 0);
  EXPECT_EQ(r->predictions, 2);
}

TEST(ValidationTest, ARangeBoundsTheModelAndStaysOutOfTheMeanError) {
  const double m = ModelOf("a", "ncl_us");
  auto r = RunValidation(
      {Kernel("a", {Fig("ncl_us", 10 * m,
                        "\"range\": [0, " + std::to_string(m / 2) + "]")})},
      Profiles(), Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->rows[0].within);
  EXPECT_EQ(r->with_tolerance, 0);
  EXPECT_EQ(r->mean_abs_error, 0);
}

TEST(ValidationTest, AnOrderGroupMustRankAsPublished) {
  const double small = ModelOf("s", "ncl_us", 256);
  const double large = ModelOf("l", "ncl_us", 1024);
  ASSERT_LT(small, large);
  auto run = [&](double fig_small, double fig_large) {
    const std::string order = R"("range": [0, 1e9], "order": "g")";
    return RunValidation({Kernel("s", {Fig("ncl_us", fig_small, order)}, 256),
                          Kernel("l", {Fig("ncl_us", fig_large, order)}, 1024)},
                         Profiles(), Fast());
  };
  auto same = run(small, large);
  ASSERT_TRUE(same.ok()) << same.status();
  ASSERT_EQ(same->orders.size(), 1u);
  EXPECT_TRUE(same->orders[0].holds);
  EXPECT_EQ(same->orders[0].key, "order g");
  EXPECT_EQ(same->orders[0].workloads, (std::vector<std::string>{"l", "s"}));
  EXPECT_TRUE(same->passed);
  // Published the other way round: every figure within its (wide) range,
  // but the ranking is broken.
  auto reversed = run(large, small);
  ASSERT_TRUE(reversed.ok()) << reversed.status();
  EXPECT_EQ(reversed->within, 2);
  EXPECT_FALSE(reversed->orders[0].holds);
  EXPECT_FALSE(reversed->passed);
}

TEST(ValidationTest, KnownGapsExcuseMissesAndGoStaleWhenMet) {
  const std::vector<WorkloadSpec> suite = {
      Kernel("miss", {Fig("ncl_us", 3 * ModelOf("miss", "ncl_us"))}),
      Kernel("hit", {Fig("ncl_us", ModelOf("hit", "ncl_us"))})};
  ValidationOptions o = Fast();
  o.known_gaps = {"miss ncl_us p50 trn1"};
  auto r = RunValidation(suite, Profiles(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->rows[0].known_gap);
  EXPECT_FALSE(r->rows[0].within);
  EXPECT_EQ(r->known_gaps, 1);
  EXPECT_TRUE(r->passed);
  o.known_gaps.push_back("hit ncl_us p50 trn1");
  r = RunValidation(suite, Profiles(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stale_gaps, std::vector<std::string>{"hit ncl_us p50 trn1"});
  EXPECT_FALSE(r->passed);
  o.known_gaps = {"mis ncl_us p50 trn1"};
  EXPECT_THAT(Message(RunValidation(suite, Profiles(), o).status()),
              HasSubstr("known gap \"mis ncl_us p50 trn1\" names no figure "
                        "of the suite"));
}

TEST(ValidationTest, AFigureThatStatesItsRunsIsTakenOverAsMany) {
  auto r = RunValidation(
      {Kernel("k", {Fig("ncl_us", 1, R"("range": [0, 1e9], "runs": 3)", "us",
                        "trn1", "p99"),
                    Fig("ncl_us", 1, R"("range": [0, 1e9])")})},
      Profiles(), Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].runs, 3);
  EXPECT_EQ(r->rows[1].runs, Fast().repeat);
}

TEST(ValidationTest, TheDeviceFilterKeepsThatDevicesFigures) {
  const std::vector<WorkloadSpec> suite = {
      Kernel("k", {Fig("ncl_us", 1, R"("tolerance": 1)", "us", "trn1"),
                   Fig("ncl_us", 1, R"("tolerance": 1)", "us", "trn2")})};
  EXPECT_EQ(SuiteDevices(suite, ""),
            (std::vector<std::string>{"trn1", "trn2"}));
  EXPECT_EQ(SuiteDevices(suite, "trn2"), std::vector<std::string>{"trn2"});
  ValidationOptions o = Fast();
  o.device = "trn2";
  auto r = RunValidation(suite, Profiles(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].published.device, "trn2");
  // A gap of the other device is still a figure of the suite.
  o.known_gaps = {"k ncl_us p50 trn1"};
  EXPECT_TRUE(RunValidation(suite, Profiles(), o).ok());
}

TEST(ValidationTest, AFigureAtAShapePointRunsThatPoint) {
  // Other names key other random streams: compare by which size is near.
  const double at_256 = ModelOf("k", "ncl_us", 256);
  const double at_1024 = ModelOf("k", "ncl_us", 1024);
  ASSERT_GT(at_1024, 2 * at_256);
  auto r = RunValidation(
      {Kernel("k", {Fig("ncl_us", 1,
                        R"("tolerance": 1, "shape": ["x,y=1024x512"])")})},
      Profiles(), Fast());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].workload, "k[x,y=1024x512]");
  EXPECT_EQ(r->rows[0].key, "k[x,y=1024x512] ncl_us p50 trn1");
  EXPECT_NEAR(r->rows[0].model, at_1024, 0.05 * at_1024);
}

TEST(ValidationTest, EventMetricsReadTheLinesEvents) {
  const double dma =
      ModelOf("k", "dma_transfer_us", 256, R"("tolerance": 1, "line": 3)");
  const double act =
      ModelOf("k", "instruction_us", 256, R"("tolerance": 1, "line": 6)");
  const double interval = ModelOf("k", "instruction_interval_us", 256,
                                  R"("tolerance": 1, "line": 6)");
  EXPECT_GT(dma, 0);
  EXPECT_GT(act, 0);
  // The chain is sequential: the next instruction starts after this one.
  EXPECT_GE(interval, act);
  auto none = RunValidation(
      {Kernel("k",
              {Fig("dma_transfer_us", 1, R"("tolerance": 1, "line": 4)")})},
      Profiles(), Fast());
  EXPECT_THAT(Message(none.status()),
              HasSubstr("k.json: /published/0/line: the model has no "
                        "dma_transfer_us event on line 4"));
}

// The runs are dealt to the threads largest first (here b, then m, then
// s), but the rows, and the first error, are those of the serial walk in
// suite order.
TEST(ValidationTest, RowsAndTheFirstErrorAreTheSerialWalksForAnyJobs) {
  const std::string fig = Fig("ncl_us", 1, R"("tolerance": 1)");
  const std::vector<WorkloadSpec> suite = {Kernel("s", {fig}, 256),
                                           Kernel("b", {fig}, 4096),
                                           Kernel("m", {fig}, 1024)};
  // Errors of the small first run, met after the large one ran first: at
  // scoring (no event on the line) and before its run (a bad shape point).
  const std::vector<WorkloadSpec> late_error = {
      Kernel("s", {Fig("dma_transfer_us", 1, R"("tolerance": 1, "line": 4)")},
             256),
      Kernel("b", {fig}, 4096)};
  const std::vector<WorkloadSpec> early_error = {
      Kernel("s", {Fig("ncl_us", 1, R"("tolerance": 1, "shape": ["z=4x4"])")},
             256),
      Kernel("b", {fig}, 4096)};
  std::vector<absl::StatusOr<ValidationResult>> rows, late, early;
  for (const int jobs : {1, 2, 3}) {
    SetDefaultJobs(jobs);
    rows.push_back(RunValidation(suite, Profiles(), Fast()));
    late.push_back(RunValidation(late_error, Profiles(), Fast()));
    early.push_back(RunValidation(early_error, Profiles(), Fast()));
  }
  SetDefaultJobs(1);
  for (size_t j = 0; j < rows.size(); ++j) {
    ASSERT_TRUE(rows[j].ok()) << rows[j].status();
    ASSERT_EQ(rows[j]->rows.size(), 3u);
    EXPECT_EQ(rows[j]->rows[0].workload, "s");
    EXPECT_EQ(rows[j]->rows[1].workload, "b");
    EXPECT_EQ(rows[j]->rows[2].workload, "m");
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(rows[j]->rows[i].model, rows[0]->rows[i].model);
    }
    EXPECT_THAT(Message(late[j].status()),
                HasSubstr("s.json: /published/0/line: the model has no "
                          "dma_transfer_us event on line 4"));
    EXPECT_THAT(Message(early[j].status()),
                HasSubstr("s.json: /published/0/shape: "));
  }
  // The larger kernel is the longer run: the order above is not the
  // suite's.
  EXPECT_GT(rows[0]->rows[1].model, rows[0]->rows[0].model);
}

// With slots, each run holds one while it works: beside a
// holder of one of two slots (validate's front end process) the suite
// still completes, with the rows it gives without slots, and every slot it
// took is given back. Options::jobs overrides DefaultJobs().
TEST(ValidationTest, RunsHoldSlotsAndGiveThemBack) {
  const std::string fig = Fig("ncl_us", 1, R"("tolerance": 1)");
  const std::vector<WorkloadSpec> suite = {Kernel("s", {fig}, 256),
                                           Kernel("b", {fig}, 4096),
                                           Kernel("m", {fig}, 1024)};
  SetDefaultJobs(1);
  const absl::StatusOr<ValidationResult> plain =
      RunValidation(suite, Profiles(), Fast());
  ASSERT_TRUE(plain.ok()) << plain.status();
  for (const int slot_count : {1, 2}) {
    std::counting_semaphore<> slots(slot_count);
    // A holder beside the runs: one slot left to them when there are two.
    const bool beside = slot_count == 2;
    if (beside) slots.acquire();
    ValidationOptions options = Fast();
    options.jobs = 2;
    options.slots = &slots;
    const absl::StatusOr<ValidationResult> r =
        RunValidation(suite, Profiles(), options);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->rows.size(), plain->rows.size());
    for (size_t i = 0; i < r->rows.size(); ++i) {
      EXPECT_EQ(r->rows[i].workload, plain->rows[i].workload);
      EXPECT_EQ(r->rows[i].model, plain->rows[i].model);
    }
    // Every slot the runs took is free again, and no more.
    EXPECT_TRUE(slots.try_acquire());
    EXPECT_FALSE(slots.try_acquire());
    if (beside) slots.release();
  }
}

TEST(ValidationTest, RefusesSuitesItCannotJudge) {
  WorkloadSpec bare = Kernel("bare", {Fig("ncl_us", 1)});
  bare.published.clear();
  EXPECT_THAT(Message(RunValidation({bare}, Profiles(), Fast()).status()),
              HasSubstr("bare.json: /published: required key \"published\" "
                        "is missing"));
  EXPECT_THAT(
      Message(RunValidation({Kernel("k", {Fig("ncl_us", 1), Fig("ncl_us", 2)})},
                            Profiles(), Fast())
                  .status()),
      HasSubstr("k.json: /published/1: a second figure for \"k ncl_us "
                "p50 trn1\""));
  EXPECT_THAT(
      Message(RunValidation({Kernel("k", {Fig("ncl_us", 1, R"("tolerance": 1)",
                                              "us", "trn9")})},
                            Profiles(), Fast())
                  .status()),
      HasSubstr("k.json: /published/0/device: no device profile \"trn9\""));
  EXPECT_THAT(Message(RunValidation({Kernel("k", {Fig("ncl_us", 1,
                                                      R"("tolerance": 1,
                                                 "shape": ["z=4x4"])")})},
                                    Profiles(), Fast())
                          .status()),
              HasSubstr("k.json: /published/0/shape: "));
}

TEST(ValidationTest, KnownGapsFileHasOneKeyPerLine) {
  auto gaps =
      ParseKnownGaps("# comment\n\na b p50 trn1\r\norder g  \n", "gaps.txt");
  ASSERT_TRUE(gaps.ok()) << gaps.status();
  EXPECT_EQ(*gaps, (std::vector<std::string>{"a b p50 trn1", "order g"}));
  EXPECT_THAT(Message(ParseKnownGaps("ok\na  b\n", "gaps.txt").status()),
              HasSubstr("gaps.txt:2: expected a key such as"));
}

}  // namespace
}  // namespace trn
