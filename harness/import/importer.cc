#include "harness/import/importer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "harness/import/google_benchmark_json.h"
#include "harness/import/hyperfine_json.h"
#include "harness/import/kineto_trace.h"
#include "harness/import/measurement_json.h"
#include "harness/import/neuron_bench.h"
#include "harness/import/neuron_profile_summary.h"
#include "harness/import/nki_benchmark_output.h"
#include "harness/runner/measured_metrics.h"
#include "harness/statistics/statistics.h"
#include "support/message_text.h"
#include "support/status_macros.h"

namespace trn::import {
namespace {

bool IsJsonFormat(MeasuredFormat f) {
  return f != MeasuredFormat::kNkiBenchmark;
}

bool StartsLikeJson(absl::string_view text) {
  const size_t i = text.find_first_not_of(" \t\r\n");
  return i != text.npos && (text[i] == '{' || text[i] == '[');
}

std::string FormatList() {
  std::string out;
  for (const FormatInfo& f : MeasuredFormats()) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", f.name);
  }
  return out;
}

// "runs/base.json.gz" -> "base".
std::string StemOf(const std::string& path) {
  const std::string file = std::filesystem::path(path).filename().string();
  absl::string_view base = file;
  for (absl::string_view ext : {".gz", ".json", ".txt", ".log"}) {
    absl::ConsumeSuffix(&base, ext);
  }
  return std::string(base);
}

// The device family of an EC2 instance type: trn1n.32xlarge -> trn1.
std::string DeviceOfInstance(absl::string_view instance) {
  size_t i = 0;
  while (i < instance.size() &&
         std::isalpha(static_cast<unsigned char>(instance[i]))) {
    ++i;
  }
  const size_t letters = i;
  while (i < instance.size() &&
         std::isdigit(static_cast<unsigned char>(instance[i]))) {
    ++i;
  }
  if (letters == 0 || i == letters) return "";
  return std::string(instance.substr(0, i));
}

absl::StatusOr<Imported> Read(MeasuredFormat format,
                              const std::vector<ParsedInput>& inputs,
                              const ImportOptions& o) {
  switch (format) {
    case MeasuredFormat::kKineto:
      return ReadKinetoTraces(inputs, o);
    case MeasuredFormat::kNeuronBench:
      return ReadNeuronBench(inputs, o);
    case MeasuredFormat::kNeuronProfile:
      return ReadNeuronProfileSummaries(inputs, o);
    case MeasuredFormat::kNkiBenchmark:
      return ReadNkiBenchmarkOutput(inputs, o);
    case MeasuredFormat::kGoogleBenchmark:
      return ReadGoogleBenchmark(inputs);
    case MeasuredFormat::kHyperfine:
      return ReadHyperfine(inputs);
  }
  return absl::InternalError("unknown measured format");
}

// What import writes, the results reader must read back: every sample and
// percentile of a time or rate finite and > 0, of the other metrics finite
// and >= 0 (measured_metrics.h). Each reader refuses what it can name by
// its own field and line; this catches what is only known after reading
// (a sum, a unit conversion), naming the sample by its position.
absl::Status CheckReadable(const std::vector<MeasuredFile>& files,
                           const std::string& workload, const MetricResult& m) {
  const bool positive = MustBePositive(m.name);
  auto ok = [&](double x) {
    return std::isfinite(x) && (positive ? x > 0 : x >= 0);
  };
  auto refuse = [&](const std::string& which, double x) {
    return BadInput(
        files[0].path, "/",
        absl::StrCat(workload, " ", m.name, " ", which, " is ", x, " ", m.unit,
                     "; expected a finite ",
                     positive ? "time or rate > 0" : "value >= 0",
                     " (the results reader refuses anything else)"));
  };
  for (size_t k = 0; k < m.samples.size(); ++k) {
    if (!ok(m.samples[k])) {
      return refuse(absl::StrCat("sample ", k + 1), m.samples[k]);
    }
  }
  for (const auto& [pct, value] : m.percentiles) {
    if (!ok(value)) return refuse(absl::StrCat("percentile ", pct), value);
  }
  return absl::OkStatus();
}

bool NamesItsWorkloads(MeasuredFormat f) {
  return f == MeasuredFormat::kGoogleBenchmark ||
         f == MeasuredFormat::kHyperfine;
}

}  // namespace

const std::vector<FormatInfo>& MeasuredFormats() {
  static const std::vector<FormatInfo> kFormats = {
      {MeasuredFormat::kKineto, "kineto",
       "torch.profiler / Kineto trace JSON (plain or .json.gz)"},
      {MeasuredFormat::kNeuronBench, "neuron-bench",
       "neuron-bench nc_latency_data.json, latency_data.json, info.json"},
      {MeasuredFormat::kNeuronProfile, "neuron-profile",
       "neuron-profile view --output-format summary-json"},
      {MeasuredFormat::kNkiBenchmark, "nki-benchmark",
       "nki.benchmark's printed result table (percentiles only)"},
      {MeasuredFormat::kGoogleBenchmark, "gbench", "Google Benchmark JSON"},
      {MeasuredFormat::kHyperfine, "hyperfine", "hyperfine --export-json"},
  };
  return kFormats;
}

absl::string_view MeasuredFormatName(MeasuredFormat format) {
  for (const FormatInfo& f : MeasuredFormats()) {
    if (f.format == format) return f.name;
  }
  return "?";
}

absl::StatusOr<MeasuredFormat> ParseMeasuredFormat(absl::string_view name) {
  for (const FormatInfo& f : MeasuredFormats()) {
    if (f.name == name) return f.format;
  }
  return absl::InvalidArgumentError(EscapeControl(
      absl::StrCat("`from`=", name, ": expected one of ", FormatList())));
}

absl::StatusOr<MeasuredFormat> DetectFormat(const MeasuredFile& file) {
  if (!StartsLikeJson(file.text)) {
    if (LooksLikeNkiBenchmarkOutput(file.text)) {
      return MeasuredFormat::kNkiBenchmark;
    }
    return BadInput(file.path, "line 1",
                    absl::StrCat("expected JSON or nki.benchmark's printed "
                                 "table (formats: ",
                                 FormatList(), ")"));
  }
  TRN_ASSIGN_OR_RETURN(const nlohmann::json j, ParseMeasuredJson(file));
  if (LooksLikeKineto(j)) return MeasuredFormat::kKineto;
  if (LooksLikeGoogleBenchmark(j)) return MeasuredFormat::kGoogleBenchmark;
  if (LooksLikeHyperfine(j)) return MeasuredFormat::kHyperfine;
  if (LooksLikeNeuronBench(j)) return MeasuredFormat::kNeuronBench;
  if (LooksLikeNeuronProfileSummary(j)) return MeasuredFormat::kNeuronProfile;
  return BadInput(
      file.path, "/",
      absl::StrCat("expected a measured file trnbench imports (", FormatList(),
                   "); none matches this content: give `format` "
                   "to be told what is missing"));
}

std::string SafeWorkloadName(absl::string_view name) {
  std::string out;
  for (char c : name.substr(0, 128)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '-' || c == '.';
    out.push_back(ok ? c : '_');
  }
  // No hidden files and no ".." folder names.
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out;
}

absl::StatusOr<RunResult> ImportMeasured(const std::vector<MeasuredFile>& files,
                                         const ImportRequest& request) {
  if (files.empty()) {
    return absl::InvalidArgumentError(
        "import needs at least one measured file: trnbench import FILE...");
  }
  std::optional<MeasuredFormat> format = request.format;
  std::vector<ParsedInput> inputs(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    inputs[i].file = &files[i];
    if (!request.format) {
      TRN_ASSIGN_OR_RETURN(MeasuredFormat f, DetectFormat(files[i]));
      if (format && f != *format) {
        return BadInput(
            files[i].path, "/",
            absl::StrCat("is ", MeasuredFormatName(f), " output; expected ",
                         MeasuredFormatName(*format), " like ", files[0].path,
                         " (import one format at a time)"));
      }
      format = f;
    }
    if (IsJsonFormat(*format)) {
      TRN_ASSIGN_OR_RETURN(inputs[i].json, ParseMeasuredJson(files[i]));
    }
  }
  ImportOptions options = request.options;
  TRN_ASSIGN_OR_RETURN(Imported imported, Read(*format, inputs, options));

  if (!options.workload.empty() && NamesItsWorkloads(*format)) {
    if (imported.workloads.size() != 1) {
      return absl::InvalidArgumentError(EscapeControl(absl::StrCat(
          "`workload` ", options.workload, ": ", files[0].path, " holds ",
          imported.workloads.size(),
          " benchmarks, which keep their own names; expected `workload` "
          "only for a file of one benchmark")));
    }
    imported.workloads[0].name = options.workload;
  }
  RunResult run;
  run.source = "measured";
  run.measurement.format = std::string(MeasuredFormatName(*format));
  run.measurement.tool = imported.tool;
  run.measurement.tool_version = imported.tool_version;
  run.measurement.instance_type = imported.instance_type;
  for (const MeasuredFile& f : files) {
    run.measurement.inputs.push_back({f.path, f.fnv1a64, f.bytes});
  }
  run.trnbench_version = request.trnbench_version;
  run.model_version = "";
  run.device = request.device;
  if (run.device.empty()) run.device = DeviceOfInstance(imported.instance_type);
  if (run.device.empty()) {
    run.device = NamesItsWorkloads(*format) ? "host" : "unknown";
  }
  run.device_hash = "";
  run.device_calibrated = true;
  run.seed = 0;
  run.confidence = request.confidence;
  run.schedule.wait = 0;
  run.schedule.warmup = 0;
  run.schedule.repeat = 1;
  for (ImportedWorkload& w : imported.workloads) {
    WorkloadResult r;
    const std::string original =
        w.name.empty() ? StemOf(files[0].path) : w.name;
    r.name = SafeWorkloadName(original);
    for (const WorkloadResult& prev : run.workloads) {
      if (prev.name == r.name) {
        return absl::InvalidArgumentError(EscapeControl(absl::StrCat(
            files[0].path, ": two workloads become the name ", r.name,
            " (names keep letters, digits, '_', '-' and '.'); expected "
            "names that differ in those")));
      }
    }
    r.family = r.name;
    r.mode = "measured";
    r.description = absl::StrCat(imported.tool, ": ", original);
    for (MetricResult& m : w.metrics) {
      TRN_RETURN_IF_ERROR(CheckReadable(files, original, m));
      run.schedule.repeat = std::max<int64_t>(
          run.schedule.repeat, static_cast<int64_t>(m.samples.size()));
      m.summary = m.samples.empty()
                      ? SummaryFromPercentiles(m.percentiles)
                      : stats::Summarize(m.samples, request.confidence);
    }
    r.metrics = std::move(w.metrics);
    r.ops = std::move(w.ops);
    if (r.metrics.empty()) {
      return BadInput(files[0].path, "/",
                      "expected at least one measured figure");
    }
    run.workloads.push_back(std::move(r));
  }
  return run;
}

}  // namespace trn::import
