"""End to end: `trnbench --kernel FILE.py::FUNCTION` traces the kernel with
the front end and runs the spec as any spec.

Tests marked COMPILER STAGE need the compiler stage of issue 23 (engines
and buffer depth left to the compiler): they skip, saying so, on a
trnbench that refuses a spec without engines, and run once it lands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import List, Optional, Tuple

from frontend_test_util import KERNELS, SOURCE, run_frontend
from standin import fill

TRNBENCH = os.environ.get("TRNBENCH_BINARY") or os.path.join(
    SOURCE, "build", "trnbench")
EXP = os.path.join(KERNELS, "exp_seed.py") + "::tensor_exp_kernel_"
EXP_ARGS = "in_tensor=250x512:float32"
EXPLICIT = os.path.join(KERNELS, "explicit_engines.py")


def trnbench(args: List[str], env: Optional[dict] = None
             ) -> Tuple[int, str, str]:
    p = subprocess.run([TRNBENCH] + args, capture_output=True, text=True,
                       timeout=600, env=env, cwd=SOURCE)
    return p.returncode, p.stdout, p.stderr


_compiler: Optional[bool] = None


def compiler_stage() -> bool:
    """Whether this trnbench runs a traced spec as the front end writes it
    (engine and buffers left to the compiler stage)."""
    global _compiler
    if _compiler is None:
        rc, _, _ = trnbench(["--kernel", EXP, "--args", EXP_ARGS,
                             "--repeat", "1"])
        _compiler = rc == 0
    return _compiler


def needs_compiler_stage(test):
    def wrapper(self):
        if not compiler_stage():
            self.skipTest("COMPILER STAGE: this trnbench refuses a spec "
                          "without engines (issue 23 not merged)")
        return test(self)
    wrapper.__name__ = test.__name__
    return wrapper


def published(name: str) -> List[dict]:
    with open(os.path.join(SOURCE, "workloads", "validation", name + ".json"),
              encoding="utf-8") as f:
        return json.load(f)["published"]


# Known gaps of the seed traced from its source, as validate's known gaps
# (workloads/validation/known_gaps.txt): model 11 writes the kernel's row
# mask as a predicate of the load and the store (issue 40: the NKIBench
# profiles have no mask instructions), where the seed's hand-written spec,
# with which the exp figures' fixed costs were fitted, has an iota on GpSimd
# and a compare on VectorE per tile and stays within +-3% in validate.
# Without those two instructions per tile the traced kernel's NCL is 4-6%
# under the published one (docs/validation.md, "Known gaps"). A gap bounds
# the miss as recorded; a gap that is met again fails, so that the entry is
# removed, as validate does.
TRACED_EXP_GAPS = {("ncl_us", "p1"): 0.07, ("ncl_us", "p50"): 0.07,
                   ("ncl_us", "p99"): 0.07}


class ExpSeedFigures(unittest.TestCase):
    """The seed's exp kernel, from its source, reproduces the seed's NCL
    and L figures within +-3% (workloads/validation/exp_tiled.json), but
    for the known gaps above, each within its recorded bound."""

    def check(self, metrics: dict) -> None:
        for fig in published("exp_tiled"):
            if fig["metric"] not in ("ncl_us", "latency_us"):
                continue
            got = metrics[fig["metric"]][fig["statistic"].replace("p", "p0")
                                         if len(fig["statistic"]) == 2
                                         else fig["statistic"]]
            error = abs(got / fig["figure"] - 1)
            what = (f"{fig['metric']} {fig['statistic']}: {got:.2f} vs "
                    f"{fig['figure']}")
            gap = TRACED_EXP_GAPS.get((fig["metric"], fig["statistic"]))
            if gap is None:
                self.assertLessEqual(error, 0.03, what)
            else:
                self.assertGreater(error, 0.03, f"{what}: within +-3%, "
                                   "remove its known gap")
                self.assertLessEqual(error, gap, what)

    def test_with_stand_in_for_the_compiler_stage(self) -> None:
        rc, err, spec, _ = run_frontend(EXP, EXP_ARGS)
        self.assertEqual(rc, 0, err)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "exp.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(fill(spec), f)
            rc, out, err = trnbench(["--spec", path, "--format", "json"])
        self.assertEqual(rc, 0, err)
        self.check(json.loads(out)["workloads"][0]["metrics"])

    @needs_compiler_stage
    def test_from_source(self) -> None:
        rc, out, err = trnbench(["--kernel", EXP, "--args", EXP_ARGS,
                                 "--format", "json"])
        self.assertEqual(rc, 0, err)
        w = json.loads(out)["workloads"][0]
        self.assertEqual(w["name"], "tensor_exp_kernel_")
        self.check(w["metrics"])


class KernelFlag(unittest.TestCase):
    def test_runs_and_emits_the_spec(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            emitted = os.path.join(d, "traced.json")
            rc, out, err = trnbench([
                "--kernel", f"{EXPLICIT}::exp_rows", "--args",
                "x=256x512:float32", "--emit-spec", emitted, "--repeat", "5",
                "--format", "json"])
            self.assertEqual(rc, 0, err)
            self.assertEqual(json.loads(out)["workloads"][0]["name"],
                             "exp_rows")
            with open(emitted, encoding="utf-8") as f:
                spec = json.load(f)
            self.assertEqual(spec["kernel_source"]["function"], "exp_rows")
            rc2, err2, direct, _ = run_frontend(f"{EXPLICIT}::exp_rows",
                                                "x=256x512:float32")
            self.assertEqual(rc2, 0, err2)
            self.assertEqual(spec, direct)
            # The emitted spec runs as any spec, with the same figures.
            rc, out2, err = trnbench(["--spec", emitted, "--repeat", "5",
                                      "--format", "json"])
            self.assertEqual(rc, 0, err)
            a = json.loads(out)["workloads"][0]["metrics"]["ncl_us"]["p50"]
            b = json.loads(out2)["workloads"][0]["metrics"]["ncl_us"]["p50"]
            self.assertEqual(a, b)

    def test_a_state_of_list_slots_and_a_carried_tile_run(self) -> None:
        states = os.path.join(KERNELS, "states.py")
        for kernel, args in (("column_sums", "x=512x1024:float32"),
                             ("running_scan",
                              "a=256x1024:float32,b=256x1024:float32")):
            rc, out, err = trnbench([
                "--kernel", f"{states}::{kernel}", "--args", args,
                "--repeat", "3", "--format", "json"])
            self.assertEqual(rc, 0, err)
            m = json.loads(out)["workloads"][0]["metrics"]
            self.assertGreater(m["ncl_us"]["p50"], 0, kernel)

    def test_profile_takes_a_kernel(self) -> None:
        rc, out, err = trnbench(["profile", "--kernel", f"{EXPLICIT}::exp_rows",
                                 "--args", "x=256x512:float32", "--repeat",
                                 "3"])
        self.assertEqual(rc, 0, err)
        self.assertIn("exp_rows", out)

    def test_gate_notices_a_changed_source(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            kernel = os.path.join(d, "k.py")
            shutil.copy(EXPLICIT, kernel)
            base = os.path.join(d, "base")
            common = ["--kernel", f"{kernel}::exp_rows", "--args",
                      "x=256x512:float32", "--repeat", "10"]
            rc, _, err = trnbench(common + [f"--save-baseline={base}"])
            self.assertEqual(rc, 0, err)
            rc, out, err = trnbench(["gate"] + common + ["--baseline", base])
            self.assertNotIn("spec changed since the baseline", out + err)
            with open(kernel, "a", encoding="utf-8") as f:
                f.write("# an edit\n")
            rc, out, err = trnbench(["gate"] + common + ["--baseline", base])
            self.assertIn("spec changed since the baseline", out + err)

    def test_refusal_is_one_line_exit_2_nothing_written(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            emitted = os.path.join(d, "traced.json")
            kernel = os.path.join(KERNELS, "refused.py")
            rc, out, err = trnbench(["--kernel", f"{kernel}::unknown_api",
                                     "--args", "x=128x64:float32",
                                     "--emit-spec", emitted])
            self.assertEqual(rc, 2, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn(f"{kernel}:9: ", err)
            self.assertIn("no_such_function", err)
            self.assertFalse(os.path.exists(emitted))

    def test_trnbench_refusal_names_the_kernel_line(self) -> None:
        """A traced spec trnbench refuses (here rows of 65536 fp32, 256 KiB
        per partition, more than SBUF holds) is named by the kernel's
        FILE:LINE, not by the temporary spec file."""
        kernel = os.path.join(KERNELS, "broadcasts.py")
        rc, _, err = trnbench(["--kernel", f"{kernel}::scale_rows", "--args",
                               "x=256x65536:float32,g=65536:float32",
                               "--repeat", "1"])
        self.assertEqual(rc, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("SBUF overflow", err)
        # The 128 staged copies of the broadcast are one entry.
        self.assertIn("g_row_bcast128_{0..127}_sb 2048 B each", err)
        self.assertNotIn("trnbench-kernel.", err)  # the temporary folder
        line = int(err.split(f"{kernel}:", 1)[1].split(":", 1)[0])
        with open(kernel, encoding="utf-8") as f:
            self.assertIn("nl.affine_range", f.read().splitlines()[line - 1])

    def test_flags_without_kernel(self) -> None:
        rc, _, err = trnbench(["--workload", "exp_tiled", "--args",
                               "x=1x1:int8"])
        self.assertEqual(rc, 2)
        self.assertIn("--args: goes with --kernel", err)
        rc, _, err = trnbench(["--kernel", "no_separator.py"])
        self.assertEqual(rc, 2)
        self.assertIn("FILE.py::FUNCTION", err)

    def test_kwarg_sweep_is_one_family(self) -> None:
        rc, out, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows", "--args",
                                 "x=256x512:float32", "--kwarg",
                                 "ROWS=64,128", "--repeat", "5",
                                 "--format", "json"])
        self.assertEqual(rc, 0, err)
        ws = json.loads(out)["workloads"]
        self.assertEqual(sorted(w["name"] for w in ws),
                         ["exp_rows_rows_128", "exp_rows_rows_64"])
        self.assertEqual({w["family"] for w in ws}, {"exp_rows"})
        rc, _, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows", "--args",
                               "x=256x512:float32", "--kwarg", "ROWS=64,128",
                               "--emit-spec", "x.json"])
        self.assertEqual(rc, 2)
        self.assertIn("not of a --kwarg sweep", err)

    def test_shape_sweep_traces_the_kernel_at_each_point(self) -> None:
        """--shape on a --kernel traces the kernel again at each point (its
        own shape arithmetic runs there): each point's spec records the
        arguments it was traced with, and rows // ROWS loop trips."""
        rc, out, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows", "--args",
                                 "x=256x512:float32", "--shape",
                                 "x,out=512x512,1024x256", "--repeat", "1",
                                 "--format", "json"])
        self.assertEqual(rc, 0, err)
        ws = {w["name"]: w for w in json.loads(out)["workloads"]}
        self.assertEqual(sorted(ws), ["exp_rows[x,out=1024x256]",
                                      "exp_rows[x,out=512x512]"])
        small, big = ws["exp_rows[x,out=512x512]"], ws[
            "exp_rows[x,out=1024x256]"]
        self.assertIn("exp_rows(x=512x512:float32)", small["description"])
        self.assertIn("exp_rows(x=1024x256:float32)", big["description"])
        self.assertEqual(big["instructions"], 2 * small["instructions"])
        self.assertEqual({w["family"] for w in ws.values()}, {"exp_rows"})

    def test_kwarg_sweep_is_ranked_by_median(self) -> None:
        """The family table of a sweep lists its points fastest first, each
        with its median and interval (issue 27 item 6)."""
        rc, out, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows", "--args",
                                 "x=1024x512:float32", "--kwarg",
                                 "ROWS=128,32,64", "--repeat", "20"])
        self.assertEqual(rc, 0, err)
        table = out.split("device time per iteration", 1)[1].split("\n\n")[0]
        rows = [l.split() for l in table.splitlines()
                if l.strip().startswith("exp_rows_rows_")]
        self.assertEqual(len(rows), 3, table)
        medians = []
        for r in rows:
            value, unit = r[2], r[3]
            medians.append(float(value) * {"ns": 1e-3, "μs": 1.0,
                                           "ms": 1e3}[unit])
            self.assertNotEqual(r[4], "n/a", table)  # the interval
        self.assertEqual(medians, sorted(medians), table)
        # The points are not in the order given: the ranking is the table's.
        self.assertNotEqual([r[0] for r in rows],
                            ["exp_rows_rows_128", "exp_rows_rows_32",
                             "exp_rows_rows_64"], table)

    def test_the_users_pythonpath_does_not_hide_the_front_end(self) -> None:
        """trnbench puts its own front end first: a PYTHONPATH of the
        user's, even one with a module of the same name, comes after."""
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "nki_frontend"))
            for name in ("__init__.py", "__main__.py"):
                with open(os.path.join(d, "nki_frontend", name), "w") as f:
                    f.write("raise SystemExit(7)\n")
            for path in ("/tmp", d):
                env = dict(os.environ, PYTHONPATH=path)
                rc, _, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows",
                                       "--args", "x=256x512:float32",
                                       "--repeat", "1"], env=env)
                self.assertEqual(rc, 0, f"PYTHONPATH={path}: {err}")

    def test_a_spec_trnbench_refuses_is_a_bug_of_the_front_end(self) -> None:
        kernel = os.path.join(KERNELS, "bug_bad_spec.py")
        rc, out, err = trnbench(["--kernel", f"{kernel}::copy", "--args",
                                 "x=128x512:float32", "--repeat", "1"])
        self.assertEqual(rc, 3, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("internal error", err)
        self.assertIn(f"{kernel}:25: ", err)  # nl.store(...)
        self.assertIn('key "slices" does not apply to a store op', err)
        self.assertIn("a bug of the front end", err)
        self.assertNotIn("trnbench-kernel.", err)  # the temporary folder

    def test_an_exception_inside_the_front_end_is_exit_3(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            kernel = os.path.join(d, "k.py")
            with open(kernel, "w") as f:
                f.write("import neuronxcc.nki.language as nl\n"
                        "from nki_frontend import core\n"
                        "scope = {}\n"
                        "exec(compile('def dtype_obj(*a):\\n'\n"
                        "             '    raise KeyError(1)\\n',\n"
                        "             core.__file__, 'exec'), scope)\n"
                        "core.dtype_obj = scope['dtype_obj']\n\n\n"
                        "def k(x):\n"
                        "    return x\n")
            rc, out, err = trnbench(["--kernel", f"{kernel}::k", "--args",
                                     "x=128x512:float32"])
            self.assertEqual(rc, 3, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("trnbench: internal error", err)
            self.assertIn("a bug of the NKI front end: core.py:2 (in "
                          "dtype_obj) raised KeyError: 1", err)

    def test_missing_python(self) -> None:
        env = dict(os.environ, TRNBENCH_PYTHON="/nonexistent/python3")
        rc, _, err = trnbench(["--kernel", f"{EXPLICIT}::exp_rows", "--args",
                               "x=256x512:float32"], env=env)
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("python3", err)


def run_own_kernel(case: unittest.TestCase, file: str, function: str,
                   args: str) -> dict:
    """One run of a project kernel (tests/nki_frontend/kernels/FILE) as
    JSON results; a failed run fails `case`."""
    rc, out, err = trnbench([
        "--kernel", os.path.join(KERNELS, file) + "::" + function,
        "--args", args, "--repeat", "1", "--format", "json"])
    case.assertEqual(rc, 0, err)
    return json.loads(out)


class IntegerIndexRuns(unittest.TestCase):
    def test_an_integer_index_of_another_tensor_runs(self) -> None:
        # y[k] (one of 4 slots) where k walks out's columns in tiles of 128.
        results = run_own_kernel(self, "integer_index.py",
                                 "columns_from_slots", "y=4x128x128:float32")
        self.assertIn("columns_from_slots", json.dumps(results))


class PipelinedRuns(unittest.TestCase):
    def test_a_loop_pipelined_by_hand_runs(self) -> None:
        # 4 copies and 4 maxima into two buffers (one of each in the
        # prologue), 4 exps, the load and 4 stores.
        results = run_own_kernel(self, "pipelined.py", "pipelined",
                                 "x=128x1024:float32")
        self.assertEqual(results["workloads"][0]["instructions"], 17)


class ReductionsRun(unittest.TestCase):
    def test_a_reduction_is_no_instruction(self) -> None:
        # 4 loads, 4 exps that also sum their rows, 4 reciprocals of those
        # sums by slot, 1 sum of all of them, 1 store: the "reduction" op
        # between them adds nothing.
        results = run_own_kernel(self, "reductions.py", "softmax_sums",
                                 "x=512x64:float32")
        self.assertEqual(results["workloads"][0]["instructions"], 14)


class NestedFissionRuns(unittest.TestCase):
    def test_a_nest_filling_a_block_and_a_running_max_runs(self) -> None:
        # One nest, the max its result (nki_frontend/fission.py): 6 loads,
        # 6 exps into the block, their 6 row maxima and 6 running-max
        # updates (after the memset of mx); 6 exps and 6 stores after.
        results = run_own_kernel(self, "nested_fission.py",
                                 "block_and_running_max",
                                 "x=768x512:float32")
        self.assertEqual(results["workloads"][0]["instructions"], 37)

    def test_two_blocks_of_a_nest_run(self) -> None:
        # Two nests: 6 loads and 6 exps; 6 row maxima; 6 exps, 6 stores.
        results = run_own_kernel(self, "nested_fission.py", "two_blocks",
                                 "x=768x512:float32")
        self.assertEqual(results["workloads"][0]["instructions"], 30)


class PrivatizedRuns(unittest.TestCase):
    def test_psum_tiles_of_a_block_dimension_fit_one_at_a_time(self) -> None:
        # As a block, 16 PSUM banks (refused: 8); privatized, one a tile.
        results = run_own_kernel(self, "privatized.py",
                                 "psum_tile_per_iteration",
                                 "x=2048x128:bfloat16")
        # 16 iterations of load, transpose, copy and store.
        self.assertEqual(results["workloads"][0]["instructions"], 64)


if __name__ == "__main__":
    unittest.main()

