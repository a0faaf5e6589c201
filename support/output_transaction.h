// Every file and folder one command writes, as one transaction: planned and
// checked before anything runs, staged (written in full and flushed beside
// each destination, where no reader looks), then committed at once, all or
// nothing (docs/errors.md, "Writing files").
#ifndef TRNBENCH_SUPPORT_OUTPUT_TRANSACTION_H_
#define TRNBENCH_SUPPORT_OUTPUT_TRANSACTION_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace trn {

// One file of an output folder: `path` relative to the folder,
// '/'-separated; `content` its bytes.
struct OutputFile {
  std::string path;
  std::string content;
};

// Temporary files and folders of this program are named
// ".<name>.tmp.XXXXXX" (a backup of a replaced file adds ".old"): hidden,
// beside their destination, and matched by kTemporaryGlob in .gitignore.
inline constexpr char kTemporaryGlob[] = ".*.tmp.*";
// True for a name this program gives its temporaries.
bool IsTemporaryName(absl::string_view filename);

// Removes this program's temporaries in `dir` (not below it) that belong
// to this user, whatever their age, if no live transaction is staging in
// `dir`; otherwise nothing. A transaction holds a shared flock() on each
// folder it stages in from before its first temporary there until it
// commits or discards, and the lock goes with the process however it
// ends (SIGKILL included): a folder whose lock can be taken exclusively
// holds only temporaries of runs that are gone (issue 43: staging files of
// killed saves, judged by age, were kept for a minute after every later
// save and piled up). Best effort: what cannot be removed is left alone.
// Returns how many were removed.
int RemoveStaleTemporaries(const std::string& dir);

// Usage, in the order a command runs:
//
//   OutputTransaction out;
//   out.AddInput("--spec", spec_path);             // what the command reads
//   out.PlanFile("--output", "results.json");      // what it writes
//   out.PlanFolder("--report-dir", "rep", {"results.json", "report.md"});
//   out.PlanAppend("GITHUB_STEP_SUMMARY", summary);
//   TRN_RETURN_IF_ERROR(out.Check());              // before anything runs
//   ... run ...
//   TRN_RETURN_IF_ERROR(out.StageFile("results.json", text));
//   TRN_RETURN_IF_ERROR(out.StageFolder("rep", files));
//   TRN_RETURN_IF_ERROR(out.StageAppend(summary, markdown));
//   TRN_RETURN_IF_ERROR(out.Commit());
//
// Check() refuses, naming the flag and the path: an empty path; a folder
// where a file is expected or a file where a folder is; an output that is
// also an input, or also another output of the same command; a place that
// cannot be written (a read-only or missing folder for a file, a file in
// the way of a folder, a file of another user in a sticky folder).
//
// Staging writes each file to a temporary beside its destination and
// flushes it; a folder that does not exist yet is staged whole beside its
// final name. A replaced file is kept as a hidden backup (a hard link, else
// a copy) until the commit is done. Text to append is not written yet, but
// the space for it is reserved where the file system allows.
//
// Commit() renames everything into place, appends, and flushes each
// touched folder (so that a power cut cannot lose a rename). If a rename or
// the append fails, what was already put in place is rolled back: replaced
// files get their old version back, new files and folders are removed, an
// append is cut back to the file's old length, so no cut row is left. What
// cannot be rolled back is named in the error, with what was and was not
// written. Dropping an uncommitted transaction removes everything staged.
//
// A process killed at any moment leaves every destination old or new,
// never partial, plus hidden temporaries that the next transaction staging
// in that folder clears (RemoveStaleTemporaries) once no live one is.
class OutputTransaction {
 public:
  OutputTransaction() = default;
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;
  ~OutputTransaction();

  // ---- the plan: every input and output of the command ----

  // A file the command reads. An output on the same file is refused,
  // unless `replaceable` (a baseline folder that a save refreshes).
  void AddInput(absl::string_view label, absl::string_view path,
                bool replaceable = false);
  // `label` names the source of the path in messages: a flag as typed
  // ("--output") or a variable ("GITHUB_STEP_SUMMARY").
  void PlanFile(absl::string_view label, absl::string_view path);
  // A folder of files, created if missing; files in it that the command
  // does not write are left alone. `names` are the files the command will
  // write in it (relative; "plots/" for a whole subfolder), for the
  // overlap checks; StageFolder may write others.
  void PlanFolder(absl::string_view label, absl::string_view dir,
                  std::vector<std::string> names);
  void PlanAppend(absl::string_view label, absl::string_view path);

  // Validates the whole plan before anything runs.
  absl::Status Check() const;

  // ---- staging: the content of planned outputs ----
  absl::Status StageFile(absl::string_view path, absl::string_view content);
  absl::Status StageFolder(absl::string_view dir,
                           const std::vector<OutputFile>& files);
  absl::Status StageAppend(absl::string_view path, absl::string_view text);

  // ---- commit: all or nothing ----
  absl::Status Commit();

  // Tests only: the k-th rename of Commit() (0-based) fails with EIO, to
  // exercise the rollback.
  void FailRenameForTesting(int k) { fail_rename_ = k; }

 private:
  enum class Kind : uint8_t { kFile, kFolder, kAppend };
  struct Planned {
    Kind kind;
    std::string label;
    std::string path;
    std::vector<std::string> names;  // kFolder
  };
  struct Input {
    std::string label;
    std::string path;
    bool replaceable;
  };
  // One rename of the commit: `temp` to `dest`.
  struct Move {
    std::string label;
    std::string temp;
    std::string dest;
    std::string backup;    // the old file, kept for a rollback
    bool existed = false;  // dest was there before
    bool folder = false;   // a whole new folder
    bool done = false;
  };
  struct Append {
    std::string label;
    std::string path;
    std::string text;
    int fd = -1;
    off_t old_size = 0;
    bool created = false;
  };

  const Planned* FindPlan(Kind kind, absl::string_view path) const;
  absl::Status StageOne(const std::string& label, const std::string& dest,
                        absl::string_view content);
  // Replaces the move of a new folder, found to exist at commit time, by
  // moves of each of its files.
  absl::Status SplitFolderMove(size_t i);
  // Undoes the renames done so far; returns what could not be undone.
  std::vector<std::string> Rollback();
  absl::Status CommitFailure(const Move* failed, int err,
                             const std::string& what);
  void Discard();
  // Takes the folder's lock (RemoveStaleTemporaries) for this
  // transaction, clearing the folder first when no live run holds it.
  void HoldFolder(const std::string& dir);
  void ReleaseFolders();

  std::vector<Planned> plan_;
  std::vector<Input> inputs_;
  std::vector<Move> moves_;
  std::vector<Append> appends_;
  std::vector<std::string>
      created_dirs_;  // made while staging, outermost first
  std::vector<std::string> touched_dirs_;  // to flush after the renames
  // Folders staged in, with the open descriptor that holds their lock.
  std::vector<std::pair<std::string, int>> held_dirs_;
  bool committed_ = false;
  int fail_rename_ = -1;
};

// One file, or one folder of files, through a transaction of its own.
absl::Status WriteFileAtomic(const std::string& path,
                             absl::string_view content);
absl::Status WriteFolderAtomic(absl::string_view label, const std::string& dir,
                               const std::vector<OutputFile>& files);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_OUTPUT_TRANSACTION_H_
