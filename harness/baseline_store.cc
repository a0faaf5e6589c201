#include "harness/baseline_store.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "harness/summary_json.h"
#include "nlohmann/json.hpp"
#include "support/atomic_file.h"
#include "support/input_error.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr char kBaselineSchema[] = "trnbench.baseline";
constexpr char kResultsSchema[] = "trnbench.results";
absl::Status Bad(absl::string_view label, absl::string_view path,
                 absl::string_view what) {
  return InputError(std::string_view(label.data(), label.size()),
                    std::string_view(path.data(), path.size()),
                    std::string_view(what.data(), what.size()));
}

// Typed accessors that turn every defect into a message with its path.
class Reader {
 public:
  explicit Reader(absl::string_view label) : label_(label) {}

  absl::StatusOr<const json*> Field(const json& obj, const std::string& path,
                                    const char* key) const {
    if (!obj.is_object()) return Bad(label_, path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) {
      return Bad(label_, absl::StrCat(path, "/", key), "missing");
    }
    return &*it;
  }
  absl::StatusOr<std::string> String(const json& obj, const std::string& path,
                                     const char* key) const {
    TRN_ASSIGN_OR_RETURN(const json* v, Field(obj, path, key));
    if (!v->is_string()) {
      return Bad(label_, absl::StrCat(path, "/", key), "expected a string");
    }
    return v->get<std::string>();
  }
  absl::StatusOr<int64_t> Int(const json& obj, const std::string& path,
                              const char* key, int64_t lo, int64_t hi) const {
    TRN_ASSIGN_OR_RETURN(const json* v, Field(obj, path, key));
    if (!v->is_number_integer()) {
      return Bad(label_, absl::StrCat(path, "/", key), "expected an integer");
    }
    if (v->is_number_unsigned() &&
        v->get<uint64_t>() > static_cast<uint64_t>(hi)) {
      return Bad(label_, absl::StrCat(path, "/", key),
                 absl::StrCat("expected an integer from ", lo, " to ", hi));
    }
    int64_t x = v->get<int64_t>();
    if (x < lo || x > hi) {
      return Bad(label_, absl::StrCat(path, "/", key),
                 absl::StrCat("expected an integer from ", lo, " to ", hi));
    }
    return x;
  }
  absl::StatusOr<uint64_t> Uint(const json& obj, const std::string& path,
                                const char* key) const {
    TRN_ASSIGN_OR_RETURN(const json* v, Field(obj, path, key));
    if (!v->is_number_unsigned()) {
      return Bad(label_, absl::StrCat(path, "/", key),
                 "expected a non-negative integer");
    }
    return v->get<uint64_t>();
  }

  absl::string_view label() const { return label_; }

 private:
  absl::string_view label_;
};

absl::StatusOr<Schedule> ReadSchedule(const Reader& r, const json& obj,
                                      const std::string& path) {
  TRN_ASSIGN_OR_RETURN(const json* s, r.Field(obj, path, "schedule"));
  const std::string sp = path + "/schedule";
  Schedule out;
  TRN_ASSIGN_OR_RETURN(out.wait, r.Int(*s, sp, "wait", 0, int64_t{1} << 40));
  TRN_ASSIGN_OR_RETURN(out.warmup,
                       r.Int(*s, sp, "warmup", 0, int64_t{1} << 40));
  TRN_ASSIGN_OR_RETURN(out.repeat,
                       r.Int(*s, sp, "repeat", 1, int64_t{1} << 40));
  return out;
}

absl::Status ReadMetrics(const Reader& r, const json& obj,
                         const std::string& path, int64_t repeat,
                         double confidence, std::vector<MetricResult>& out) {
  TRN_ASSIGN_OR_RETURN(const json* ms, r.Field(obj, path, "metrics"));
  const std::string mp = path + "/metrics";
  if (!ms->is_object() || ms->empty()) {
    return Bad(r.label(), mp, "expected a non-empty object of metrics");
  }
  for (const auto& [name, m] : ms->items()) {
    const std::string p = absl::StrCat(mp, "/", name);
    const MetricInfo* info = FindMetric(name);
    if (info == nullptr) {
      return Bad(r.label(), p,
                 "unknown metric (this trnbench does not know it)");
    }
    TRN_ASSIGN_OR_RETURN(const json* samples, r.Field(m, p, "samples"));
    if (!samples->is_array()) {
      return Bad(r.label(), p + "/samples", "expected an array of numbers");
    }
    if (static_cast<int64_t>(samples->size()) != repeat) {
      return Bad(
          r.label(), p + "/samples",
          absl::StrCat("expected ", repeat,
                       " samples (schedule.repeat), found ", samples->size()));
    }
    MetricResult mr;
    mr.name = name;
    mr.unit = std::string(UnitSymbol(info->unit));
    mr.lower_is_better = info->lower_is_better;
    mr.samples.reserve(samples->size());
    for (size_t i = 0; i < samples->size(); ++i) {
      const json& x = (*samples)[i];
      if (!x.is_number() || !std::isfinite(x.get<double>())) {
        return Bad(r.label(), absl::StrCat(p, "/samples/", i),
                   "expected a finite number");
      }
      mr.samples.push_back(x.get<double>());
    }
    // The stored summary is for people; comparisons use the samples.
    mr.summary = stats::Summarize(mr.samples, confidence);
    out.push_back(std::move(mr));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Baseline>> ParseBaselineDoc(const Reader& r,
                                                       const json& j,
                                                       double confidence) {
  Baseline b;
  b.schema_version = kBaselineSchemaVersion;
  TRN_ASSIGN_OR_RETURN(b.workload, r.String(j, "", "workload"));
  TRN_ASSIGN_OR_RETURN(b.family, r.String(j, "", "family"));
  TRN_ASSIGN_OR_RETURN(b.mode, r.String(j, "", "mode"));
  TRN_ASSIGN_OR_RETURN(const json* dev, r.Field(j, "", "device"));
  TRN_ASSIGN_OR_RETURN(b.device, r.String(*dev, "/device", "name"));
  TRN_ASSIGN_OR_RETURN(b.device_hash,
                       r.String(*dev, "/device", "content_hash"));
  TRN_ASSIGN_OR_RETURN(const json* prov, r.Field(j, "", "provenance"));
  const std::string pp = "/provenance";
  TRN_ASSIGN_OR_RETURN(b.spec_file, r.String(*prov, pp, "spec_file"));
  TRN_ASSIGN_OR_RETURN(b.spec_hash, r.String(*prov, pp, "spec_hash"));
  TRN_ASSIGN_OR_RETURN(b.trnbench_version,
                       r.String(*prov, pp, "trnbench_version"));
  TRN_ASSIGN_OR_RETURN(b.model_version, r.String(*prov, pp, "model_version"));
  TRN_ASSIGN_OR_RETURN(b.seed, r.Uint(*prov, pp, "seed"));
  TRN_ASSIGN_OR_RETURN(b.schedule, ReadSchedule(r, *prov, pp));
  TRN_ASSIGN_OR_RETURN(b.created, r.String(*prov, pp, "created"));
  TRN_ASSIGN_OR_RETURN(const json* commit, r.Field(*prov, pp, "git_commit"));
  if (commit->is_string()) {
    b.git_commit = commit->get<std::string>();
  } else if (!commit->is_null()) {
    return Bad(r.label(), pp + "/git_commit", "expected a string or null");
  }
  TRN_RETURN_IF_ERROR(
      ReadMetrics(r, j, "", b.schedule.repeat, confidence, b.metrics));
  b.file = std::string(r.label());
  return std::vector<Baseline>{std::move(b)};
}

absl::StatusOr<std::vector<Baseline>> ParseResultsDoc(const Reader& r,
                                                      const json& j,
                                                      double confidence) {
  Baseline common;
  TRN_ASSIGN_OR_RETURN(const json* dev, r.Field(j, "", "device"));
  TRN_ASSIGN_OR_RETURN(common.device, r.String(*dev, "/device", "name"));
  TRN_ASSIGN_OR_RETURN(common.device_hash,
                       r.String(*dev, "/device", "content_hash"));
  TRN_ASSIGN_OR_RETURN(common.trnbench_version,
                       r.String(j, "", "trnbench_version"));
  TRN_ASSIGN_OR_RETURN(common.model_version, r.String(j, "", "model_version"));
  TRN_ASSIGN_OR_RETURN(common.seed, r.Uint(j, "", "seed"));
  TRN_ASSIGN_OR_RETURN(common.schedule, ReadSchedule(r, j, ""));
  common.file = std::string(r.label());
  TRN_ASSIGN_OR_RETURN(const json* ws, r.Field(j, "", "workloads"));
  if (!ws->is_array()) return Bad(r.label(), "/workloads", "expected an array");
  // trnbench never writes an empty one; read as "nothing to compare", it
  // would let a gate pass on a file that lost its content.
  if (ws->empty()) {
    return Bad(r.label(), "/workloads",
               "expected at least one workload, found an empty array");
  }
  std::vector<Baseline> out;
  for (size_t i = 0; i < ws->size(); ++i) {
    const std::string p = absl::StrCat("/workloads/", i);
    const json& w = (*ws)[i];
    Baseline b = common;
    TRN_ASSIGN_OR_RETURN(b.workload, r.String(w, p, "name"));
    TRN_ASSIGN_OR_RETURN(b.family, r.String(w, p, "family"));
    TRN_ASSIGN_OR_RETURN(b.mode, r.String(w, p, "mode"));
    TRN_ASSIGN_OR_RETURN(b.spec_file, r.String(w, p, "spec_file"));
    TRN_ASSIGN_OR_RETURN(b.spec_hash, r.String(w, p, "spec_hash"));
    TRN_RETURN_IF_ERROR(
        ReadMetrics(r, w, p, b.schedule.repeat, confidence, b.metrics));
    for (const auto& prev : out) {
      if (prev.workload == b.workload) {
        return Bad(r.label(), p + "/name",
                   absl::StrCat("workload ", b.workload, " appears twice"));
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

const MetricResult* Baseline::Find(absl::string_view metric) const {
  for (const auto& m : metrics) {
    if (m.name == metric) return &m;
  }
  return nullptr;
}

std::vector<Baseline> BaselinesFromRun(const RunResult& run,
                                       const std::string& created,
                                       const std::string& git_commit) {
  std::vector<Baseline> out;
  for (const auto& w : run.workloads) {
    Baseline b;
    b.workload = w.name;
    b.family = w.family;
    b.mode = w.mode;
    b.device = run.device;
    b.device_hash = run.device_hash;
    b.spec_file = w.spec_file;
    b.spec_hash = w.spec_hash;
    b.trnbench_version = run.trnbench_version;
    b.model_version = run.model_version;
    b.seed = run.seed;
    b.schedule = run.schedule;
    b.created = created;
    b.git_commit = git_commit;
    b.metrics = w.metrics;
    out.push_back(std::move(b));
  }
  return out;
}

std::string BaselineToJsonText(const Baseline& b) {
  ordered_json j;
  j["schema"] = kBaselineSchema;
  j["schema_version"] = kBaselineSchemaVersion;
  j["workload"] = b.workload;
  j["family"] = b.family;
  j["mode"] = b.mode;
  j["device"] = {{"name", b.device}, {"content_hash", b.device_hash}};
  ordered_json prov;
  prov["spec_file"] = b.spec_file;
  prov["spec_hash"] = b.spec_hash;
  prov["trnbench_version"] = b.trnbench_version;
  prov["model_version"] = b.model_version;
  prov["seed"] = b.seed;
  prov["schedule"] = {{"wait", b.schedule.wait},
                      {"warmup", b.schedule.warmup},
                      {"repeat", b.schedule.repeat}};
  prov["created"] = b.created;
  prov["git_commit"] =
      b.git_commit.empty() ? ordered_json(nullptr) : ordered_json(b.git_commit);
  j["provenance"] = std::move(prov);
  ordered_json ms = ordered_json::object();
  for (const auto& m : b.metrics) {
    ordered_json mj;
    mj["unit"] = m.unit;
    mj["lower_is_better"] = m.lower_is_better;
    mj["summary"] = SummaryToJson(m.summary);
    ordered_json samples = ordered_json::array();
    for (double x : m.samples) samples.push_back(JsonNumber(x));
    mj["samples"] = std::move(samples);
    ms[m.name] = std::move(mj);
  }
  j["metrics"] = std::move(ms);
  return j.dump(2) + "\n";
}

absl::StatusOr<std::vector<Baseline>> ParseBaselineOrResults(
    absl::string_view text, absl::string_view label, double confidence) {
  if (static_cast<int64_t>(text.size()) > kMaxBaselineBytes) {
    return Bad(
        label, "/",
        absl::StrCat("file is larger than ", kMaxBaselineBytes >> 20, " MiB"));
  }
  TRN_ASSIGN_OR_RETURN(
      const json j,
      ParseStrictJson(std::string_view(text.data(), text.size()),
                      std::string_view(label.data(), label.size())));
  if (!j.is_object()) return Bad(label, "/", "expected a JSON object");
  Reader r(label);
  TRN_ASSIGN_OR_RETURN(std::string schema, r.String(j, "", "schema"));
  const bool baseline = schema == kBaselineSchema;
  if (!baseline && schema != kResultsSchema) {
    return Bad(label, "/schema",
               absl::StrCat("expected \"", kBaselineSchema, "\" or \"",
                            kResultsSchema, "\", found \"", schema, "\""));
  }
  const int expected =
      baseline ? kBaselineSchemaVersion : kResultsSchemaVersion;
  TRN_ASSIGN_OR_RETURN(const json* v, r.Field(j, "", "schema_version"));
  if (!v->is_number_integer() || v->get<int64_t>() != expected) {
    return Bad(label, "/schema_version",
               absl::StrCat("unknown schema version ", v->dump(),
                            "; this trnbench reads version ", expected));
  }
  return baseline ? ParseBaselineDoc(r, j, confidence)
                  : ParseResultsDoc(r, j, confidence);
}

absl::StatusOr<std::vector<Baseline>> LoadBaselineOrResults(
    const std::string& path, double confidence) {
  std::error_code ec;
  // Not only regular files: `compare <(git show REV:file) file` reads a pipe.
  if (!std::filesystem::exists(path, ec) ||
      std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no such baseline or results file"));
  }
  auto size = std::filesystem::file_size(path, ec);
  if (!ec && static_cast<int64_t>(size) > kMaxBaselineBytes) {
    return Bad(
        path, "/",
        absl::StrCat("file is larger than ", kMaxBaselineBytes >> 20, " MiB"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read"));
  }
  // Read at most one byte past the limit, so a huge pipe cannot exhaust
  // memory before the size check.
  std::string text;
  char chunk[1 << 16];
  while (in && static_cast<int64_t>(text.size()) <= kMaxBaselineBytes) {
    in.read(chunk, sizeof(chunk));
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  return ParseBaselineOrResults(text, path, confidence);
}

std::string BaselinePath(const std::string& dir, const std::string& workload) {
  return (std::filesystem::path(dir) / (workload + ".json")).string();
}

namespace {

// True when `old_text` is the baseline `new_text` but for when and from
// which commit it was made: a refresh that changed nothing else leaves the
// file alone, so that it shows no diff in version control.
bool SameBaselineApartFromWhenAndWhere(const std::string& old_text,
                                       const std::string& new_text) {
  json a = json::parse(old_text, nullptr, /*allow_exceptions=*/false);
  json b = json::parse(new_text, nullptr, /*allow_exceptions=*/false);
  if (a.is_discarded() || b.is_discarded()) return false;
  for (json* doc : {&a, &b}) {
    auto p = doc->find("provenance");
    if (p == doc->end() || !p->is_object()) return false;
    p->erase("created");
    p->erase("git_commit");
  }
  return a == b;
}

}  // namespace

absl::Status StageBaselines(const std::vector<Baseline>& baselines,
                            const std::string& dir, StagedFiles& files,
                            int* unchanged) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir,
                     ": cannot create the baseline folder (expected a folder "
                     "or a path where one can be made): ",
                     ec.message()));
  }
  for (const auto& b : baselines) {
    const std::string path = BaselinePath(dir, b.workload);
    const std::string text = BaselineToJsonText(b);
    // Never write a baseline that the gate would refuse to read.
    if (static_cast<int64_t>(text.size()) > kMaxBaselineBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": the baseline would be ", text.size() >> 20,
                       " MiB; expected at most ", kMaxBaselineBytes >> 20,
                       " MiB, which the gate can read back: lower --repeat"));
    }
    if (std::error_code exists_ec;
        std::filesystem::is_regular_file(path, exists_ec)) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream old_text;
      old_text << in.rdbuf();
      if (in && SameBaselineApartFromWhenAndWhere(old_text.str(), text)) {
        if (unchanged != nullptr) ++*unchanged;
        continue;
      }
    }
    TRN_RETURN_IF_ERROR(files.Stage(path, text));
  }
  return absl::OkStatus();
}

absl::Status SaveBaselines(const std::vector<Baseline>& baselines,
                           const std::string& dir) {
  StagedFiles files;
  TRN_RETURN_IF_ERROR(StageBaselines(baselines, dir, files));
  return files.Commit();
}

std::string NowUtcIso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string CurrentGitCommit(const std::string& source_dir) {
  for (const char* var : {"TRNBENCH_GIT_COMMIT", "GITHUB_SHA"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return v;
  }
  std::string cmd =
      absl::StrCat("git -C '", source_dir, "' rev-parse HEAD 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  char buf[64] = {0};
  std::string out;
  if (std::fgets(buf, sizeof(buf), p) != nullptr) out = buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
    out.pop_back();
  return out.size() == 40 ? out : "";
}

}  // namespace trn
