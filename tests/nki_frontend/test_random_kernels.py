"""Random valid NKI kernels (random_kernels.py), fixed seed: every program
traces and runs through trnbench, or is refused in one line naming the
documented limit it breaks; no internal error, no traced spec rejected.

TRNBENCH_RANDOM_KERNELS sets the count (5,000 by default, as in CI); the
programs are traced in this process and run in batches of 250 specs per
trnbench call."""

from __future__ import annotations

import os
import unittest

from frontend_test_util import SOURCE

import random_kernels

TRNBENCH = os.environ.get("TRNBENCH_BINARY") or os.path.join(
    SOURCE, "build", "trnbench")
COUNT = int(os.environ.get("TRNBENCH_RANDOM_KERNELS", "5000"))


class RandomKernels(unittest.TestCase):
    def test_programs_are_deterministic(self) -> None:
        a = random_kernels.make_program(7)
        b = random_kernels.make_program(7)
        self.assertEqual(a.source, b.source)
        self.assertNotEqual(a.source, random_kernels.make_program(8).source)

    def test_the_generator_covers_both_generations_and_the_api(self) -> None:
        progs = [random_kernels.make_program(44 * 1_000_003 + i)
                 for i in range(400)]
        text = "\n".join(p.source for p in progs)
        self.assertEqual({p.generation for p in progs},
                         {"neuronxcc.nki", "nki"})
        for construct in ("nl.affine_range", "nl.sequential_range",
                          "nl.static_range", "in range(", "mask=",
                          "nl.par_dim", "broadcast_to", "nl.matmul",
                          "nisa.max8", "nisa.bn_stats", "nl.transpose",
                          "engine=nisa.gpsimd_engine", "[:, 0:"):
            self.assertIn(construct, text)
        self.assertTrue(any(p.expect for p in progs))

    @unittest.skipUnless(os.path.exists(TRNBENCH),
                         f"no trnbench at {TRNBENCH}")
    def test_every_program_traces_and_runs_or_is_refused(self) -> None:
        o = random_kernels.run(COUNT, 44, TRNBENCH, None)
        self.assertEqual(o.internal, [])
        self.assertEqual(o.rejected, [])
        self.assertEqual(o.wrongly_accepted, [])
        self.assertEqual(o.wrong_refusal, [])
        # The valid programs trace: a refusal of one is a gap, named.
        unexpected = {m: n for m, n in o.refused.items()
                      if m not in ("at most 128",
                                   "VectorE transposes at most [32, 32]")}
        self.assertEqual(unexpected, {})
        self.assertEqual(o.ran, o.traced)
        self.assertGreater(o.traced, COUNT * 0.9)


if __name__ == "__main__":
    unittest.main()
