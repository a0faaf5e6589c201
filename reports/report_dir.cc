#include "reports/report_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "reports/csv_report.h"
#include "reports/json_results.h"
#include "support/atomic_file.h"

namespace trn {
namespace fs = std::filesystem;

namespace {

absl::Status DirError(const std::string& dir, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--report-dir ", dir, ": ", what));
}

absl::Status WriteAll(const std::string& dir, const fs::path& root,
                      const std::vector<OutputFile>& files) {
  for (const OutputFile& f : files) {
    const fs::path p = root / f.path;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (ec) {
      return DirError(dir, absl::StrCat("cannot create ",
                                        fs::path(f.path).parent_path().string(),
                                        ": ", ec.message()));
    }
    if (absl::Status s = WriteFileAtomic(p.string(), f.content); !s.ok()) {
      // The message starts with the staging path, which means nothing to
      // the reader: name the file within the folder instead.
      std::string why(s.message());
      const std::string staged = p.string() + ": ";
      if (why.rfind(staged, 0) == 0) why = why.substr(staged.size());
      return DirError(dir, absl::StrCat("cannot write ", f.path, ": ", why));
    }
  }
  return absl::OkStatus();
}

}  // namespace

ReportFiles RenderReportFiles(const ReportInputs& in) {
  const ReportDoc doc = BuildReport(in);
  ReportFiles out;
  out.files.push_back(
      {"results.json", ResultsToJsonText(*in.run, in.comparison)});
  out.files.push_back({"report.md", RenderMarkdown(doc)});
  out.files.push_back({"report.html", RenderHtml(doc)});
  out.files.push_back({"summary.csv", SummaryCsv(*in.run, in.comparison)});
  out.files.push_back({"samples.csv", SamplesCsv(*in.run)});
  for (const DocFigure* f : Figures(doc)) {
    out.files.push_back({f->file, f->svg});
  }
  MarkdownOptions summary;
  summary.link_figures = false;
  out.step_summary = RenderMarkdown(doc, summary);
  return out;
}

absl::StatusOr<std::unique_ptr<StagedReportDir>> StagedReportDir::Stage(
    const std::string& dir, const std::vector<OutputFile>& files) {
  if (dir.empty()) return DirError(dir, "expected a folder name");
  std::unique_ptr<StagedReportDir> stage(new StagedReportDir());
  stage->dir_ = dir;
  for (const OutputFile& f : files) stage->paths_.push_back(f.path);
  fs::path target = fs::path(dir).lexically_normal();
  // "out/" names the folder "out", not an empty name inside it.
  if (target.filename().empty() && target.has_relative_path()) {
    target = target.parent_path();
  }
  stage->target_ = target;
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_directory(st)) {
    return DirError(dir, "exists and is not a folder");
  }
  stage->fresh_ = !fs::exists(st);

  // A fresh folder is staged beside its final name (same file system, so
  // the rename is atomic); its missing ancestors are created and, on
  // failure, removed again.
  fs::path parent = stage->fresh_ ? target.parent_path() : target;
  if (parent.empty()) parent = ".";
  for (fs::path p = parent; !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    stage->created_ = p;
    if (p == p.parent_path()) break;
  }
  if (!stage->created_.empty()) {
    fs::create_directories(parent, ec);
    if (ec) {
      return DirError(dir, absl::StrCat("cannot create ", parent.string(), ": ",
                                        ec.message()));
    }
  }
  if (!fs::is_directory(parent, ec)) {
    return DirError(dir, absl::StrCat(parent.string(), " is not a folder"));
  }
  const std::string stem = stage->fresh_
                               ? absl::StrCat(".", target.filename().string())
                               : std::string(".trnbench-report");
  std::string tmpl = (parent / absl::StrCat(stem, ".tmp.XXXXXX")).string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    const int err = errno;
    return DirError(
        dir, absl::StrCat("cannot create a folder in ", parent.string(), ": ",
                          std::strerror(err)));
  }
  stage->staging_ = tmpl;
  // mkdtemp makes it private; a report folder is as readable as any file.
  fs::permissions(stage->staging_,
                  fs::perms::owner_all | fs::perms::group_read |
                      fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  ec);
  if (absl::Status s = WriteAll(dir, stage->staging_, files); !s.ok()) {
    return s;
  }
  return stage;
}

StagedReportDir::~StagedReportDir() {
  if (committed_) return;
  std::error_code ec;
  if (!staging_.empty()) fs::remove_all(staging_, ec);
  if (!created_.empty()) fs::remove_all(created_, ec);
}

absl::Status StagedReportDir::Commit() {
  std::error_code ec;
  if (fresh_) {
    fs::rename(staging_, target_, ec);
    if (ec) {
      return DirError(dir_,
                      absl::StrCat("cannot rename into place: ", ec.message()));
    }
    committed_ = true;
    return absl::OkStatus();
  }
  // Every file is complete on disk; now each replaces its old version by a
  // rename, which cannot leave a half-written file.
  for (const std::string& path : paths_) {
    const fs::path dest = target_ / path;
    fs::create_directories(dest.parent_path(), ec);
    if (!ec) fs::rename(staging_ / path, dest, ec);
    if (ec) {
      return DirError(
          dir_, absl::StrCat("cannot replace ", path, ": ", ec.message()));
    }
  }
  fs::remove_all(staging_, ec);
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteReportDir(const std::string& dir,
                            const std::vector<OutputFile>& files) {
  auto stage = StagedReportDir::Stage(dir, files);
  if (!stage.ok()) return stage.status();
  return (*stage)->Commit();
}

}  // namespace trn
