// What a physics engine (MuJoCo, ODE, Bullet) is given of a case: rigid spheres whose positions and
// rotations are the case's coordinates, and the frictionless contacts (sphere–ground plane or
// sphere–sphere) whose gaps are the case's constraint values. Only a case whose configuration
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
// ball chain. Each of x, z and the rotation about the world y axis is either a case coordinate
// (its index) or fixed at 0 (−1); y is always fixed.
struct EngineBody {
  int x = -1;
  int z = -1;
  int rotation = -1;
  double mass = 1.0;
  double rotational_inertia = 1.0;  // about any axis through the centre (a sphere's)
  double radius = 0.1;
};

// A frictionless contact of the scene, whose gap is the case's unilateral constraint value f_k:
// body `a` against the ground plane z = plane_height (b = −1) or against body `b`.
struct EngineContact {
  int constraint = 0;
  int a = 0;
  int b = -1;
};

struct EngineScene {
  std::vector<EngineBody> bodies;
  std::vector<EngineContact> contacts;
  double plane_height = 0.0;
  std::string description;  // what the case became, for the record

  // The bodies' centres (x, z) and rotations from the case's q (and back: velocities alike).
  double body_x(const EngineBody& b, const Eigen::VectorXd& q) const {
    return b.x < 0 ? 0.0 : q(b.x);
  }
  double body_z(const EngineBody& b, const Eigen::VectorXd& q) const {
    return b.z < 0 ? 0.0 : q(b.z);
  }
  // The gap of each contact at q, from the scene's geometry alone (what the engine computes).
  Eigen::VectorXd gaps(const Eigen::VectorXd& q) const;
};

// The scene of the case, or why an engine cannot express it (exit 2 through the solver's refusal).
std::variant<EngineScene, std::string> engine_scene(const Model& model);

}  // namespace crbench
