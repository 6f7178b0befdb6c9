// The one place crbench meets the Siconos kernel (solvers/siconos_bridge.cpp, the plugin
// siconos_kernel). The kernel's headers need C++17 (Boost.uBLAS 1.74 calls
// std::allocator::construct, gone in C++20), so the bridge is compiled as C++17 and speaks only
// standard types: a Lagrangian system given by callbacks, stepped by Siconos.
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
  // f_k(t, q), ∇f_k(t, q) into `gradient` (dof entries) and ∂f_k/∂t. Where `time_dependent` is
  // false f does not depend on t, the relations are scleronomous (LagrangianScleronomousR, f at
  // t0) and constraint_rate_t is not called; otherwise they are rheonomous
  // (LagrangianRheonomousR with h = f_k(t, q), ∂h/∂q = ∇f_k, ḣ = ∂f_k/∂t).
  bool time_dependent = false;
  std::function<double(double t, const double* q, int k)> constraint_value;
  std::function<void(double t, const double* q, int k, double* gradient)> constraint_gradient;
  std::function<double(double t, const double* q, int k)> constraint_rate_t;
  double restitution = 1.0;
  // Coulomb friction (empty: none): per constraint its coefficient μ_k and, through slip_row, the
  // row a_k(q) of its contact point's slip velocity a_k q̇ (dof entries). Each constraint is then
  // an interaction of dimension 2 (normal f_k, tangent a_k) with NewtonImpactFrictionNSL
  // (restitution on the normal, 0 on the tangent, μ_k), and the step's problem a FrictionContact
  // of dimension 2 (Siconos numerics' fc2d enumeration). Scleronomous relations and the
  // time-stepping simulation only.
  std::vector<double> friction;
  std::function<void(const double* q, int k, double* row)> slip_row;
  // Liu, Zhao & Brogliato's multiple-impact law (Proc. R. Soc. A 464, 2008; the kernel's
  // MultipleImpact with MultipleImpactNSL, "BiStiffness") in place of Newton's at the impacts of
  // the event-driven simulation, where impulse_step > 0: the impact integrated in the impulse of
  // its primary contact with that step, each contact k a spring of stiffness stiffness[k] and
  // exponent exponent[k] whose energy is given back with the energetic restitution
  // `restitution`; at most max_steps steps (the kernel throws past them). The time-stepping
  // simulation does not take it.
  struct MultipleImpactLaw {
    double impulse_step = 0.0;
    std::vector<double> stiffness, exponent;
    unsigned max_steps = 100000000;
  };
  MultipleImpactLaw multiple_impact;
  // Per constraint, 1 for a bilateral one (f_k = 0: an EqualityConditionNSL, its impulse of
  // either sign; the one-step problem is then an MLCP); empty for none. The event-driven
  // simulation does not take them.
  std::vector<char> bilateral;
  // Switching functions of a piecewise force (smooth while none changes sign). The event-driven
  // simulation stops at their roots and calls on_switch with the ones found there before the
  // kernel processes the stop; the time-stepping one does not look at them.
  int switches = 0;
  // The multipliers of the constraints marked in `closed` held as bilateral ones, f̈_k = 0
  // (A q̈ = F + Σ ∇f_k λ_k): the event-driven simulation's root function for a closed contact
  // (out has one entry per constraint; those not closed are not read).
  std::function<void(double t, const double* q, const double* v, const char* closed, double* out)>
      closed_forces;
  std::function<void(double t, const double* q, const double* v, double* s)> switching;
  std::function<void(const std::vector<int>& roots)> on_switch;
};

// Siconos's TimeStepping with MoreauJeanOSI(θ) and an LCP (Lemke) at each step, or with friction a
// FrictionContact, between the given times (from t0 to t_end, at least three of them). Errors of
// the kernel come out as std::runtime_error with its message.
class MoreauJeanTimeStepping {
 public:
  // Made by the plugin siconos_kernel (solvers/plugin.hpp); InputError when it cannot be loaded.
  static std::unique_ptr<MoreauJeanTimeStepping> create(const LagrangianProblem& problem,
                                                        double theta,
                                                        const std::vector<double>& times);
  virtual ~MoreauJeanTimeStepping() = default;

  virtual bool has_next() const = 0;
  // One step: computeOneStep, then the state is read, then nextStep.
  virtual void step() = 0;
  virtual double time() const = 0;
  virtual const std::vector<double>& q() const = 0;
  virtual const std::vector<double>& v() const = 0;
  // The impulse of the last step on constraint k (the interaction's λ(1); 0 before the first).
  virtual double impulse(int k) const = 0;
  // With friction, its tangential impulse (λ(1)'s second component; 0 without friction).
  virtual double tangential_impulse(int k) const = 0;
};

// Siconos's EventDriven simulation with LsodarOSI (ODEPACK's DLSODAR, Adams/BDF with root
// finding): smooth phases with the active contacts' forces from an LCP at the acceleration level,
// impacts by an LCP at the velocity level with Newton's law, contacts that open where their force
// crosses zero (the kernel's root functions: the gap of an open contact, the force of a closed
// one). It stops at every time given (from t0, at least three, the last ones t_end and one past
// it, which ends the kernel's discretisation but not the run) and at every nonsmooth event
// between them.
class EventDrivenSimulation {
 public:
  struct Tolerances {
    double rtol = 1e-12, atol = 1e-14;
    // The kernel's event tolerance (EventDriven::setToleranceED): |gap| below it is a contact.
    double contact = 1e-10;
  };
  // Made by the plugin siconos_kernel (solvers/plugin.hpp); InputError when it cannot be loaded.
  static std::unique_ptr<EventDrivenSimulation> create(const LagrangianProblem& problem,
                                                       const Tolerances& tolerances,
                                                       const std::vector<double>& times);
  virtual ~EventDrivenSimulation() = default;

  virtual bool has_next() const = 0;
  // Integrates to the next event and processes it (impact and acceleration LCPs, index sets).
  virtual void advance() = 0;
  virtual double time() const = 0;
  // The last event was a nonsmooth one (a root of the kernel's functions, or the start in
  // contact).
  virtual bool nonsmooth() const = 0;
  virtual const std::vector<double>& q() const = 0;
  virtual const std::vector<double>& v() const = 0;
  // The velocity just before the last event (the pre-impact velocity at an impact).
  virtual const std::vector<double>& v_before() const = 0;
  // Constraint k is closed after the last event (in the kernel's index set 2: its force is
  // computed by the acceleration-level LCP).
  virtual bool closed(int k) const = 0;
  // The force of constraint k after the last event (λ(2)), and the impulse of the impact at it
  // (λ(1); 0 without one).
  virtual double force(int k) const = 0;
  virtual double impulse(int k) const = 0;
  // The switching functions (LagrangianProblem::switches) that vanished at the last event.
  virtual const std::vector<int>& switch_roots() const = 0;
  // DLSODAR's steps and right-hand-side evaluations, summed over its restarts.
  virtual long steps() const = 0;
  virtual long rhs_evaluations() const = 0;
};

// The interface of the plugin siconos_kernel (solvers/siconos_bridge.cpp).
struct SiconosKernelPlugin {
  std::unique_ptr<MoreauJeanTimeStepping> (*moreau_jean)(const LagrangianProblem& problem,
                                                         double theta,
                                                         const std::vector<double>& times);
  std::unique_ptr<EventDrivenSimulation> (*event_driven)(
      const LagrangianProblem& problem, const EventDrivenSimulation::Tolerances& tolerances,
      const std::vector<double>& times);
};

}  // namespace crbench::siconos
