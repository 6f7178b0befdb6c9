// The DOP853 stepper (solvers/dop853.hpp) on problems with exact solutions: the harmonic
// oscillator (the undamped penalty spring it is used for) and a damped, forced one (time-dependent
// right-hand side: every node c_i is exercised).
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "crbench/solvers/dop853.hpp"

namespace {

struct Outcome {
  long steps;
  long rejected;
  double max_error;        // at the step ends
  double max_dense_error;  // at three interior points of every step
  bool stability_bound;    // Hairer's stiffness test fired at some step
};

// y'' + 2ζω y' + ω² y = ω² sin t from rest; exact solution by the formula for the forced, damped
// oscillator (ζ < 1).
Outcome solve(double omega, double zeta, double rtol, double t_end) {
  const auto exact = [omega, zeta](double t) {
    // Particular solution A sin t + B cos t, then the homogeneous part fitted to y(0) = y'(0) = 0.
    const double w2 = omega * omega;
    const double det = (w2 - 1.0) * (w2 - 1.0) + 4.0 * zeta * zeta * w2;
    const double A = w2 * (w2 - 1.0) / det;
    const double B = -w2 * 2.0 * zeta * omega / det;
    const double sigma = zeta * omega;
    const double wd = omega * std::sqrt(1.0 - zeta * zeta);
    const double C = -B;
    const double D = (-A + sigma * C) / wd;
    return A * std::sin(t) + B * std::cos(t) +
           std::exp(-sigma * t) * (C * std::cos(wd * t) + D * std::sin(wd * t));
  };
  const auto rhs = [omega, zeta](double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
    dy << y(1), omega * omega * (std::sin(t) - y(0)) - 2.0 * zeta * omega * y(1);
  };
  const double scale = 1.0;  // |y| is of order 1
  crbench::Dop853Dense stepper(Eigen::VectorXd::Constant(2, 1e-14 * scale), rtol, 0.0);
  stepper.initialize(Eigen::VectorXd::Zero(2), 0.0, 1e-3 / omega);
  Outcome out{0, 0, 0.0, 0.0, false};
  while (stepper.current_time() < t_end) {
    const auto [t0, t1] = stepper.do_step(rhs);
    ++out.steps;
    out.stability_bound = out.stability_bound || stepper.stability_bound();
    out.max_error = std::max(out.max_error, std::abs(stepper.current_state()(0) - exact(t1)));
    for (const double s : {0.25, 0.5, 0.8}) {
      const double t = t0 + s * (t1 - t0);
      out.max_dense_error =
          std::max(out.max_dense_error, std::abs(stepper.calc_state(t)(0) - exact(t)));
    }
  }
  out.rejected = stepper.rejected();
  return out;
}

}  // namespace

TEST_CASE("DOP853: 8th-order accuracy and dense output on forced oscillators", "[dop853]") {
  for (const double zeta : {0.0, 0.05, 0.5}) {
    const double omega = 1e3;
    const double t_end = 2.0;
    const Outcome loose = solve(omega, zeta, 1e-8, t_end);
    const Outcome tight = solve(omega, zeta, 1e-12, t_end);
    const double periods = omega * t_end / (2.0 * std::numbers::pi);
    INFO("zeta " << zeta << ": steps " << loose.steps << " / " << tight.steps << " (rejected "
                 << tight.rejected << "), errors " << loose.max_error << " / " << tight.max_error
                 << ", dense " << tight.max_dense_error << ", " << tight.steps / periods
                 << " steps per period at rtol 1e-12");
    // Over ~320 periods the global error stays within a few hundred times the tolerance (it
    // accumulates step by step) and the dense output is as good as the steps.
    CHECK(tight.max_error <= 1e-9);
    CHECK(tight.max_dense_error <= 1e-9);
    CHECK(loose.max_error <= 1e-5);
    // While the oscillation lasts the steps are set by accuracy: 1e4 times tighter costs about
    // 1e4^(1/8) = 3.2 times more steps for an order-8 method (an order-4 one: 10 times); a wrong
    // coefficient drops the order and breaks this. (At zeta = 0.5 the fast mode is gone after a
    // few periods and stability, not accuracy, sets the steps of the loose run.)
    const double ratio = static_cast<double>(tight.steps) / static_cast<double>(loose.steps);
    if (zeta <= 0.05) CHECK(ratio <= 4.5);
    // What it is used for: tens of steps per fast period at rtol 1e-12.
    CHECK(static_cast<double>(tight.steps) <= 60.0 * periods);
    // The stiffness test: an oscillation that lasts keeps the step set by accuracy; one damped at
    // zeta = 0.5 dies out within a few periods, and then stability sets the step.
    CHECK(tight.stability_bound == (zeta >= 0.5));
  }
}
