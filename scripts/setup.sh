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
  # the Python module crbench (python/crbench_module.cpp); sympy for cases defined without C++
  # (python/crbench_case.py)
  pybind11-dev python3-dev python3-sympy
  # MPI: `mpirun -n R crbench sweep|converge` (bench/mpi.hpp) and its tests
  libopenmpi-dev openmpi-bin
  # pdflatex, to compile the LaTeX tables in a test (booktabs and graphicx)
  texlive-latex-base texlive-latex-recommended
  # the sanitizer and fuzzing job (.ci/run, preset debug): clang with its sanitizer and libFuzzer
  # runtimes, and llvm-symbolizer for readable reports
  clang libclang-rt-14-dev llvm
)

# Optional back-ends: the build switches them off where they are absent (CMake option
# CRBENCH_SICONOS, CRBENCH_MUJOCO, CRBENCH_ODE, CRBENCH_BULLET); an install that fails here is
# reported, not fatal.
optional=(
  # the Siconos kernel: the solvers siconos-moreau-jean and siconos-event-driven
  libsiconos-kernel-dev
  # physics engines as realizations: the solvers mujoco, ode and bullet (solvers/engine_solver.hpp)
  libmujoco-dev libode-dev libbullet-dev
)

is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do is_installed "$p" || missing+=("$p"); done
missing_optional=()
for p in "${optional[@]}"; do is_installed "$p" || missing_optional+=("$p"); done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages and ${#optional[@]} optional ones present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]} ${missing_optional[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
for p in "${missing_optional[@]}"; do
  echo "setup: installing the optional $p"
  $sudo apt-get install -y -qq --no-install-recommends "$p" ||
    echo "setup: could not install $p; the build goes on without it" >&2
done
