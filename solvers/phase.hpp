// One smooth phase of an event-driven integration, shared by the solvers that stop at events.
// A dense-output stepper advances; after each step the event functions g_i are sampled at a few
// points of the step, and the first sign change of an armed g_i (from > 0 to < 0) is bracketed
// and refined by TOMS 748 (solvers/events.hpp). A function is armed once it has been seen above
// its threshold, so that a function that starts at 0 (a constraint just left) does not fire at
// the instant it starts.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/cases/params.hpp"
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

// A failure that ends a run with a status (not an input error, not a crash).
struct RunFailure {
  std::string status;
  std::string reason;
};

// Runs a solve's body; a RunFailure, or an error of the Odeint integrator (status step_failure,
// its message followed by `where()`), ends the run as a record with its status and reason instead
// of an exception, so that the other points of a study are still computed.
template <class Body, class Where>
void end_run_on_failure(RunRecord& record, Body&& body, Where&& where) {
  try {
    body();
  } catch (const RunFailure& failure) {
    record.status = failure.status;
    record.reason = failure.reason;
  } catch (const boost::numeric::odeint::odeint_error& e) {
    record.status = "step_failure";
    record.reason = std::string("integrator: ") + e.what() + where();
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
};

// Dense: std::pair<double, double> step(); void at(double t, State& out) const.
// Probe: void (const State&, Eigen::VectorXd& g) — the event functions.
// Inspect: void (const State&, const Eigen::VectorXd& g, const std::vector<char>& armed), called
//   at every sample (bookkeeping such as minima; it may throw RunFailure).
// Grid: void (double t_limit, bool inclusive) — report output-grid samples up to t_limit.
// The samples, event values and crossings live in buffers sized at the start of the phase: a step
// allocates nothing when the stepper, the probe and the inspection do not.
template <class Dense, class Probe, class Inspect, class Grid>
PhaseEnd advance_to_event(Dense& dense, const State& start, Probe&& probe,
                          const std::vector<double>& threshold, const PhaseControl& control,
                          PhaseCounters& counters, Inspect&& inspect, Grid&& emit_grid) {
  Eigen::VectorXd g_prev;
  probe(start, g_prev);
  const Eigen::Index events = g_prev.size();
  Eigen::VectorXd g(events), g_root(events);
  State xs = start, x_root = start;
  std::vector<char> armed(static_cast<std::size_t>(events));
  for (Eigen::Index i = 0; i < events; ++i) {
    armed[static_cast<std::size_t>(i)] = g_prev(i) > threshold[static_cast<std::size_t>(i)];
  }
  std::vector<std::pair<double, Eigen::Index>> crossings;
  crossings.reserve(static_cast<std::size_t>(events));
  double t_prev = start.t;
  while (true) {
    if (static_cast<double>(counters.steps) >= control.max_steps) {
      throw RunFailure{"too_many_steps", "more than " + format_number(control.max_steps) +
                                             " steps before t = " + format_number(control.t_end)};
    }
    if (control.wall_time.exceeded()) {
      throw RunFailure{"wall_time_exceeded", "the solve took more than max_wall_time = " +
                                                 format_number(control.wall_time.seconds()) +
                                                 " s; stopped at t = " + format_number(t_prev)};
    }
    const auto [ta, tb] = dense.step();
    ++counters.steps;
    if (!(tb > ta) || tb - ta < 4.0 * std::numeric_limits<double>::epsilon() * std::abs(ta)) {
      throw RunFailure{"step_underflow", "step size underflow at t = " + format_number(ta)};
    }
    const double t_stop = std::min(tb, control.t_end);
    for (int s = 1; s <= control.samples_per_step; ++s) {
      const double ts = s == control.samples_per_step
                            ? t_stop
                            : ta + (t_stop - ta) * s / control.samples_per_step;
      if (ts <= t_prev) continue;
      dense.at(ts, xs);
      if (!all_finite(xs.q) || !all_finite(xs.v)) {
        throw RunFailure{"non_finite", "non-finite state at t = " + format_number(ts)};
      }
      probe(xs, g);
      if (!all_finite(g)) {
        throw RunFailure{"non_finite",
                         "non-finite event function (a constraint value or a "
                         "switching function) at t = " +
                             format_number(ts)};
      }
      // Every function that crosses in (t_prev, ts] is refined; the earliest crossing wins and
      // crossings within the time tolerance of it are handled together.
      crossings.clear();
      for (Eigen::Index i = 0; i < events; ++i) {
        if (!armed[static_cast<std::size_t>(i)] || !(g(i) < 0.0)) continue;
        const auto g_of_t = [&, i](double t) {
          dense.at(t, x_root);
          probe(x_root, g_root);
          return g_root(i);
        };
        const RootResult root =
            locate_root(g_of_t, t_prev, ts, std::max(g_prev(i), 0.0), g(i), control.event_time_tol);
        crossings.emplace_back(root.t, i);
        counters.max_bracket = std::max(counters.max_bracket, root.width);
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
      for (Eigen::Index i = 0; i < events; ++i) {
        if (g(i) > threshold[static_cast<std::size_t>(i)]) armed[static_cast<std::size_t>(i)] = 1;
      }
      inspect(xs, g, armed);
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
