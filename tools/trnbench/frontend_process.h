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
  std::string module;  // python3 -m MODULE: "nki_frontend"
  std::string dir;     // the folder that holds MODULE/, put on PYTHONPATH
  std::string flag;    // the flag it serves, "--kernel"
  std::string label;   // "the NKI front end"
  std::string needs;   // what it needs of python3, said when none runs
};

// Runs `python3 -m module ARGS...`. Exit 0: ok. Exit 2 (bad input):
// InvalidArgument "FLAG SUBJECT: <its one line>". python3 missing:
// InvalidArgument saying what to install. Anything else: Internal.
absl::Status RunFrontEnd(const FrontEnd& fe, const std::string& subject,
                         const std::vector<std::string>& args);

// The python3 the front ends run with: $TRNBENCH_PYTHON, else
// /usr/bin/python3 when it exists (Debian's, with python3-numpy), else
// python3 on PATH.
std::string FrontEndPython();

// A fresh private folder under the system's temporary folder.
absl::StatusOr<std::string> MakeTempDir(const std::string& stem);

// The traced spec's file name: FILE.py::FUNCTION -> <index>_FUNCTION.json.
std::string SpecFileName(const std::string& function_ref, size_t index);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_FRONTEND_PROCESS_H_
