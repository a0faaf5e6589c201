#!/bin/bash
# Where a command's instructions go, counted by callgrind (not timed, so
# it holds on a busy machine): the serial part (start-up, spec loading,
# lowering, Simulator::Create, summaries) against one simulated run, and
# the speed-up that leaves at J jobs for R runs on J idle cores,
# (S + R r) / (S + R r / J), Amdahl's bound. issue 42's commands:
#
#   bench/serial_share.sh [TRNBENCH]
#
# Each command runs once under valgrind with --repeat 1 --warmup 0
# --jobs 1 (a minute or two each). Needs valgrind (callgrind_annotate).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-./build/trnbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The largest inclusive count of a function whose name matches $2 in
# callgrind file $1 (a function can be listed once per file it inlines).
inclusive() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    grep -E "$2" | awk '{gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0}
      END {print m + 0}'
}

echo "| command | total (1 run) | lowering | Simulator::Create | one run | serial | bound at R runs, 2 jobs | bound, 4 jobs |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
# row LABEL "R1 R2 ..." ARGS...: one callgrind run, a line per R.
row() {
  local label=$1 runs_list=$2
  shift 2
  local out=$tmp/cg
  valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" "$@" \
    --repeat 1 --warmup 0 --jobs 1 >/dev/null 2>&1
  local total lower create run
  total=$(callgrind_annotate "$out" 2>/dev/null |
    awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t}')
  lower=$(inclusive "$out" ':trn::Lower\(')
  create=$(inclusive "$out" ':trn::Simulator::Create\(')
  run=$(inclusive "$out" ':trn::Simulator::Run\(unsigned long, unsigned long, trn::SimListener&\)')
  local runs
  for runs in $runs_list; do
    awk -v l="$label" -v t="$total" -v lo="$lower" -v c="$create" -v r="$run" \
      -v n="$runs" 'BEGIN {
        s = t - r
        printf "| %s | %.0f M | %.0f M | %.0f M | %.0f M | %.0f M (%.1f runs) | %d runs: %.2fx | %.2fx |\n",
          l, t / 1e6, lo / 1e6, c / 1e6, r / 1e6, s / 1e6, s / r, n,
          (s + n * r) / (s + n * r / 2), (s + n * r) / (s + n * r / 4) }'
  done
}
row "tiled matmul" 101 --spec workloads/validation/nki_matmul_tiled.json
row "exp_tiled 12800000x512" "20 100" \
  --workload exp_tiled --shape in_tensor,out_tensor=12800000x512
