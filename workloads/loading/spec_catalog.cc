#include "workloads/loading/spec_catalog.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/message_text.h"
#include "support/name_match.h"
#include "support/status_macros.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

std::string Available(const std::vector<WorkloadSpec>& all) {
  std::vector<std::string> names;
  std::set<std::string> families;
  for (const auto& s : all) {
    names.push_back(s.name);
    families.insert(s.family);
  }
  return absl::StrCat("workloads: ", absl::StrJoin(names, ", "),
                      "; families: ", absl::StrJoin(families, ", "),
                      "; or \"all\"");
}

}  // namespace

absl::StatusOr<std::vector<WorkloadSpec>> LoadSpecDir(
    const std::string& dir, const MemoryLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat(dir, ": no such spec directory"));
  }
  // Sorted file names make the error list and "which file came first" in a
  // duplicate-name message the same on every file system.
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.empty() || file[0] == '.' || it->path().extension() != ".json") {
      continue;
    }
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    files.push_back(file);
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": cannot list the directory: ", ec.message()));
  }
  if (files.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": holds no spec files (*.json)"));
  }
  std::sort(files.begin(), files.end());

  std::vector<WorkloadSpec> specs;
  std::vector<std::string> errors;
  std::map<std::string, std::string, std::less<>> file_of_name;
  for (const auto& file : files) {
    const std::string path = (fs::path(dir) / file).string();
    absl::StatusOr<WorkloadSpec> spec = LoadSpecFile(path, limits);
    if (!spec.ok()) {
      errors.push_back(std::string(spec.status().message()));
      continue;
    }
    auto [it, inserted] = file_of_name.emplace(spec->name, path);
    if (!inserted) {
      errors.push_back(absl::StrCat(path, ": /name: workload name \"",
                                    spec->name, "\" is also defined by ",
                                    it->second,
                                    "; names are unique across a spec "
                                    "directory"));
      continue;
    }
    specs.push_back(*std::move(spec));
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  }
  std::sort(specs.begin(), specs.end(),
            [](const WorkloadSpec& a, const WorkloadSpec& b) {
              return a.name < b.name;
            });
  return specs;
}

absl::StatusOr<std::vector<WorkloadSpec>> SelectWorkloads(
    const std::vector<WorkloadSpec>& all, std::string_view selector) {
  std::vector<bool> chosen(all.size(), false);
  bool any_term = false;
  // Debian's Abseil has its own string_view type: split a std::string.
  const std::string selector_text(selector);
  for (absl::string_view piece : absl::StrSplit(selector_text, ',')) {
    const std::string term(absl::StripAsciiWhitespace(piece));
    if (term.empty()) continue;
    any_term = true;
    bool matched = false;
    // A glob ('rmsnorm_*') matches names and families as the shell would.
    const bool glob = IsGlob(term);
    for (size_t i = 0; i < all.size(); ++i) {
      const bool hit =
          term == "all" || all[i].name == term || all[i].family == term ||
          (glob &&
           (GlobMatch(term, all[i].name) || GlobMatch(term, all[i].family)));
      if (hit) {
        chosen[i] = true;
        matched = true;
      }
    }
    if (!matched) {
      // A near miss gets the names it was close to; the whole list only
      // when nothing is close.
      std::vector<std::string> names;
      for (const auto& w : all) names.push_back(w.name);
      for (const auto& w : all) {
        if (std::find(names.begin(), names.end(), w.family) == names.end()) {
          names.push_back(w.family);
        }
      }
      const std::string hint = DidYouMean(term, names);
      return absl::InvalidArgumentError(absl::StrCat(
          "no workload matches \"",
          EscapeControl(std::string_view(term.data(), term.size())), "\"",
          hint.empty() ? "; " + Available(all)
                       : hint + " (trnbench list shows every workload)"));
    }
  }
  if (!any_term) {
    return absl::InvalidArgumentError(absl::StrCat(
        "empty workload selector; choose a name, a family or \"all\"; ",
        Available(all)));
  }
  std::vector<WorkloadSpec> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (chosen[i]) out.push_back(all[i]);
  }
  return out;
}

absl::StatusOr<std::vector<WorkloadSpec>> ExcludeWorkloads(
    std::vector<WorkloadSpec> specs, std::string_view exclude) {
  if (exclude.empty()) return specs;
  // The selection's machinery decides what each term matches, so a name, a
  // family and a glob mean the same in --workload and --exclude.
  TRN_ASSIGN_OR_RETURN(const std::vector<WorkloadSpec> dropped,
                       SelectWorkloads(specs, exclude));
  std::erase_if(specs, [&](const WorkloadSpec& s) {
    return std::any_of(dropped.begin(), dropped.end(),
                       [&](const WorkloadSpec& d) { return d.name == s.name; });
  });
  return specs;
}

}  // namespace trn
