#!/bin/bash
# The cost of one simulated run of each of the NKI matmul tutorial's four
# versions, counted by callgrind (not timed, so it holds on a busy
# machine): the instructions (Ir) of the second Simulator::Run of a
# `--repeat 2 --warmup 0 --jobs 1` command, a run in the steady state (the
# first also sizes the thread's scratch), and per simulated instruction.
#
#   bench/run_cost.sh [TRNBENCH]
#
# Needs valgrind (callgrind_annotate); about half a minute per version.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-./build/trnbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run='trn::Simulator::Run(unsigned long, unsigned long, trn::SimListener&) const'

echo "| matmul version | instructions | Ir per run (M) | Ir per instruction |"
echo "| --- | --- | --- | --- |"
for v in tiled hoist_load block_free fully_optimized; do
  spec=workloads/validation/nki_matmul_$v.json
  n=$("$BIN" --spec "$spec" --repeat 1 --warmup 0 |
    grep -o '[0-9]* instructions per run' | awk '{print $1}')
  # --dump-after writes one file per run (.1, .2), each counting only what
  # ran inside Simulator::Run since the last (--toggle-collect).
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
    --toggle-collect="$run" --dump-after="$run" \
    "$BIN" --spec "$spec" --repeat 2 --warmup 0 --jobs 1 >/dev/null 2>&1
  ir=$(callgrind_annotate "$tmp/cg.2" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
  awk -v v="$v" -v n="$n" -v ir="$ir" 'BEGIN {
    printf "| %s | %d | %.2f | %.0f |\n", v, n, ir / 1e6, ir / n }'
done
