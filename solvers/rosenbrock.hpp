// A 4th-order Rosenbrock method with error control and dense output, on Eigen vectors.
//
// Why not Boost.Odeint's rosenbrock4 directly: it is written for uBLAS vectors and matrices, and
// Boost 1.74's uBLAS (Debian 12) does not compile as C++20 (it calls std::allocator::construct,
// which C++20 removed). This is a port of Odeint's rosenbrock4 / rosenbrock4_controller /
// rosenbrock4_dense_output (Boost 1.74) to Eigen: the same coefficients (the L-stable, stiffly
// accurate RODAS-type set with γ = 1/4 of Hairer & Wanner), the same six stages, error estimate,
// RMS error norm, step-size controller (with Gustafsson's predictive rule) and 3rd-order dense
// output. One LU factorization of (I/(γh) − J) per attempted step, its rows equilibrated first.
//
// One deliberate difference: d4, the weight of ∂f/∂t in the fourth stage, is −0.0362 as in
// Hairer's RODAS (D4), not Odeint's +0.0362. With Odeint's sign the method loses its order on
// non-autonomous problems (∂f/∂t ≠ 0) while autonomous ones never notice: on Prothero–Robinson,
// y' = −λ(y − sin t) + cos t, λ = 10, rtol 1e-8 on [0, 2], Odeint's rosenbrock4 takes 7411 steps
// for an error of 7.3e-6 (this port with +0.0362 reproduces that exactly), with −0.0362 it takes
// 163 steps for 5.0e-9. tests/test_rosenbrock.cpp keeps this checked. Moving constraints
// (vibrating-table) are non-autonomous.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "crbench/solvers/small_lu.hpp"

namespace crbench {

class RosenbrockDense {
 public:
  // `atol` holds one absolute tolerance per component (the one change from Odeint's controller,
  // whose absolute tolerance is a scalar).
  RosenbrockDense(Eigen::VectorXd atol, double rtol, double max_dt)
      : atol_(std::move(atol)), rtol_(rtol), max_dt_(max_dt) {}

  void initialize(const Eigen::VectorXd& x0, double t0, double dt0) {
    x_ = x0;
    t_ = t0;
    dt_ = dt0;
    first_step_ = true;
    last_rejected_ = false;
  }

  // Rhs: void (double t, const Eigen::VectorXd& x, Eigen::VectorXd& dxdt), dxdt already sized.
  // Jac: void (double t, const Eigen::VectorXd& x, Eigen::MatrixXd& J, Eigen::VectorXd& dfdt).
  // Every vector and matrix of a step is a member, sized at the first step: a step allocates
  // nothing when rhs and jac do not.
  template <class Rhs, class Jac>
  std::pair<double, double> do_step(Rhs&& rhs, Jac&& jac) {
    t_old_ = t_;
    x_old_ = x_;
    for (int attempt = 0; attempt < 500; ++attempt) {
      if (try_step(rhs, jac)) return {t_old_, t_};
    }
    throw boost::numeric::odeint::step_adjustment_error(
        "rosenbrock: 500 rejected steps in a row (step size adjustment failed)");
  }

  // The system as Odeint's implicit steppers take it: the pair (rhs, jac).
  template <class Rhs, class Jac>
  std::pair<double, double> do_step(std::pair<Rhs, Jac>& system) {
    return do_step(system.first, system.second);
  }

  // The dense output on [t_old, t].
  void calc_state(double t, Eigen::VectorXd& out) const {
    const double s = (t - t_old_) / (t_ - t_old_);
    const double s1 = 1.0 - s;
    out = x_old_ * s1 + s * (x_ + s1 * (cont3_ + s * cont4_));
  }
  Eigen::VectorXd calc_state(double t) const {
    Eigen::VectorXd out;
    calc_state(t, out);
    return out;
  }

  double current_time() const { return t_; }
  double step_size() const { return dt_; }
  const Eigen::VectorXd& current_state() const { return x_; }
  long attempts() const { return attempts_; }
  long rejected() const { return rejected_; }
  // Steps taken at the resolution floor of t with an error estimate above 1 (see try_step).
  long accepted_above_tolerance() const { return accepted_above_tolerance_; }

  // The shortest step: kResolutionSteps spacings of doubles at t. A transient faster than that
  // (a viscous medium at βN = 1e14 near t = 1 relaxes in 1e-14, 45 spacings of 1) cannot be
  // followed in t at all: below the floor t + h rounds to a few representable times, and a
  // controller that keeps halving the step ends in a step of zero length. At the floor the
  // L-stable method is still stable (it damps every stiff mode whatever hλ), so the step is
  // taken and counted instead.
  static constexpr double kResolutionSteps = 16.0;
  static double resolution_floor(double t) {
    return kResolutionSteps * std::numeric_limits<double>::epsilon() * std::abs(t);
  }

 private:
  // Odeint's default_rosenbrock_coefficients.
  static constexpr double gamma = 0.25, d1 = 0.25, d2 = -0.1043, d3 = 0.1035,
                          d4 = -0.3620000000000023e-01, c2 = 0.386, c3 = 0.21, c4 = 0.63,
                          c21 = -0.5668800000000000e+01, a21 = 0.1544000000000000e+01,
                          c31 = -0.2430093356833875e+01, c32 = -0.2063599157091915e+00,
                          a31 = 0.9466785280815826e+00, a32 = 0.2557011698983284e+00,
                          c41 = -0.1073529058151375e+00, c42 = -0.9594562251023355e+01,
                          c43 = -0.2047028614809616e+02, a41 = 0.3314825187068521e+01,
                          a42 = 0.2896124015972201e+01, a43 = 0.9986419139977817e+00,
                          c51 = 0.7496443313967647e+01, c52 = -0.1024680431464352e+02,
                          c53 = -0.3399990352819905e+02, c54 = 0.1170890893206160e+02,
                          a51 = 0.1221224509226641e+01, a52 = 0.6019134481288629e+01,
                          a53 = 0.1253708332932087e+02, a54 = -0.6878860361058950e+00,
                          c61 = 0.8083246795921522e+01, c62 = -0.7981132988064893e+01,
                          c63 = -0.3152159432874371e+02, c64 = 0.1631930543123136e+02,
                          c65 = -0.6058818238834054e+01, d21 = 0.1012623508344586e+02,
                          d22 = -0.7487995877610167e+01, d23 = -0.3480091861555747e+02,
                          d24 = -0.7992771707568823e+01, d25 = 0.1025137723295662e+01,
                          d31 = -0.6762803392801253e+00, d32 = 0.6087714651680015e+01,
                          d33 = 0.1643084320892478e+02, d34 = 0.2476722511418386e+02,
                          d35 = -0.6594389125716872e+01;

  template <class Rhs, class Jac>
  bool try_step(Rhs& rhs, Jac& jac) {
    if (max_dt_ > 0.0 && dt_ > max_dt_) dt_ = max_dt_;
    const double t = t_old_;
    const double floor = resolution_floor(t);
    dt_ = std::max(dt_, floor);
    ++attempts_;
    const double dt = dt_;
    const Eigen::VectorXd& x = x_old_;
    const Eigen::Index n = x.size();
    if (dxdt_.size() != n) resize(n);

    rhs(t, x, dxdt_);
    jac(t, x, J_, dfdt_);
    // Rows equilibrated before partial pivoting (Golub & Van Loan, Matrix Computations, §3.5.2):
    // a stiff row (entries of order βN) would otherwise be chosen as the pivot of columns it only
    // couples weakly, and the round-off of its right-hand side, harmless to its own component,
    // would spread to the others.
    W_ = -J_;
    W_.diagonal().array() += 1.0 / (gamma * dt);
    row_scale_ = W_.rowwise().lpNorm<Eigen::Infinity>().cwiseInverse();
    W_ = row_scale_.asDiagonal() * W_;
    scaled_lu_.compute(W_);
    // g = W⁻¹ b for the b in b_.
    const auto lu_solve = [&](Eigen::VectorXd& g) {
      b_ = row_scale_.cwiseProduct(b_);
      solve_small_lu(scaled_lu_, b_, solve_work_);
      g = b_;
    };

    b_ = dxdt_ + dt * d1 * dfdt_;
    lu_solve(g1_);
    x_tmp_ = x + a21 * g1_;
    rhs(t + c2 * dt, x_tmp_, f_);
    b_ = f_ + dt * d2 * dfdt_ + c21 * g1_ / dt;
    lu_solve(g2_);
    x_tmp_ = x + a31 * g1_ + a32 * g2_;
    rhs(t + c3 * dt, x_tmp_, f_);
    b_ = f_ + dt * d3 * dfdt_ + (c31 * g1_ + c32 * g2_) / dt;
    lu_solve(g3_);
    x_tmp_ = x + a41 * g1_ + a42 * g2_ + a43 * g3_;
    rhs(t + c4 * dt, x_tmp_, f_);
    b_ = f_ + dt * d4 * dfdt_ + (c41 * g1_ + c42 * g2_ + c43 * g3_) / dt;
    lu_solve(g4_);
    x_tmp_ = x + a51 * g1_ + a52 * g2_ + a53 * g3_ + a54 * g4_;
    rhs(t + dt, x_tmp_, f_);
    b_ = f_ + (c51 * g1_ + c52 * g2_ + c53 * g3_ + c54 * g4_) / dt;
    lu_solve(g5_);
    x_tmp_ += g5_;
    rhs(t + dt, x_tmp_, f_);
    b_ = f_ + (c61 * g1_ + c62 * g2_ + c63 * g3_ + c64 * g4_ + c65 * g5_) / dt;
    lu_solve(x_err_);
    Eigen::VectorXd& x_new = x_tmp_;
    x_new += x_err_;
    const Eigen::VectorXd& x_err = x_err_;

    // RMS of err_i / (atol + rtol·max(|x_old,i|, |x_new,i|)).
    double err = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double sk = atol_(i) + rtol_ * std::max(std::abs(x(i)), std::abs(x_new(i)));
      err += x_err(i) * x_err(i) / (sk * sk);
    }
    err = std::sqrt(err / static_cast<double>(n));
    if (!std::isfinite(err)) err = 1e10;

    constexpr double safe = 0.9, fac1 = 5.0, fac2 = 1.0 / 6.0;
    double fac = std::max(fac2, std::min(fac1, std::pow(err, 0.25) / safe));
    double dt_new = dt / fac;
    const bool at_floor = dt <= floor;
    if (err <= 1.0 || at_floor) {
      if (err > 1.0) ++accepted_above_tolerance_;
      if (first_step_) {
        first_step_ = false;
      } else {
        double fac_pred = (dt_old_ / dt) * std::pow(err * err / err_old_, 0.25) / safe;
        fac_pred = std::max(fac2, std::min(fac1, fac_pred));
        fac = std::max(fac, fac_pred);
        dt_new = dt / fac;
      }
      dt_old_ = dt;
      err_old_ = std::max(0.01, err);
      if (last_rejected_) dt_new = std::min(dt_new, dt);
      t_ = t + dt;
      x_ = x_new;
      dt_ = max_dt_ > 0.0 ? std::min(max_dt_, dt_new) : dt_new;
      last_rejected_ = false;
      cont3_ = d21 * g1_ + d22 * g2_ + d23 * g3_ + d24 * g4_ + d25 * g5_;
      cont4_ = d31 * g1_ + d32 * g2_ + d33 * g3_ + d34 * g4_ + d35 * g5_;
      return true;
    }
    dt_ = dt_new;
    last_rejected_ = true;
    ++rejected_;
    return false;
  }

  void resize(Eigen::Index n) {
    for (Eigen::VectorXd* v : {&dxdt_, &dfdt_, &row_scale_, &b_, &f_, &x_tmp_, &x_err_, &g1_, &g2_,
                               &g3_, &g4_, &g5_, &cont3_, &cont4_, &solve_work_}) {
      v->resize(n);
    }
    J_.resize(n, n);
    W_.resize(n, n);
    scaled_lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(n);
  }

  Eigen::VectorXd atol_;
  double rtol_, max_dt_;
  Eigen::VectorXd x_, x_old_, g1_, g2_, g3_, g4_, g5_, cont3_, cont4_;
  Eigen::VectorXd dxdt_, dfdt_, row_scale_, b_, f_, x_tmp_, x_err_, solve_work_;
  Eigen::MatrixXd J_, W_;
  Eigen::PartialPivLU<Eigen::MatrixXd> scaled_lu_;
  double t_ = 0.0, t_old_ = 0.0, dt_ = 0.0, dt_old_ = 0.0, err_old_ = 0.0;
  bool first_step_ = true, last_rejected_ = false;
  long attempts_ = 0, rejected_ = 0, accepted_above_tolerance_ = 0;
};

}  // namespace crbench
