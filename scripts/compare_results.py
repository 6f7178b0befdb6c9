#!/usr/bin/env python3
"""Compare two folders written by `crbench report` (or any study, sweep or verify folder).

A change that is not meant to change physics must leave every output the same apart from what
differs from run to run by design: wall times, the commit the program was built from, and the
checksums and fingerprints that cover them. This script compares the two trees file by file:

- files only in one tree are listed;
- .json and .jsonl files are compared as JSON with the fields named in VOLATILE dropped at every
  depth (a .jsonl line's checksum covers its wall times, so it goes too);
- timing.md is skipped (wall times only); other text files are compared line by line with the
  lines that mention a wall time, the commit or the program's build dropped.

Exit status 0 when the trees agree, 1 otherwise (each difference is printed).

    python3 scripts/compare_results.py A B
"""
import json
import re
import sys
from pathlib import Path

VOLATILE = {
    "commit", "checksum", "wall_time_s", "wall_time", "wall_seconds", "seconds",
    "median_wall_time_s", "wall_times_s", "time_s", "cpu_time_s", "output_seconds",
}
SKIPPED = {"timing.md"}
VOLATILE_LINE = re.compile(r"wall|commit|seconds|[0-9.]+ ?(ms|µs|us) |built ", re.IGNORECASE)


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items()
                if k not in VOLATILE and not k.startswith("wall")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def json_docs(path):
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [scrub(json.loads(line)) for line in text.splitlines() if line.strip()]
    return scrub(json.loads(text))


def without_wall_columns(lines, split, join):
    """Rows of a table (CSV or Markdown) without the columns whose header names a wall time."""
    out, drop = [], set()
    for line in lines:
        cells = split(line)
        if cells is None:
            drop = set()
            out.append(line)
            continue
        if not drop and any("wall" in c.lower() for c in cells):
            drop = {i for i, c in enumerate(cells) if "wall" in c.lower()}
        out.append(join([c for i, c in enumerate(cells) if i not in drop]))
    return out


def markdown_cells(line):
    return line.split("|") if line.lstrip().startswith("|") else None


def text_lines(path):
    lines = path.read_text(errors="replace").splitlines()
    if path.suffix == ".csv":
        lines = without_wall_columns(lines, lambda l: l.split(","), ",".join)
    elif path.suffix == ".md":
        lines = without_wall_columns(lines, markdown_cells, "|".join)
    return [line for line in lines if line.lstrip().startswith("|") or path.suffix == ".csv"
            or not VOLATILE_LINE.search(line)]


def compare(a, b):
    differences = []
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    for rel in sorted(files_a ^ files_b):
        differences.append(f"only in {a if rel in files_a else b}: {rel}")
    for rel in sorted(files_a & files_b):
        if rel.name in SKIPPED:
            continue
        pa, pb = a / rel, b / rel
        if pa.read_bytes() == pb.read_bytes():
            continue
        if rel.suffix in (".json", ".jsonl"):
            try:
                same = json_docs(pa) == json_docs(pb)
            except json.JSONDecodeError:
                same = False
        elif rel.suffix in (".png", ".pdf"):
            continue  # rendered from the compared data; their bytes carry dates
        else:
            same = text_lines(pa) == text_lines(pb)
        if not same:
            differences.append(f"differs: {rel}")
    return differences


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    differences = compare(a, b)
    for d in differences:
        print(d)
    print(f"{len(differences)} difference(s) between {a} and {b}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
