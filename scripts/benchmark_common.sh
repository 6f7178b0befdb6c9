# Sourced by scripts/engine_benchmarks.sh and scripts/siconos_benchmarks.sh: the arguments
# [REPETITIONS] [CORE] (default 3 and 0), crbench_perf built if missing, and run_family, which runs
# one family of its benchmarks pinned to that core, repetitions interleaved, and writes their
# aggregates as JSON.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repetitions=${1:-3}
core=${2:-0}
perf=build/release/crbench_perf
[ -x "$perf" ] || bash scripts/build.sh > /dev/null
pin=()
command -v taskset > /dev/null && pin=(taskset -c "$core")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p results/benchmarks

# run_family FAMILY SCRIPT WHAT: the BM_FAMILY benchmarks into $work/perf.json, or exit 1 naming
# WHAT when crbench_perf was built without them. The caller's environment (OPENBLAS_NUM_THREADS)
# passes through.
run_family() {
  if ! "$perf" --benchmark_list_tests=true | grep -q "^BM_$1"; then
    echo "$2: crbench_perf has no $3 benchmarks (built without them: bash scripts/setup.sh)" >&2
    exit 1
  fi
  # Repetitions interleaved at random: a slow spell of the shared machine spreads over all codes
  # instead of landing on one.
  "${pin[@]}" "$perf" --benchmark_filter="^BM_$1" --benchmark_repetitions="$repetitions" \
    --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/perf.json"
}
