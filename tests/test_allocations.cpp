// Heap allocations inside solver steps. malloc, calloc and realloc are replaced in this executable
// by counting wrappers around glibc's own (Eigen allocates through malloc, the standard library
// through operator new, which calls malloc). A solver step allocates nothing when two solves of
// the same problem with different step counts (and the same events) allocate the same number of
// times: everything allocated is then set-up, paid once per solve.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <limits>

#include "support.hpp"
#include "tests/fault_case.hpp"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
}

namespace {
long allocation_count = 0;
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  ++allocation_count;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  ++allocation_count;
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  ++allocation_count;
  return __libc_realloc(pointer, size);
}
}

using namespace crbench;

namespace {

struct Cost {
  long steps;
  long allocations;
  std::size_t events;
};

Cost count(const Model& model, const std::string& solver, std::vector<Assignment> params,
           double rtol = 1e-12, double t_end = std::numeric_limits<double>::quiet_NaN()) {
  testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(params);
  o.rtol = rtol;
  o.t_end = t_end;
  const long before = allocation_count;
  const RunRecord r = testing::solve(model, o);
  const long allocations = allocation_count - before;
  REQUIRE(r.status == Status::ok);
  return {r.steps, allocations, r.events.size()};
}

// Allocations per extra step between moreau-jean solves with h and h/10.
double moreau_jean_allocations_per_step(const Model& model) {
  const Cost coarse = count(model, "moreau-jean", {{"h", "1e-3"}});
  const Cost fine = count(model, "moreau-jean", {{"h", "1e-4"}});
  INFO(model.info().name << ": " << coarse.steps << " steps, " << coarse.allocations
                         << " allocations; " << fine.steps << " steps, " << fine.allocations);
  REQUIRE(fine.steps > coarse.steps);
  return static_cast<double>(fine.allocations - coarse.allocations) /
         static_cast<double>(fine.steps - coarse.steps);
}

// Allocations per extra step between two solves of the same problem, `coarse` and `fine` (more
// steps, the same events).
double allocations_per_extra_step(const Model& model, const std::string& solver,
                                  const std::vector<Assignment>& coarse_params, double coarse_rtol,
                                  const std::vector<Assignment>& fine_params, double fine_rtol,
                                  double t_end = std::numeric_limits<double>::quiet_NaN()) {
  const Cost coarse = count(model, solver, coarse_params, coarse_rtol, t_end);
  const Cost fine = count(model, solver, fine_params, fine_rtol, t_end);
  INFO(model.info().name << " by " << solver << ": " << coarse.steps << " steps, "
                         << coarse.allocations << " allocations; " << fine.steps << " steps, "
                         << fine.allocations);
  // Events allocate (their records, the next phase's set-up): the two solves must have the same.
  REQUIRE(fine.events == coarse.events);
  REQUIRE(fine.steps > coarse.steps + 100);
  return static_cast<double>(fine.allocations - coarse.allocations) /
         static_cast<double>(fine.steps - coarse.steps);
}

// An adaptive solver at rtol 1e-8 and 1e-12.
double adaptive_allocations_per_step(const Model& model, const std::string& solver,
                                     const std::vector<Assignment>& params) {
  return allocations_per_extra_step(model, solver, params, 1e-8, params, 1e-12);
}

// The event-driven solvers, whose steps on these cases are bounded by max_step_fraction: 1e-2
// and 1e-3 of the horizon.
double bounded_allocations_per_step(const Model& model, const std::string& solver,
                                    std::vector<Assignment> params,
                                    double t_end = std::numeric_limits<double>::quiet_NaN()) {
  std::vector<Assignment> fine = params;
  params.push_back({"max_step_fraction", "1e-2"});
  fine.push_back({"max_step_fraction", "1e-3"});
  return allocations_per_extra_step(model, solver, params, 1e-12, fine, 1e-12, t_end);
}

// dk-plane's motion (the fault-injection case without a fault) with a force that allocates on every
// evaluation, the way a std::vector temporary in a hot loop would (through a volatile function
// pointer, which the compiler cannot elide).
struct AllocatingForce : test_cases::FaultInjection {
  using FaultInjection::FaultInjection;
  static CaseInfo info() {
    CaseInfo info = FaultInjection::info();
    info.name = "test-allocating-force";
    return info;
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>& q, const Vec<S, n>& v, const S& t, Modes modes) const {
    static void* (*volatile allocate)(std::size_t) = std::malloc;
    std::free(allocate(64));
    return FaultInjection::force<S>(q, v, t, modes);
  }
};

}  // namespace

TEST_CASE("moreau-jean steps allocate nothing on dk-plane and particle-on-circle",
          "[allocations]") {
  // 27 000 more steps may not add even 270 allocations (the two solves' set-ups differ by a few:
  // the finer one had 7 fewer on dk-plane).
  CHECK(moreau_jean_allocations_per_step(*make_model("dk-plane", {})) <= 0.01);
  CHECK(moreau_jean_allocations_per_step(*make_model("particle-on-circle", {})) <= 0.01);
  // The sparse step of a chain case (100 balls 0.01 apart: binary impacts, one active contact).
  CHECK(moreau_jean_allocations_per_step(
            *make_model("ball-chain", {{"n", "100"}, {"gap", "0.01"}})) <= 0.01);
}

TEST_CASE("the allocation count sees an allocation put back into a step", "[allocations]") {
  // The negative variant: the same solver on dk-plane whose force allocates. moreau-jean evaluates
  // the force about three times per step (the point, its Jacobian, F at the step's end).
  const double per_step = moreau_jean_allocations_per_step(*testing::model_of<AllocatingForce>());
  CHECK(per_step >= 2.0);
}

TEST_CASE("realization steps allocate nothing on dk-plane and particle-on-circle",
          "[allocations]") {
  // The stiff phases (Rosenbrock with the AD Jacobian) at viscous N = 1e8, the underdamped ones
  // (DOP853) with the penalty at N = 1e6 (on particle-on-circle the penalty's grazing exits come
  // in numbers that depend on rtol), the non-stiff ones (dopri5) with the added mass.
  const auto dk_plane = make_model("dk-plane", {});
  const auto circle = make_model("particle-on-circle", {});
  for (const Model* model : {dk_plane.get(), circle.get()}) {
    CHECK(adaptive_allocations_per_step(*model, "realization",
                                        {{"preset", "viscous"}, {"N", "1e8"}}) <= 0.01);
    CHECK(adaptive_allocations_per_step(*model, "realization",
                                        {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}}) <= 0.01);
  }
  CHECK(adaptive_allocations_per_step(*dk_plane, "realization",
                                      {{"preset", "penalty"}, {"N", "1e6"}}) <= 0.01);
}

TEST_CASE("the allocation count sees an allocation put back into a realization step",
          "[allocations]") {
  const auto model = testing::model_of<AllocatingForce>();
  // The force is evaluated at six right-hand sides and once for the Jacobian per Rosenbrock step,
  // and at the event samples.
  CHECK(adaptive_allocations_per_step(*model, "realization",
                                      {{"preset", "viscous"}, {"N", "1e8"}}) >= 6.0);
}

TEST_CASE("event-driven and limit steps allocate nothing on dk-plane and particle-on-circle",
          "[allocations]") {
  const auto dk_plane = make_model("dk-plane", {});
  const auto circle = make_model("particle-on-circle", {});
  // The limit model on particle-on-circle up to t = 1, before λ's first zero (1.168): after it a
  // restart with λ at round-off level may cross zero again, and those phases, not recorded as
  // events, come in numbers that grow with the step count (each phase has its set-up).
  for (const Model* model : {dk_plane.get(), circle.get()}) {
    const double t_end = model == circle.get() ? 1.0 : model->horizon();
    CHECK(bounded_allocations_per_step(*model, "event-driven", {}) <= 0.01);
    CHECK(bounded_allocations_per_step(*model, "limit", {{"preset", "viscous"}}, t_end) <= 0.01);
    CHECK(bounded_allocations_per_step(
              *model, "limit", {{"alpha", "1"}, {"beta", "1"}, {"gamma", "1"}}, t_end) <= 0.01);
  }
}

TEST_CASE("the allocation count sees an allocation put back into an event-driven step",
          "[allocations]") {
  // dopri5 evaluates the force six times per step, the event functions four times more.
  const auto model = testing::model_of<AllocatingForce>();
  CHECK(bounded_allocations_per_step(*model, "event-driven", {}) >= 6.0);
}
