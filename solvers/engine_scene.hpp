// What a physics engine (MuJoCo, ODE, Bullet) is given of a case: rigid spheres whose positions and
// rotations are the case's coordinates, and the contacts (sphere–ground plane or sphere–sphere)
// whose gaps are the case's constraint values, frictionless or, where the case's Coulomb row is
// the contact point's slip, with the case's Coulomb coefficient. Only a case whose configuration
// space, kinetic metric and unilateral constraints such a scene reproduces exactly is expressed;
// engine_scene() gives the reason for any other. The case's applied forces (gravity, the
// switching force of dk-plane) are not the engine's: the case evaluates them at each step's start
// and the engine applies them as generalized forces, so that the engine's contact is the only
// thing it computes.
#pragma once

#include <Eigen/Core>
#include <string>
#include <variant>
#include <vector>

#include "crbench/cases/case.hpp"

namespace crbench {

// A sphere of the scene. World axes: z up (the ground plane's normal), x along the line of the
// ball chain. Each of x, z and the rotation about the world y axis is either one of the engine's
// coordinates p (its index) or fixed at 0 (−1); y is always fixed. The engine's coordinates are
// the case's q (EngineScene::Coordinates::cartesian) or follow from them by the scene's map. A body
// none of whose coordinates moves is fixed: the engine's static sphere at the origin.
struct EngineBody {
  int x = -1;
  int z = -1;
  int rotation = -1;
  double mass = 1.0;
  double rotational_inertia = 1.0;  // about any axis through the centre (a sphere's)
  double radius = 0.1;
  bool fixed() const { return x < 0 && z < 0 && rotation < 0; }
};

// A contact of the scene, whose gap is the case's unilateral constraint value f_k, frictionless
// or (friction > 0, a sphere on the ground plane only) with Coulomb's coefficient μ = friction
// on the slip of its contact point, ẋ − radius · (rotation rate about y), the case's Coulomb row:
// body `a` (never fixed) against the ground plane z = plane_height (b = −1), against body `b` (a
// moving or a fixed one), or (tendon ≠ 0)
// held by a tendon from the world's origin to its centre: tendon = +1 keeps its distance from the
// origin at least `length` (a rod it rests on), −1 at most `length` (a string).
struct EngineContact {
  int constraint = 0;
  int a = 0;
  int b = -1;
  int tendon = 0;
  double length = 0.0;
  double friction = 0.0;
};

struct EngineScene {
  // cartesian: the engine's coordinates p are the case's q, each times its sign in `signs` (empty:
  // all +1; −1 for an angle the case counts about −y, counter-clockwise in its (x, y) plane).
  // polar: q = (r, θ) of one unit point about the origin, p = (x, z) = (r sin θ, s r cos θ) with
  // s = polar_sign (+1: θ from the upward vertical, −1: from the downward one).
  enum class Coordinates { cartesian, polar };
  Coordinates coordinates = Coordinates::cartesian;
  Eigen::VectorXd signs;
  double polar_sign = 1.0;
  std::vector<EngineBody> bodies;
  std::vector<EngineContact> contacts;
  double plane_height = 0.0;
  std::string description;  // what the case became, for the record

  // The bodies' centres (x, z) from the engine's coordinates p.
  double body_x(const EngineBody& b, const Eigen::VectorXd& p) const {
    return b.x < 0 ? 0.0 : p(b.x);
  }
  double body_z(const EngineBody& b, const Eigen::VectorXd& p) const {
    return b.z < 0 ? 0.0 : p(b.z);
  }
  bool has_tendons() const;
  bool has_friction() const;
  // The engine's positions and velocities p, u from the case's q, v.
  void to_engine(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& p,
                 Eigen::VectorXd& u) const;
  // Whether the engine's coordinates are the case's (a cartesian scene without signs): the two
  // maps below are then the identity, and a step loop pays for no call.
  bool same_coordinates() const {
    return coordinates == Coordinates::cartesian && signs.size() == 0;
  }
  // The case's q, v from the engine's p, u, in place: q, v hold p, u on entry; an angle continues
  // from its value in `previous`.
  void to_case(const Eigen::VectorXd& previous, Eigen::VectorXd& q, Eigen::VectorXd& v) const {
    if (!same_coordinates()) map_to_case(previous, q, v);
  }
  // The engine's generalized force from the case's Q − ∂V/∂q at q: J⁻ᵀ of it, J = ∂p/∂q, in
  // `out` (whose storage a step loop reuses); `force` itself, not copied, where the coordinates
  // are the same.
  const Eigen::VectorXd& engine_force(const Eigen::VectorXd& q, const Eigen::VectorXd& force,
                                      Eigen::VectorXd& out) const {
    return same_coordinates() ? force : mapped_force(q, force, out);
  }
  // The gap of each contact at the case's q, from the scene's geometry alone (what the engine
  // computes).
  Eigen::VectorXd gaps(const Eigen::VectorXd& q) const;

 private:
  void map_to_case(const Eigen::VectorXd& previous, Eigen::VectorXd& q, Eigen::VectorXd& v) const;
  const Eigen::VectorXd& mapped_force(const Eigen::VectorXd& q, const Eigen::VectorXd& force,
                                      Eigen::VectorXd& out) const;
};

// How the scene expresses a point kept at least a distance R from a fixed point
// (particle-on-circle's rod): its sphere (radius ρ) against a fixed sphere of radius R − ρ, an
// ordinary sphere–sphere contact every engine has, or a tendon's lower limit (MuJoCo's spatial
// tendon). A point kept at most a distance from a fixed point (a string) is always a tendon.
enum class RodShape { sphere, tendon };

// The scene of the case, or why an engine cannot express it (exit 2 through the solver's refusal).
std::variant<EngineScene, std::string> engine_scene(const Model& model,
                                                    RodShape rod = RodShape::sphere);

}  // namespace crbench
