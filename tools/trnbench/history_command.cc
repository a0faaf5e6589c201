// `trnbench history ingest|show|trend|detect`: the run history in SQLite or
// PostgreSQL, its trends and change points (docs/history.md).
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/history/detection.h"
#include "harness/history/history_store.h"
#include "harness/history/run_record.h"
#include "reports/history_report.h"
#include "support/input_file.h"
#include "support/name_match.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/output_format.h"

namespace trn {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFlags[] = {
    "db",     "run_id",     "night",     "commit", "branch",
    "ci_run", "device",     "workload",  "nights", "format",
    "output", "report_dir", "threshold", "fdr",    "summary"};

// Which flags each subcommand uses; the rest are refused, never ignored.
struct Sub {
  std::string_view name;
  std::vector<std::string_view> flags;
};
const std::vector<Sub>& Subs() {
  static const std::vector<Sub> kSubs = {
      {"ingest", {"db", "run_id", "night", "commit", "branch", "ci_run"}},
      {"show", {"db", "device", "workload", "nights", "branch", "format"}},
      {"trend",
       {"db", "device", "workload", "nights", "branch", "report_dir",
        "threshold", "fdr"}},
      {"detect",
       {"db", "device", "workload", "nights", "branch", "format", "output",
        "threshold", "fdr", "summary"}},
  };
  return kSubs;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

absl::StatusOr<std::string> ReadResultsFile(const std::string& path) {
  return ReadInputFile(path, kMaxBaselineBytes,
                       "results file (written by trnbench --output or "
                       "trnbench merge)");
}

history::SeriesFilter FilterFrom(const Options& o) {
  history::SeriesFilter f;
  if (o.Given("device")) f.device = o.device;
  if (!o.workload.empty() && o.workload != "all") f.workloads = {o.workload};
  // The metrics the gate judges: the evaluation's family, and the ones
  // people ship decisions on (engine utilisations would only add tests).
  f.metrics = DefaultGateMetrics();
  f.branch = o.branch;
  f.last_nights = static_cast<int>(o.nights);
  return f;
}

history::DetectOptions DetectOptionsFrom(const Options& o) {
  history::DetectOptions d;
  d.threshold = o.threshold;
  d.fdr = o.fdr;
  return d;
}

// Every file is read and checked before the database is opened, so bad
// input creates no database and changes none.
int Ingest(const Options& o, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> files(o.positional.begin() + 1,
                                       o.positional.end());
  if (files.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "history ingest needs a results file: trnbench "
                         "history ingest results.json --db URL"));
  }
  if (files.size() > 1 && !o.run_id.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "--run-id names one run; expected one results file "
                         "with it, or no --run-id (each file's content hash "
                         "is its id)"));
  }
  const std::string now = NowUtcIso8601();
  history::RunContext context;
  context.run_id = o.run_id;
  context.night = o.night.empty() ? now.substr(0, 10) : o.night;
  context.recorded_at = now;
  context.commit = o.commit.empty() ? CurrentGitCommit(SourceDir()) : o.commit;
  context.branch = o.branch.empty() ? Env("GITHUB_REF_NAME") : o.branch;
  context.ci_run = o.ci_run.empty() ? Env("GITHUB_RUN_ID") : o.ci_run;
  if (!history::IsNight(context.night)) {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "--night=", context.night,
                         ": expected a date YYYY-MM-DD, such as 2026-11-30")));
  }
  std::vector<history::RunRecord> runs;
  for (const std::string& path : files) {
    auto text = ReadResultsFile(path);
    if (!text.ok()) return Fail(err, text.status());
    auto run = history::RunRecordFromResults(*text, path, context);
    if (!run.ok()) return Fail(err, run.status());
    runs.push_back(*std::move(run));
  }
  // A database this ingest creates is removed again if the ingest fails
  // (a full disk): a failure leaves nothing behind.
  auto where = history::ParseDbUrl(o.db);
  if (!where.ok()) return Fail(err, where.status());
  const bool created = !where->postgres && !fs::exists(where->target);
  std::string lines;
  absl::Status status = [&]() -> absl::Status {
    TRN_ASSIGN_OR_RETURN(auto store, history::HistoryStore::Open(o.db));
    for (const auto& run : runs) {
      TRN_ASSIGN_OR_RETURN(const bool added, store->Ingest(run));
      absl::StrAppend(&lines,
                      added ? "ingested" : "already in the history:", " run ",
                      run.run_id, " (", run.night, ", ", run.workloads.size(),
                      " workloads, ", run.device, ")\n");
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) {
    if (created) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        fs::remove(where->target + suffix, ignored);
      }
    }
    return Fail(err, status);
  }
  out << lines;
  return kExitOk;
}

// A filter that selects nothing is a mistyped name, never "no alerts".
absl::Status CheckFilterMatched(const Options& o,
                                const std::vector<history::Series>& series,
                                history::HistoryStore& store) {
  if (!series.empty()) return absl::OkStatus();
  const bool filtered = o.Given("device") || o.Given("workload") ||
                        o.Given("branch") || o.Given("nights");
  if (!filtered) return absl::OkStatus();
  std::string held;
  auto all = store.LoadSeries(history::SeriesFilter{});
  if (all.ok()) {
    std::set<std::string> names;
    for (const auto& s : *all) {
      names.insert(o.Given("workload") ? s.workload : s.device);
    }
    held = absl::StrCat(
        o.Given("workload")
            ? DidYouMean(o.workload, {names.begin(), names.end()})
        : o.Given("device") ? DidYouMean(o.device, {names.begin(), names.end()})
                            : "",
        "; it holds ", o.Given("workload") ? "workloads " : "devices ",
        names.empty() ? "none" : absl::StrJoin(names, ", "));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      store.db().Label(), ": no series matches the filter (",
      o.Given("device") ? "--device=" + o.device + " " : "",
      o.Given("workload") ? "--workload=" + o.workload + " " : "",
      o.Given("branch") ? "--branch=" + o.branch + " " : "",
      o.Given("nights") ? absl::StrCat("--nights=", o.nights, " ") : "",
      "selects nothing)", held));
}

int RunHistory(const Options& o, std::ostream& out, std::ostream& err) {
  const std::string sub = o.positional.empty() ? "" : o.positional.front();
  const Sub* found = nullptr;
  for (const Sub& s : Subs()) {
    if (s.name == sub) found = &s;
  }
  if (found == nullptr) {
    std::vector<std::string> names;
    for (const Sub& s : Subs()) names.emplace_back(s.name);
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "history ", sub.empty() ? "" : sub + " ",
                         ": expected one of history ingest, show, trend, "
                         "detect (docs/history.md)",
                         DidYouMean(sub, names))));
  }
  for (const std::string& name : o.given) {
    if (name != "color" && std::find(found->flags.begin(), found->flags.end(),
                                     name) == found->flags.end()) {
      return Fail(err, absl::InvalidArgumentError(
                           absl::StrCat(Dashed(name), ": trnbench history ",
                                        sub, " does not use this flag")));
    }
  }
  if (sub != "ingest" && o.positional.size() > 1) {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "unexpected argument '", o.positional[1],
                         "'; history ", sub, " takes only flags")));
  }
  if (o.db.empty()) {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "history ", sub,
                         " needs --db: an SQLite file such as history.sqlite "
                         "or a postgresql://USER:PASSWORD@HOST/DATABASE URL")));
  }
  if (sub == "trend" && o.report_dir.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "history trend needs --report-dir DIR"));
  }
  const absl::StatusOr<OutputFormat> format =
      sub == "detect" ? FormatFor(o, kDocumentFormats, "history detect")
      : sub == "show" ? FormatFor(o, kHistoryShowFormats, "history show")
                      : OutputFormat::kTable;
  if (!format.ok()) return Fail(err, format.status());
  // Outputs are checked before the database is touched, and written all
  // or nothing (support/output_transaction.h).
  OutputTransaction outputs;
  auto where = history::ParseDbUrl(o.db);
  if (!where.ok()) return Fail(err, where.status());
  if (!where->postgres) outputs.AddInput("--db", where->target);
  if (sub == "trend") {
    outputs.PlanFolder("--report-dir", o.report_dir,
                       {"report.md", "report.html", "plots/"});
  }
  if (sub == "detect" && !o.output.empty()) {
    outputs.PlanFile("--output", o.output);
  }
  // detect's markdown goes to --summary and to a CI job's step summary,
  // so the job needs no pipe (docs/ci.md).
  const std::string step_summary = Env("GITHUB_STEP_SUMMARY");
  if (sub == "detect" && !o.summary.empty()) {
    outputs.PlanFile("--summary", o.summary);
  }
  if (sub == "detect" && !step_summary.empty()) {
    outputs.PlanAppend("GITHUB_STEP_SUMMARY", step_summary);
  }
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  if (sub == "ingest") return Ingest(o, out, err);
  auto store = history::HistoryStore::Open(o.db, history::OpenMode::kRead);
  if (!store.ok()) return Fail(err, store.status());

  const history::SeriesFilter filter = FilterFrom(o);
  auto series = (*store)->LoadSeries(filter);
  if (!series.ok()) return Fail(err, series.status());
  if (auto s = CheckFilterMatched(o, *series, **store); !s.ok()) {
    return Fail(err, s);
  }
  if (sub == "show") {
    auto runs = (*store)->Runs(filter);
    if (!runs.ok()) return Fail(err, runs.status());
    const int nights = o.nights > 0 ? 0 : 10;
    if (*format == OutputFormat::kJson) {
      out << HistoryToJsonText(*runs, *series);
    } else if (*format == OutputFormat::kCsv) {
      out << HistoryToCsv(*series);
    } else {
      out << RenderHistoryTable(*runs, *series, nights);
    }
    return kExitOk;
  }
  const history::Detection detection =
      history::Detect(*series, DetectOptionsFrom(o));
  // The runs' provenance, for the likely cause of each step.
  auto runs = (*store)->Runs(filter);
  if (!runs.ok()) return Fail(err, runs.status());
  if (sub == "trend") {
    std::vector<OutputFile> files;
    for (auto& [rel, content] : RenderTrendReport(*series, detection, *runs)) {
      files.push_back({std::move(rel), std::move(content)});
    }
    if (auto s = outputs.StageFolder(o.report_dir, files); !s.ok()) {
      return Fail(err, s);
    }
    if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
    out << RenderDetectionTable(*series, detection, *runs);
    out << "trnbench: wrote the trend report to " << o.report_dir << "\n";
    return kExitOk;
  }
  const std::string json = DetectionToJsonText(
      *series, detection, DetectReportOptions{o.threshold, o.fdr}, *runs);
  const std::string markdown =
      RenderDetectionMarkdown(*series, detection, *runs);
  if (!o.output.empty()) {
    if (auto s = outputs.StageFile(o.output, json); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (!o.summary.empty()) {
    if (auto s = outputs.StageFile(o.summary, markdown); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (!step_summary.empty()) {
    if (auto s = outputs.StageAppend(step_summary, markdown); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
  if (*format == OutputFormat::kJson) {
    out << json;
  } else if (*format == OutputFormat::kMarkdown) {
    out << markdown;
  } else {
    out << RenderDetectionTable(*series, detection, *runs);
  }
  return detection.NewConfirmedRegression() ? kExitRegression : kExitOk;
}

}  // namespace

const CommandInfo kHistoryCommand = {"history", RunHistory, kFlags,
                                     /*takes_positional=*/true};

}  // namespace trn
