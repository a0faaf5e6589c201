"""`python3 -m nki_frontend.batch` (frontend_common/batch.py, issue 42):
several traces in one process, each job exactly what `python3 -m
nki_frontend ARGV` does on its own: the same exit code, the same stderr,
the same spec bytes, nothing written on bad input, no temporary left, and
no state of one kernel seen by the next."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from typing import Dict, List, Optional, Tuple

from frontend_test_util import KERNELS, PYTHONPATH
from test_bad_inputs import CASES, frontend, snapshot

GOOD = [
    (os.path.join(KERNELS, "explicit_engines.py") + "::exp_rows",
     ["--args=x=512x512:float32", "--kwarg=ROWS=64"]),
    (os.path.join(KERNELS, "pipelined.py") + "::pipelined",
     ["--args=x=128x1024:float32"]),
    (os.path.join(KERNELS, "reductions.py") + "::softmax_sums",
     ["--args=x=256x512:float32"]),
]


def batch_input(jobs: List[List[str]]) -> bytes:
    lines = [b"trnbench-batch 1"]
    for argv in jobs:
        lines.append(b" ".join(base64.b64encode(os.fsencode(a))
                               for a in argv))
    return b"\n".join(lines) + b"\n"


def run_batch(stdin: bytes, env: Optional[Dict[str, str]] = None
              ) -> Tuple[int, bytes, str]:
    e = dict(os.environ, PYTHONPATH=PYTHONPATH, PYTHONDONTWRITEBYTECODE="1")
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "nki_frontend.batch"],
                       input=stdin, capture_output=True, env=e, timeout=600)
    return p.returncode, p.stdout, p.stderr.decode()


def job_lines(stdout: bytes) -> List[Tuple[int, str]]:
    out = []
    for line in stdout.decode().splitlines():
        code, _, err = line.partition(" ")
        out.append((int(code), base64.b64decode(err).decode()))
    return out


def good_kernels_exist() -> bool:
    return all(os.path.isfile(k.rpartition("::")[0]) for k, _ in GOOD)


class Batch(unittest.TestCase):
    def test_each_job_is_its_run_on_its_own(self) -> None:
        """The bad-input catalogue and good kernels, interleaved in one
        batch: each job's exit code and whole stderr are those of its own
        process, its output file the same bytes or, refused, untouched."""
        self.assertTrue(good_kernels_exist())
        with tempfile.TemporaryDirectory() as d:
            alone_dir = os.path.join(d, "alone")
            batch_dir = os.path.join(d, "batch")
            os.mkdir(alone_dir)
            os.mkdir(batch_dir)
            jobs: List[List[str]] = []
            alone: List[Tuple[int, str]] = []
            for i, (case_id, kernel, flags, _text, _prints) in enumerate(
                    CASES + [(f"good_{k}", g[0], g[1], "", False)
                             for k, g in enumerate(GOOD)]):
                name = f"{i}_{case_id}.json"
                for folder in (alone_dir, batch_dir):
                    # A file there before: a refusal leaves it as it was.
                    with open(os.path.join(folder, name), "w") as f:
                        f.write("{}\n")
                rc, _out, err = frontend(
                    flags + ["--output", os.path.join(alone_dir, name),
                             "--", kernel])
                alone.append((rc, err))
                jobs.append(flags + ["--output", os.path.join(batch_dir, name),
                                     "--", kernel])
            # Good and bad alternate: a refusal leaves nothing behind for
            # the next job.
            order = list(range(len(jobs)))
            order = order[0::2] + order[1::2]
            rc, out, err = run_batch(batch_input([jobs[k] for k in order]))
            self.assertEqual(rc, 0, err)
            self.assertEqual(err, "")
            got = job_lines(out)
            self.assertEqual(len(got), len(jobs))
            for n, k in enumerate(order):
                with self.subTest(jobs[k][-1]):
                    self.assertEqual(got[n][0], alone[k][0])
                    self.assertEqual(
                        got[n][1].replace(batch_dir, alone_dir), alone[k][1])
            self.assertEqual(snapshot(batch_dir), snapshot(alone_dir))
            good = [k for k in range(len(jobs)) if alone[k][0] == 0]
            self.assertEqual(len(good), len(GOOD))

    def test_no_kernel_sees_another_kernels_modules(self) -> None:
        """Two kernels in two folders, each importing its own `helper`
        module: each is traced with its own, as on its own."""
        kernel = textwrap.dedent("""\
            import neuronxcc.nki as nki
            import neuronxcc.nki.language as nl
            import helper

            @nki.jit
            def copy(x):
                out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
                for i in nl.affine_range(x.shape[0] // helper.ROWS):
                    t = nl.load(x[i * helper.ROWS:(i + 1) * helper.ROWS, :])
                    nl.store(out[i * helper.ROWS:(i + 1) * helper.ROWS, :],
                             value=t)
                return out
            """)
        with tempfile.TemporaryDirectory() as d:
            jobs = []
            for rows in (64, 128):
                folder = os.path.join(d, f"k{rows}")
                os.mkdir(folder)
                with open(os.path.join(folder, "kernel.py"), "w") as f:
                    f.write(kernel)
                with open(os.path.join(folder, "helper.py"), "w") as f:
                    f.write(f"ROWS = {rows}\n")
                jobs.append(["--args=x=512x512:float32",
                             f"--output={folder}/batch.json", "--",
                             f"{folder}/kernel.py::copy"])
                rc, _out, err = frontend(
                    ["--args=x=512x512:float32",
                     f"--output={folder}/alone.json", "--",
                     f"{folder}/kernel.py::copy"])
                self.assertEqual(rc, 0, err)
            rc, out, err = run_batch(batch_input(jobs))
            self.assertEqual(rc, 0, err)
            self.assertEqual([c for c, _ in job_lines(out)], [0, 0])
            specs = []
            for rows in (64, 128):
                folder = os.path.join(d, f"k{rows}")
                with open(f"{folder}/batch.json", "rb") as f:
                    batch = f.read()
                with open(f"{folder}/alone.json", "rb") as f:
                    self.assertEqual(batch, f.read())
                specs.append(batch)
            self.assertNotEqual(specs[0], specs[1])

    def test_a_job_that_kills_itself_is_127_and_the_next_runs(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dies.py")
            with open(path, "w") as f:
                f.write("import os, signal\n"
                        "os.kill(os.getpid(), signal.SIGKILL)\n")
            kernel, flags = GOOD[0]
            out_file = os.path.join(d, "good.json")
            rc, out, err = run_batch(batch_input([
                ["--args=x=512x512:float32", f"--output={d}/dies.json", "--",
                 path + "::copy"],
                flags + [f"--output={out_file}", "--", kernel]]))
            self.assertEqual(rc, 0, err)
            self.assertEqual([c for c, _ in job_lines(out)], [127, 0])
            self.assertFalse(os.path.exists(os.path.join(d, "dies.json")))
            self.assertTrue(os.path.isfile(out_file))
            self.assertEqual(sorted(os.listdir(d)), ["dies.py", "good.json"])

    def test_a_bad_batch_is_one_line_exit_2_and_runs_nothing(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            kernel, flags = GOOD[0]
            job = flags + [f"--output={d}/spec.json", "--", kernel]
            good = batch_input([job])
            for case_id, stdin, text in [
                    ("no_header", good.split(b"\n", 1)[1], "expected the line"),
                    ("other_version", good.replace(b"batch 1", b"batch 2"),
                     "expected the line \"trnbench-batch 1\" first"),
                    ("not_base64", good + b"-- ???\n",
                     "line 3: expected arguments in base64"),
                    ("empty", b"", "expected the line")]:
                with self.subTest(case_id):
                    rc, out, err = run_batch(stdin)
                    self.assertEqual(rc, 2)
                    self.assertEqual(out, b"")
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertIn(text, err)
                    self.assertEqual(os.listdir(d), [])

    def test_no_jobs_is_no_lines(self) -> None:
        rc, out, err = run_batch(b"trnbench-batch 1\n")
        self.assertEqual((rc, out, err), (0, b"", ""))


if __name__ == "__main__":
    unittest.main()
