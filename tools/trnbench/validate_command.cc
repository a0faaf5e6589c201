// `trnbench validate`: the validation suite's published hardware figures
// beside the model's (docs/validation.md), or with --measured FILE the model
// beside a measurement of the same workload (docs/import.md).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <ostream>
#include <semaphore>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/runner/results.h"
#include "harness/runner/runner.h"
#include "harness/validation/measured_validation.h"
#include "harness/validation/training_figures.h"
#include "harness/validation/validation.h"
#include "reports/measured_validation_report.h"
#include "reports/validation_report.h"
#include "support/input_file.h"
#include "support/message_text.h"
#include "support/ordered_parallel.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/kernel_source.h"
#include "tools/trnbench/measured_inputs.h"
#include "tools/trnbench/output_format.h"
#include "workloads/loading/spec_catalog.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

// The suite's flags, and --measured's (with --spec, --set, --warmup and
// --confidence for the model's side of a measurement).
constexpr std::string_view kFlags[] = {
    "device",     "profiles_dir", "specs_dir", "format",  "output", "seed",
    "repeat",     "known_gaps",   "measured",  "spec",    "kernel", "args",
    "kwarg",      "emit_spec",    "set",       "torch",   "mode",   "warmup",
    "confidence", "jobs",         "sources",   "training"};

absl::StatusOr<std::vector<std::string>> ReadKnownGaps(
    const std::string& path) {
  // A list of figure keys: a few KiB. Bounded like every input, so a FIFO
  // or a huge file is refused rather than waited for.
  constexpr int64_t kMaxKnownGapsBytes = int64_t{1} << 20;
  TRN_ASSIGN_OR_RETURN(
      std::string text,
      ReadInputFile(path, kMaxKnownGapsBytes,
                    "file for --known-gaps (one figure key per line)"));
  return ParseKnownGaps(text, path);
}

// Plans --output in `outputs` and checks it: it must not replace what
// validate reads. The same transaction writes it later.
absl::Status PlanOutput(const Options& o, OutputTransaction& outputs) {
  if (o.output.empty()) return absl::OkStatus();
  if (!o.known_gaps.empty()) outputs.AddInput("--known-gaps", o.known_gaps);
  if (o.Given("measured")) outputs.AddInput("--measured", o.measured);
  for (const std::string& path : o.specs) outputs.AddInput("--spec", path);
  outputs.AddInput("--device", ProfilePath(o));
  outputs.PlanFile("--output", o.output);
  return outputs.Check();
}

// Writes `text` to --output, all or nothing.
absl::Status WriteOutput(const Options& o, OutputTransaction& outputs,
                         const std::string& text) {
  if (o.output.empty()) return absl::OkStatus();
  TRN_RETURN_IF_ERROR(outputs.StageFile(o.output, text));
  return outputs.Commit();
}

// The suite's specs, named relative to the source tree like the shipped
// specs, and the profile of every device it has figures for (under
// --device, that one).
absl::Status LoadSuite(const Options& o, std::vector<WorkloadSpec>& suite,
                       ProfileSet& profiles) {
  const std::string dir =
      o.specs_dir.empty() ? SourceDir() + "/workloads/validation" : o.specs_dir;
  // Read with the largest on-chip memories of the profiles folder: a spec
  // whose figures are all for a larger device (the fp32 trn2 matmuls) need
  // not fit the first one. Each figure's run compiles its spec again for
  // its own device, and refuses it there if it does not fit.
  TRN_ASSIGN_OR_RETURN(DeviceProfile first, LoadProfile(o));
  MemoryLimits read = first.memory;
  {
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(ProfilesDir(o), ec)) {
      if (e.path().extension() != ".json") continue;
      Options named = o;
      named.device = e.path().stem().string();
      absl::StatusOr<DeviceProfile> p = LoadProfile(named);
      if (!p.ok() || p->memory.partitions != read.partitions) continue;
      read.sbuf_bytes_per_partition = std::max(
          read.sbuf_bytes_per_partition, p->memory.sbuf_bytes_per_partition);
      read.psum_bytes_per_partition = std::max(
          read.psum_bytes_per_partition, p->memory.psum_bytes_per_partition);
      read.psum_banks = std::max(read.psum_banks, p->memory.psum_banks);
    }
  }
  TRN_ASSIGN_OR_RETURN(suite, LoadSpecDir(dir, read));
  const std::string root = SourceDir() + "/";
  for (WorkloadSpec& s : suite) {
    if (absl::StartsWith(s.file, root)) s.file = s.file.substr(root.size());
  }
  const std::string device = o.Given("device") ? o.device : "";
  const std::vector<std::string> devices = SuiteDevices(suite, device);
  if (devices.empty()) {
    const std::vector<std::string> all = SuiteDevices(suite, "");
    return absl::InvalidArgumentError(
        all.empty()
            ? absl::StrCat(EscapeControl(dir),
                           ": no spec with published figures; "
                           "expected the validation suite's folder")
            : absl::StrCat("--device ", EscapeControl(device),
                           ": no figure of the suite ", EscapeControl(dir),
                           " is for this device; it has figures "
                           "for ",
                           absl::StrJoin(all, ", ")));
  }
  for (const std::string& name : devices) {
    if (name == first.name) {
      profiles.emplace(name, first);
      continue;
    }
    Options named = o;
    named.device = name;
    TRN_ASSIGN_OR_RETURN(DeviceProfile p, LoadProfile(named));
    profiles.emplace(name, std::move(p));
  }
  return absl::OkStatus();
}

// `--sources DIR`: each figure whose spec names its upstream kernel
// ("traced_from") is also predicted from that kernel, traced from DIR, into
// the row's from_source. The figures at the spec's own shape share one
// trace; a figure at another point (`shape`) is traced at it, the front end
// giving its --shape texts to the kernel's tensor arguments of those names.
absl::Status AddFromSource(const Options& o,
                           const std::vector<WorkloadSpec>& suite,
                           const ProfileSet& profiles,
                           const ValidationOptions& options,
                           ValidationResult& result) {
  std::error_code ec;
  if (!std::filesystem::is_directory(o.sources, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sources ", EscapeControl(o.sources),
                     ": not a folder; expected the upstream kernels' folder "
                     "(nki-samples/sdk-2.21)"));
  }
  TracedKernels traced;
  std::vector<WorkloadSpec> from_source;
  // Of each traced spec, the spec file and the figures' JSON paths it
  // stands for, by its (unique) name.
  std::map<std::string, std::string> spec_file_of;
  for (const WorkloadSpec& s : suite) {
    if (!s.traced_from.has_value()) continue;
    // One trace per point: the spec's own shape, and each figure's.
    std::vector<
        std::pair<std::vector<std::string>, std::vector<PublishedFigure>>>
        points;
    for (const PublishedFigure& f : s.published) {
      auto it = std::find_if(points.begin(), points.end(),
                             [&](const auto& p) { return p.first == f.shape; });
      if (it == points.end()) {
        points.emplace_back(f.shape, std::vector<PublishedFigure>{});
        it = points.end() - 1;
      }
      PublishedFigure at = f;
      at.shape.clear();  // the trace is at the point already
      it->second.push_back(std::move(at));
    }
    for (auto& [shape, figures] : points) {
      TRN_ASSIGN_OR_RETURN(const std::string path,
                           traced.TraceReference(o.sources, *s.traced_from,
                                                 from_source.size(), shape));
      TRN_ASSIGN_OR_RETURN(WorkloadSpec t,
                           LoadSpecFile(path, profiles.begin()->second.memory));
      // Named uniquely; its rows go to the spec's by the figures' paths.
      t.name = absl::StrCat(s.name, "_from_source_", from_source.size());
      t.family = s.family;
      t.published = std::move(figures);
      spec_file_of[t.name] = s.file;
      from_source.push_back(std::move(t));
    }
  }
  if (from_source.empty()) return absl::OkStatus();
  ValidationOptions plain = options;
  plain.known_gaps.clear();
  TRN_ASSIGN_OR_RETURN(const ValidationResult r,
                       RunValidation(from_source, profiles, plain));
  for (ValidationRow& row : result.rows) {
    for (const ValidationRow& t : r.rows) {
      if (spec_file_of[t.workload] == row.spec_file &&
          t.published.json_path == row.published.json_path) {
        row.from_source = t.model;
      }
    }
  }
  return absl::OkStatus();
}

// The training figures (docs/validation.md, "Training figures"): each
// kernel of the suite's training/ folder traced from the measurements'
// folder and run on its figures' devices; a kernel the front end or the
// model refuses, or whose folder is not on this machine, is listed with
// the reason. `gaps` are the known gaps of the whole suite: those naming
// a training kernel are taken from it. `beside` (the suite's own runs,
// which need `gaps` so taken) is called once, while the training kernels
// are traced and run: one front end batch (one Python start-up; each job a
// Python child writing a file of its own) then the kernels' runs, on a
// thread of their own beside the suite's (issue 42) when --jobs allows two
// threads, before the tracing on one. Beside, the tracing and each
// kernel's runs hold one of --jobs slots, which `beside` is given for the
// suite's runs (ValidationOptions::slots; null when nothing goes beside
// them), so that no more than --jobs threads and processes are busy. It is
// not called when this returns an error first.
absl::StatusOr<ValidationResult> RunTraining(
    const Options& o, const ProfileSet& profiles,
    const ValidationOptions& options, std::vector<std::string>& gaps,
    const std::function<void(std::counting_semaphore<>*)>& beside) {
  const std::string suite_dir =
      o.specs_dir.empty() ? SourceDir() + "/workloads/validation" : o.specs_dir;
  TRN_ASSIGN_OR_RETURN(std::vector<TrainingKernel> kernels,
                       LoadTrainingKernels(suite_dir + "/training"));
  ValidationResult out;
  out.model_version = std::string(kModelVersion);
  out.seed = options.seed;
  out.repeat = options.repeat;
  out.device = options.device;
  if (kernels.empty()) {
    beside(nullptr);
    out.passed = true;  // no training figure, none missed
    return out;
  }
  const bool given = o.Given("training");
  const std::string dir =
      given ? o.training
            : SourceDir() + "/../shared/fixtures/measured/nkibench";
  std::error_code ec;
  const bool present = std::filesystem::is_directory(dir, ec);
  if (given && !present) {
    return absl::InvalidArgumentError(
        absl::StrCat("--training ", EscapeControl(dir),
                     ": not a folder; expected the training kernels' folder "
                     "(fixtures/measured/nkibench)"));
  }
  const std::string root = SourceDir() + "/";
  std::set<std::string> gap_set;
  // Each kernel's own known gaps, taken from `gaps`.
  std::vector<std::vector<std::string>> own(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    TrainingKernel& k = kernels[i];
    if (absl::StartsWith(k.file, root)) k.file = k.file.substr(root.size());
    const std::string prefix = k.name + " ";
    for (auto it = gaps.begin(); it != gaps.end();) {
      if (absl::StartsWith(*it, prefix)) {
        own[i].push_back(*it);
        gap_set.insert(*it);
        it = gaps.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Each kernel's outcome: its validation, or why it was not run (its
  // front end's or its spec's refusal, or the model's), kept as its
  // outcome, not the command's error.
  std::vector<absl::StatusOr<ValidationResult>> results(
      kernels.size(), absl::InternalError("not run"));
  // Shared with the suite's runs when the kernels go beside them.
  std::counting_semaphore<> slots(std::max(1, DefaultJobs()));
  const bool side_by_side = present && DefaultJobs() >= 2;
  auto run_kernel = [&](size_t i, const absl::StatusOr<std::string>& path) {
    const TrainingKernel& k = kernels[i];
    absl::StatusOr<WorkloadSpec> spec =
        path.ok() ? LoadSpecFile(*path, profiles.begin()->second.memory)
                  : absl::StatusOr<WorkloadSpec>(path.status());
    if (!spec.ok()) {
      results[i] = spec.status();
      return;
    }
    spec->name = k.name;
    spec->family = k.family;
    spec->file = k.file;
    spec->published = k.published;
    ValidationOptions one = options;
    one.known_gaps = own[i];
    if (side_by_side) {
      // Beside the suite's runs, each kernel's runs hold one slot: one
      // thread.
      one.slots = &slots;
      one.jobs = 1;
    }
    results[i] = RunValidation({*spec}, profiles, one);
  };
  if (present) {
    std::vector<KernelReference> refs;
    for (const TrainingKernel& k : kernels) refs.push_back(k.traced_from);
    // The kernels traced, then run, on a thread of their own beside the
    // suite's runs: their runs were after the suite's, on one thread
    // (issue 42). Each result depends on its kernel alone and the rows
    // are gathered below in kernel order.
    TracedKernels traced;
    auto trace_and_run = [&] {
      std::vector<absl::StatusOr<std::string>> paths;
      {
        // The front end's process keeps a core busy: it holds a slot, so
        // one thread fewer of the suite's runs goes beside it.
        const HeldSlot slot(side_by_side ? &slots : nullptr);
        paths = traced.TraceReferences(dir, refs, 1);
      }
      for (size_t i = 0; i < kernels.size(); ++i) run_kernel(i, paths[i]);
    };
    if (side_by_side) {
      auto pending = std::async(std::launch::async, trace_and_run);
      beside(&slots);
      pending.get();
    } else {
      trace_and_run();
      beside(nullptr);
    }
  } else {
    beside(nullptr);
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    const TrainingKernel& k = kernels[i];
    auto not_run = [&](const std::string& why) {
      for (ValidationRow& r : NotRunRows(k, options.device, why)) {
        r.known_gap = gap_set.contains(r.key);
        out.rows.push_back(std::move(r));
      }
    };
    if (!present) {
      not_run(absl::StrCat("skipped: ", EscapeControl(dir),
                           " is not on this machine"));
      continue;
    }
    absl::StatusOr<ValidationResult>& r = results[i];
    if (!r.ok()) {
      if (r.status().code() != absl::StatusCode::kInvalidArgument) {
        return r.status();
      }
      not_run(absl::StrCat("refused: ", r.status().message()));
      continue;
    }
    for (ValidationRow& row : r->rows) out.rows.push_back(std::move(row));
  }
  SummarizeRows(out, gap_set);
  return out;
}

absl::Status ValidateMeasuredFile(const Options& o, std::ostream& out) {
  TRN_ASSIGN_OR_RETURN(const OutputFormat format,
                       FormatFor(o, kReportFormats, "validate --measured"));
  OutputTransaction outputs;
  TRN_RETURN_IF_ERROR(PlanOutput(o, outputs));
  TRN_ASSIGN_OR_RETURN(DeviceProfile profile, LoadProfile(o));
  TRN_ASSIGN_OR_RETURN(MeasuredInputs in,
                       LoadMeasuredInputs({o.measured}, o, profile));
  const RunOptions run = RunOptionsFrom(o, {});
  std::vector<MeasuredValidation> validations;
  for (size_t i = 0; i < in.measured.size(); ++i) {
    TRN_ASSIGN_OR_RETURN(
        MeasuredValidation v,
        ValidateMeasured(in.measured[i], in.specs[i], profile, run));
    validations.push_back(std::move(v));
  }
  const std::string json = MeasuredValidationToJson(validations).dump(2) + "\n";
  TRN_RETURN_IF_ERROR(WriteOutput(o, outputs, json));
  out << (format == OutputFormat::kJson
              ? json
              : RenderMeasuredValidation(validations));
  return absl::OkStatus();
}

int RunValidate(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.Given("measured")) {
    if (auto s = ValidateMeasuredFile(o, out); !s.ok()) return Fail(err, s);
    return kExitOk;
  }
  const absl::StatusOr<OutputFormat> format =
      FormatFor(o, kDocumentFormats, "validate");
  if (!format.ok()) return Fail(err, format.status());
  OutputTransaction outputs;
  if (auto s = PlanOutput(o, outputs); !s.ok()) return Fail(err, s);
  ValidationOptions validation;
  validation.seed = o.seed;
  validation.repeat = o.repeat;
  if (o.Given("device")) validation.device = o.device;
  if (!o.known_gaps.empty()) {
    auto gaps = ReadKnownGaps(o.known_gaps);
    if (!gaps.ok()) return Fail(err, gaps.status());
    validation.known_gaps = *std::move(gaps);
  }
  std::vector<WorkloadSpec> suite;
  ProfileSet profiles;
  if (auto s = LoadSuite(o, suite, profiles); !s.ok()) return Fail(err, s);
  // The suite's runs go beside the training kernels' tracing; the
  // training's error, if any, is still the one reported first. Beside,
  // every run and the front end's process share --jobs slots, so that the
  // busy threads are never more than --jobs (issue 42).
  absl::StatusOr<ValidationResult> result = absl::InternalError("not run");
  auto training = RunTraining(
      o, profiles, validation, validation.known_gaps,
      [&](std::counting_semaphore<>* slots) {
        ValidationOptions suite_options = validation;  // its gaps taken
        suite_options.slots = slots;
        result = RunValidation(suite, profiles, suite_options);
      });
  if (!training.ok()) return Fail(err, training.status());
  if (!result.ok()) return Fail(err, result.status());
  if (o.Given("sources")) {
    if (auto s = AddFromSource(o, suite, profiles, validation, *result);
        !s.ok()) {
      return Fail(err, s);
    }
  }
  const std::string json = ValidationJsonText(
      *result, training->rows.empty() ? nullptr : &*training);
  if (auto s = WriteOutput(o, outputs, json); !s.ok()) return Fail(err, s);
  if (*format == OutputFormat::kJson) {
    out << json;
  } else if (*format == OutputFormat::kMarkdown) {
    out << ValidationMarkdown(*result);
    if (!training->rows.empty()) {
      out << "\n"
          << TrainingHeading() << "\n\n"
          << ValidationMarkdown(*training);
    }
  } else {
    out << ValidationTable(*result);
    if (!training->rows.empty()) {
      out << "\n" << TrainingHeading() << "\n\n" << ValidationTable(*training);
    }
  }
  return result->passed && training->passed ? kExitOk : kExitRegression;
}

}  // namespace

const CommandInfo kValidateCommand = {"validate", RunValidate, kFlags};

}  // namespace trn
