// Running a Python front end (tools/trnbench/kernel_source.h for NKI
// kernels, tools/trnbench/torch_source.h for PyTorch functions): one child
// process, its refusal read from stderr, its exit code mapped to a status.
#ifndef TRNBENCH_TOOLS_TRNBENCH_FRONTEND_PROCESS_H_
#define TRNBENCH_TOOLS_TRNBENCH_FRONTEND_PROCESS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trn {

// One front end: how to run it and how to name it in messages.
struct FrontEnd {
  std::string module;   // python3 -m MODULE: "nki_frontend"
  std::string dir;      // the folder that holds MODULE/, put on PYTHONPATH
  std::string flag;     // the flag it serves, "--kernel"
  std::string label;    // "the NKI front end"
  std::string needs;    // what it needs of python3, said when none runs
  std::string too_big;  // why a traced spec is over 1 MiB, where to read
  // python3 -m BATCH_MODULE runs several jobs in one process
  // (RunFrontEndBatch); empty when the front end has no batch.
  std::string batch_module;
};

// One run of a front end: `python3 -m MODULE FLAGS... -- SUBJECT`.
struct FrontEndJob {
  std::string subject;
  std::vector<std::string> flags;
};

// Runs `python3 -m MODULE FLAGS... -- SUBJECT`, each flag one
// "--flag=VALUE" (a value starting with '-' is never taken for a flag),
// with PYTHONPATH the front end's folder first, the shared package's folder
// `common` beside it next (workloads/frontends/common), and the inherited
// one after them (replacing, not adding to, the inherited entry) and
// PYTHONSAFEPATH=1.
// Exit 0: ok. Exit 2 (bad input): InvalidArgument "FLAG SUBJECT: <the last
// line of its stderr>" (the last 64 KiB are kept). python3 missing:
// InvalidArgument saying what to install. Anything else: Internal.
absl::Status RunFrontEnd(const FrontEnd& fe, const std::string& subject,
                         const std::vector<std::string>& flags);

// The jobs' outcomes, each what RunFrontEnd(fe, job.subject, job.flags)
// returns, from one python3 process when the front end has a batch module
// and there are two jobs or more: it imports numpy and the front end once
// and runs each job in a child forked from it, with the job's own argv,
// stderr, bounds and exit code (workloads/frontends/common/
// frontend_common/batch.py), so that a job writes and refuses exactly
// what it would on its own, with no state of another job. Jobs run in
// order; the jobs a batch did not report (it died, or could not start)
// run one process each. Safe to call from several threads at once.
std::vector<absl::Status> RunFrontEndBatch(
    const FrontEnd& fe, const std::vector<FrontEndJob>& jobs);

// Reads the spec a front end wrote to `out` as trnbench will read it, but
// with room for any device's memory: what is refused then is the front
// end's bug (issue 44: "a bug is a bug"), Internal and named at the traced
// source's line. What only a device's memory refuses (an SBUF or PSUM
// overflow) is the source's, refused as bad input when the command loads
// the spec for its device. Over 1 MiB: InvalidArgument with fe.too_big.
absl::Status CheckTracedSpec(const FrontEnd& fe, const std::string& subject,
                             const std::string& out);

// The python3 the front ends run with: $TRNBENCH_PYTHON, else
// /usr/bin/python3 when it exists (Debian's, with python3-numpy), else
// python3 on PATH.
std::string FrontEndPython();

// A fresh private folder under the system's temporary folder.
absl::StatusOr<std::string> MakeTempDir(const std::string& stem);

// The traced spec's file name: FILE.py::FUNCTION -> <index>_FUNCTION.json.
std::string SpecFileName(const std::string& function_ref, size_t index);

// The folder that holds a front end's package: $ENV_VAR when set and not
// empty, else the source tree's `subdir` (workloads/frontends/nki, ...).
std::string FrontEndFolder(const char* env_var, const std::string& subdir);

// Removes a MakeTempDir folder and all it holds; nothing when `dir` is
// empty. Errors are ignored: it runs from destructors, after the command's
// outcome is decided.
void RemoveTempDir(const std::string& dir);

// Copies the traced spec `traced` to --emit-spec's `to`, atomically
// (support/output_transaction.h); nothing when `traced` is empty.
absl::Status WriteEmittedSpec(const std::string& traced, const std::string& to);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_FRONTEND_PROCESS_H_
