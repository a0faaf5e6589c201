#include "harness/validation/training_figures.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "support/input_file.h"
#include "support/json_reader.h"
#include "support/status_macros.h"
#include "support/strict_json.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

// A figure file is a few KiB; bounded like every input.
constexpr int64_t kMaxTrainingFileBytes = int64_t{1} << 20;

absl::StatusOr<TrainingKernel> ReadTrainingFile(const std::string& path) {
  TRN_ASSIGN_OR_RETURN(
      const std::string text,
      ReadInputFile(path, kMaxTrainingFileBytes, "training figure file"));
  TRN_ASSIGN_OR_RETURN(const nlohmann::json root, ParseStrictJson(text, path));
  const JsonReader r(path);
  TRN_RETURN_IF_ERROR(r.Object(root, ""));
  TRN_RETURN_IF_ERROR(r.SchemaVersion(root, "", kTrainingSchemaVersion));
  static constexpr std::string_view kKeys[] = {"schema_version", "name",
                                               "family",         "description",
                                               "traced_from",    "published"};
  TRN_RETURN_IF_ERROR(r.CheckKeys(root, "", kKeys, "a training figure file"));
  TrainingKernel k;
  k.file = path;
  TRN_ASSIGN_OR_RETURN(k.name, r.RequiredString(root, "", "name"));
  TRN_ASSIGN_OR_RETURN(k.family, r.RequiredString(root, "", "family"));
  TRN_ASSIGN_OR_RETURN(k.description,
                       r.RequiredString(root, "", "description"));
  TRN_ASSIGN_OR_RETURN(std::optional<KernelReference> ref,
                       ReadKernelReference(root, r));
  if (!ref.has_value()) {
    return r.Error(JsonLocation("", "traced_from"),
                   "required key \"traced_from\" is missing: a training "
                   "figure file names the kernel its figures were measured "
                   "on");
  }
  k.traced_from = *std::move(ref);
  TRN_ASSIGN_OR_RETURN(const nlohmann::json* published,
                       r.Required(root, "", "published"));
  TRN_ASSIGN_OR_RETURN(k.published, ParsePublishedFigures(*published, path));
  if (k.published.empty()) {
    return r.Error(JsonLocation("", "published"),
                   "expected at least one figure");
  }
  return k;
}

}  // namespace

absl::StatusOr<std::vector<TrainingKernel>> LoadTrainingKernels(
    const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<TrainingKernel> out;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.empty() || file[0] == '.' || it->path().extension() != ".json") {
      continue;
    }
    files.push_back(file);
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": cannot list the directory: ", ec.message()));
  }
  std::sort(files.begin(), files.end());
  std::set<std::string> names;
  for (const std::string& file : files) {
    TRN_ASSIGN_OR_RETURN(TrainingKernel k,
                         ReadTrainingFile(absl::StrCat(dir, "/", file)));
    if (!names.insert(k.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.file, ": /name: \"", k.name,
                       "\" is the name of another training figure file"));
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<ValidationRow> NotRunRows(const TrainingKernel& kernel,
                                      const std::string& device,
                                      const std::string& why) {
  std::vector<ValidationRow> rows;
  for (const PublishedFigure& f : kernel.published) {
    if (!device.empty() && f.device != device) continue;
    ValidationRow row;
    row.workload = kernel.name;
    row.key = absl::StrCat(kernel.name, " ", f.metric, " ", f.statistic, " ",
                           f.device);
    row.spec_file = kernel.file;
    row.published = f;
    row.model = NAN;
    row.error = NAN;
    row.not_run = why;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace trn
