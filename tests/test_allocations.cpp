// Heap allocations inside solver steps. malloc, calloc and realloc are replaced in this executable
// by counting wrappers around glibc's own (Eigen allocates through malloc, the standard library
// through operator new, which calls malloc). A solver step allocates nothing when two solves of
// the same problem with different step counts (and the same events) allocate the same number of
// times: everything allocated is then set-up, paid once per solve.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "cases/dk_plane.hpp"
#include "support.hpp"

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
};

Cost count(const Model& model, const std::string& solver, std::vector<Assignment> params) {
  testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(params);
  const long before = allocation_count;
  const RunRecord r = testing::solve(model, o);
  const long allocations = allocation_count - before;
  REQUIRE(r.status == "ok");
  return {r.steps, allocations};
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

// dk-plane with a force that allocates on every evaluation, the way a std::vector temporary in a
// hot loop would (through a volatile function pointer, which the compiler cannot elide).
struct AllocatingForce : cases::DkPlane {
  using DkPlane::DkPlane;
  static CaseInfo info() {
    CaseInfo info = DkPlane::info();
    info.name = "test-allocating-force";
    return info;
  }
  template <class S>
  Vec<S, n> force(const Vec<S, n>& q, const Vec<S, n>& v, const S& t, Modes modes) const {
    static void* (*volatile allocate)(std::size_t) = std::malloc;
    std::free(allocate(64));
    return DkPlane::force<S>(q, v, t, modes);
  }
};

}  // namespace

TEST_CASE("moreau-jean steps allocate nothing on dk-plane and particle-on-circle",
          "[allocations]") {
  // 27 000 more steps may not add even 270 allocations (the two solves' set-ups differ by a few:
  // the finer one had 7 fewer on dk-plane).
  CHECK(moreau_jean_allocations_per_step(*make_model("dk-plane", {})) <= 0.01);
  CHECK(moreau_jean_allocations_per_step(*make_model("particle-on-circle", {})) <= 0.01);
}

TEST_CASE("the allocation count sees an allocation put back into a step", "[allocations]") {
  // The negative variant: the same solver on dk-plane whose force allocates. moreau-jean evaluates
  // the force about three times per step (the point, its Jacobian, F at the step's end).
  const double per_step = moreau_jean_allocations_per_step(*testing::model_of<AllocatingForce>());
  CHECK(per_step >= 2.0);
}
