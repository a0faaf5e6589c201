// The --help text of the trnbench program, whole or for one command.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/trnbench/options.h"

namespace trn {
namespace {

constexpr char kUsage[] =
    R"(trnbench: benchmark and regression harness for NeuronCore workloads,
run on a calibrated NeuronCore timing model.

Usage:
  trnbench --workload NAME|FAMILY|all [options]
  trnbench --spec FILE [--spec FILE ...] [options]
  trnbench gate --baseline DIR|FILE [options]
  trnbench compare OLD.json|BASELINE_DIR NEW.json [--format F] [--output FILE]
                   [--junit FILE]
  trnbench compare OLD.json NEW.json --pair OLD_NAME=NEW_NAME [--pair ...]
  trnbench list [--device NAME]
  trnbench profile --workload NAME|FAMILY|all [options]
  trnbench import FILE... [--from FORMAT] [--workload NAME] [options]
  trnbench validate --measured FILE [--spec S] [--device D] [--format F]
  trnbench calibrate MEASURED.json... --output PROFILE.json [--device D]
  trnbench validate [--device NAME] [--format table|json|markdown]
                    [--known-gaps FILE] [--sources DIR] [--training DIR]
  trnbench history ingest FILE... --db URL | show | trend | detect --db URL
  trnbench merge SHARD.json... --output FILE
A flag that a command does not use is refused, never ignored.

Examples:
  trnbench --workload rmsnorm --repeat 100      the three RMSNorm variants
  trnbench --workload exp_tiled --format json   one workload, JSON on stdout
  trnbench --spec my_kernel.json --seed 7       your own spec file
  trnbench --workload all --output results.json
  trnbench --workload all --save-baseline       write baselines/<device>/*.json
  trnbench gate --baseline baselines/trn1       nightly gate: exit 1 on regression
  trnbench gate --baseline baselines/trn1 --set op_exec_overhead_us=410
                                                what-if: one profile parameter changed
  trnbench compare old.json new.json            two saved results or baselines
  trnbench compare baselines/trn1 all.json      a (merged) results file against
                                                the baseline folder, one verdict
  trnbench compare a.json b.json --pair nki_matmul_tiled=nki_matmul_hoist_load
                                                the model's speed-up of one
                                                kernel's new version over its old
  trnbench profile --workload exp_tiled         device summary, roofline, findings
  trnbench validate --device trn1               published hardware figures vs the
                                                model (docs/validation.md)
  trnbench --workload exp_tiled --shape in_tensor,out_tensor=1024x512,4096x512
                                                a size sweep: one row per shape

Options:
  --workload NAME      workload name, family name, a glob of either
                       ('rmsnorm_*'), or 'all'; a comma-separated list
  --exclude LIST       leave out these names, families or globs
  --spec FILE          run a spec file (repeatable)
  --kernel FILE.py::FN run an NKI kernel's source, traced into a spec by the
                       NKI front end (repeatable; docs/nki-source.md)
  --args NAME=V,...    the kernel's arguments: DIMSxDIMS:dtype or a number
                       (also written scalar:NUMBER, as eps=scalar:1e-05)
  --kwarg NAME=VALUE   a keyword argument of the kernel (repeatable)
  --emit-spec FILE     also write the spec traced from --kernel (or --torch
                       with one --mode)
  --torch FILE.py::FN  run a PyTorch function, traced by the torch front end
                       into an eager and a compiled spec (repeatable; needs
                       python3-torch; docs/torch-source.md); --args as above
  --mode MODE          --torch's variants: eager, compiled or all (default)
  --pair OLD=NEW       compare: workload OLD of the first file and its new
                       version NEW of the second: the model's speed-up with
                       its bootstrap interval, no verdict (repeatable)
  --repeat N           recorded runs per workload (default 100)
  --warmup N           warm-up runs before the recorded ones (default 1):
                       they move the recorded runs' keys; the model keeps no
                       state between runs, so they cost nothing
  --wait N             runs skipped before warm-up (default 0)
  --seed N             seed of every random stream (default 1); run k of a
                       workload is replayable alone from (seed, wait+warmup+k)
  --device NAME        device profile (default trn1)
  --jobs N             runs simulated at once, on as many threads: the
                       repeats of a workload, the workloads and points of
                       a run, the figures of validate, the workloads and
                       what-ifs of profile, the --kernel front ends
                       (default: the machine's cores; 1 runs on one
                       thread); no output depends on it
  --format F           what to print on stdout: table, json, or gbench-json
                       (Google Benchmark's JSON format) (default table)
  --gbench-metrics LIST
                       gbench-json: time metrics exported beside each
                       workload's primary one (or all)
  --confidence C       confidence level of intervals, in (0, 1) (default 0.95)
  --output FILE        also write the JSON results (for compare: the
                       comparison) to FILE (atomically)
  --specs-dir DIR      where --workload looks (default: shipped specs)
  --profiles-dir DIR   where --device looks (default: shipped profiles)
  --set KEY=VALUE      override a device profile parameter for this run
                       (repeatable; a distribution is rescaled to that median)
  --shape T[,T...]=DIMS[,DIMS...]
                       run at other tensor shapes (DIMS like 250x512);
                       several DIMS sweep them, one result row per shape
                       (repeatable; docs/spec-format.md)

Reports (docs/reports.md; every file is written atomically):
  --report-dir DIR     results.json, report.md, report.html, summary.csv,
                       samples.csv and plots/*.svg
  --summary FILE       compact markdown of what changed against the
                       baseline (gate, compare, history detect); also
                       appended to $GITHUB_STEP_SUMMARY when that is set
  --trace FILE         Chrome trace (Perfetto, chrome://tracing) of one
                       recorded run of every selected workload
  --trace-repeat K     which recorded run, 0-based (default 0)
  --junit FILE         JUnit XML: one test case per baseline comparison,
                       a regression is a failure

Validation (docs/validation.md):
  validate runs the suite in workloads/validation (another with --specs-dir)
  and prints published vs model (--format table, json or markdown); without
  --device every device the suite has figures for. Exit 1 if a figure is
  out of tolerance.
  --known-gaps FILE    figures the model is known to miss (one key per
                       line): reported, not failed; one that is met fails
  --sources DIR        also predict each figure whose spec names its upstream
                       kernel from that kernel in DIR (nki-samples/sdk-2.21),
                       traced: a column "from source"
  --training DIR       the training figures' kernels and measurements
                       (default ../shared/fixtures/measured/nkibench of the
                       source tree); without it they are listed as skipped

Baselines and the regression gate:
  --save-baseline [DIR]  save this run as baselines (default baselines/<device>)
  --baseline DIR|FILE    compare with baselines; `gate` implies --workload all
  --threshold T          noise threshold, a fraction (default 0.02 = 2%);
                         a spec's noise_threshold (recorded in results
                         and baselines, so compare applies it too) overrides it
  --alpha A              false-alarm rate of one gate run (default 0.05)
  --allow-missing        report a workload without a baseline as new (and,
                         for compare DIR FILE, gate a file that lacks some
                         of DIR's workloads, listing them as not checked)
  --allow-unchecked      report a comparison the gate cannot compute (a
                         gated metric missing on one side, too few samples
                         for an interval) as not checked, not an error
                         A gate needs at least 8 repeats per side, and so
                         many that Holm over its m comparisons can reach
                         alpha: same seeds (paired) 9 for m = 7, 11 for the
                         shipped suite (m = 38), 12 for m = 100; fresh seeds
                         8 up to m = 100 (docs/statistics.md); fewer is
                         refused before running
  --fresh-seeds          use seeds that differ from the baseline's
  --shard K/N            run shard K of N of the selection (families whole,
                         balanced by --db's recorded durations, else by
                         instruction counts); `merge` joins the shards

Run history (docs/history.md):
  --db URL               an SQLite file or postgresql://USER:PASS@HOST/DB
  --run-id, --night YYYY-MM-DD, --commit, --branch, --ci-run
                         what ingest records (defaults: content hash,
                         today UTC, $GITHUB_SHA or git, $GITHUB_REF_NAME,
                         $GITHUB_RUN_ID)
  --nights N             only the last N nights (show, trend, detect)
  --fdr Q                false-discovery rate across all series (0.05)
  --color WHEN           colour: auto (a terminal, unless NO_COLOR is set
                         non-empty; FORCE_COLOR forces it), always, never
  --help                 this text
  --version              the trnbench and model versions

Measurements (docs/import.md):
  import FILE...       measured files -> results marked "source": "measured";
                       --output, --baseline, --save-baseline, --report-dir
                       and --junit work as for a run
  --from FORMAT        kineto, neuron-bench, neuron-profile, nki-benchmark,
                       gbench or hyperfine (default: detected from content)
  --workload NAME      the one workload of a trace or a Neuron tool's files
                       (default: the first file's name)
  --device NAME        where it ran (default: from the files' instance type)
  --span NAME          Kineto: the span of one iteration (ProfilerStep#N)
  --device-categories C[,C...]
                       Kineto: event categories counted as device time
                       (default kernel,gpu_memcpy,gpu_memset)
  validate --measured FILE
                       the model beside a measurement of the same workload:
                       both distributions, the error with its interval and
                       what dominates the model
  calibrate FILE...    fit the profile's fitted parameters to measurements;
                       the new profile goes to --output

Exit codes: 0 success and no regression, 1 a regression was found,
2 bad usage or bad input (nothing is written).
Docs: docs/spec-format.md, docs/results-format.md, docs/reports.md,
docs/baseline-format.md, docs/statistics.md, docs/ci.md, docs/calibration.md,
docs/history.md.
)";

}  // namespace

std::string_view UsageText() { return kUsage; }

std::string CommandUsageText(std::string_view command,
                             const std::vector<std::string_view>& flags) {
  // The whole text's usage lines of the command, and the entries of its
  // flags (an entry is a line "  --flag ..." and the deeper-indented lines
  // after it), in the order the whole text has them: one source of truth.
  const std::vector<std::string> lines = absl::StrSplit(kUsage, '\n');
  const std::string word = absl::StrCat("  trnbench ", std::string(command));
  std::string usage;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], word + " ") && lines[i] != word) continue;
    absl::StrAppend(&usage, lines[i], "\n");
    while (i + 1 < lines.size() && absl::StartsWith(lines[i + 1], "      ") &&
           !absl::StartsWith(lines[i + 1], "  trnbench")) {
      absl::StrAppend(&usage, lines[++i], "\n");
    }
  }
  std::string options;
  std::vector<std::string_view> shown;  // a flag's first entry is its own
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], "  --")) continue;
    bool uses = false;
    for (std::string_view f : flags) {
      if (std::find(shown.begin(), shown.end(), f) != shown.end()) continue;
      const std::string dashed = Dashed(f);
      const std::string rest = lines[i].substr(2);
      if (absl::StartsWith(rest, dashed) &&
          (rest.size() == dashed.size() || rest[dashed.size()] == ' ' ||
           rest[dashed.size()] == ',' || rest[dashed.size()] == '=')) {
        uses = true;
        shown.push_back(f);
      }
    }
    if (!uses) continue;
    absl::StrAppend(&options, lines[i], "\n");
    while (i + 1 < lines.size() && absl::StartsWith(lines[i + 1], "     ") &&
           !absl::StartsWith(lines[i + 1], "  --")) {
      absl::StrAppend(&options, lines[++i], "\n");
    }
  }
  return absl::StrCat("trnbench ", std::string(command), "\n\nUsage:\n", usage,
                      "\nOptions:\n", options,
                      "  --help               this text (trnbench --help: "
                      "every command)\n\n"
                      "Exit codes: 0 success and no regression, 1 a "
                      "regression was found,\n2 bad usage or bad input "
                      "(nothing is written).\n");
}

}  // namespace trn
