#include "reports/validation_report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/text_table.h"

namespace trn {
namespace {

using nlohmann::ordered_json;

// Four significant digits: no published figure of the suite has more.
std::string Num(double v) { return absl::StrFormat("%.4g", v); }

std::string Percent(double fraction) {
  return absl::StrFormat("%+.1f%%", 100.0 * fraction);
}

std::string Allowed(const PublishedFigure& f) {
  if (f.tolerance.has_value()) {
    return absl::StrFormat("±%g%%", 100.0 * *f.tolerance);
  }
  return absl::StrFormat("%s to %s %s", Num(f.range->first),
                         Num(f.range->second), f.unit);
}

std::string VerdictWord(const ValidationRow& r) {
  if (!r.not_run.empty()) return r.not_run;
  // A figure a parameter was fitted on checks the fit, not a prediction.
  const bool fitted = !r.fitted_by.empty();
  if (r.within) {
    if (r.known_gap)
      return fitted ? "within (listed as a gap; fitted)"
                    : "within (listed as a gap)";
    return fitted ? "within (fitted)" : "within";
  }
  if (r.known_gap)
    return fitted ? "OUT (known gap; fitted)" : "OUT (known gap)";
  return fitted ? "OUT (fitted)" : "OUT";
}

std::string Settings(const ValidationResult& res) {
  return absl::StrFormat(
      "model %s, seed %d, %d recorded runs per workload "
      "unless a figure states its own%s",
      res.model_version, res.seed, res.repeat,
      res.device.empty() ? std::string(", every device")
                         : absl::StrCat(", device ", res.device));
}

// The lines after the table: the mean error, the order groups, stale gaps
// and the verdict of the whole run.
std::vector<std::string> Summary(const ValidationResult& res) {
  std::vector<std::string> lines;
  const int not_run = static_cast<int>(
      std::count_if(res.rows.begin(), res.rows.end(),
                    [](const ValidationRow& r) { return !r.not_run.empty(); }));
  lines.push_back(absl::StrFormat(
      "mean |error| %.1f%% over the %d figures with a tolerance; %d of %d "
      "figures within, %d out (%d of them known gaps)%s",
      100.0 * res.mean_abs_error, res.with_tolerance, res.within,
      static_cast<int>(res.rows.size()) - not_run, res.out, res.known_gaps,
      not_run == 0
          ? std::string()
          : absl::StrFormat("; %d not run (refused or skipped)", not_run)));
  if (res.fitted > 0) {
    // The figures the profile's fitted parameters were fitted on say how
    // well the fit holds; the others are what the model predicts.
    std::string line = absl::StrFormat(
        "%d of them fitted (a parameter of their device profile was fitted "
        "on them: its fitted_on); ",
        res.fitted);
    if (res.predictions == 0) {
      absl::StrAppend(&line, "no prediction");
    } else {
      absl::StrAppendFormat(&line, "the %d predictions: %d within",
                            res.predictions, res.predictions_within);
      if (res.predictions_with_tolerance > 0) {
        absl::StrAppendFormat(&line,
                              ", mean |error| %.1f%% over the %d with a "
                              "tolerance",
                              100.0 * res.predictions_mean_abs_error,
                              res.predictions_with_tolerance);
      }
    }
    lines.push_back(std::move(line));
  }
  for (const OrderCheck& c : res.orders) {
    std::vector<std::string> published;
    std::vector<std::string> model;
    for (double v : c.published) published.push_back(Num(v));
    for (double v : c.model) model.push_back(Num(v));
    std::string verdict = c.holds ? "holds" : "BROKEN";
    if (c.known_gap) {
      absl::StrAppend(&verdict,
                      c.holds ? " (listed as a gap)" : " (known gap)");
    }
    lines.push_back(absl::StrFormat("%s (%s): published %s, model %s: %s",
                                    c.key, absl::StrJoin(c.workloads, ", "),
                                    absl::StrJoin(published, " > "),
                                    absl::StrJoin(model, " > "), verdict));
  }
  for (const std::string& k : res.stale_gaps) {
    lines.push_back(absl::StrCat("listed as a known gap but now met: ", k,
                                 " (remove it from the list)"));
  }
  lines.push_back(res.passed ? "validation passed" : "validation FAILED");
  return lines;
}

std::string MarkdownCell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string ValidationTable(const ValidationResult& res) {
  // `validate --sources`: the model's figure from the traced upstream
  // kernel beside the one from the spec.
  const bool sources = std::any_of(
      res.rows.begin(), res.rows.end(),
      [](const ValidationRow& r) { return !std::isnan(r.from_source); });
  std::vector<std::string> header = {"workload",  "device", "metric", "stat",
                                     "published", "model",  "unit",   "error",
                                     "allowed",   "verdict"};
  if (sources) {
    header[5] = "from spec";
    header.insert(header.begin() + 6, "from source");
  }
  TextTable t(header);
  for (const ValidationRow& r : res.rows) {
    const PublishedFigure& f = r.published;
    std::vector<std::string> row = {
        r.workload,    f.device,
        f.metric,      f.statistic,
        Num(f.figure), r.not_run.empty() ? Num(r.model) : "-",
        f.unit,        r.not_run.empty() ? Percent(r.error) : "-",
        Allowed(f),    VerdictWord(r)};
    if (sources) {
      row.insert(row.begin() + 6,
                 std::isnan(r.from_source) ? "-" : Num(r.from_source));
    }
    t.AddRow(row);
  }
  std::string out =
      absl::StrCat("published hardware figures vs the timing model (",
                   Settings(res), ")\n\n", t.Render(), "\n");
  for (const std::string& line : Summary(res)) {
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

std::string ValidationMarkdown(const ValidationResult& res) {
  std::string out = absl::StrCat(
      "Published hardware figures vs the timing model (", Settings(res),
      ").\n\n| workload | device | figure | published | model | error | "
      "allowed | verdict | hardware | method | source |\n"
      "| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- "
      "|\n");
  for (const ValidationRow& r : res.rows) {
    const PublishedFigure& f = r.published;
    std::string figure = absl::StrCat(f.metric, " ", f.statistic);
    if (f.line > 0) absl::StrAppend(&figure, " (line ", f.line, ")");
    const std::string source =
        f.url.empty() ? f.source
                      : absl::StrCat("[", f.source, "](", f.url, ")");
    const std::vector<std::string> cells = {
        absl::StrCat("`", r.workload, "`"),
        f.device,
        figure,
        absl::StrCat(Num(f.figure), " ", f.unit),
        r.not_run.empty() ? absl::StrCat(Num(r.model), " ", f.unit) : "-",
        r.not_run.empty() ? Percent(r.error) : "-",
        Allowed(f),
        VerdictWord(r),
        f.hardware,
        f.method,
        source};
    out += "|";
    for (const std::string& c : cells) {
      absl::StrAppend(&out, " ", MarkdownCell(c), " |");
    }
    out += "\n";
  }
  out += "\n";
  for (const std::string& line : Summary(res)) {
    absl::StrAppend(&out, "- ", line, "\n");
  }
  return out;
}

ordered_json ValidationToJson(const ValidationResult& res) {
  ordered_json j;
  j["schema"] = "trnbench.validation";
  j["schema_version"] = res.schema_version;
  j["model_version"] = res.model_version;
  j["seed"] = res.seed;
  j["repeat"] = res.repeat;
  j["device"] =
      res.device.empty() ? ordered_json(nullptr) : ordered_json(res.device);
  ordered_json figures = ordered_json::array();
  for (const ValidationRow& r : res.rows) {
    const PublishedFigure& f = r.published;
    ordered_json x;
    x["key"] = r.key;
    x["workload"] = r.workload;
    x["spec_file"] = r.spec_file;
    x["device"] = f.device;
    x["metric"] = f.metric;
    x["statistic"] = f.statistic;
    if (f.line > 0) x["line"] = f.line;
    x["runs"] = r.runs;
    x["unit"] = f.unit;
    x["published"] = f.figure;
    if (r.not_run.empty()) {
      x["model"] = r.model;
      if (!std::isnan(r.from_source)) x["from_source"] = r.from_source;
      x["error"] = r.error;
    } else {
      x["model"] = nullptr;
      x["error"] = nullptr;
      x["not_run"] = r.not_run;
    }
    if (f.tolerance.has_value()) {
      x["tolerance"] = *f.tolerance;
    } else {
      x["range"] = {f.range->first, f.range->second};
    }
    x["low"] = r.low;
    x["high"] = r.high;
    x["within"] = r.within;
    x["known_gap"] = r.known_gap;
    x["fitted_by"] = r.fitted_by;
    x["order"] =
        f.order.empty() ? ordered_json(nullptr) : ordered_json(f.order);
    x["shape"] = f.shape;
    x["hardware"] = f.hardware;
    x["method"] = f.method;
    x["source"] = f.source;
    x["url"] = f.url;
    figures.push_back(std::move(x));
  }
  j["figures"] = std::move(figures);
  ordered_json orders = ordered_json::array();
  for (const OrderCheck& c : res.orders) {
    orders.push_back({{"key", c.key},
                      {"group", c.group},
                      {"workloads", c.workloads},
                      {"published", c.published},
                      {"model", c.model},
                      {"holds", c.holds},
                      {"known_gap", c.known_gap}});
  }
  j["orders"] = std::move(orders);
  j["summary"] = {{"mean_abs_error", res.mean_abs_error},
                  {"figures_with_tolerance", res.with_tolerance},
                  {"figures", res.rows.size()},
                  {"within", res.within},
                  {"out", res.out},
                  {"known_gaps", res.known_gaps},
                  {"fitted", res.fitted},
                  {"predictions",
                   {{"figures", res.predictions},
                    {"within", res.predictions_within},
                    {"figures_with_tolerance", res.predictions_with_tolerance},
                    {"mean_abs_error", res.predictions_mean_abs_error}}},
                  {"stale_gaps", res.stale_gaps},
                  {"passed", res.passed}};
  return j;
}

std::string ValidationJsonText(const ValidationResult& res,
                               const ValidationResult* training) {
  ordered_json j = ValidationToJson(res);
  if (training != nullptr) {
    ordered_json t = ValidationToJson(*training);
    j["training"] = {{"figures", t["figures"]}, {"summary", t["summary"]}};
  }
  return j.dump(2) + "\n";
}

std::string TrainingHeading() {
  return "Training figures: kernels traced from their source and run as the "
         "compiler stage decides, against their measured trn1 profiles "
         "(NKIBench; docs/validation.md, \"Training figures\")";
}

}  // namespace trn
