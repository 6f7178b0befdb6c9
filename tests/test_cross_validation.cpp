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

namespace cross_validation_tests {

namespace {

using crbench::Model;
using crbench::Modes;
using crbench::State;

// particle-on-circle with its mass matrix 1% heavier where the Siconos bridge reads it
// (Model::metric, read by solvers/siconos_case.cpp alone; crbench's solvers read evaluate()'s A):
// a wrong mass matrix in one code path.
class PlantedMass final : public Model {
 public:
  PlantedMass() : inner_(crbench::make_model("particle-on-circle", {})) {}
  const crbench::CaseInfo& info() const override { return inner_->info(); }
  const crbench::ParamValues& params() const override { return inner_->params(); }
  double slip_restitution(int r) const override { return inner_->slip_restitution(r); }
  void evaluate(const State& x, Modes modes, crbench::Point& out) const override {
    inner_->evaluate(x, modes, out);
  }
  void evaluate_dual(const State& x, Modes modes,
                     crbench::PointT<crbench::Dual>& out) const override {
    inner_->evaluate_dual(x, modes, out);
  }
  void free_force(const State& x, Modes modes, Eigen::VectorXd& out) const override {
    inner_->free_force(x, modes, out);
  }
  void force_jacobians(const State& x, Modes modes, Eigen::MatrixXd& dF_dq,
                       Eigen::MatrixXd& dF_dv) const override {
    inner_->force_jacobians(x, modes, dF_dq, dF_dv);
  }
  void constraint_values(double t, const Eigen::VectorXd& q, Eigen::VectorXd& out) const override {
    inner_->constraint_values(t, q, out);
  }
  void kinematic_affine(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& a,
                        Eigen::VectorXd& b) const override {
    inner_->kinematic_affine(t, q, a, b);
  }
  void switching_values(const State& x, Eigen::VectorXd& out) const override {
    inner_->switching_values(x, out);
  }
  Eigen::MatrixXd metric(const Eigen::VectorXd& q) const override {
    return 1.01 * inner_->metric(q);
  }
  double potential(double t, const Eigen::VectorXd& q) const override {
    return inner_->potential(t, q);
  }
  Eigen::VectorXd force(const State& x, Modes modes) const override {
    return inner_->force(x, modes);
  }
  State initial_state() const override { return inner_->initial_state(); }
  double horizon() const override { return inner_->horizon(); }
  crbench::Facts facts() const override { return inner_->facts(); }

 private:
  std::unique_ptr<Model> inner_;
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
  // 12 cases through both pairs, vibrating-table through the Moreau-Jean pair (the kernel's
  // event-driven scheme has no rheonomous relation); the other cases have kinematic or bilateral
  // constraints.
  CHECK(run == 25);
  CHECK(agree >= 12);
  // Where the schemes coincide the Moreau-Jean pair agrees to round-off (1e-12 relative), and the
  // event-driven pair within its tolerances on the classical lift-offs.
  CHECK(row_of(j, "dk-plane", "siconos-moreau-jean")["verdict"] == "agree");
  CHECK(row_of(j, "bouncing-ball-siconos", "siconos-moreau-jean")["verdict"] == "agree");
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
