#!/usr/bin/env bash
# Installs the Debian packages crbench needs, and only those that are missing.
# Idempotent and non-interactive; runs `apt-get update` at most once.
set -euo pipefail

packages=(
  build-essential cmake clang-format
  libboost-dev libeigen3-dev libbenchmark-dev nlohmann-json3-dev catch2 libcli11-dev
  # Lemke and projected Gauss-Seidel LCP solvers (solvers/lcp.cpp)
  libsiconos-numerics-dev
  python3-matplotlib python3-numpy
  # the Python module crbench (python/crbench_module.cpp)
  pybind11-dev python3-dev
  # MPI: `mpirun -n R crbench sweep|converge` (bench/mpi.hpp) and its tests
  libopenmpi-dev openmpi-bin
  # pdflatex, to compile the LaTeX tables in a test (booktabs and graphicx)
  texlive-latex-base texlive-latex-recommended
  # the sanitizer and fuzzing job (.ci/run, preset debug): clang with its sanitizer and libFuzzer
  # runtimes, and llvm-symbolizer for readable reports
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
