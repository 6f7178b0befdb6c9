// Newton's impact law in the kinetic metric on a sloped constraint with A ≠ I:
// ḟ⁺ = −e ḟ⁻, tangential momentum wᵀA q̇ kept for Jw = 0 (Appell, Kugushev & Sorokina 2002 (1.2)),
// energy kept for e = 1 (Kugushev & Sorokina 2002 (1.4)).
#include <catch2/catch.hpp>
#include <cmath>

#include "support.hpp"
#include "test_cases.hpp"

namespace impact_tests {

using namespace crbench;

TEST_CASE("Impact law in the kinetic metric", "[impact]") {
  using Sloped = test_cases::SlopedImpact;
  const auto model = testing::model_of<Sloped>();
  const Eigen::Vector2d tangent(1.0, Sloped::slope);  // J w = −s + s = 0
  const auto energy = [&](const State& x) {
    return model->kinetic_energy(x) + model->potential(x.t, x.q);
  };
  for (const double e : {1.0, 0.7, 0.0}) {
    INFO("e = " << e);
    std::vector<TrajectorySample> before, after;
    testing::SolveOptions o;
    o.solver_params = {{"restitution", format_number(e)}};
    o.on_sample = [&](const TrajectorySample& s) {
      if (s.label == "impact-") before.push_back(s);
      if (s.label == "impact+") after.push_back(s);
    };
    o.t_end = 0.6;
    const RunRecord r = testing::solve(*model, o);
    REQUIRE(r.status == Status::ok);
    REQUIRE(!before.empty());
    REQUIRE(before.size() == after.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
      Point p;
      model->evaluate(before[i].x, {}, p);
      const double rate_before = p.constraint_rate(before[i].x.v)(0);
      const double rate_after = p.constraint_rate(after[i].x.v)(0);
      REQUIRE(rate_before < 0.0);
      CHECK(rate_after == Approx(-e * rate_before).margin(1e-14));
      const double momentum_before = tangent.dot(p.A * before[i].x.v);
      const double momentum_after = tangent.dot(p.A * after[i].x.v);
      CHECK(momentum_after == Approx(momentum_before).epsilon(1e-14));
      if (e == 1.0) CHECK(energy(after[i].x) == Approx(energy(before[i].x)).epsilon(1e-14));
      if (e < 1.0) CHECK(energy(after[i].x) < energy(before[i].x));
    }
    if (e == 1.0) {
      // Elastic impacts keep the total energy over the whole run.
      CHECK(energy(r.final_state) == Approx(energy(model->initial_state())).epsilon(1e-11));
    }
  }
}

}  // namespace impact_tests
