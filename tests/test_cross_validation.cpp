// The cross-validation of crbench's solvers against the Siconos kernel's (bench/cross_validation):
// every registered case without a pair that disagrees, and a planted difference caught. Built
// only with the kernel (CRBENCH_SICONOS).
#ifdef CRBENCH_HAVE_SICONOS
#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <string>

#include "crbench/bench/cross_validation.hpp"
#include "crbench/cases/registry.hpp"
#include "support.hpp"

namespace cross_validation_tests {

namespace {

using crbench::Model;
using crbench::Modes;
using crbench::State;

// particle-on-circle with its mass matrix 1% heavier where the Siconos bridge reads it
// (Model::metric, read by solvers/siconos_case.cpp alone; crbench's solvers read evaluate()'s A):
// a wrong mass matrix in one code path.
struct OwnedModel {
  std::unique_ptr<Model> model;
};
class PlantedMass final : private OwnedModel, public crbench::testing::ModelView {
 public:
  PlantedMass()
      : OwnedModel{crbench::make_model("particle-on-circle", {})}, ModelView(*OwnedModel::model) {}
  Eigen::MatrixXd metric(const Eigen::VectorXd& q) const override {
    return 1.01 * inner_.metric(q);
  }
};

const nlohmann::ordered_json& row_of(const nlohmann::ordered_json& j, const std::string& name,
                                     const std::string& siconos_solver) {
  for (const auto& row : j["cases"]) {
    if (row["case"] == name && row["siconos_solver"] == siconos_solver) return row;
  }
  FAIL("no row for " << name << " / " << siconos_solver);
  return j;
}

}  // namespace

TEST_CASE("Cross-validation: no case disagrees with the Siconos kernel", "[siconos]") {
  std::ostringstream progress;
  const auto j = crbench::cross_validate(crbench::registered_subjects(), progress);
  int agree = 0, run = 0;
  for (const auto& row : j["cases"]) {
    const std::string verdict = row["verdict"].get<std::string>();
    INFO(row["case"].get<std::string>()
         << " / " << row["siconos_solver"].get<std::string>() << ": " << verdict);
    CHECK(verdict != "DISAGREE");
    CHECK(verdict != "failed");
    if (verdict == "not run") continue;
    ++run;
    agree += verdict == "agree";
    // An explained difference carries its reason and stays under the reason's bounds.
    if (verdict == "differ, explained") CHECK(row.contains("explanation_bound"));
  }
  // 12 cases through both pairs, vibrating-table and the three Coulomb cases through the
  // Moreau-Jean pair (the kernel's event-driven scheme has no rheonomous relation and no friction);
  // the other cases have other kinematic or bilateral constraints.
  CHECK(run == 28);
  CHECK(agree >= 14);
  // Where the schemes coincide the Moreau-Jean pair agrees to round-off (1e-12 relative), and the
  // event-driven pair within its tolerances on the classical lift-offs.
  CHECK(row_of(j, "dk-plane", "siconos-moreau-jean")["verdict"] == "agree");
  CHECK(row_of(j, "bouncing-ball-siconos", "siconos-moreau-jean")["verdict"] == "agree");
  // With Coulomb friction (NewtonImpactFrictionNSL and FrictionContact in the kernel).
  CHECK(row_of(j, "block-on-incline", "siconos-moreau-jean")["verdict"] == "agree");
  CHECK(row_of(j, "rolling-disk", "siconos-moreau-jean")["verdict"] == "agree");
  for (const char* c : {"particle-on-circle", "pendulum-string", "dk-plane", "plane-reparametrized",
                        "oscillator-at-wall", "body-with-channel"}) {
    INFO(c);
    CHECK(row_of(j, c, "siconos-event-driven")["verdict"] == "agree");
  }
  CHECK(row_of(j, "particle-on-circle", "siconos-moreau-jean")["verdict"] == "differ, explained");
}

TEST_CASE("Cross-validation catches a wrong mass matrix in the Siconos code path", "[siconos]") {
  std::ostringstream progress;
  const auto j = crbench::cross_validate(
      {{"particle-on-circle", [] { return crbench::make_model("particle-on-circle", {}); }},
       {"planted-mass", [] { return std::make_unique<PlantedMass>(); }}},
      progress);
  CHECK(row_of(j, "particle-on-circle", "siconos-event-driven")["verdict"] == "agree");
  const auto& planted = row_of(j, "planted-mass", "siconos-event-driven");
  CHECK(planted["verdict"] == "DISAGREE");
  // 1% in the mass moves the lift-off by 4.6e-3, against the pair's bound of 1.2e-9.
  REQUIRE(planted["lift_off_difference"].is_number());
  CHECK(planted["lift_off_difference"].get<double>() > 1e-4);
  CHECK(row_of(j, "planted-mass", "siconos-moreau-jean")["verdict"] == "DISAGREE");
}
#endif

}  // namespace cross_validation_tests
