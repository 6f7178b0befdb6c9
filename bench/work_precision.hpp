// The work–precision overview of the main job (`crbench report`, results/work-precision/): every
// case with a classical limit through every solver that approximates the classical model, each
// down a ladder of its own resolution (an adaptive solver's rtol, a fixed-step solver's h), every
// error measured on one axis — the largest q deviation over the run from the same reference — and
// every cost counted twice: deterministically (steps, right-hand-side evaluations) and in wall
// time (the minimum over repeats; the only numbers that change between runs).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "crbench/bench/points.hpp"

namespace crbench {

struct WorkPrecisionOverview {
  int cases = 0;         // cases with a classical reference
  int points = 0;        // solves in the ladders
  std::string markdown;  // the digits-at-fixed-cost table, for the results README
};

struct WorkPrecisionOptions {
  int jobs = 1;
  // The fine end of the h ladders (the main job: 1e-5; a test: a shorter ladder).
  double h_fine = 1e-5;
  // The fine end for the solvers backed by the Siconos kernel (siconos-*): their solves run one at
  // a time in a process and cost 10-20 times a step of moreau-jean's, and a rung of 1e-5 took
  // most of a minute of the main job.
  double h_fine_siconos = 1e-4;
  // Wall time: the minimum over this many solves (fewer for a solve above 0.2 s).
  int timing_repeats = 3;
  bool figures = true;
  // Where set, the figure and then the README are written there (FigureQueue), not at once.
  FigureQueue* figure_queue = nullptr;
};

// Writes into `dir`: work_precision.json (deterministic: every point's error, flag, steps and
// right-hand-side evaluations, the references), digits.md/.csv (significant correct digits per
// case and solver at fixed counts of right-hand-side evaluations), work_precision.csv and
// work_precision.md (the same points with their wall times) and README.md; then the overview
// figure (scripts/figures.py: one panel per case). The deterministic files do not depend on
// options.jobs.
WorkPrecisionOverview write_work_precision(const std::filesystem::path& dir,
                                           const WorkPrecisionOptions& options,
                                           std::ostream& progress);

}  // namespace crbench
