#!/usr/bin/env bash
# The test command: installs what is missing, builds with warnings as errors, runs every test,
# then checks the formatting (clang-format, .clang-format) of every tracked C++ file.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
start=$(date +%s)
ctest --preset release
echo "test: the tests took $(( $(date +%s) - start )) s"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files '*.cpp' '*.hpp')
else
  files=$(find bench cases solvers tests python examples -name '*.cpp' -o -name '*.hpp')
fi
# shellcheck disable=SC2086
clang-format --dry-run --Werror $files
echo "clang-format: $(echo "$files" | wc -w) files clean"
