#!/usr/bin/env bash
# Every LaTeX table compiles with pdflatex: those of a small study written now by `crbench
# converge`, and every .tex under the given folders (results/). Each table is put in an article
# with the packages its first line names (booktabs, graphicx, array); any LaTeX error, and any overfull
# box wider than 1pt (a table or note that does not fit the page), fails the test.
# Usage: tests/latex.sh CRBENCH STUDY_FILE WORK_DIR [FOLDER ...]
set -euo pipefail
crbench=$1 study=$2 work=$3
shift 3
command -v pdflatex > /dev/null || { echo "FAIL: pdflatex not found (scripts/setup.sh installs it)"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
# converge exits 1 when a model is NOT CONFIRMED (its tables are written all the same).
"$crbench" converge --study "$study" --out "$work/study" --jobs 2 --no-figures > /dev/null \
  || [ $? -eq 1 ]
mapfile -t tables < <(find "$work/study" "$@" -name '*.tex' | sort)
[ "${#tables[@]}" -gt 0 ] || { echo "FAIL: no .tex file found"; exit 1; }
count=0
for table in "${tables[@]}"; do
  count=$((count + 1))
  doc="$work/doc$count"
  mkdir -p "$doc"
  cp "$table" "$doc/table.tex"
  cat > "$doc/main.tex" <<'DOC'
\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\usepackage{graphicx}
\usepackage{array}
\begin{document}
\input{table}
\end{document}
DOC
  if ! (cd "$doc" && pdflatex -interaction=nonstopmode -halt-on-error main.tex > /dev/null 2>&1); then
    echo "FAIL: $table does not compile:"
    grep -A3 '^!' "$doc/main.log" | head -20
    exit 1
  fi
  if grep -E 'Overfull \\hbox \(([1-9][0-9]*\.[0-9]+|[1-9])' "$doc/main.log" > "$doc/overfull.txt"; then
    echo "FAIL: $table is wider than the page:"
    head -5 "$doc/overfull.txt"
    exit 1
  fi
done
echo "latex: $count tables compile"
