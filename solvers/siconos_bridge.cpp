// Compiled as C++17 (see solvers/siconos_bridge.hpp).
#include "crbench/solvers/siconos_bridge.hpp"

#include <SiconosKernel.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "crbench/solvers/plugin.hpp"

namespace crbench::siconos {

namespace {

SP::SiconosVector vector_of(const std::vector<double>& v) {
  auto out = std::make_shared<SiconosVector>(static_cast<unsigned>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) (*out)(static_cast<unsigned>(i)) = v[i];
  return out;
}

void copy_from(const SiconosVector& from, std::vector<double>& to) {
  to.resize(from.size());
  for (unsigned i = 0; i < from.size(); ++i) to[i] = from(i);
}

void copy_from(const BlockVector& from, std::vector<double>& to) {
  to.resize(from.size());
  for (unsigned i = 0; i < from.size(); ++i) to[i] = from.getValue(i);
}

// The problem as a Siconos Lagrangian system M(q) q̈ + F_int(t, q, q̇) = p with F_int = −F and
// its Jacobians −∂F/∂q, −∂F/∂q̇; Siconos forms its forces fExt − fInt − fGyr from them
// (LagrangianDS::computeForces), fExt and fGyr being absent.
class CallbackSystem : public LagrangianDS {
 public:
  explicit CallbackSystem(const LagrangianProblem& problem)
      : LagrangianDS(vector_of(problem.q0), vector_of(problem.v0)), problem_(problem) {
    const auto n = static_cast<unsigned>(problem.dof);
    _mass = std::make_shared<SimpleMatrix>(n, n);
    _hasConstantMass = false;
    _fInt = std::make_shared<SiconosVector>(n);
    _jacobianFIntq = std::make_shared<SimpleMatrix>(n, n);
    _jacobianFIntqDot = std::make_shared<SimpleMatrix>(n, n);
    computeMass(_q[0]);
  }

  void computeMass() override { computeMass(_q[0]); }
  void computeMass(SP::SiconosVector position) override {
    copy_from(*position, q_);
    buffer_.resize(q_.size() * q_.size());
    problem_.mass(q_.data(), buffer_.data());
    fill(*_mass, buffer_, 1.0);
    _mass->resetLU();
  }

  void computeFInt(double time) override { computeFInt(time, _q[0], _q[1]); }
  void computeFInt(double time, SP::SiconosVector q, SP::SiconosVector v) override {
    copy_from(*q, q_);
    copy_from(*v, v_);
    buffer_.resize(q_.size());
    problem_.force(time, q_.data(), v_.data(), buffer_.data());
    for (std::size_t i = 0; i < buffer_.size(); ++i)
      (*_fInt)(static_cast<unsigned>(i)) = -buffer_[i];
  }

  void computeJacobianFIntq(double time) override { computeJacobianFIntq(time, _q[0], _q[1]); }
  void computeJacobianFIntqDot(double time) override {
    computeJacobianFIntqDot(time, _q[0], _q[1]);
  }
  void computeJacobianFIntq(double time, SP::SiconosVector q, SP::SiconosVector v) override {
    jacobians(time, *q, *v);
    fill(*_jacobianFIntq, dq_, -1.0);
  }
  void computeJacobianFIntqDot(double time, SP::SiconosVector q, SP::SiconosVector v) override {
    jacobians(time, *q, *v);
    fill(*_jacobianFIntqDot, dv_, -1.0);
  }

 private:
  void jacobians(double time, const SiconosVector& q, const SiconosVector& v) {
    copy_from(q, q_);
    copy_from(v, v_);
    dq_.resize(q_.size() * q_.size());
    dv_.resize(q_.size() * q_.size());
    problem_.force_jacobians(time, q_.data(), v_.data(), dq_.data(), dv_.data());
  }
  static void fill(SiconosMatrix& to, const std::vector<double>& row_major, double factor) {
    const unsigned n = to.size(1);
    for (unsigned i = 0; i < to.size(0); ++i) {
      for (unsigned j = 0; j < n; ++j) to(i, j) = factor * row_major[i * n + j];
    }
  }

  const LagrangianProblem& problem_;
  std::vector<double> q_, v_, buffer_, dq_, dv_;
};

// Constraint k as a scleronomous relation: y = h(q) = f_k(q), ∂h/∂q = ∇f_k.
class CallbackRelation : public LagrangianScleronomousR {
 public:
  CallbackRelation(const LagrangianProblem& problem, int k) : problem_(problem), k_(k) {}

  void computeh(const BlockVector& q, BlockVector& /*z*/, SiconosVector& y) override {
    copy_from(q, q_);
    y.setValue(0, problem_.constraint_value(problem_.t0, q_.data(), k_));
  }
  void computeJachq(const BlockVector& q, BlockVector& /*z*/) override {
    copy_from(q, q_);
    gradient_.resize(q_.size());
    problem_.constraint_gradient(problem_.t0, q_.data(), k_, gradient_.data());
    for (std::size_t j = 0; j < q_.size(); ++j) {
      _jachq->setValue(0, static_cast<unsigned>(j), gradient_[j]);
    }
  }
  // EventDriven::computef calls this for every interaction once DLSODAR's x is loaded into the
  // system and before it solves the acceleration-level LCP: the first interaction's call runs
  // `before_lcp` (EventDrivenSimulation refreshes the free acceleration there).
  void computeJach(double time, Interaction& inter) override {
    LagrangianScleronomousR::computeJach(time, inter);
    if (k_ == 0 && before_lcp) before_lcp(time);
  }
  std::function<void(double)> before_lcp;

 protected:
  const LagrangianProblem& problem_;
  int k_;
  std::vector<double> q_, gradient_;
};

// Constraint k with Coulomb friction: y = (f_k(q), 0), ∂h/∂q = (∇f_k; a_k(q)), the second row the
// slip velocity's (NewtonImpactFrictionNSL reads y's second component as the tangential velocity,
// its position is never used).
class FrictionCallbackRelation : public CallbackRelation {
 public:
  using CallbackRelation::CallbackRelation;

  void computeh(const BlockVector& q, BlockVector& work, SiconosVector& y) override {
    CallbackRelation::computeh(q, work, y);
    y.setValue(1, 0.0);
  }
  void computeJachq(const BlockVector& q, BlockVector& work) override {
    CallbackRelation::computeJachq(q, work);
    gradient_.resize(q_.size());
    problem_.slip_row(q_.data(), k_, gradient_.data());
    for (std::size_t j = 0; j < q_.size(); ++j) {
      _jachq->setValue(1, static_cast<unsigned>(j), gradient_[j]);
    }
  }
};

// Constraint k when it depends on time, as a rheonomous relation: y = h(t, q) = f_k(t, q),
// ∂h/∂q = ∇f_k, ḣ = ∂f_k/∂t (MoreauJeanOSI adds it to the relative velocity; the kernel's
// event-driven scheme has no acceleration-level LCP for this relation).
class RheonomousCallbackRelation : public LagrangianRheonomousR {
 public:
  RheonomousCallbackRelation(const LagrangianProblem& problem, int k) : problem_(problem), k_(k) {}

  void computeh(double time, const BlockVector& q, BlockVector& /*z*/, SiconosVector& y) override {
    copy_from(q, q_);
    y.setValue(0, problem_.constraint_value(time, q_.data(), k_));
  }
  void computehDot(double time, const BlockVector& q, BlockVector& /*z*/) override {
    copy_from(q, q_);
    if (!_hDot) _hDot = std::make_shared<SiconosVector>(1);
    _hDot->setValue(0, problem_.constraint_rate_t(time, q_.data(), k_));
  }
  void computeJachq(double time, const BlockVector& q, BlockVector& /*z*/) override {
    copy_from(q, q_);
    gradient_.resize(q_.size());
    problem_.constraint_gradient(time, q_.data(), k_, gradient_.data());
    for (std::size_t j = 0; j < q_.size(); ++j) {
      _jachq->setValue(0, static_cast<unsigned>(j), gradient_[j]);
    }
  }

 private:
  const LagrangianProblem& problem_;
  int k_;
  std::vector<double> q_, gradient_;
};

// The kernel prints to std::cout before some of its exceptions (an interaction's display, the
// offending value) and on DLSODAR's failures: a record on stdout (`crbench run --json`) must not
// be mixed with it. While a kernel call runs, std::cout writes to a buffer; its last line goes
// into the error of a failed call.
class CapturedOutput {
 public:
  CapturedOutput() : previous_(std::cout.rdbuf(buffer_.rdbuf())) {}
  ~CapturedOutput() { std::cout.rdbuf(previous_); }
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;
  std::string last_line() const {
    std::istringstream lines(buffer_.str());
    std::string line, last;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t=") != std::string::npos) last = line;
    }
    return last;
  }

 private:
  std::ostringstream buffer_;
  std::streambuf* previous_;
};

template <class F>
auto translated(F&& f) -> decltype(f()) {
  const CapturedOutput output;
  try {
    return f();
  } catch (const Siconos::exception& e) {
    const std::string* message = boost::get_error_info<Siconos::exception::extra_message>(e);
    std::string text = "Siconos: ";
    text.append(message != nullptr ? *message : std::string("an exception"));
    const std::string printed = output.last_line();
    if (!printed.empty()) {
      text.append(" [the kernel printed: ");
      text.append(printed);
      text.append("]");
    }
    throw std::runtime_error(text);
  }
}

// The problem as a Siconos nonsmooth dynamical system: one CallbackSystem and, per constraint, an
// Interaction of a CallbackRelation with Newton's impact law.
struct SystemWithInteractions {
  std::shared_ptr<CallbackSystem> system;
  std::vector<SP::Interaction> interactions;
  std::vector<std::shared_ptr<CallbackRelation>> relations;
  SP::NonSmoothDynamicalSystem nsds;

  explicit SystemWithInteractions(const LagrangianProblem& problem)
      : system(std::make_shared<CallbackSystem>(problem)),
        nsds(std::make_shared<NonSmoothDynamicalSystem>(problem.t0, problem.t_end)) {
    nsds->insertDynamicalSystem(system);
    for (int k = 0; k < problem.constraints; ++k) {
      const bool equality = static_cast<std::size_t>(k) < problem.bilateral.size() &&
                            problem.bilateral[static_cast<std::size_t>(k)] != 0;
      SP::NonSmoothLaw law;
      if (equality) {
        law = std::make_shared<EqualityConditionNSL>(1);
      } else if (problem.multiple_impact.impulse_step > 0.0) {
        const auto at = static_cast<std::size_t>(k);
        law = std::make_shared<MultipleImpactNSL>(problem.restitution,
                                                  problem.multiple_impact.stiffness.at(at),
                                                  problem.multiple_impact.exponent.at(at));
      } else if (!problem.friction.empty()) {
        law = std::make_shared<NewtonImpactFrictionNSL>(
            problem.restitution, 0.0, problem.friction.at(static_cast<std::size_t>(k)), 2);
      } else {
        law = std::make_shared<NewtonImpactNSL>(problem.restitution);
      }
      if (!problem.friction.empty()) {
        auto relation = std::make_shared<FrictionCallbackRelation>(problem, k);
        relations.push_back(relation);
        interactions.push_back(std::make_shared<Interaction>(law, relation));
      } else if (problem.time_dependent) {
        interactions.push_back(std::make_shared<Interaction>(
            law, std::make_shared<RheonomousCallbackRelation>(problem, k)));
      } else {
        auto relation = std::make_shared<CallbackRelation>(problem, k);
        relations.push_back(relation);
        interactions.push_back(std::make_shared<Interaction>(law, relation));
      }
      nsds->link(interactions.back(), system);
    }
  }
};

double first_value(const SP::SiconosVector& v) { return v ? v->getValue(0) : 0.0; }

// The kernel's EventDriven with two changes to DLSODAR's root functions (the kernel's: the gap of
// an open contact, the LCP force of a closed one).
// - The force of a closed contact is that of the closed contacts held as bilateral constraints
//   (problem.closed_forces): the LCP's while it is positive, continued below zero past the
//   lift-off, where the LCP's stays at 0. DLSODAR refines a root only across a sign change: with
//   the LCP's force it stopped at the end of the step that reached 0 (particle-on-circle lifted
//   off 2.7e-8 late, its force already -4.6e-8).
// - The problem's switching functions are appended, so that DLSODAR stops where the force changes
//   its mode instead of stepping across the discontinuity (dk-plane: 4e5 steps of 5e-14 at the
//   switch without them).
class SwitchingEventDriven : public EventDriven {
 public:
  SwitchingEventDriven(SP::NonSmoothDynamicalSystem nsds, SP::TimeDiscretisation td,
                       const LagrangianProblem& problem, std::shared_ptr<CallbackSystem> system,
                       std::vector<SP::Interaction> interactions)
      : EventDriven(nsds, std::move(td)),
        problem_(problem),
        system_(std::move(system)),
        interactions_(std::move(interactions)),
        nsds_(std::move(nsds)) {}

  unsigned int computeSizeOfg() override {
    kernel_roots_ = EventDriven::computeSizeOfg();
    return kernel_roots_ + static_cast<unsigned int>(problem_.switches);
  }
  // The kernel's own root functions first (they load DLSODAR's x into the system's q, q̇), with
  // the free acceleration of this x (the kernel would use that of the last right-hand side).
  void computeg(SP::OneStepIntegrator osi, integer* sizeX, doublereal* time, doublereal* x,
                integer* sizeG, doublereal* g) override {
    auto& lsodar = static_cast<LsodarOSI&>(*osi);
    lsodar.fillXWork(sizeX, x);
    lsodar.computeRhs(*time);
    EventDriven::computeg(osi, sizeX, time, x, sizeG, g);
    copy_from(*system_->q(), q_);
    copy_from(*system_->velocity(), v_);
    // The kernel's root functions follow its index set 0, one per interaction (a scalar law).
    const auto all = nsds_->topology()->indexSet(0);
    const auto closed_set = nsds_->topology()->indexSet(2);
    closed_.assign(interactions_.size(), 0);
    slot_.assign(interactions_.size(), -1);
    bool any_closed = false;
    InteractionsGraph::VIterator vi, vend;
    int entry = 0;
    for (std::tie(vi, vend) = all->vertices(); vi != vend; ++vi, ++entry) {
      const auto inter = all->bundle(*vi);
      for (std::size_t k = 0; k < interactions_.size(); ++k) {
        if (interactions_[k] != inter) continue;
        slot_[k] = entry;
        if (closed_set->is_vertex(inter)) closed_[k] = any_closed = true;
      }
    }
    if (any_closed && problem_.closed_forces) {
      forces_.assign(interactions_.size(), 0.0);
      problem_.closed_forces(*time, q_.data(), v_.data(), closed_.data(), forces_.data());
      for (std::size_t k = 0; k < interactions_.size(); ++k) {
        if (closed_[k] && slot_[k] >= 0) g[slot_[k]] = forces_[k];
      }
    }
    if (problem_.switches > 0) {
      problem_.switching(*time, q_.data(), v_.data(), g + kernel_roots_);
    }
  }
  unsigned int kernel_roots() const { return kernel_roots_; }

 private:
  const LagrangianProblem& problem_;
  std::shared_ptr<CallbackSystem> system_;
  std::vector<SP::Interaction> interactions_;
  SP::NonSmoothDynamicalSystem nsds_;
  unsigned int kernel_roots_ = 0;
  std::vector<double> q_, v_, forces_;
  std::vector<char> closed_;
  std::vector<int> slot_;
};

}  // namespace

// The bridge's two simulations (solvers/siconos_bridge.hpp) on the kernel.
class KernelTimeStepping final : public MoreauJeanTimeStepping {
 public:
  KernelTimeStepping(const LagrangianProblem& problem, double theta,
                     const std::vector<double>& times);
  ~KernelTimeStepping() override = default;
  KernelTimeStepping(const KernelTimeStepping&) = delete;
  KernelTimeStepping& operator=(const KernelTimeStepping&) = delete;
  bool has_next() const override;
  void step() override;
  double time() const override;
  const std::vector<double>& q() const override;
  const std::vector<double>& v() const override;
  double impulse(int k) const override;
  double tangential_impulse(int k) const override;

 private:
  // The kernel's objects of this run and what was last read from them.
  struct Run {
    LagrangianProblem problem;
    std::shared_ptr<CallbackSystem> system;
    std::vector<SP::Interaction> interactions;
    SP::TimeStepping simulation;
    std::vector<double> q, v, impulses, tangential;
    double time = 0.0, final_time = 0.0;
  };
  Run run_;
};

class KernelEventDriven final : public EventDrivenSimulation {
 public:
  KernelEventDriven(const LagrangianProblem& problem, const Tolerances& tolerances,
                    const std::vector<double>& times);
  ~KernelEventDriven() override = default;
  KernelEventDriven(const KernelEventDriven&) = delete;
  KernelEventDriven& operator=(const KernelEventDriven&) = delete;
  bool has_next() const override;
  void advance() override;
  double time() const override;
  bool nonsmooth() const override;
  const std::vector<double>& q() const override;
  const std::vector<double>& v() const override;
  const std::vector<double>& v_before() const override;
  bool closed(int k) const override;
  double force(int k) const override;
  double impulse(int k) const override;
  const std::vector<int>& switch_roots() const override;
  long steps() const override;
  long rhs_evaluations() const override;

 private:
  // The kernel's objects of this run and what was last read from them.
  struct Run {
    LagrangianProblem problem;
    std::shared_ptr<CallbackSystem> system;
    std::vector<SP::Interaction> interactions;
    SP::NonSmoothDynamicalSystem nsds;
    std::shared_ptr<LsodarOSI> integrator;
    std::shared_ptr<SwitchingEventDriven> simulation;
    std::vector<double> q, v, v_before, forces, impulses;
    std::vector<int> switch_roots;
    std::vector<char> closed;
    double time = 0.0, final_time = 0.0;
    bool nonsmooth = false;
    // DLSODAR's counters restart with it (after each nonsmooth event): the totals of the finished
    // runs, and the last values seen in the current one.
    long steps_done = 0, evaluations_done = 0, steps_now = 0, evaluations_now = 0;

    void read_state() {
      copy_from(*system->q(), q);
      copy_from(*system->velocity(), v);
      const auto closed_set = nsds->topology()->indexSet(2);
      for (std::size_t k = 0; k < interactions.size(); ++k) {
        closed[k] = closed_set->is_vertex(interactions[k]) ? 1 : 0;
        forces[k] = first_value(interactions[k]->lambda(2));
        impulses[k] = first_value(interactions[k]->lambda(1));
      }
    }
    void read_counters() {
      const auto iwork = integrator->getIwork();
      const long steps = iwork[10], evaluations = iwork[11];
      if (steps < steps_now || evaluations < evaluations_now) {
        steps_done += steps_now;
        evaluations_done += evaluations_now;
      }
      steps_now = steps;
      evaluations_now = evaluations;
    }
  };
  Run run_;
};

KernelTimeStepping::KernelTimeStepping(const LagrangianProblem& problem, double theta,
                                       const std::vector<double>& times) {
  translated([&] {
    Run& s = run_;
    s.problem = problem;
    SystemWithInteractions built(s.problem);
    s.system = built.system;
    s.interactions = built.interactions;
    auto nsds = built.nsds;
    auto integrator = std::make_shared<MoreauJeanOSI>(theta);
    auto discretisation = std::make_shared<TimeDiscretisation>(times);
    // Siconos's Lemke LCP, or with bilateral constraints its MLCP (enumeration) over the equality
    // rows and the complementarity rows together.
    const bool equalities =
        std::any_of(problem.bilateral.begin(), problem.bilateral.end(), [](char b) { return b; });
    SP::OneStepNSProblem one_step;
    if (!problem.friction.empty()) {
      // The two-dimensional frictional contact problem; the enumeration of the contacts' modes
      // (Lemke's method on its LCP form may end on a ray and report success with no impulse).
      one_step = std::make_shared<FrictionContact>(2, SICONOS_FRICTION_2D_ENUM);
    } else if (equalities) {
      one_step = std::make_shared<MLCP>();
    } else {
      one_step = std::make_shared<LCP>();
    }
    s.simulation = std::make_shared<TimeStepping>(nsds, discretisation, integrator, one_step);
    s.q = problem.q0;
    s.v = problem.v0;
    s.time = problem.t0;
    s.final_time = times.back();
    return 0;
  });
}

bool KernelTimeStepping::has_next() const {
  // The last time ends the run: past it, a discretisation given by its times has no next one.
  return translated([&] { return run_.time < run_.final_time && run_.simulation->hasNextEvent(); });
}

void KernelTimeStepping::step() {
  translated([&] {
    Run& s = run_;
    s.simulation->computeOneStep();
    s.time = s.simulation->nextTime();
    copy_from(*s.system->q(), s.q);
    copy_from(*s.system->velocity(), s.v);
    s.impulses.assign(s.interactions.size(), 0.0);
    s.tangential.assign(s.interactions.size(), 0.0);
    for (std::size_t k = 0; k < s.interactions.size(); ++k) {
      const SP::SiconosVector impulse = s.interactions[k]->lambda(1);
      s.impulses[k] = first_value(impulse);
      if (impulse && impulse->size() > 1) s.tangential[k] = impulse->getValue(1);
    }
    // Not past a non-finite state: the kernel's next index-set update asserts on a NaN gap and
    // aborts the process (Debian's 4.4 keeps its assertions); the caller ends the run there.
    const auto finite = [](const std::vector<double>& x) {
      return std::all_of(x.begin(), x.end(), [](double value) { return std::isfinite(value); });
    };
    if (s.time < s.final_time && finite(s.q) && finite(s.v)) s.simulation->nextStep();
    return 0;
  });
}

double KernelTimeStepping::time() const { return run_.time; }
const std::vector<double>& KernelTimeStepping::q() const { return run_.q; }
const std::vector<double>& KernelTimeStepping::v() const { return run_.v; }

double KernelTimeStepping::tangential_impulse(int k) const {
  const auto& tangential = run_.tangential;
  return static_cast<std::size_t>(k) < tangential.size() ? tangential[static_cast<std::size_t>(k)]
                                                         : 0.0;
}

double KernelTimeStepping::impulse(int k) const {
  const auto& impulses = run_.impulses;
  return static_cast<std::size_t>(k) < impulses.size() ? impulses[static_cast<std::size_t>(k)]
                                                       : 0.0;
}

KernelEventDriven::KernelEventDriven(const LagrangianProblem& problem, const Tolerances& tolerances,
                                     const std::vector<double>& times) {
  translated([&] {
    Run& s = run_;
    if (std::any_of(problem.bilateral.begin(), problem.bilateral.end(), [](char b) { return b; })) {
      throw std::invalid_argument("EventDrivenSimulation: bilateral constraints");
    }
    if (problem.time_dependent) {
      throw std::invalid_argument(
          "EventDrivenSimulation: the kernel's LsodarOSI has no acceleration-level LCP for a "
          "LagrangianRheonomousR");
    }
    s.problem = problem;
    SystemWithInteractions built(s.problem);
    s.system = built.system;
    s.interactions = built.interactions;
    s.nsds = built.nsds;
    const std::size_t m = s.interactions.size();
    s.closed.assign(m, 0);
    s.forces.assign(m, 0.0);
    s.impulses.assign(m, 0.0);
    s.integrator = std::make_shared<LsodarOSI>();
    auto discretisation = std::make_shared<TimeDiscretisation>(times);
    s.simulation = std::make_shared<SwitchingEventDriven>(s.nsds, discretisation, s.problem,
                                                          s.system, s.interactions);
    s.simulation->insertIntegrator(s.integrator);
    // Siconos 4.4's EventDriven::computef solves the acceleration-level LCP with the free
    // acceleration M⁻¹F (LsodarOSI's work vector FREE) of the previous right-hand side, computed
    // at another state: DLSODAR then sees a right-hand side that is not a function of (t, x), and
    // on particle-on-circle its steps fell to 1e-8 without reaching the lift-off. Recomputed at
    // the state being evaluated, before the LCP.
    if (!built.relations.empty()) {
      LsodarOSI* integrator = s.integrator.get();
      built.relations.front()->before_lcp = [integrator](double t) { integrator->computeRhs(t); };
    }
    s.simulation->associate(s.integrator, s.system);
    if (problem.multiple_impact.impulse_step > 0.0) {
      auto impact =
          std::make_shared<MultipleImpact>("BiStiffness", problem.multiple_impact.impulse_step);
      impact->SetNstepMax(problem.multiple_impact.max_steps);
      s.simulation->insertNonSmoothProblem(impact, SICONOS_OSNSP_ED_IMPACT);
    } else {
      s.simulation->insertNonSmoothProblem(std::make_shared<LCP>(), SICONOS_OSNSP_ED_IMPACT);
    }
    s.simulation->insertNonSmoothProblem(std::make_shared<LCP>(), SICONOS_OSNSP_ED_SMOOTH_ACC);
    // A static of the kernel's EventDriven: set for this simulation (one Siconos solve at a time).
    s.simulation->setToleranceED(tolerances.contact);
    s.simulation->initialize();
    // The array form: LsodarOSI's scalar setTol copies rtol into atol.
    SA::doublereal rtol(new doublereal[1]), atol(new doublereal[1]);
    rtol[0] = tolerances.rtol;
    atol[0] = tolerances.atol;
    s.integrator->setTol(1, rtol, atol);
    // No bound on DLSODAR's steps between two stops (its default is 500).
    s.integrator->setMaxNstep(std::numeric_limits<int>::max());
    s.time = problem.t0;
    s.final_time = problem.t_end;
    copy_from(*s.system->q(), s.q);
    copy_from(*s.system->velocity(), s.v);
    s.v_before = s.v;
    return 0;
  });
}

bool KernelEventDriven::has_next() const {
  return translated([&] { return run_.time < run_.final_time && run_.simulation->hasNextEvent(); });
}

void KernelEventDriven::advance() {
  translated([&] {
    Run& s = run_;
    s.simulation->advanceToEvent();
    s.read_counters();
    copy_from(*s.system->velocity(), s.v_before);
    s.nonsmooth = s.simulation->eventsManager()->nextEvent()->getType() == NS_EVENT;
    s.switch_roots.clear();
    if (s.nonsmooth && s.problem.switches > 0) {
      // DLSODAR's root flags of its last call (a stop at a root ends that call).
      const auto jroot = s.integrator->getJroot();
      for (int j = 0; j < s.problem.switches; ++j) {
        if (jroot[static_cast<long>(s.simulation->kernel_roots()) + j] != 0) {
          s.switch_roots.push_back(j);
        }
      }
      if (!s.switch_roots.empty()) {
        s.problem.on_switch(s.switch_roots);
        // The free acceleration the kernel's LCPs read (LsodarOSI's work vector FREE) is that of
        // the last right-hand side, before the force changed its mode: recomputed at the stop.
        s.integrator->computeRhs(s.simulation->nextTime());
      }
    }
    s.simulation->processEvents();
    s.time = s.simulation->startingTime();
    s.read_state();
    return 0;
  });
}

double KernelEventDriven::time() const { return run_.time; }
bool KernelEventDriven::nonsmooth() const { return run_.nonsmooth; }
const std::vector<double>& KernelEventDriven::q() const { return run_.q; }
const std::vector<double>& KernelEventDriven::v() const { return run_.v; }
const std::vector<double>& KernelEventDriven::v_before() const { return run_.v_before; }
const std::vector<int>& KernelEventDriven::switch_roots() const { return run_.switch_roots; }
bool KernelEventDriven::closed(int k) const {
  return run_.closed.at(static_cast<std::size_t>(k)) != 0;
}
double KernelEventDriven::force(int k) const { return run_.forces.at(static_cast<std::size_t>(k)); }
double KernelEventDriven::impulse(int k) const {
  return run_.impulses.at(static_cast<std::size_t>(k));
}
long KernelEventDriven::steps() const { return run_.steps_done + run_.steps_now; }
long KernelEventDriven::rhs_evaluations() const {
  return run_.evaluations_done + run_.evaluations_now;
}

namespace {

std::unique_ptr<MoreauJeanTimeStepping> make_moreau_jean(const LagrangianProblem& problem,
                                                         double theta,
                                                         const std::vector<double>& times) {
  return std::make_unique<KernelTimeStepping>(problem, theta, times);
}

std::unique_ptr<EventDrivenSimulation> make_event_driven(
    const LagrangianProblem& problem, const EventDrivenSimulation::Tolerances& tolerances,
    const std::vector<double>& times) {
  return std::make_unique<KernelEventDriven>(problem, tolerances, times);
}

const SiconosKernelPlugin kPlugin{make_moreau_jean, make_event_driven};

}  // namespace

}  // namespace crbench::siconos

CRBENCH_PLUGIN_ENTRY(siconos_kernel) { return &crbench::siconos::kPlugin; }
