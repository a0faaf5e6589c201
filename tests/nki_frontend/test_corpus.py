"""The corpus (corpus.py, corpus_manifest.tsv): every kernel traces and
runs or is refused in one line naming its file and line; none is an
internal error (a Python exception out of the front end, or a spec it
wrote that trnbench rejects), and no row the manifest records as running
(state `runs`) stops running. Without the fixtures the test skips, saying
so, except in CI (CI=true), where they must be there."""

from __future__ import annotations

import os
import unittest

import corpus


def binary() -> str:
    path = os.environ.get("TRNBENCH_BINARY") or os.path.join(
        corpus.SOURCE, "build", "trnbench")
    return path if os.path.isfile(path) else ""


class Corpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        why = corpus.missing()
        if why:
            if os.environ.get("CI") == "true":
                raise AssertionError(f"CI=true: {why}")
            raise unittest.SkipTest(why)
        cls.trnbench = binary()
        cls.results = {}
        for row in corpus.manifest_rows():
            cls.results[row.id] = (row, corpus.check(row, cls.trnbench))

    def test_no_internal_errors(self) -> None:
        bugs = [f"{r.id} {r.function}: {res.why}"
                for r, res in self.results.values()
                if res.status == "internal"]
        self.assertEqual(bugs, [])

    def test_rows_that_ran_still_run(self) -> None:
        want = "run" if self.trnbench else "traced"
        stopped = [f"{r.id} {r.function}: {res.status} {res.why}"
                   for r, res in self.results.values()
                   if r.state == "runs" and res.status != want]
        self.assertEqual(stopped, [])

    def test_refusals_name_the_kernel_file_and_line(self) -> None:
        for r, res in self.results.values():
            if res.status != "refused" or res.why.startswith("trnbench"):
                continue
            with self.subTest(r.id):
                self.assertNotIn("\n", res.why)
                self.assertRegex(res.why, r"\.py(:\d+)?: ")

    def test_invalid_sources_are_refused_at_their_line(self) -> None:
        rows = [(r, res) for r, res in self.results.values()
                if r.expect == "refuse"]
        self.assertTrue(rows)
        for r, res in rows:
            with self.subTest(r.id):
                self.assertEqual(res.status, "refused", res.why)
                self.assertRegex(res.why, os.path.basename(r.path) +
                                 r":\d+: ")

    def test_nkibench_spill_bytes_are_the_measured_within_10_percent(
            self) -> None:
        # NKIBench's cases.tsv gives what neuron-profile measured on trn1:
        # the kernels that spilled nothing spill nothing in the model, and
        # bmm_softmax's saved and reloaded bytes are within 10% (the
        # compiler stage's spill rule, docs/spec-format.md, "Spilling").
        if not self.trnbench:
            self.skipTest("no trnbench binary to run the kernels")
        measured = {}
        with open(os.path.join(corpus.NKIBENCH, "cases.tsv"),
                  encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                row = dict(zip(header, line.rstrip("\n").split("\t")))
                measured[row["kernel_file"]] = (
                    int(row["spill_save_bytes"]),
                    int(row["spill_reload_bytes"]))
        checked = 0
        for r, res in self.results.values():
            name = os.path.basename(r.path)
            if name not in measured or res.status != "run":
                continue
            with self.subTest(r.id):
                model = tuple(int(x) for x in res.spill.split(" / "))
                for what, got, want in zip(("saved", "reloaded"), model,
                                           measured[name]):
                    if want == 0:
                        self.assertEqual(got, 0, what)
                    else:
                        self.assertLessEqual(abs(got - want), want / 10,
                                             f"{what}: {got} vs {want}")
                checked += 1
        self.assertGreaterEqual(checked, 7)


if __name__ == "__main__":
    unittest.main()
