"""The NKI API coverage against the reference (nki_frontend.coverage): every
documented name of each generation traced or refused with a reason, each
traced function taking the reference's parameters, docs/nki-source.md's
table and signatures_2026.py current, and a refused name refused in one
line when a kernel calls it.

The reference is ../shared/fixtures/nki-docs (or TRNBENCH_NKI_DOCS); without
it the tests skip saying so, except under CI=true (.ci/run has it)."""

from __future__ import annotations

import os
import unittest

from frontend_test_util import KERNELS, SOURCE, run_frontend

from nki_frontend import coverage, modules

ROOT = coverage.docs_root()


def reference_missing() -> str:
    if os.path.isdir(ROOT) or os.environ.get("CI") == "true":
        return ""
    return (f"the NKI reference is not at {ROOT} (../shared/fixtures/"
            "nki-docs beside the clone, or TRNBENCH_NKI_DOCS)")


@unittest.skipIf(reference_missing(), reference_missing())
class Coverage(unittest.TestCase):
    def test_the_reference_is_there(self) -> None:
        self.assertTrue(os.path.isdir(ROOT), f"CI=true needs {ROOT}")

    def test_the_reference_lists_are_read(self) -> None:
        # Counts of the reference as read: a parser that loses a list
        # fails here, not by shrinking the denominators.
        for gen, module, least in (("sdk-2.26", "nki.language", 100),
                                   ("sdk-2.26", "nki.isa", 35),
                                   ("2026-08", "nki.language", 120),
                                   ("2026-08", "nki.isa", 55),
                                   ("2026-08", "nki.collectives", 10)):
            names = [e for e in coverage.documented(ROOT, gen)
                     if e.module == module]
            self.assertGreaterEqual(len(names), least, (gen, module))
        today = {e.name: e for e in coverage.documented(ROOT, "2026-08")}
        self.assertEqual(today["dma_copy"].params[:2],
                         [("dst", False), ("src", False)])
        self.assertEqual(today["uint8"].kind, "dtype")

    def test_every_documented_name_is_traced_or_refused(self) -> None:
        for g in coverage.GENERATIONS:
            for s in coverage.statuses(ROOT, g):
                with self.subTest(f"{g.key} {s.entry.module}.{s.entry.name}"):
                    self.assertEqual(s.problems, [])
                    self.assertTrue(s.text, "no text: what it becomes, or "
                                    "why it is refused")

    def test_language_and_isa_at_least_90_percent_traced(self) -> None:
        for gen, summary in coverage.figures(ROOT).items():
            for module in ("nki.language", "nki.isa"):
                done, total = summary[module]
                self.assertGreaterEqual(done / total, 0.9,
                                        f"{gen} {module}: {done}/{total}")

    def test_docs_table_is_current(self) -> None:
        with open(os.path.join(SOURCE, "docs", "nki-source.md"),
                  encoding="utf-8") as f:
            doc = f.read()
        self.assertEqual(coverage.replace_table(doc, coverage.table(ROOT)),
                         doc, "docs/nki-source.md's coverage table is stale: "
                         "run tools/nki_coverage.py --write")

    def test_todays_signatures_are_the_stubs(self) -> None:
        path = os.path.join(SOURCE, "workloads", "frontends", "nki",
                            "nki_frontend",
                            "signatures_2026.py")
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), coverage.signatures_2026_text(ROOT),
                             "signatures_2026.py is stale: run "
                             "tools/nki_coverage.py --write")


class Generations(unittest.TestCase):
    """Without the reference: the per-generation layers themselves."""

    def test_tile_size_per_generation(self) -> None:
        old = modules.MODULES["neuronxcc.nki.language"].tile_size
        new = modules.MODULES["nki.language"].tile_size
        self.assertEqual(old.psum_fmax, 2048)
        self.assertEqual(new.psum_fmax, 512)
        self.assertEqual(new.psum_bank_fmax, 512)
        self.assertEqual(new.pmax, 128)

    def test_todays_isa_takes_dst_first(self) -> None:
        import inspect
        f = modules.MODULES["nki.isa"].dma_copy
        self.assertEqual(list(inspect.signature(f).parameters)[:2],
                         ["dst", "src"])
        f = modules.MODULES["neuronxcc.nki.isa"].tensor_copy
        self.assertEqual(list(inspect.signature(f).parameters)[0], "src")

    def test_a_refused_name_is_one_line_at_the_call(self) -> None:
        rc, err, _, exists = run_frontend(
            os.path.join(KERNELS, "api_generations.py") + "::collective",
            "x=128x64:float32")
        self.assertEqual(rc, 2, err)
        self.assertFalse(exists)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("api_generations.py:", err)
        self.assertIn("collectives reach beyond one NeuronCore", err)


if __name__ == "__main__":
    unittest.main()
