// Dormand & Prince's explicit Runge–Kutta method of order 5 with an embedded error estimator of
// order 4 and a dense output of order 4 (Hairer, Nørsett & Wanner, Solving Ordinary Differential
// Equations I, 2nd ed., Springer 1993, §II.5 and §II.6), as Boost.Odeint 1.74 computes it with
// make_dense_output(atol, rtol, max_dt, runge_kutta_dopri5<std::vector<double>>()): the same
// coefficients, the same order of every sum and product, the same step-size control
// (default_error_checker, default_step_adjuster, at most 500 tries a step) and the same dense
// output, so that it gives the same numbers bit for bit (tests/test_dopri5.cpp compares the two
// step for step).
//
// Why here: the event-driven solver's smooth phases take a few dozen steps of a four-variable
// system, each followed by four samples of the dense output. With so few variables, Odeint's
// generic algebra over std::vector (a loop object per operation, its resizers) cost as much as the
// method's arithmetic (docs/internals.md has the timings). The storage is allocated at initialize
// and reused.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace crbench {

class Dopri5Dense {
 public:
  // One absolute and one relative tolerance for every component (Odeint's error checker with
  // a_x = a_dxdt = 1); max_dt > 0 bounds the step.
  Dopri5Dense(double atol, double rtol, double max_dt)
      : atol_(atol), rtol_(rtol), max_dt_(max_dt) {}

  // Starts at (t0, y0) with the trial step dt0. The first do_step evaluates the derivative there.
  void initialize(const double* y0, std::size_t size, double t0, double dt0) {
    n_ = size;
    for (auto* v : {&x1_, &x2_, &dxdt1_, &dxdt2_, &k2_, &k3_, &k4_, &k5_, &k6_, &x_tmp_, &x_err_}) {
      v->assign(n_, 0.0);
    }
    std::copy(y0, y0 + n_, x1_.begin());
    current_is_1_ = true;
    t_ = t0;
    dt_ = dt0;
    deriv_initialized_ = false;
  }
  void initialize(const Eigen::VectorXd& y0, double t0, double dt0) {
    initialize(y0.data(), static_cast<std::size_t>(y0.size()), t0, dt0);
  }

  // Rhs: void (double t, const double* y, double* dydt), n values each. One accepted step:
  // returns (t_old, t_new). A step size not found in 500 tries throws Odeint's
  // step_adjustment_error with Odeint's message.
  template <class Rhs>
  std::pair<double, double> do_step(Rhs&& rhs) {
    if (!deriv_initialized_) {
      rhs(t_, current_x().data(), current_deriv().data());
      deriv_initialized_ = true;
    }
    t_old_ = t_;
    int tries = 0;
    bool accepted = false;
    do {
      accepted = try_step(rhs);
      if (tries++ >= kMaxTries) {
        throw boost::numeric::odeint::step_adjustment_error("Max number of iterations exceeded (" +
                                                            std::to_string(kMaxTries) +
                                                            "). A new step size was not found.");
      }
    } while (!accepted);
    current_is_1_ = !current_is_1_;
    return {t_old_, t_};
  }

  // The dense output on [t_old, t_new] (Hairer, Nørsett & Wanner p. 191–192): y(t) = y_old +
  // h Σ b_i(θ) k_i, as Odeint's runge_kutta_dopri5::calc_state.
  void calc_state(double t, double* x) const {
    constexpr double b1 = 35.0 / 384.0;
    constexpr double b3 = 500.0 / 1113.0;
    constexpr double b4 = 125.0 / 192.0;
    constexpr double b5 = -2187.0 / 6784.0;
    constexpr double b6 = 11.0 / 84.0;
    const double dt = t_ - t_old_;
    const double theta = (t - t_old_) / dt;
    const double X1 = 5.0 * (2558722523.0 - 31403016.0 * theta) / 11282082432.0;
    const double X3 = 100.0 * (882725551.0 - 15701508.0 * theta) / 32700410799.0;
    const double X4 = 25.0 * (443332067.0 - 31403016.0 * theta) / 1880347072.0;
    const double X5 = 32805.0 * (23143187.0 - 3489224.0 * theta) / 199316789632.0;
    const double X6 = 55.0 * (29972135.0 - 7076736.0 * theta) / 822651844.0;
    const double X7 = 10.0 * (7414447.0 - 829305.0 * theta) / 29380423.0;
    const double theta_m_1 = theta - 1.0;
    const double theta_sq = theta * theta;
    const double A = theta_sq * (3.0 - 2.0 * theta);
    const double B = theta_sq * theta_m_1;
    const double C = theta_sq * theta_m_1 * theta_m_1;
    const double D = theta * theta_m_1 * theta_m_1;
    const double a1 = dt * (A * b1 - C * X1 + D);
    const double a3 = dt * (A * b3 + C * X3);
    const double a4 = dt * (A * b4 - C * X4);
    const double a5 = dt * (A * b5 + C * X5);
    const double a6 = dt * (A * b6 - C * X6);
    const double a7 = dt * (B + C * X7);
    const std::vector<double>& x_old = old_state();
    const std::vector<double>& k1 = old_deriv();
    const std::vector<double>& k7 = current_deriv();
    for (std::size_t i = 0; i < n_; ++i) {
      x[i] = 1.0 * x_old[i] + a1 * k1[i] + a3 * k3_[i] + a4 * k4_[i] + a5 * k5_[i] + a6 * k6_[i] +
             a7 * k7[i];
    }
  }

  void calc_state(double t, Eigen::VectorXd& x) const {
    x.resize(static_cast<Eigen::Index>(n_));
    calc_state(t, x.data());
  }

  double current_time() const { return t_; }
  double step_size() const { return dt_; }
  const std::vector<double>& current_state() const { return current_is_1_ ? x1_ : x2_; }

 private:
  static constexpr int kMaxTries = 500;

  std::vector<double>& current_x() { return current_is_1_ ? x1_ : x2_; }
  std::vector<double>& current_deriv() { return current_is_1_ ? dxdt1_ : dxdt2_; }
  std::vector<double>& old_state() { return current_is_1_ ? x2_ : x1_; }
  std::vector<double>& old_deriv() { return current_is_1_ ? dxdt2_ : dxdt1_; }
  const std::vector<double>& old_state() const { return current_is_1_ ? x2_ : x1_; }
  const std::vector<double>& old_deriv() const { return current_is_1_ ? dxdt2_ : dxdt1_; }
  const std::vector<double>& current_deriv() const { return current_is_1_ ? dxdt1_ : dxdt2_; }

  // Odeint's controlled_runge_kutta<…, explicit_error_stepper_fsal_tag>::try_step from the
  // current state into the old one's storage: true and t advanced when the step is accepted,
  // false with a smaller dt when it is not.
  template <class Rhs>
  bool try_step(Rhs& rhs) {
    // default_step_adjuster::check_step_size_limit
    if (!(dt_ - max_dt_ <= std::numeric_limits<double>::epsilon())) {
      dt_ = max_dt_;
      return false;
    }
    step(rhs, current_x(), current_deriv(), t_, old_state(), old_deriv(), dt_);
    // default_error_checker::error: |err| / (atol + rtol (|x| + |dt| |x'|)), then its largest.
    const std::vector<double>& x = current_x();
    const std::vector<double>& dxdt = current_deriv();
    const double a_dxdt = 1.0 * std::abs(dt_);
    double max_rel_err = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {
      x_err_[i] = std::abs(x_err_[i]) /
                  (atol_ + rtol_ * (1.0 * std::abs(x[i]) + a_dxdt * std::abs(dxdt[i])));
      max_rel_err = std::max(max_rel_err, std::abs(x_err_[i]));
    }
    if (max_rel_err > 1.0) {
      // default_step_adjuster::decrease_step with error order 4
      dt_ *= std::max(9.0 / 10.0 * std::pow(max_rel_err, -1.0 / (4 - 1)), 1.0 / 5.0);
      dt_ = std::min(dt_, max_dt_);
      return false;
    }
    t_ += dt_;
    // default_step_adjuster::increase_step with stepper order 5
    if (max_rel_err < 0.5) {
      max_rel_err = std::max(std::pow(5.0, -5.0), max_rel_err);
      dt_ *= 9.0 / 10.0 * std::pow(max_rel_err, -1.0 / 5);
      dt_ = std::min(dt_, max_dt_);
    }
    return true;
  }

  // runge_kutta_dopri5::do_step_impl with the error estimate: out, dxdt_out at t + dt, the error
  // into x_err_, the stages k3…k6 kept for the dense output.
  template <class Rhs>
  void step(Rhs& rhs, const std::vector<double>& in, const std::vector<double>& dxdt_in, double t,
            std::vector<double>& out, std::vector<double>& dxdt_out, double dt) {
    constexpr double a2 = 1.0 / 5.0, a3 = 3.0 / 10.0, a4 = 4.0 / 5.0, a5 = 8.0 / 9.0;
    constexpr double b21 = 1.0 / 5.0;
    constexpr double b31 = 3.0 / 40.0, b32 = 9.0 / 40.0;
    constexpr double b41 = 44.0 / 45.0, b42 = -56.0 / 15.0, b43 = 32.0 / 9.0;
    constexpr double b51 = 19372.0 / 6561.0, b52 = -25360.0 / 2187.0, b53 = 64448.0 / 6561.0,
                     b54 = -212.0 / 729.0;
    constexpr double b61 = 9017.0 / 3168.0, b62 = -355.0 / 33.0, b63 = 46732.0 / 5247.0,
                     b64 = 49.0 / 176.0, b65 = -5103.0 / 18656.0;
    constexpr double c1 = 35.0 / 384.0, c3 = 500.0 / 1113.0, c4 = 125.0 / 192.0,
                     c5 = -2187.0 / 6784.0, c6 = 11.0 / 84.0;
    constexpr double dc1 = c1 - 5179.0 / 57600.0, dc3 = c3 - 7571.0 / 16695.0,
                     dc4 = c4 - 393.0 / 640.0, dc5 = c5 - -92097.0 / 339200.0,
                     dc6 = c6 - 187.0 / 2100.0, dc7 = -1.0 / 40.0;
    const std::size_t n = n_;
    double* x = x_tmp_.data();
    {
      const double s2 = dt * b21;
      for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 * in[i] + s2 * dxdt_in[i];
    }
    rhs(t + dt * a2, x, k2_.data());
    {
      const double s2 = dt * b31, s3 = dt * b32;
      for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 * in[i] + s2 * dxdt_in[i] + s3 * k2_[i];
    }
    rhs(t + dt * a3, x, k3_.data());
    {
      const double s2 = dt * b41, s3 = dt * b42, s4 = dt * b43;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = 1.0 * in[i] + s2 * dxdt_in[i] + s3 * k2_[i] + s4 * k3_[i];
      }
    }
    rhs(t + dt * a4, x, k4_.data());
    {
      const double s2 = dt * b51, s3 = dt * b52, s4 = dt * b53, s5 = dt * b54;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = 1.0 * in[i] + s2 * dxdt_in[i] + s3 * k2_[i] + s4 * k3_[i] + s5 * k4_[i];
      }
    }
    rhs(t + dt * a5, x, k5_.data());
    {
      const double s2 = dt * b61, s3 = dt * b62, s4 = dt * b63, s5 = dt * b64, s6 = dt * b65;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] =
            1.0 * in[i] + s2 * dxdt_in[i] + s3 * k2_[i] + s4 * k3_[i] + s5 * k4_[i] + s6 * k5_[i];
      }
    }
    rhs(t + dt, x, k6_.data());
    {
      const double s2 = dt * c1, s3 = dt * c3, s4 = dt * c4, s5 = dt * c5, s6 = dt * c6;
      for (std::size_t i = 0; i < n; ++i) {
        out[i] =
            1.0 * in[i] + s2 * dxdt_in[i] + s3 * k3_[i] + s4 * k4_[i] + s5 * k5_[i] + s6 * k6_[i];
      }
    }
    rhs(t + dt, out.data(), dxdt_out.data());
    {
      const double e1 = dt * dc1, e3 = dt * dc3, e4 = dt * dc4, e5 = dt * dc5, e6 = dt * dc6,
                   e7 = dt * dc7;
      for (std::size_t i = 0; i < n; ++i) {
        x_err_[i] = e1 * dxdt_in[i] + e3 * k3_[i] + e4 * k4_[i] + e5 * k5_[i] + e6 * k6_[i] +
                    e7 * dxdt_out[i];
      }
    }
  }

  double atol_, rtol_, max_dt_;
  std::size_t n_ = 0;
  // Odeint's dense output keeps two states and two derivatives and swaps their roles each step.
  std::vector<double> x1_, x2_, dxdt1_, dxdt2_;
  std::vector<double> k2_, k3_, k4_, k5_, k6_, x_tmp_, x_err_;
  bool current_is_1_ = true;
  bool deriv_initialized_ = false;
  double t_ = 0.0, t_old_ = 0.0, dt_ = 0.0;
};

}  // namespace crbench
