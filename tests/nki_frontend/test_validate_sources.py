"""`trnbench validate --sources DIR`: each figure whose spec names its
upstream kernel is also predicted from that kernel's source, a second
column. Skips, saying so, without the samples folder."""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from frontend_test_util import SAMPLES, SOURCE, samples_missing

TRNBENCH = os.environ.get("TRNBENCH_BINARY") or os.path.join(
    SOURCE, "build", "trnbench")
SDK = os.path.join(SAMPLES, "sdk-2.21")


def validate(*extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([TRNBENCH, "validate", "--device", "trn1",
                           "--repeat", "5", "--sources", SDK, *extra],
                          capture_output=True, text=True, timeout=900)


@unittest.skipIf(samples_missing(), samples_missing() or "")
class ValidateSources(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.json = validate("--format", "json")
        cls.table = validate()

    def test_both_columns(self) -> None:
        p = self.table
        self.assertIn(p.returncode, (0, 1), p.stderr)
        header = p.stdout.splitlines()[2].split()
        self.assertEqual(header[5:7], ["from", "spec"])
        self.assertIn("source", header)

    def test_traced_figures_match_the_specs(self) -> None:
        """The matmul and Mamba v1-v3 figures from source are within 2% of
        the hand-written specs' (the same check as the upstream tests)."""
        p = self.json
        self.assertIn(p.returncode, (0, 1), p.stderr)
        rows = {r["key"]: r for r in json.loads(p.stdout)["figures"]}
        traced = [r for r in rows.values() if "from_source" in r]
        names = {r["workload"] for r in traced}
        for want in ("nki_matmul_tiled", "nki_matmul_fully_optimized",
                     "nki_mamba_v1", "nki_mamba_v2", "nki_mamba_v3"):
            self.assertIn(want, names)
        for r in traced:
            with self.subTest(r["key"]):
                self.assertLessEqual(
                    abs(r["from_source"] / r["model"] - 1), 0.02, r)
        # A figure whose spec names no kernel has no second figure.
        self.assertNotIn("from_source",
                         rows["exp_tiled ncl_us p50 trn1"])

    def test_not_a_folder(self) -> None:
        p = subprocess.run([TRNBENCH, "validate", "--device", "trn1",
                            "--sources", os.path.join(SDK, "nope")],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--sources", p.stderr)
        self.assertIn("not a folder", p.stderr)


if __name__ == "__main__":
    unittest.main()
