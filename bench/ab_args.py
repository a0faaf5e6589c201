"""The command line the alternated-timing scripts share (jobs_ab.py,
serial_fit.py): `ROUNDS TRNBENCH [TRNBENCH...] -- ARGS...`."""
import sys
from typing import List, NamedTuple, Optional, Sequence


class AbArgs(NamedTuple):
    rounds: int
    binaries: List[str]
    args: List[str]


def parse(argv: List[str], usage: str,
          reserved: Sequence[str]) -> Optional[AbArgs]:
    """The rounds, binaries and command arguments of argv, or None after
    one line on stderr (the usage, or what was expected) when they are
    not: ROUNDS a whole number >= 1, at least one binary, and ARGS naming
    none of `reserved` (the flags the script sets itself)."""
    name = argv[0].rsplit("/", 1)[-1]
    if "--" not in argv or len(argv) < 4:
        print(usage.strip(), file=sys.stderr)
        return None
    split = argv.index("--")
    try:
        rounds = int(argv[1])
    except ValueError:
        print(f"{name}: ROUNDS {argv[1]!r}: expected a whole number",
              file=sys.stderr)
        return None
    binaries, args = argv[2:split], argv[split + 1:]
    if rounds < 1 or not binaries or any(flag in args for flag in reserved):
        print(f"{name}: expected ROUNDS >= 1, a binary, and ARGS without "
              + " or ".join(reserved), file=sys.stderr)
        return None
    return AbArgs(rounds, binaries, args)
