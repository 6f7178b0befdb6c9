// The impulse of a constraint's reaction over a smooth phase, ∫λ dt, by Gauss–Legendre quadrature
// on each stretch of the phase's dense output between the times the phase reports (the end of a
// step, or the event that ends the phase). The steps stay those the integrator chose for the
// state; the reaction is evaluated at three nodes per stretch (exact for polynomials of degree 5,
// beyond the order of the dense outputs it reads).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>

namespace crbench {

class ImpulseQuadrature {
 public:
  // Starts a phase at t (no quadrature before it).
  void start(int constraints, double t) {
    if (total_.size() != constraints) total_ = Eigen::VectorXd::Zero(constraints);
    from_ = t;
  }

  // Adds ∫_{from}^{t} λ dt, λ(s) written by reaction(s, out) (out has one entry per constraint,
  // zero for the constraints without a reaction); `acting` false skips the stretch (no reaction
  // acts: λ = 0).
  template <class Reaction>
  void advance(double t, bool acting, Reaction&& reaction) {
    if (!(t > from_)) return;
    if (acting) {
      // Nodes ±√(3/5) and 0 on [−1, 1], weights 5/9 and 8/9.
      static const double node = std::sqrt(0.6);
      const std::array<double, 3> nodes{-node, 0.0, node};
      const std::array<double, 3> weights{5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
      const double half = 0.5 * (t - from_), middle = 0.5 * (t + from_);
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        reaction(middle + half * nodes[i], lambda_);
        total_ += (half * weights[i]) * lambda_;
        ++evaluations_;
      }
    }
    from_ = t;
  }

  // An impact's impulse P_k on constraint k.
  void add(int k, double impulse) { total_(k) += impulse; }

  const Eigen::VectorXd& total() const { return total_; }
  long evaluations() const { return evaluations_; }

 private:
  Eigen::VectorXd total_, lambda_;
  double from_ = 0.0;
  long evaluations_ = 0;
};

}  // namespace crbench
