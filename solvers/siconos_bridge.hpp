// The one place crbench meets the Siconos kernel (solvers/siconos_bridge.cpp). The kernel's
// headers need C++17 (Boost.uBLAS 1.74 calls std::allocator::construct, gone in C++20), so the
// bridge is compiled as C++17 and speaks only standard types: a Lagrangian system given by
// callbacks, stepped by Siconos.
#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace crbench::siconos {

// M(q) q̈ = F(t, q, q̇) + Σ_k ∇f_k(q) λ_k with unilateral constraints f_k(q) ≥ 0 and Newton's
// impact law. Matrices are row-major.
struct LagrangianProblem {
  int dof = 0;
  int constraints = 0;
  double t0 = 0.0, t_end = 0.0;
  std::vector<double> q0, v0;
  std::function<void(const double* q, double* mass)> mass;
  std::function<void(double t, const double* q, const double* v, double* force)> force;
  std::function<void(double t, const double* q, const double* v, double* dF_dq, double* dF_dv)>
      force_jacobians;
  std::function<void(const double* q, double* f)> constraint_values;
  std::function<void(const double* q, double* jacobian)> constraint_jacobian;
  double restitution = 1.0;
};

// Siconos's TimeStepping with MoreauJeanOSI(θ) and an LCP (Lemke) at each step between the given
// times (from t0 to t_end, at least three of them). Errors of the kernel come out as
// std::runtime_error with its message.
class MoreauJeanTimeStepping {
 public:
  MoreauJeanTimeStepping(const LagrangianProblem& problem, double theta,
                         const std::vector<double>& times);
  ~MoreauJeanTimeStepping();
  MoreauJeanTimeStepping(const MoreauJeanTimeStepping&) = delete;
  MoreauJeanTimeStepping& operator=(const MoreauJeanTimeStepping&) = delete;

  bool has_next() const;
  // One step: computeOneStep, then the state is read, then nextStep.
  void step();
  double time() const;
  const std::vector<double>& q() const;
  const std::vector<double>& v() const;
  // The impulse of the last step on constraint k (the interaction's λ(1); 0 before the first).
  double impulse(int k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crbench::siconos
