#include "crbench/solvers/engine_scene.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

namespace {

// ∂p/∂q of the scene's map at q (the identity for cartesian coordinates).
Eigen::MatrixXd map_jacobian(const EngineScene& scene, const Eigen::VectorXd& q) {
  if (scene.coordinates == EngineScene::Coordinates::cartesian) {
    if (scene.signs.size() == 0) return Eigen::MatrixXd::Identity(q.size(), q.size());
    return scene.signs.asDiagonal();
  }
  const double r = q(0), theta = q(1), s = scene.polar_sign;
  Eigen::MatrixXd J(2, 2);
  J << std::sin(theta), r * std::cos(theta), s * std::cos(theta), -s * r * std::sin(theta);
  return J;
}

}  // namespace

bool EngineScene::has_friction() const {
  return std::any_of(contacts.begin(), contacts.end(),
                     [](const EngineContact& c) { return c.friction > 0.0; });
}

bool EngineScene::has_tendons() const {
  return std::any_of(contacts.begin(), contacts.end(),
                     [](const EngineContact& c) { return c.tendon != 0; });
}

void EngineScene::to_engine(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& p,
                            Eigen::VectorXd& u) const {
  if (coordinates == Coordinates::cartesian) {
    p = signs.size() == 0 ? q : signs.cwiseProduct(q).eval();
    u = signs.size() == 0 ? v : signs.cwiseProduct(v).eval();
    return;
  }
  const double r = q(0), theta = q(1);
  p = Eigen::Vector2d(r * std::sin(theta), polar_sign * r * std::cos(theta));
  u = map_jacobian(*this, q) * v;
}

void EngineScene::map_to_case(const Eigen::VectorXd& previous, Eigen::VectorXd& q,
                              Eigen::VectorXd& v) const {
  if (coordinates == Coordinates::cartesian) {
    // A sign is its own inverse.
    q.array() *= signs.array();
    v.array() *= signs.array();
    return;
  }
  const double r = std::hypot(q(0), q(1));
  const double wrapped = std::atan2(q(0), polar_sign * q(1));
  // The angle continues from the previous one (a pendulum may turn over).
  const double theta = previous(1) + std::remainder(wrapped - previous(1), 2.0 * std::numbers::pi);
  q = Eigen::Vector2d(r, theta);
  v = map_jacobian(*this, q).partialPivLu().solve(v).eval();
}

const Eigen::VectorXd& EngineScene::mapped_force(const Eigen::VectorXd& q,
                                                 const Eigen::VectorXd& force,
                                                 Eigen::VectorXd& out) const {
  out = map_jacobian(*this, q).transpose().partialPivLu().solve(force);
  return out;
}

Eigen::VectorXd EngineScene::gaps(const Eigen::VectorXd& q) const {
  Eigen::VectorXd p, u;
  to_engine(q, Eigen::VectorXd::Zero(q.size()), p, u);
  Eigen::VectorXd out(static_cast<Eigen::Index>(contacts.size()));
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const EngineContact& c = contacts[i];
    const EngineBody& a = bodies[static_cast<std::size_t>(c.a)];
    double gap = 0.0;
    if (c.tendon != 0) {
      const double distance = std::hypot(body_x(a, p), body_z(a, p));
      gap = c.tendon > 0 ? distance - c.length : c.length - distance;
    } else if (c.b < 0) {
      gap = body_z(a, p) - a.radius - plane_height;
    } else {
      const EngineBody& b = bodies[static_cast<std::size_t>(c.b)];
      gap = std::hypot(body_x(b, p) - body_x(a, p), body_z(b, p) - body_z(a, p)) - a.radius -
            b.radius;
    }
    out(static_cast<Eigen::Index>(i)) = gap;
  }
  return out;
}

namespace {

// A sphere on the ground plane whose height above it is the case's coordinate `height` (f =
// height ≥ 0): the sphere's centre is at z = height and the plane at z = −radius.
void sphere_on_plane(EngineScene& scene, int height, int sideways, int rotation, double mass,
                     double radius) {
  scene.bodies.push_back({.x = sideways,
                          .z = height,
                          .rotation = rotation,
                          .mass = mass,
                          .rotational_inertia = 0.4 * mass * radius * radius,
                          .radius = radius});
  scene.contacts.push_back({.constraint = 0, .a = 0, .b = -1});
  scene.plane_height = -radius;
}

// The scene the case's name and parameters give, before it is checked against the case; false
// for a case the engines are not given. (An out-parameter: GCC 12 warns falsely on moving a
// std::string member set from a literal into an optional.)
bool scene_of(const Model& model, RodShape rod, EngineScene& scene) {
  const std::string& name = model.info().name;
  const ParamValues& p = model.params();
  // The radius of a point mass's sphere: it does not enter a frictionless contact whose normal
  // passes through the centre.
  constexpr double kPointRadius = 0.1;
  if (name == "dk-plane") {
    sphere_on_plane(scene, 1, 0, -1, 1.0, kPointRadius);
    scene.description.assign(
        "a unit-mass sphere (radius 0.1) on the ground plane, x and z = y free");
    return true;
  }
  if (name == "block-on-incline") {
    // The incline is the ground plane and gravity is tilted by the case's force (g sin θ along x,
    // −g cos θ along z): the same motion as a tilted plane under vertical gravity, in axes that
    // turn with the plane. The sphere does not turn (a block slides, it does not roll).
    sphere_on_plane(scene, 1, 0, -1, 1.0, kPointRadius);
    scene.description.assign(
        "a unit-mass sphere (radius 0.1) that does not turn, on the ground plane with the case's "
        "Coulomb mu, x along the incline and z = y; the incline's gravity applied as the case's "
        "force (g sin(angle) along x, -g cos(angle) along z)");
    return true;
  }
  if (name == "rolling-disk") {
    // The disk (or sphere) of radius r and inertia J = k r², its centre at height y above the
    // plane z = 0 (f = y − r); the case's φ turns counter-clockwise in its (x, y) plane, about the
    // engine's −y: the rotation's sign is −1.
    const double r = p.at("r");
    scene.bodies.push_back({.x = 0,
                            .z = 1,
                            .rotation = 2,
                            .mass = 1.0,
                            .rotational_inertia = (p.at("sphere") != 0.0 ? 0.4 : 0.5) * r * r,
                            .radius = r});
    scene.contacts.push_back({.constraint = 0, .a = 0, .b = -1});
    scene.signs = Eigen::Vector3d(1.0, 1.0, -1.0);
    scene.description.assign(
        "a body of unit mass, radius r and the case's inertia J (a sphere's contact: a disk's "
        "edge on a line) on the ground plane with the case's Coulomb mu; x, z = y and its "
        "rotation -phi about y");
    return true;
  }
  if (name == "bouncing-ball-siconos") {
    sphere_on_plane(scene, 0, 1, 2, p.at("m"), p.at("R"));
    scene.description.assign(
        "a sphere of mass m and radius R on the ground plane: height z, lateral x, rotation "
        "about y");
    return true;
  }
  if (name == "bouncing-ball-penalty") {
    sphere_on_plane(scene, 0, -1, -1, 1.0, kPointRadius);
    scene.description.assign("a unit-mass sphere (radius 0.1) above the ground plane, z = y free");
    return true;
  }
  if (name == "oscillator-at-wall") {
    sphere_on_plane(scene, 0, -1, -1, p.at("m"), kPointRadius);
    scene.description.assign(
        "a sphere of mass m (radius 0.1) against the ground plane, z = q free, the case's "
        "potential applied as a force");
    return true;
  }
  if (name == "particle-on-circle" && rod == RodShape::sphere) {
    // A unit point resting on a circle of radius R about the origin (f = r − R ≥ 0, θ from the
    // upward vertical): its sphere of radius ρ against a fixed sphere of radius R − ρ there.
    const double R = p.at("R"), rho = std::min(kPointRadius, 0.5 * R);
    scene.coordinates = EngineScene::Coordinates::polar;
    scene.bodies.push_back({.x = 0, .z = 1, .mass = 1.0, .radius = rho});
    scene.bodies.push_back({.radius = R - rho});
    scene.contacts.push_back({.constraint = 0, .a = 0, .b = 1});
    scene.description.assign(
        "a unit point's sphere (radius min(0.1, R/2)) against a fixed sphere at the origin whose "
        "radius makes their contact at distance R (the circle it rests on)");
    return true;
  }
  if (name == "pendulum-string" || name == "particle-on-circle") {
    // A unit point on a string of length L from the origin (f = L − r ≥ 0, θ from the downward
    // vertical), or resting on a circle of radius R about it (f = r − R ≥ 0, θ from the upward
    // vertical): a tendon from the origin to the point with a length limit.
    const bool string = name == "pendulum-string";
    scene.coordinates = EngineScene::Coordinates::polar;
    scene.polar_sign = string ? -1.0 : 1.0;
    scene.bodies.push_back({.x = 0, .z = 1, .mass = 1.0, .radius = kPointRadius});
    scene.contacts.push_back({.constraint = 0,
                              .a = 0,
                              .tendon = string ? -1 : 1,
                              .length = string ? p.at("L") : p.at("R")});
    scene.description.assign(string ? "a unit point on a tendon from the origin whose length is "
                                      "at most L (the string)"
                                    : "a unit point on a tendon from the origin whose length is "
                                      "at least R (the circle it rests on)");
    return true;
  }
  if (name == "ball-chain") {
    const int n = model.dof();
    const double radius = 0.5 * p.at("d");
    for (int i = 0; i < n; ++i) {
      scene.bodies.push_back({.x = i,
                              .mass = p.at("m"),
                              .rotational_inertia = 0.4 * p.at("m") * radius * radius,
                              .radius = radius});
    }
    for (int k = 0; k + 1 < n; ++k) scene.contacts.push_back({.constraint = k, .a = k, .b = k + 1});
    scene.description.assign("n spheres of diameter d on the x axis, a contact between neighbours");
    return true;
  }
  return false;
}

// The Coulomb coefficient of each Coulomb row on its contact; why not where the engines cannot
// give that contact friction.
std::optional<std::string> add_friction(const Model& model, EngineScene& scene) {
  for (const int r : model.info().coulomb_rows) {
    const int k = model.kinematic_condition(r);
    const double mu = model.friction_coefficient(r);
    if (k < 0 || scene.coordinates != EngineScene::Coordinates::cartesian ||
        scene.contacts[static_cast<std::size_t>(k)].b >= 0 ||
        scene.contacts[static_cast<std::size_t>(k)].tendon != 0) {
      return "the engines give Coulomb friction to a sphere's contact with the ground plane only";
    }
    if (!(std::isfinite(mu) && mu > 0.0)) {
      return "Coulomb's coefficient must be finite and above 0 for an engine's contact (mu = " +
             format_number(mu) + ")";
    }
    scene.contacts[static_cast<std::size_t>(k)].friction = mu;
  }
  return std::nullopt;
}

// Why the case's Coulomb rows at q are not the slips of the scene's frictional contacts
// (ẋ − radius · rotation rate of the sphere on the plane, either sign), or nothing.
std::optional<std::string> friction_mismatch(const Model& model, const EngineScene& scene, double t,
                                             const Eigen::VectorXd& q) {
  if (model.info().coulomb_rows.empty()) return std::nullopt;
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  model.kinematic_affine(t, q, a, b);
  for (const int r : model.info().coulomb_rows) {
    const EngineContact& c = scene.contacts[static_cast<std::size_t>(model.kinematic_condition(r))];
    const EngineBody& body = scene.bodies[static_cast<std::size_t>(c.a)];
    // The slip in the engine's coordinates, then in the case's (times ∂p/∂q).
    Eigen::RowVectorXd slip = Eigen::RowVectorXd::Zero(q.size());
    if (body.x >= 0) slip(body.x) = 1.0;
    if (body.rotation >= 0) slip(body.rotation) = -body.radius;
    slip = (slip * map_jacobian(scene, q)).eval();
    const Eigen::RowVectorXd row = a.row(r);
    const double scale = std::max(1.0, slip.lpNorm<Eigen::Infinity>());
    const bool same = (row - slip).lpNorm<Eigen::Infinity>() <= 1e-12 * scale ||
                      (row + slip).lpNorm<Eigen::Infinity>() <= 1e-12 * scale;
    if (!same || (b.size() > 0 && std::abs(b(r)) > 0.0)) {
      return "Coulomb row " + std::to_string(r) +
             " is not the slip of its contact point in the engine scene with these parameters";
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<EngineScene, std::string> engine_scene(const Model& model, RodShape rod) {
  const CaseInfo& info = model.info();
  const std::string prefix = "case " + info.name + ": ";
  const auto coulomb_rows = static_cast<int>(info.coulomb_rows.size());
  if (model.kinematic_count() > coulomb_rows || model.bilateral_count() > 0) {
    return prefix +
           "an engine's contact is a unilateral holonomic constraint, with Coulomb friction on its "
           "contact point's slip at most; this case has other kinematic or bilateral constraints";
  }
  EngineScene scene;
  if (!scene_of(model, rod, scene)) {
    return prefix +
           "no engine scene: the engines are given cases of spheres with sphere-plane, "
           "sphere-sphere or tendon contacts (docs/engines.md lists them)";
  }
  if (auto why = add_friction(model, scene)) return prefix + *why;
  // The scene must be the case: the same gaps, the same kinetic metric, constraints that do not
  // move. Checked at the start and at q moved by a few fixed offsets.
  const State x0 = model.initial_state();
  const int n = model.dof();
  if (constraints_depend_on_time(model, model.horizon())) {
    return prefix + "a constraint depends on time; an engine's ground plane is fixed";
  }
  Eigen::VectorXd p0, u0;
  scene.to_engine(x0.q, x0.v, p0, u0);
  const auto engine_dof = static_cast<int>(p0.size());
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(engine_dof);
  std::vector<bool> covered(static_cast<std::size_t>(engine_dof), false);
  for (const EngineBody& b : scene.bodies) {
    for (int index : {b.x, b.z}) {
      if (index >= 0) diagonal(index) = b.mass, covered[static_cast<std::size_t>(index)] = true;
    }
    if (b.rotation >= 0) {
      diagonal(b.rotation) = b.rotational_inertia;
      covered[static_cast<std::size_t>(b.rotation)] = true;
    }
  }
  if (std::find(covered.begin(), covered.end(), false) != covered.end() ||
      static_cast<int>(scene.contacts.size()) != model.constraint_count()) {
    return prefix + "the engine scene does not cover every coordinate and constraint";
  }
  const double size = std::max(1.0, x0.q.lpNorm<Eigen::Infinity>());
  for (int trial = 0; trial < 4; ++trial) {
    Eigen::VectorXd q = x0.q;
    for (int i = 0; i < n; ++i) {
      // Deterministic offsets of either sign, a few percent of the coordinates' size.
      q(i) += 0.03 * size * std::sin(1.7 * (trial + 1) + 0.9 * i);
    }
    const Eigen::VectorXd f = model.constraint_values(x0.t, q);
    const Eigen::VectorXd gaps = scene.gaps(q);
    if (!((f - gaps).lpNorm<Eigen::Infinity>() <= 1e-12 * size)) {
      return prefix +
             "the engine scene's gaps differ from the case's constraint values with these "
             "parameters";
    }
    if (auto why = friction_mismatch(model, scene, x0.t, q)) return prefix + *why;
    const Eigen::MatrixXd A = model.metric(q);
    // The kinetic energy of the engine's bodies in the case's coordinates: Jᵀ M J.
    const Eigen::MatrixXd J = map_jacobian(scene, q);
    const Eigen::MatrixXd expected = J.transpose() * diagonal.asDiagonal() * J;
    if (!((A - expected).lpNorm<Eigen::Infinity>() <= 1e-12 * expected.lpNorm<Eigen::Infinity>())) {
      return prefix +
             "the kinetic metric is not that of the engine's rigid spheres with these "
             "parameters";
    }
  }
  return scene;
}

}  // namespace crbench
