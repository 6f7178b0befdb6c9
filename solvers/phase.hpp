// One smooth phase of an event-driven integration, shared by the solvers that stop at events.
// A dense-output stepper advances; after each step the event functions g_i are sampled at a few
// points of the step, and the first sign change of an armed g_i (from > 0 to < 0) is bracketed
// and refined by TOMS 748 (solvers/events.hpp). A function is armed once it has been seen above
// its threshold, so that a function that starts at 0 (a constraint just left) does not fire at
// the instant it starts.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/solvers/dense_stepper.hpp"
#include "crbench/solvers/events.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// The (q, q̇) of an integrator's state vector y = (q, q̇, …) at time t (entries past 2n, such as
// a limit model's extra variables, are left out).
template <class V>
State to_state(double t, const V& y, int n) {
  State x;
  x.t = t;
  x.q.resize(n);
  x.v.resize(n);
  for (int i = 0; i < n; ++i) {
    x.q(i) = y[static_cast<std::size_t>(i)];
    x.v(i) = y[static_cast<std::size_t>(n + i)];
  }
  return x;
}

// Every entry finite: a plain loop, for the few entries of the checks in the hot loops
// (Eigen's allFinite forms x − x and compares, with its dynamic-size overhead at each call).
inline bool all_finite(const Eigen::VectorXd& x) {
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x(i))) return false;
  }
  return true;
}

// Runs a solve's body; a RunFailure (solvers/dense_stepper.hpp: a stepper that found no step, a
// bound passed, a singular system) ends the run as a record with its status and reason instead of
// an exception, so that the other points of a study are still computed.
template <class Body>
void end_run_on_failure(RunRecord& record, Body&& body) {
  try {
    body();
  } catch (const RunFailure& failure) {
    record.status = failure.status;
    record.reason = failure.reason;
  }
}

struct PhaseEnd {
  bool horizon = false;
  State x;                            // the state at the event (or at the horizon)
  std::vector<Eigen::Index> crossed;  // the event functions that crossed (within the tie window)
};

struct PhaseControl {
  double t_end = 0.0;
  double event_time_tol = 1e-14;
  double max_steps = 1e7;
  int samples_per_step = 4;
  WallTimeBudget wall_time;
};

struct PhaseCounters {
  long steps = 0;
  double max_bracket = 0.0;  // widest final bracket of a located event
  // Sign changes found inside a sample interval whose ends are both positive (a dip of an event
  // function between samples: a grazing lift-off or contact), and dips predicted by the samples
  // whose minimum lay in a step already left, so that they could not be searched (the record
  // warns of these: an event may have been missed there).
  long dips_found = 0;
  long dips_unsearched = 0;
  double first_unsearched_time = 0.0;
  double first_unsearched_value = 0.0;  // the parabola's minimum there
  Eigen::Index first_unsearched_function = -1;
  // The last state a phase reached before a failure ended it (the end of its last step, or the
  // sample being examined): the record's final_state of a run that fails inside a phase.
  std::optional<State> reached;
};

// The record's account of the dips between samples: diagnostics.dips_between_samples (found and
// located) and, when some could not be searched, diagnostics.dips_not_searched and a warning
// naming the first (`first_function`: what that event function measures).
inline void record_dips(const PhaseCounters& counters, const std::string& first_function,
                        RunRecord& record) {
  record.diagnostics["dips_between_samples"] = counters.dips_found;
  if (counters.dips_unsearched == 0) return;
  record.diagnostics["dips_not_searched"] = counters.dips_unsearched;
  std::string more;
  if (counters.dips_unsearched > 1) {
    more = " (and " + std::to_string(counters.dips_unsearched - 1) +
           " more, diagnostics.dips_not_searched)";
  }
  record.warnings.push_back(
      "the samples of " + first_function + " dip towards " +
      format_number(counters.first_unsearched_value) +
      " near t = " + format_number(counters.first_unsearched_time) +
      " in a step already left, whose dense output could not be searched: an event (a grazing "
      "lift-off or contact) may have been missed there" +
      more);
}

// The minimum of the parabola through three samples (t0 < t1 < t2) of a function whose middle
// sample is the smallest: its time and value.
inline std::pair<double, double> parabola_minimum(double t0, double y0, double t1, double y1,
                                                  double t2, double y2) {
  const double d01 = (y1 - y0) / (t1 - t0);
  const double d12 = (y2 - y1) / (t2 - t1);
  const double curvature = (d12 - d01) / (t2 - t0);  // > 0 at a sampled minimum
  const double t_min = std::clamp(0.5 * (t0 + t1) - d01 / (2.0 * curvature), t0, t2);
  return {t_min, y0 + d01 * (t_min - t0) + curvature * (t_min - t0) * (t_min - t1)};
}

// Dense: std::pair<double, double> step(); void at(double t, State& out) const.
// Probe: void (const State&, Eigen::VectorXd& g) — the event functions.
// Inspect: void (const State&, const Eigen::VectorXd& g, const std::vector<char>& armed), called
//   at every sample (bookkeeping such as minima; it may throw RunFailure).
// Grid: void (double t_limit, bool inclusive) — report output-grid samples up to t_limit.
// The samples, event values and crossings live in buffers sized at the start of the phase: a step
// allocates nothing when the stepper, the probe and the inspection do not.
// The samples, event values and crossings of advance_to_event. A caller that keeps them from
// phase to phase (the event-driven solver) allocates them once per run instead of once per phase.
struct PhaseBuffers {
  Eigen::VectorXd g_prev, g, g_root, g_before;
  State xs, x_root;
  std::vector<char> armed;
  std::vector<std::pair<double, Eigen::Index>> crossings;
};

namespace phase_detail {

// The event function i of the dense output at t (into the buffers' root state and values).
template <class Dense, class Probe>
double event_at(Dense& dense, Probe& probe, PhaseBuffers& buffers, Eigen::Index i, double t) {
  dense.at(t, buffers.x_root);
  probe(buffers.x_root, buffers.g_root);
  return buffers.g_root(i);
}

// Every function that crosses in (t_prev, ts] is refined into buffers.crossings; the earliest
// crossing wins and crossings within the time tolerance of it are handled together.
template <class Dense, class Probe>
void straight_crossings(Dense& dense, Probe& probe, const std::vector<double>& threshold,
                        const PhaseControl& control, PhaseCounters& counters, PhaseBuffers& buffers,
                        double t_prev, double ts) {
  const Eigen::VectorXd& g_prev = buffers.g_prev;
  const Eigen::VectorXd& g = buffers.g;
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    // An unarmed function that falls from a positive sample to below −threshold crossed too: a
    // flight shorter and lower than the threshold (after a grazing lift-off, f rises to 1e-13 and
    // comes back) is real motion, while round-off at the start stays far inside ±threshold.
    const bool armed = buffers.armed[static_cast<std::size_t>(i)];
    const double before = g_prev(i);
    const double limit = threshold[static_cast<std::size_t>(i)];
    const bool falls = !armed && limit > 0.0 && before > 0.0 && g(i) < -limit;
    if (!(armed || falls) || !(g(i) < 0.0)) continue;
    const auto g_of_t = [&, i](double t) { return event_at(dense, probe, buffers, i, t); };
    const RootResult root =
        locate_root(g_of_t, t_prev, ts, std::max(g_prev(i), 0.0), g(i), control.event_time_tol);
    buffers.crossings.emplace_back(root.t, i);
    counters.max_bracket = std::max(counters.max_bracket, root.width);
  }
}

// A function positive at every sample can still dip below zero between them (λ touching zero at
// a grazing lift-off, f at a grazing contact): where the samples have a minimum at t_prev and the
// parabola through the last three goes below zero, the dense output of the current step (from
// ta) is searched for the minimum (Brent), and a negative one brackets the crossing. A minimum
// before the step's start cannot be searched and is counted.
template <class Dense, class Probe>
void dips_between_samples(Dense& dense, Probe& probe, const PhaseControl& control,
                          PhaseCounters& counters, PhaseBuffers& buffers, double ta,
                          double t_before, double t_prev, double ts) {
  const Eigen::VectorXd& g_before = buffers.g_before;
  const Eigen::VectorXd& g_prev = buffers.g_prev;
  const Eigen::VectorXd& g = buffers.g;
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    if (!buffers.armed[static_cast<std::size_t>(i)] || !(g(i) >= 0.0) || !(g_prev(i) > 0.0) ||
        !(g_prev(i) < g_before(i)) || !(g_prev(i) < g(i))) {
      continue;
    }
    const auto [t_vertex, predicted] =
        parabola_minimum(t_before, g_before(i), t_prev, g_prev(i), ts, g(i));
    if (!(predicted < 0.0)) continue;
    const double lo = t_vertex >= t_prev || t_before < ta ? t_prev : t_before;
    if (t_vertex < ta) {
      if (counters.dips_unsearched++ == 0) {
        counters.first_unsearched_time = t_vertex;
        counters.first_unsearched_value = predicted;
        counters.first_unsearched_function = i;
      }
      continue;
    }
    const auto g_of_t = [&, i](double t) { return event_at(dense, probe, buffers, i, t); };
    const auto [t_min, g_min] = boost::math::tools::brent_find_minima(
        g_of_t, lo, ts, std::numeric_limits<double>::digits / 2);
    if (!(g_min < 0.0)) continue;
    const double g_lo = lo == t_prev ? g_prev(i) : g_before(i);
    const RootResult root = locate_root(g_of_t, lo, t_min, g_lo, g_min, control.event_time_tol);
    buffers.crossings.emplace_back(root.t, i);
    counters.max_bracket = std::max(counters.max_bracket, root.width);
    ++counters.dips_found;
  }
}

template <class Dense, class Probe, class Inspect, class Grid>
PhaseEnd advance_phase(Dense& dense, const State& start, Probe& probe,
                       const std::vector<double>& threshold, const PhaseControl& control,
                       PhaseCounters& counters, Inspect& inspect, Grid& emit_grid,
                       PhaseBuffers& buffers) {
  Eigen::VectorXd& g_prev = buffers.g_prev;
  probe(start, g_prev);
  const Eigen::Index events = g_prev.size();
  Eigen::VectorXd& g = buffers.g;
  Eigen::VectorXd& g_root = buffers.g_root;
  g.resize(events);
  g_root.resize(events);
  State& xs = buffers.xs;
  State& x_root = buffers.x_root;
  xs = start;
  x_root = start;
  std::vector<char>& armed = buffers.armed;
  armed.resize(static_cast<std::size_t>(events));
  for (Eigen::Index i = 0; i < events; ++i) {
    armed[static_cast<std::size_t>(i)] = g_prev(i) > threshold[static_cast<std::size_t>(i)];
  }
  std::vector<std::pair<double, Eigen::Index>>& crossings = buffers.crossings;
  crossings.clear();
  crossings.reserve(static_cast<std::size_t>(events));
  double t_prev = start.t;
  // The sample before t_prev, for the dips between samples.
  Eigen::VectorXd& g_before = buffers.g_before;
  g_before.resize(events);
  double t_before = start.t;
  bool have_before = false;
  while (true) {
    if (static_cast<double>(counters.steps) >= control.max_steps) {
      throw RunFailure{Status::too_many_steps,
                       "more than " + format_number(control.max_steps) +
                           " steps before t = " + format_number(control.t_end)};
    }
    if (control.wall_time.exceeded(t_prev)) {
      throw RunFailure{Status::wall_time_exceeded, control.wall_time.stop_reason(t_prev)};
    }
    const auto [ta, tb] = dense.step();
    ++counters.steps;
    if (!(tb > ta) || tb - ta < 4.0 * std::numeric_limits<double>::epsilon() * std::abs(ta)) {
      throw RunFailure{Status::step_underflow, "step size underflow at t = " + format_number(ta)};
    }
    const double t_stop = std::min(tb, control.t_end);
    for (int s = 1; s <= control.samples_per_step; ++s) {
      const double ts = s == control.samples_per_step
                            ? t_stop
                            : ta + (t_stop - ta) * s / control.samples_per_step;
      if (ts <= t_prev) continue;
      dense.at(ts, xs);
      if (!all_finite(xs.q) || !all_finite(xs.v)) {
        throw RunFailure{Status::non_finite, "non-finite state at t = " + format_number(ts)};
      }
      probe(xs, g);
      if (!all_finite(g)) {
        throw RunFailure{Status::non_finite,
                         "non-finite event function (a constraint value or a "
                         "switching function) at t = " +
                             format_number(ts)};
      }
      crossings.clear();
      phase_detail::straight_crossings(dense, probe, threshold, control, counters, buffers, t_prev,
                                       ts);
      if (have_before) {
        phase_detail::dips_between_samples(dense, probe, control, counters, buffers, ta, t_before,
                                           t_prev, ts);
      }
      if (!crossings.empty()) {
        std::sort(crossings.begin(), crossings.end());
        const double t_event = crossings.front().first;
        const double tie = 10.0 * event_time_tolerance(control.event_time_tol, t_event);
        emit_grid(t_event, false);
        PhaseEnd end;
        dense.at(t_event, end.x);
        for (const auto& [t, i] : crossings) {
          if (t <= t_event + tie) end.crossed.push_back(i);
        }
        return end;
      }
      // A function arms above its threshold, or, where the threshold is positive, once it has
      // risen at two samples after the start while positive: a flight that stays below the
      // threshold (after a grazing lift-off f peaks at 1e-12 and comes back) is real motion,
      // and its return must be located (round-off at f = 0 does not rise steadily).
      for (Eigen::Index i = 0; i < events; ++i) {
        const double limit = threshold[static_cast<std::size_t>(i)];
        const bool rising = limit > 0.0 && t_prev > start.t && g_prev(i) > 0.0 && g(i) > g_prev(i);
        if (g(i) > limit || rising) armed[static_cast<std::size_t>(i)] = 1;
      }
      inspect(xs, g, armed);
      g_before = g_prev;
      t_before = t_prev;
      have_before = true;
      std::swap(g_prev, g);
      t_prev = ts;
    }
    emit_grid(t_stop, true);
    if (tb >= control.t_end) {
      PhaseEnd end;
      end.horizon = true;
      dense.at(control.t_end, end.x);
      return end;
    }
  }
}

}  // namespace phase_detail

template <class Dense, class Probe, class Inspect, class Grid>
PhaseEnd advance_to_event(Dense& dense, const State& start, Probe&& probe,
                          const std::vector<double>& threshold, const PhaseControl& control,
                          PhaseCounters& counters, Inspect&& inspect, Grid&& emit_grid,
                          PhaseBuffers& buffers) {
  buffers.xs = start;
  try {
    return phase_detail::advance_phase(dense, start, probe, threshold, control, counters, inspect,
                                       emit_grid, buffers);
  } catch (const RunFailure&) {
    if (all_finite(buffers.xs.q) && all_finite(buffers.xs.v)) counters.reached = buffers.xs;
    throw;
  }
}

// The same with buffers of its own.
template <class Dense, class Probe, class Inspect, class Grid>
PhaseEnd advance_to_event(Dense& dense, const State& start, Probe&& probe,
                          const std::vector<double>& threshold, const PhaseControl& control,
                          PhaseCounters& counters, Inspect&& inspect, Grid&& emit_grid) {
  PhaseBuffers buffers;
  return advance_to_event(dense, start, std::forward<Probe>(probe), threshold, control, counters,
                          std::forward<Inspect>(inspect), std::forward<Grid>(emit_grid), buffers);
}

// The caller's trajectory: samples on the output grid taken from a dense output, and rows at
// events. The time spent in the caller's callback (writing a CSV) is not the solve's: it is kept
// apart (RunRecord::output_time_s).
class SampleOutput {
 public:
  SampleOutput(const RunSettings& settings, double t0)
      : settings_(settings),
        next_(std::lower_bound(settings.output_times.begin(), settings.output_times.end(), t0)) {}

  bool wanted() const { return static_cast<bool>(settings_.on_sample); }

  void deliver(const TrajectorySample& s) {
    const auto started = std::chrono::steady_clock::now();
    settings_.on_sample(s);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

  // Every grid time before t_limit (and at it when `inclusive`), as make_sample(dense.at(t)).
  template <class Dense, class MakeSample>
  void grid(const Dense& dense, double t_limit, bool inclusive, MakeSample&& make_sample) {
    if (!wanted()) return;
    while (next_ != settings_.output_times.end() &&
           (*next_ < t_limit || (inclusive && *next_ == t_limit))) {
      dense.at(*next_, state_);
      deliver(make_sample(state_));
      ++next_;
    }
  }

  double seconds() const { return seconds_; }

 private:
  const RunSettings& settings_;
  std::vector<double>::const_iterator next_;
  State state_;
  double seconds_ = 0.0;
};

}  // namespace crbench
