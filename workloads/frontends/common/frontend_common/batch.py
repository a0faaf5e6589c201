"""Several runs of a front end in one Python process (`python3 -m
nki_frontend.batch`, read by tools/trnbench/frontend_process.cc).

Starting Python and importing numpy and the front end is most of a short
trace's time (issue 42: about 0.35 s of CPU of a 0.45 s front end run).
The batch imports once, then forks a child per job: each child is the
process `python3 -m FRONTEND ARGV...` would be after its imports, so it
runs the front end's `main` with its own argv, its own stderr, its own
bounds (a fork starts with no CPU time spent and no timer set) and its own
exit code, and what one kernel loads, imports or changes is gone with its
child (no kernel sees another's modules or sys.path). Each file a job
writes is written by its child through the front end's one writer, under
the same rules as a run on its own.

Protocol. stdin, read whole before any job runs: the line
"trnbench-batch 1", then one line per job, its arguments each base64 (of
the bytes, as a process's argv: a path need not be UTF-8) and separated
by one space. stdout: one line per job, in order, "EXIT BASE64" where EXIT
is the job's exit code as a process's (127 when a signal ended it) and
BASE64 the last 64 KiB of its stderr. The batch's own exit code: 0 once
every job has its line, whatever the jobs' codes; 2 on a bad stdin (one
line on stderr, no job run)."""

from __future__ import annotations

import base64
import os
import sys
import traceback
from typing import Callable, List, Optional

BATCH_VERSION = 1
# As much of a job's stderr as the caller keeps (frontend_process.cc).
KEPT_STDERR = 65536

Main = Callable[[Optional[List[str]]], Optional[int]]


class BatchError(Exception):
    """A bad batch on stdin: one line."""


HEADER = f"trnbench-batch {BATCH_VERSION}"


def parse_jobs(data: bytes) -> List[List[str]]:
    """The jobs of a batch's stdin; BatchError when it is not one."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or lines[0] != HEADER.encode():
        raise BatchError(f'stdin: expected the line "{HEADER}" first')
    jobs = []
    for n, line in enumerate(lines[1:], start=2):
        argv = []
        for word in (line.split(b" ") if line else []):
            try:
                argv.append(os.fsdecode(base64.b64decode(word,
                                                         validate=True)))
            except ValueError:
                raise BatchError(f"stdin: line {n}: expected arguments in "
                                 "base64 separated by single spaces")
        jobs.append(argv)
    return jobs


def _exit_code(main: Main, argv: List[str]) -> int:
    """`main(argv)` as the interpreter would end a process that ran it."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code  # type: ignore[assignment]
    except BaseException:  # noqa: B036 (as the interpreter: trace, exit 1)
        traceback.print_exc()
        return 1
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_job(main: Main, argv: List[str]) -> tuple:
    """(exit code, stderr tail) of `main(argv)` run in a forked child."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 3
        try:
            os.close(read_end)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)  # as trnbench runs a front end: stdout unused
            os.dup2(write_end, 2)
            os.close(null)
            os.close(write_end)
            code = _exit_code(main, argv)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(write_end)
    err = bytearray()
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        err += chunk
        if len(err) > 2 * KEPT_STDERR:
            del err[:len(err) - KEPT_STDERR]
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return (code if code >= 0 else 127), bytes(err[-KEPT_STDERR:])


def main(front_end_main: Main) -> int:
    """Runs the jobs on stdin, a line each on stdout."""
    try:
        jobs = parse_jobs(sys.stdin.buffer.read())
    except BatchError as e:
        print(f"batch: {e}", file=sys.stderr)
        return 2
    out = sys.stdout.buffer
    for argv in jobs:
        code, err = run_job(front_end_main, argv)
        out.write(b"%d %s\n" % (code, base64.b64encode(err)))
        out.flush()
    return 0
