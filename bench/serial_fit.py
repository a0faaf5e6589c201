#!/usr/bin/env python3
"""A command's serial part in wall time, fitted from two run counts: the
minimum wall time (time.perf_counter) of ROUNDS alternated rounds of
`ARGS --repeat 1 --jobs 1` and `ARGS --repeat 41 --jobs 1` per binary,
then the run R = (t41 - t1) / 40, the serial part S = t1 - R (start-up,
loading, lowering, Simulator::Create, summaries, and what the kernel
spends on their page faults, which bench/serial_share.sh's instruction
counts leave out), and Amdahl's bound for `--repeat 20` at two jobs,
(S + 20R) / (S + 10R).

    bench/serial_fit.py ROUNDS TRNBENCH [TRNBENCH...] -- ARGS...

ARGS must not name --repeat or --jobs. Example (issue 42's exp_tiled row):

    bench/serial_fit.py 9 build/trnbench -- --workload exp_tiled \\
        --shape in_tensor,out_tensor=12800000x512
"""
import subprocess
import sys
import time

import ab_args
from typing import Dict, List, Tuple


def wall(binary: str, args: List[str], repeat: int) -> float:
    start = time.perf_counter()
    subprocess.run([binary, *args, "--repeat", str(repeat), "--jobs", "1"],
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main(argv: List[str]) -> int:
    parsed = ab_args.parse(argv, __doc__ or "", ("--repeat", "--jobs"))
    if parsed is None:
        return 2
    rounds, binaries, args = parsed
    best: Dict[Tuple[str, int], float] = {
        (b, r): float("inf") for b in binaries for r in (1, 41)}
    for k in range(rounds):
        for binary in (binaries if k % 2 == 0 else binaries[::-1]):
            for repeat in (1, 41):
                best[(binary, repeat)] = min(best[(binary, repeat)],
                                             wall(binary, args, repeat))
    for binary in binaries:
        t1, t41 = best[(binary, 1)], best[(binary, 41)]
        run = (t41 - t1) / 40
        serial = t1 - run
        bound = (serial + 20 * run) / (serial + 10 * run)
        print(f"{binary}: --repeat 1 {t1 * 1e3:.1f} ms, --repeat 41 "
              f"{t41 * 1e3:.1f} ms; a run {run * 1e3:.2f} ms, serial part "
              f"{serial * 1e3:.1f} ms = {serial / run:.2f} runs; bound for "
              f"--repeat 20 at 2 jobs {bound:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
