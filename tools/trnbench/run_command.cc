// The plain run (`trnbench --workload ...`) and `trnbench gate`: run the
// selected workloads, compare them with baselines when asked, and write
// every requested output.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/gate/gate_inputs.h"
#include "harness/runner/runner.h"
#include "reports/comparison_report.h"
#include "reports/console_report.h"
#include "reports/gbench_json.h"
#include "reports/json_results.h"
#include "reports/terminal.h"
#include "support/name_match.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/output_format.h"
#include "tools/trnbench/profile_cause.h"
#include "tools/trnbench/report_outputs.h"
#include "tools/trnbench/shard_selection.h"

namespace trn {
namespace {

// A flag that only means something with another one is refused without
// it, never ignored: `--threshold 0.05` without a baseline would look as if
// it had judged something.
absl::Status CheckFlagCombinations(const Options& o) {
  if (o.baseline.empty()) {
    for (std::string_view flag : {"threshold", "alpha", "allow_missing",
                                  "allow_unchecked", "fresh_seeds"}) {
      if (o.Given(flag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            Dashed(flag),
            ": only means something with a baseline; add --baseline "
            "DIR|FILE (or use trnbench gate)"));
      }
    }
  }
  if (o.trace.empty() && o.Given("trace_repeat")) {
    return absl::InvalidArgumentError(
        "--trace-repeat: only means something with --trace FILE; add it");
  }
  return absl::OkStatus();
}

int RunOrGate(const Options& o, bool gate, std::ostream& out,
              std::ostream& err) {
  if (auto s = CheckFlagCombinations(o); !s.ok()) return Fail(err, s);
  const absl::StatusOr<OutputFormat> format = FormatFor(o, kRunFormats, "");
  if (!format.ok()) return Fail(err, format.status());
  // The history's flags mean nothing to a run; --db only balances a split.
  for (std::string_view flag :
       {"run_id", "night", "commit", "branch", "ci_run", "nights", "fdr"}) {
    if (o.Given(flag)) {
      return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                           Dashed(flag),
                           ": a flag of trnbench history; a run does not "
                           "use it")));
    }
  }
  if (o.Given("db") && !o.Given("shard")) {
    return Fail(err, absl::InvalidArgumentError(
                         "--db: a run uses the history only to balance "
                         "--shard K/N; expected --shard with it"));
  }
  if (gate && o.baseline.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "gate needs --baseline DIR|FILE (for example "
                         "--baseline baselines/trn1)"));
  }
  if (!o.gbench_metrics.empty() && o.format != "gbench-json") {
    return Fail(err, absl::InvalidArgumentError(
                         "--gbench-metrics: chooses the benchmarks of "
                         "--format gbench-json; expected that format with it"));
  }
  const ReportOutputOptions report_options = ReportOutputOptionsFrom(o);
  if (auto s =
          ValidateReportOutputs(report_options, o.repeat, !o.baseline.empty());
      !s.ok()) {
    return Fail(err, s);
  }
  auto profile = LoadProfile(o);
  if (!profile.ok()) return Fail(err, profile.status());
  auto specs = LoadSelectedSpecs(o, *profile, gate ? "all" : "");
  if (!specs.ok()) return Fail(err, specs.status());
  std::optional<ShardInfo> shard;
  specs = SelectShard(o, *profile, *std::move(specs), shard);
  if (!specs.ok()) return Fail(err, specs.status());

  // Every output of the command, planned and checked before anything runs
  // (support/output_transaction.h): a folder where a file goes, an output
  // that is also an input or another output, a place that cannot be
  // written.
  const std::string baseline_dir = o.save_baseline_dir.empty()
                                       ? "baselines/" + profile->name
                                       : o.save_baseline_dir;
  OutputTransaction outputs;
  for (const auto& path : o.specs) outputs.AddInput("--spec", path);
  // A save may refresh the baselines the run was compared with.
  outputs.AddInput("--baseline", o.baseline, /*replaceable=*/true);
  if (!o.output.empty()) outputs.PlanFile("--output", o.output);
  PlanReportOutputs(report_options, outputs);
  if (o.save_baseline) {
    std::vector<std::string> names;
    for (const auto& s : *specs) names.push_back(s.name + ".json");
    outputs.PlanFolder("--save-baseline", baseline_dir, std::move(names));
  }
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  WarnIfUncalibrated(*profile, err);

  // Baselines are read before anything runs, so bad input fails fast.
  std::vector<Baseline> baselines;
  if (!o.baseline.empty()) {
    auto loaded = LoadBaselinesFor(o.baseline, *specs, o.confidence);
    if (!loaded.ok()) return Fail(err, loaded.status());
    baselines = *std::move(loaded);
  }

  RunOptions run_options = RunOptionsFrom(o, baselines);
  if (!o.baseline.empty() && !o.allow_unchecked) {
    // A gate that cannot reach alpha at this sample size says so before
    // spending the run (harness/gate/gate_inputs.h).
    // The gated metrics each workload's run produces: an NKI kernel has
    // its launch latencies and throughput, every mode its device time.
    std::map<std::string, std::vector<std::string>> run_metrics;
    for (const auto& spec : *specs) {
      for (const std::string& m : CompareOptionsFrom(o).metrics) {
        if (spec.mode == ExecMode::kNki || m == "device_time_us") {
          run_metrics[spec.name].push_back(m);
        }
      }
    }
    if (auto s =
            CheckGateCanReachAlpha(baselines, profile->name, run_options.seed,
                                   run_options.schedule, run_metrics, o.alpha);
        !s.ok()) {
      return Fail(err, s);
    }
  }
  // UI only: the bar reads the wall clock, the model never does, and it
  // draws nothing unless stderr is a terminal.
  ProgressBar progress(err, IsTerminal(err),
                       static_cast<int64_t>(specs->size()) * o.repeat);
  run_options.on_run = [&progress] { progress.Advance(); };
  run_options.on_workload = [&progress](const std::string& name) {
    progress.SetLabel(name);
  };
  // A long command says how long before it starts, not only by a bar
  // (issue 43); the bound itself is kMaxSimulatedInstructions.
  run_options.on_planned = [&err, &o](int64_t simulated) {
    if (simulated <= kAnnouncedSimulatedInstructions) return;
    err << "trnbench: note: this command will simulate "
        << SimulatedTimeEstimate(simulated) << " (--repeat " << o.repeat
        << " runs of each workload; lower it to shorten it)\n";
    err.flush();
  };
  auto run = RunAll(*specs, *profile, run_options, TRNBENCH_VERSION);
  if (!run.ok()) {
    progress.Finish();
    return Fail(err, run.status());
  }
  run->shard = shard;
  progress.SetLabel("intervals and comparisons");

  if (!o.gbench_metrics.empty()) {
    std::vector<std::string> known = {"all"};
    for (const auto& w : run->workloads) {
      for (const auto& m : w.metrics) known.push_back(m.name);
    }
    for (const std::string& name : o.gbench_metrics) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        progress.Finish();
        return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                             "--gbench-metrics: no selected workload has a "
                             "metric \"",
                             name, "\"", DidYouMean(name, known))));
      }
    }
  }
  std::optional<ComparisonReport> comparison;
  if (!o.baseline.empty()) {
    CompareOptions copts = CompareOptionsFrom(o);
    copts.source = o.baseline;
    auto c = CompareWithBaselines(*run, baselines, copts);
    if (!c.ok()) {
      progress.Finish();
      return Fail(err, c.status());
    }
    comparison = *std::move(c);
    // The gate knows only that the profile hashes differ; the tool knows
    // the profile as shipped and the --set overrides, so it can name the
    // parameters.
    Options shipped_options = o;
    shipped_options.sets.clear();
    auto shipped = LoadProfile(shipped_options);
    if (!shipped.ok()) {
      progress.Finish();
      return Fail(err, shipped.status());
    }
    NoteProfileDifferences(baselines, *shipped, *profile, o.sets, *comparison);
  }
  const ComparisonReport* cmp = comparison ? &*comparison : nullptr;

  // Everything is rendered, then staged, then committed at once.
  auto pending = PrepareReportOutputs(report_options, *run, cmp, baselines,
                                      *specs, *profile);
  progress.Finish();
  if (!pending.ok()) return Fail(err, pending.status());

  const std::string json_text = ResultsToJsonText(*run, cmp);
  if (auto s = StageReportOutputs(*pending, outputs); !s.ok()) {
    return Fail(err, s);
  }
  if (!o.output.empty()) {
    if (auto s = outputs.StageFile(o.output, json_text); !s.ok()) {
      return Fail(err, s);
    }
  }
  int unchanged = 0;
  if (o.save_baseline) {
    auto s = StageBaselines(
        BaselinesFromRun(*run, NowUtcIso8601(), CurrentGitCommit(SourceDir())),
        baseline_dir, outputs, &unchanged);
    if (!s.ok()) return Fail(err, s);
  }
  if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
  if (o.save_baseline) {
    err << "trnbench: saved " << run->workloads.size() << " baseline"
        << (run->workloads.size() == 1 ? "" : "s") << " in " << baseline_dir;
    if (unchanged > 0) {
      err << " (" << unchanged << " unchanged but for the date and commit, "
          << "left as they were)";
    }
    err << "\n";
  }
  if (*format == OutputFormat::kJson) {
    out << json_text;
  } else if (*format == OutputFormat::kGbenchJson) {
    out << GbenchJson(*run, o.gbench_metrics);
  } else {
    const ConsoleStyle style = ConsoleStyleFor(out);
    if (!gate) out << RenderConsoleReport(*run, style);
    if (comparison) out << RenderComparisonReport(*comparison, style);
  }
  return comparison && comparison->AnyRegression() ? kExitRegression : kExitOk;
}

int RunPlain(const Options& o, std::ostream& out, std::ostream& err) {
  return RunOrGate(o, /*gate=*/false, out, err);
}

int RunGate(const Options& o, std::ostream& out, std::ostream& err) {
  return RunOrGate(o, /*gate=*/true, out, err);
}

}  // namespace

const CommandInfo kRunCommand = {"", RunPlain, {}};
const CommandInfo kGateCommand = {"gate", RunGate, {}};

}  // namespace trn
