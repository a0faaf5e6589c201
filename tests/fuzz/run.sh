#!/usr/bin/env bash
# Runs the libFuzzer targets of a build (the asan or fuzz preset) from their
# seed corpora (seed_dirs.txt). New inputs go to a scratch folder, never
# into the source tree. On a crash, hang, leak or broken property it prints
# the reproducer (path and base64) and exits 1.
#
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]
#   SECONDS  per target (default 30); TARGETs default to all four.
# Environment: FUZZ_RUNS=N stops each target after N executions instead;
#   FUZZ_WORK=DIR keeps the corpora and logs there (default: a temp folder);
#   FUZZ_SEED=N fixes libFuzzer's random seed (CI does, so that a run of
#   FUZZ_RUNS executions is the same search on every machine).
set -euo pipefail
build=${1:?usage: tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]}
seconds=${2:-30}
shift $(($# < 2 ? $# : 2))
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=("$@")
((${#targets[@]})) || targets=(spec device_profile baseline results)
work=${FUZZ_WORK:-$(mktemp -d)}

for t in "${targets[@]}"; do
  seeds=()
  while read -r name dirs; do
    [[ $name == "$t" ]] && for d in $dirs; do seeds+=("$src/$d"); done
  done < <(grep -v '^#' "$src/tests/fuzz/seed_dirs.txt")
  ((${#seeds[@]})) || { echo "fuzz: unknown target $t" >&2; exit 2; }
  # Specs and profiles are a few KiB; larger inputs only slow the search.
  max_len=8192
  [[ $t == spec ]] && max_len=4096
  mkdir -p "$work/$t/corpus"
  limit=(-max_total_time="$seconds")
  [[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS")
  [[ -n ${FUZZ_SEED:-} ]] && limit+=(-seed="$FUZZ_SEED")
  log="$work/$t/log"
  if "$build/fuzz/${t}_fuzzer" "${limit[@]}" -timeout=25 -rss_limit_mb=2560 \
      -max_len="$max_len" -dict="$src/tests/fuzz/json.dict" \
      -artifact_prefix="$work/$t/" -print_final_stats=1 \
      "$work/$t/corpus" "${seeds[@]}" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $t: $runs executions, no finding"
  else
    echo "fuzz: $t FAILED; the end of its log:" >&2
    tail -n 40 "$log" >&2
    for f in "$work/$t"/crash-* "$work/$t"/timeout-* "$work/$t"/leak-* \
             "$work/$t"/oom-*; do
      [[ -f $f ]] || continue
      echo "reproducer $f (base64; add it to tests/fuzz/regressions/$t/):" >&2
      base64 -w 0 "$f" >&2
      echo >&2
    done
    exit 1
  fi
done
