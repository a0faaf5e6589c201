"""The front end's catalogue of bad inputs, run as `python3 -m
nki_frontend` (tests/errors/error_catalogue_test.cc runs the same kernels
through `trnbench --kernel`): each is refused with exit 2 and one line
naming the file and line or the flag and what was expected, and nothing
is written. Also the one writer's rules (issue 43, item 1) and kernel
files inside packages (issue 44, item 3)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List, Optional, Tuple

from frontend_test_util import KERNELS, PYTHONPATH, SOURCE

BAD = os.path.join(SOURCE, "tests", "errors", "kernels", "bad.py")
COPY = BAD + "::copy"
X = "x=128x512:float32"
PKG = os.path.join(KERNELS, "kernel_pkg", "ops", "scale.py")


def frontend(argv: List[str], cwd: Optional[str] = None,
             env: Optional[Dict[str, str]] = None) -> Tuple[int, str, str]:
    e = dict(os.environ, PYTHONPATH=PYTHONPATH, PYTHONDONTWRITEBYTECODE="1")
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "nki_frontend"] + argv,
                       capture_output=True, text=True, env=e, timeout=600,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def snapshot(folder: str) -> Dict[str, bytes]:
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = f.read()
        else:
            out[name] = b""
    return out


# (id, kernel, extra flags, text the last line has, whether the kernel's
# own output comes first). BAD's line numbers are checked by the text.
CASES = [
    ("args_not_a_shape", COPY, ["--args", "x=12ax4:float32"],
     "--args x=12ax4:float32: expected DIMSxDIMS:dtype", False),
    ("args_unknown_dtype", COPY, ["--args", "x=128x4:float64"],
     "dtype float64 is not supported", False),
    ("args_zero_dim", COPY, ["--args", "x=0x4:float32"],
     "dims are at least 1", False),
    ("args_dim_of_30_digits", COPY, ["--args", "x=" + "9" * 30 + "x4:fp32"],
     "expected at most 8 dims of at most 1099511627776 each", False),
    ("args_too_many_elements", COPY,
     ["--args", "x=1099511627776x2:float32"],
     "a tensor has at most 2^40 (1099511627776) elements", False),
    ("args_infinite_number", COPY, ["--args", f"{X},eps=1e999"],
     "--args eps=1e999: expected a finite number", False),
    ("args_given_twice", COPY, ["--args", f"{X},{X}"],
     "--args: x is given twice", False),
    ("args_value_like_a_flag", COPY, ["--args=-x"],
     "--args -x: expected NAME=DIMSxDIMS:dtype or NAME=NUMBER", False),
    ("kwarg_without_value", COPY, ["--args", X, "--kwarg", "ROWS"],
     "--kwarg ROWS: expected NAME=VALUE", False),
    ("kwarg_given_twice", COPY, ["--args", X, "--kwarg", "a=1",
                                 "--kwarg", "a=2"],
     "--kwarg a=2: a is given twice", False),
    ("kwarg_not_taken", COPY, ["--args", X, "--kwarg", "ROWS=(1,[2,{3:"],
     "bad.py:12: copy(x): got an unexpected keyword argument 'ROWS'", False),
    ("argument_missing", COPY, [],
     "bad.py:12: copy(x): missing a required argument: 'x'", False),
    ("no_such_function", BAD + "::nope", ["--args", X],
     "bad.py: no function nope; it defines", False),
    ("no_such_file", BAD + ".missing::copy", ["--args", X],
     "bad.py.missing: no such kernel file", False),
    ("kernel_raises", BAD + "::raises", ["--args", X],
     "bad.py:19: running the kernel: ValueError: rows must be a multiple "
     "of 128", False),
    ("kernel_recurses", BAD + "::recurses", ["--args", X],
     "bad.py:23: running the kernel: the kernel's code recurses without "
     "end", False),
    ("kernel_loops_forever", BAD + "::loops_forever",
     ["--args", X, "--time-limit", "0.5"],
     "bad.py:28: the trace took more than 0.5 s of CPU time (a loop that "
     "never ends?", False),
    ("kernel_swallows_the_time_bound", BAD + "::catches_the_time_bound",
     ["--args", X, "--time-limit", "0.5"],
     "the trace took more than 0.5 s of CPU time", False),
    ("kernel_makes_a_huge_list", BAD + "::huge_python_list", ["--args", X],
     "bad.py:49: running the kernel: out of memory (MemoryError)", False),
    ("kernel_prints_then_fails", BAD + "::prints_then_fails", ["--args", X],
     "bad.py:56: neuronxcc.nki.language.no_such_function is not "
     "supported", True),
    ("kernel_calls_sys_exit", BAD + "::exits", ["--args", X],
     "bad.py:60: running the kernel: the kernel's code called "
     "sys.exit(3)", False),
    ("missing_nki_module_used", BAD + "::uses_missing_nki_module",
     ["--args", X],
     "bad.py:66: nki.isa.no_such_module.engine.vector is not supported", False),
    ("missing_nki_constant_used", BAD + "::uses_missing_constant",
     ["--args", X],
     "bad.py:72: neuronxcc.nki.language.tile_size.no_such_constant is not "
     "supported", False),
    ("absent_package_used", BAD + "::uses_absent_package", ["--args", X],
     "bad.py:78: the kernel uses not_an_installed_package.zeros, from a "
     "module that is not installed", False),
    ("defined_after_the_top_level_runs_a_kernel",
     os.path.join(KERNELS, "top_level_run.py") + "::defined_after",
     ["--args", X], "top_level_run.py: no function defined_after; it "
     "defines copy (its top level runs a kernel at ", False),
    ("missing_constant_used_in_a_helper", PKG + "::uses_missing_constant",
     ["--args", "x=256x512:float32"],
     "helpers.py:19: nki.language.tile_size.no_such_constant is not "
     "supported", False),
    ("time_limit_not_a_number", COPY, ["--args", X, "--time-limit", "soon"],
     "--time-limit=soon: expected a number of seconds", False),
]


class BadInputs(unittest.TestCase):
    def test_each_is_one_line_exit_2_nothing_written(self) -> None:
        for case_id, kernel, flags, text, prints in CASES:
            with self.subTest(case_id), tempfile.TemporaryDirectory() as d:
                old = os.path.join(d, "old.json")
                with open(old, "w") as f:
                    f.write("{}\n")
                before = snapshot(d)
                rc, out, err = frontend([kernel, "--output", old] + flags)
                self.assertEqual(rc, 2, err[-2000:])
                self.assertEqual(out, "")
                lines = err.splitlines()
                if not prints:
                    self.assertEqual(len(lines), 1, err[-2000:])
                self.assertIn(text, lines[-1])
                self.assertLessEqual(len(lines[-1]), 1000)
                self.assertNotIn("Traceback", err)
                self.assertEqual(snapshot(d), before)

    def test_a_bug_of_the_front_end_is_exit_3(self) -> None:
        """An exception raised inside the front end is its bug: exit 3,
        naming the kernel's line. The fault is injected as a function of
        location.py's file (what blame.py looks at), as a real bug would
        be."""
        with tempfile.TemporaryDirectory() as d:
            kernel = os.path.join(d, "k.py")
            with open(kernel, "w") as f:
                f.write("import neuronxcc.nki.language as nl\n"
                        "from nki_frontend import location\n"
                        "scope = {}\n"
                        "exec(compile('def current_line():\\n'\n"
                        "             '    return {}[\"no such key\"]\\n',\n"
                        "             location.__file__, 'exec'), scope)\n"
                        "location.current_line = scope['current_line']\n"
                        "\n\n"
                        "def k(x):\n"
                        "    out = nl.ndarray(x.shape, dtype=nl.float32,\n"
                        "                     buffer=nl.shared_hbm)\n"
                        "    nl.store(out, value=nl.load(x))\n")
            rc, out, err = frontend([kernel + "::k", "--args", X,
                                     "--output", os.path.join(d, "o.json")])
            self.assertEqual(rc, 3, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("k.py:13: a bug of the NKI front end: location.py:2 "
                          "(in current_line) raised KeyError: 'no such key' "
                          "while running the kernel", err)
            self.assertFalse(os.path.exists(os.path.join(d, "o.json")))

    def test_syntax_error_is_blamed_on_the_imported_module(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "helper.py"), "w") as f:
                f.write("def scale(x):\n    return x *\n")
            with open(os.path.join(d, "k.py"), "w") as f:
                f.write("from helper import scale\n\n\ndef k(x):\n"
                        "    return scale(x)\n")
            rc, _, err = frontend([os.path.join(d, "k.py") + "::k",
                                   "--args", X], cwd=d)
            self.assertEqual(rc, 2, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("helper.py:2: syntax error", err)


class TopLevelCode(unittest.TestCase):
    def test_a_kernel_wrapped_by_an_absent_decorator_traces(self) -> None:
        """`@torch_neuronx.nki_jit` when torch_neuronx is not installed:
        the decorated function is traced, as with nki.jit."""
        rc, out, err = frontend([BAD + "::wrapped_by_absent_decorator",
                                 "--args", X])
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["name"],
                         "wrapped_by_absent_decorator")

    def test_top_level_test_code_stops_where_it_runs_a_kernel(self) -> None:
        rc, out, err = frontend([os.path.join(KERNELS, "top_level_run.py") +
                                 "::copy", "--args", X])
        self.assertEqual(rc, 0, err)
        ops = [op["op"] for op in json.loads(out)["kernel"]["loops"][0]
               ["body"]]
        self.assertEqual(ops, ["load", "store"])  # traced once, not twice


class OneWriter(unittest.TestCase):
    """--output as the C++ commands write (issue 43, item 1)."""

    def trace(self, output: str) -> Tuple[int, str]:
        rc, _, err = frontend([COPY, "--args", X, "--output", output])
        return rc, err

    def test_a_device_stays_a_device(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            dev = os.path.join(d, "null")
            try:
                os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            except OSError as e:
                self.skipTest(f"cannot make a device here: {e}")
            rc, err = self.trace(dev)
            self.assertEqual(rc, 2, err)
            self.assertIn("is not a regular file (a device, pipe or socket)",
                          err)
            self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))
            self.assertEqual(os.listdir(d), ["null"])

    def test_a_fifo_and_a_folder_are_refused(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            rc, err = self.trace(fifo)
            self.assertEqual(rc, 2, err)
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
            rc, err = self.trace(d)
            self.assertEqual(rc, 2, err)
            self.assertIn("is a folder; expected a file name", err)
            rc, err = self.trace(os.path.join(d, "no", "spec.json"))
            self.assertEqual(rc, 2, err)
            self.assertIn("does not exist", err)
            self.assertEqual(os.listdir(d), ["fifo"])

    def test_a_planted_symlink_is_not_followed(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            victim = os.path.join(d, "victim")
            with open(victim, "w") as f:
                f.write("precious\n")
            out = os.path.join(d, "spec.json")
            os.symlink(victim, out + ".tmp")  # the name the CLI once used
            rc, err = self.trace(out)
            self.assertEqual(rc, 0, err)
            with open(victim) as f:
                self.assertEqual(f.read(), "precious\n")
            self.assertTrue(os.path.islink(out + ".tmp"))
            self.assertTrue(stat.S_ISREG(os.lstat(out).st_mode))
            with open(out) as f:
                self.assertEqual(json.load(f)["name"], "copy")
            self.assertEqual(sorted(os.listdir(d)),
                             ["spec.json", "spec.json.tmp", "victim"])

    def test_a_symlinked_output_is_replaced_not_written_through(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "target")
            with open(target, "w") as f:
                f.write("kept\n")
            out = os.path.join(d, "spec.json")
            os.symlink(target, out)
            rc, err = self.trace(out)
            self.assertEqual(rc, 0, err)
            with open(target) as f:
                self.assertEqual(f.read(), "kept\n")
            self.assertFalse(os.path.islink(out))

    def test_an_old_file_is_replaced_by_one_rename(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "spec.json")
            with open(out, "w") as f:
                f.write("old\n")
            inode = os.stat(out).st_ino
            rc, err = self.trace(out)
            self.assertEqual(rc, 0, err)
            self.assertNotEqual(os.stat(out).st_ino, inode)
            self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o644)
            self.assertEqual(os.listdir(d), ["spec.json"])  # no temporary

    def test_stdout_carries_only_the_spec(self) -> None:
        rc, out, err = frontend([os.path.join(KERNELS, "prints.py") +
                                 "::exp_and_print", "--args", X])
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["name"], "exp_and_print")
        self.assertIn("tracing exp_and_print with (128, 512)", err)
        self.assertIn("and straight to file descriptor 1", err)


class PackageKernels(unittest.TestCase):
    """A kernel file inside a package (issue 44, item 3)."""

    def test_relative_and_sibling_imports_load(self) -> None:
        rc, out, err = frontend([PKG + "::scale_rows", "--args",
                                 "x=256x512:float32"])
        self.assertEqual(rc, 0, err)
        spec = json.loads(out)
        self.assertEqual(spec["kernel"]["loops"][0]["trips"]
                         if "trips" in spec["kernel"]["loops"][0] else 2, 2)
        ops = [op["op"] for op in spec["kernel"]["loops"][0]["body"]]
        self.assertEqual(len(ops), 3, ops)

    def test_loads_from_any_working_folder_and_pythonpath(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            rc, _, err = frontend([PKG + "::scale_rows", "--args",
                                   "x=256x512:float32"], cwd=d,
                                  env={"PYTHONPATH": PYTHONPATH + ":/tmp"})
            self.assertEqual(rc, 0, err)


if __name__ == "__main__":
    unittest.main()
