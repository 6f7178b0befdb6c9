// Compiled as C++17 (see solvers/siconos_bridge.hpp).
#include "crbench/solvers/siconos_bridge.hpp"

#include <SiconosKernel.hpp>
#include <stdexcept>
#include <string>

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
    f_.resize(static_cast<std::size_t>(problem_.constraints));
    problem_.constraint_values(q_.data(), f_.data());
    y.setValue(0, f_[static_cast<std::size_t>(k_)]);
  }
  void computeJachq(const BlockVector& q, BlockVector& /*z*/) override {
    copy_from(q, q_);
    jacobian_.resize(static_cast<std::size_t>(problem_.constraints) * q_.size());
    problem_.constraint_jacobian(q_.data(), jacobian_.data());
    for (std::size_t j = 0; j < q_.size(); ++j) {
      _jachq->setValue(0, static_cast<unsigned>(j),
                       jacobian_[static_cast<std::size_t>(k_) * q_.size() + j]);
    }
  }

 private:
  const LagrangianProblem& problem_;
  int k_;
  std::vector<double> q_, f_, jacobian_;
};

template <class F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Siconos::exception& e) {
    const std::string* message = boost::get_error_info<Siconos::exception::extra_message>(e);
    throw std::runtime_error("Siconos: " +
                             (message != nullptr ? *message : std::string("an exception")));
  }
}

}  // namespace

struct MoreauJeanTimeStepping::Impl {
  LagrangianProblem problem;
  std::shared_ptr<CallbackSystem> system;
  std::vector<SP::Interaction> interactions;
  SP::TimeStepping simulation;
  std::vector<double> q, v, impulses;
  double time = 0.0, final_time = 0.0;
};

MoreauJeanTimeStepping::MoreauJeanTimeStepping(const LagrangianProblem& problem, double theta,
                                               const std::vector<double>& times)
    : impl_(std::make_unique<Impl>()) {
  translated([&] {
    Impl& s = *impl_;
    s.problem = problem;
    s.system = std::make_shared<CallbackSystem>(s.problem);
    auto nsds = std::make_shared<NonSmoothDynamicalSystem>(problem.t0, problem.t_end);
    nsds->insertDynamicalSystem(s.system);
    for (int k = 0; k < problem.constraints; ++k) {
      auto law = std::make_shared<NewtonImpactNSL>(problem.restitution);
      auto relation = std::make_shared<CallbackRelation>(s.problem, k);
      s.interactions.push_back(std::make_shared<Interaction>(law, relation));
      nsds->link(s.interactions.back(), s.system);
    }
    auto integrator = std::make_shared<MoreauJeanOSI>(theta);
    auto discretisation = std::make_shared<TimeDiscretisation>(times);
    auto lcp = std::make_shared<LCP>();
    s.simulation = std::make_shared<TimeStepping>(nsds, discretisation, integrator, lcp);
    s.q = problem.q0;
    s.v = problem.v0;
    s.time = problem.t0;
    s.final_time = times.back();
    return 0;
  });
}

MoreauJeanTimeStepping::~MoreauJeanTimeStepping() = default;

bool MoreauJeanTimeStepping::has_next() const {
  // The last time ends the run: past it, a discretisation given by its times has no next one.
  return translated(
      [&] { return impl_->time < impl_->final_time && impl_->simulation->hasNextEvent(); });
}

void MoreauJeanTimeStepping::step() {
  translated([&] {
    Impl& s = *impl_;
    s.simulation->computeOneStep();
    s.time = s.simulation->nextTime();
    copy_from(*s.system->q(), s.q);
    copy_from(*s.system->velocity(), s.v);
    s.impulses.assign(s.interactions.size(), 0.0);
    for (std::size_t k = 0; k < s.interactions.size(); ++k) {
      const auto& lambda = s.interactions[k]->lambda(1);
      if (lambda) s.impulses[k] = lambda->getValue(0);
    }
    if (s.time < s.final_time) s.simulation->nextStep();
    return 0;
  });
}

double MoreauJeanTimeStepping::time() const { return impl_->time; }
const std::vector<double>& MoreauJeanTimeStepping::q() const { return impl_->q; }
const std::vector<double>& MoreauJeanTimeStepping::v() const { return impl_->v; }

double MoreauJeanTimeStepping::impulse(int k) const {
  const auto& impulses = impl_->impulses;
  return static_cast<std::size_t>(k) < impulses.size() ? impulses[static_cast<std::size_t>(k)]
                                                       : 0.0;
}

}  // namespace crbench::siconos
