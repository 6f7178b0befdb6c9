#!/usr/bin/env bash
# Runs the libFuzzer targets (built by the debug preset: clang, AddressSanitizer and
# UndefinedBehaviorSanitizer) for SECONDS each, all at once, on their seed corpora:
#   fuzz_study   study, sweep and impact study files   seeds: tests/data/{studies,sweeps},
#                bench/{studies,sweeps,impacts} (+ study.dict)
#   fuzz_params  numbers and KEY=VALUE   seeds: tests/fuzz/seeds/params
#   fuzz_cli     the command line        seeds: tests/fuzz/seeds/cli (arguments split at newlines)
#   fuzz_resume  --resume's points.jsonl seeds: tests/fuzz/seeds/resume (a small sweep's own lines)
# New inputs go to build/debug/fuzz/<target>/corpus; a crash, a sanitizer report or a leak ends
# that target with an artifact in build/debug/fuzz/<target>/ and this script with status 1.
# Usage: scripts/fuzz.sh [SECONDS (default 60)] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_study fuzz_params fuzz_cli fuzz_resume)
build=build/debug
declare -A seeds=(
  [fuzz_study]="tests/data/studies bench/studies tests/data/sweeps bench/sweeps bench/impacts"
  [fuzz_params]="tests/fuzz/seeds/params"
  [fuzz_cli]="tests/fuzz/seeds/cli"
  [fuzz_resume]="tests/fuzz/seeds/resume"
)
pids=()
for t in "${targets[@]}"; do
  [ -x "$build/$t" ] || { echo "fuzz: $build/$t is not built (cmake --build --preset debug)" >&2; exit 2; }
  work="$build/fuzz/$t"
  mkdir -p "$work/corpus"
  extra=()
  [ "$t" = fuzz_study ] && extra+=(-dict=tests/fuzz/study.dict)
  # shellcheck disable=SC2086
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/" "${extra[@]}" "$work/corpus" ${seeds[$t]} > "$work/log.txt" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  t="${targets[$i]}"
  if wait "${pids[$i]}"; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz/$t/log.txt" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $t ran ${seconds} s, ${runs} executions, no crash"
  else
    echo "fuzz: $t FAILED; the end of $build/fuzz/$t/log.txt:" >&2
    tail -40 "$build/fuzz/$t/log.txt" >&2
    status=1
  fi
done
exit $status
