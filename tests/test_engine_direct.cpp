// crbench's engine solvers against programs written directly against each engine's library: the
// same scene (dk-plane's unit sphere of radius 0.1 on the plane z = -0.1, the switching force -1
// before t = 1 and +1 after, taken at each step's start), the engine's default contact and a
// constant step h. What crbench adds (the scene from the case, the force through the scene's map,
// the record) must leave the engine's motion as the engine computes it: the positions and
// velocities at the horizon and the resting depth agree to round-off. Built with each engine's
// CMake option; this program links the engines' libraries itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"
#include "tests/support.hpp"

#ifdef CRBENCH_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif
#ifdef CRBENCH_HAVE_ODE
#include <ode/ode.h>
#endif
#ifdef CRBENCH_HAVE_BULLET
#include <btBulletDynamicsCommon.h>
#endif

namespace engine_direct_tests {

namespace {

// What a direct program measures: the height z and its rate at the horizon, the lowest z.
struct Motion {
  double z = 0.0, rate = 0.0, lowest = 0.0;
};

// dk-plane's switching force on the sphere at time t (the case's Q: -g before t = 1, +g after,
// g = 1).
double switching_force(double t) { return t < 1.0 ? -1.0 : 1.0; }

// crbench's run of dk-plane with the engine's default contact to t_end.
crbench::RunRecord crbench_run(const std::string& solver, double h, double t_end,
                               std::vector<crbench::Assignment> extra = {}) {
  const auto model = crbench::make_model("dk-plane", {});
  crbench::testing::SolveOptions o;
  o.solver = solver;
  o.solver_params = {{"preset", "engine-default"}, {"h", crbench::format_number(h)}};
  for (auto& a : extra) o.solver_params.push_back(std::move(a));
  o.t_end = t_end;
  return crbench::testing::solve(*model, o);
}

// The number of steps of h to t_end, as crbench takes them (h divides the span).
long steps_to(double h, double t_end) { return std::lround(t_end / h); }

// crbench's record against the direct program's motion: height and rate at the horizon, the
// lowest height (the contact's resting depth), to round-off.
void check_same_motion(const crbench::RunRecord& r, const Motion& direct) {
  REQUIRE(r.status == crbench::Status::ok);
  CHECK(r.final_state.q(1) == Approx(direct.z).epsilon(1e-12));
  CHECK(r.final_state.v(1) == Approx(direct.rate).epsilon(1e-12));
  CHECK(r.min_constraint[0] == Approx(direct.lowest).epsilon(1e-12).margin(1e-15));
}

}  // namespace

#ifdef CRBENCH_HAVE_MUJOCO
namespace {

// A MuJoCo model of the sphere on two slide joints (x, z) or a free joint, MuJoCo's default
// contact, stepped by mj_step with qfrc_applied held over each step.
Motion mujoco_direct(bool free, double h, double t_end) {
  const std::string joints =
      free ? "<freejoint/>"
           : "<joint type='slide' axis='1 0 0'/><joint type='slide' axis='0 0 1'/>";
  const std::string xml =
      "<mujoco><compiler inertiafromgeom='false'/><option timestep='" + crbench::format_number(h) +
      "' gravity='0 0 0'/><worldbody><geom type='plane' size='0 0 1' pos='0 0 -0.1'/>"
      "<body pos='0 0 0'>" +
      joints +
      "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/>"
      "<geom type='sphere' size='0.1'/></body></worldbody></mujoco>";
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  REQUIRE(mj_makeEmptyFileVFS(&vfs, "direct.xml", static_cast<int>(xml.size())) == 0);
  std::copy(xml.begin(), xml.end(),
            static_cast<char*>(vfs.filedata[mj_findFileVFS(&vfs, "direct.xml")]));
  char error[1000] = "";
  mjModel* m = mj_loadXML("direct.xml", &vfs, error, sizeof error);
  mj_deleteVFS(&vfs);
  REQUIRE(m != nullptr);
  mjData* d = mj_makeData(m);
  const int z = free ? 2 : 1;
  Motion out;
  const long steps = steps_to(h, t_end);
  for (long k = 0; k < steps; ++k) {
    d->qfrc_applied[z] = switching_force(static_cast<double>(k) * h);
    mj_step(m, d);
    out.lowest = std::min(out.lowest, d->qpos[z]);
  }
  out.z = d->qpos[z];
  out.rate = d->qvel[z];
  mj_deleteData(d);
  mj_deleteModel(m);
  return out;
}

}  // namespace

TEST_CASE("mujoco: crbench's run is a direct MuJoCo program's, planar and free", "[engines]") {
  // Measured (direct): resting depths 2.9679950633e-5 (two slides) and 4.4460270950e-5 (free).
  for (const bool free : {false, true}) {
    INFO((free ? "free" : "planar"));
    const double h = 1e-3, t_end = 1.1;
    const Motion direct = mujoco_direct(free, h, t_end);
    const auto r = crbench_run("mujoco", h, t_end, {{"joints", free ? "free" : "planar"}});
    check_same_motion(r, direct);
    CHECK(direct.lowest == Approx(free ? -4.4460270950e-5 : -2.9679950633e-5).epsilon(1e-9));
  }
}
#endif

#ifdef CRBENCH_HAVE_ODE
TEST_CASE("ode: crbench's run is a direct ODE program's", "[engines]") {
  // ODE's default contact: the world's ERP and CFM, one contact joint a step from dCollide.
  const double h = 1e-3, t_end = 1.1;
  REQUIRE(dInitODE2(0) != 0);
  REQUIRE(dAllocateODEDataForThread(dAllocateMaskAll) != 0);
  dWorldID world = dWorldCreate();
  dWorldSetGravity(world, 0.0, 0.0, 0.0);
  dBodyID body = dBodyCreate(world);
  dMass mass;
  dMassSetParameters(&mass, 1.0, 0.0, 0.0, 0.0, 0.004, 0.004, 0.004, 0.0, 0.0, 0.0);
  dBodySetMass(body, &mass);
  dBodySetPosition(body, 0.0, 0.0, 0.0);
  dGeomID sphere = dCreateSphere(nullptr, 0.1);
  dGeomSetBody(sphere, body);
  dGeomID plane = dCreatePlane(nullptr, 0.0, 0.0, 1.0, -0.1);
  dJointGroupID contacts = dJointGroupCreate(0);
  Motion direct;
  const long steps = steps_to(h, t_end);
  for (long k = 0; k < steps; ++k) {
    dContact contact{};
    if (dCollide(sphere, plane, 1, &contact.geom, sizeof(dContact)) > 0) {
      contact.surface.mu = 0.0;
      dJointAttach(dJointCreateContact(world, contacts, &contact), body, nullptr);
    }
    dBodyAddForce(body, 0.0, 0.0, switching_force(static_cast<double>(k) * h));
    REQUIRE(dWorldStep(world, h) != 0);
    dJointGroupEmpty(contacts);
    direct.lowest = std::min(direct.lowest, dBodyGetPosition(body)[2]);
  }
  direct.z = dBodyGetPosition(body)[2];
  direct.rate = dBodyGetLinearVel(body)[2];
  dJointGroupDestroy(contacts);
  dGeomDestroy(sphere);
  dGeomDestroy(plane);
  dWorldDestroy(world);
  const auto r = crbench_run("ode", h, t_end);
  check_same_motion(r, direct);
}
#endif

#ifdef CRBENCH_HAVE_BULLET
TEST_CASE("bullet: crbench's run is a direct Bullet program's", "[engines]") {
  // Bullet's default contact and solver (10 iterations, split impulse), the sphere's motion kept
  // to x and z by its linear factor, stepSimulation(h, 0, h): one step of exactly h.
  const double h = 1e-3, t_end = 1.1;
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, 0, 0));
  btStaticPlaneShape plane_shape(btVector3(0, 0, 1), -0.1);
  btRigidBody::btRigidBodyConstructionInfo plane_info(0.0, nullptr, &plane_shape);
  plane_info.m_friction = 0.0;
  plane_info.m_rollingFriction = 0.0;
  plane_info.m_spinningFriction = 0.0;
  btRigidBody plane(plane_info);
  world.addRigidBody(&plane);
  btSphereShape sphere_shape(0.1);
  btRigidBody::btRigidBodyConstructionInfo sphere_info(1.0, nullptr, &sphere_shape,
                                                       btVector3(0.004, 0.004, 0.004));
  sphere_info.m_friction = 0.0;
  sphere_info.m_rollingFriction = 0.0;
  sphere_info.m_spinningFriction = 0.0;
  sphere_info.m_startWorldTransform.setIdentity();
  btRigidBody sphere(sphere_info);
  sphere.setActivationState(DISABLE_DEACTIVATION);
  sphere.setLinearFactor(btVector3(1, 0, 1));
  sphere.setAngularFactor(btVector3(0, 0, 0));
  world.addRigidBody(&sphere);
  Motion direct;
  const long steps = steps_to(h, t_end);
  for (long k = 0; k < steps; ++k) {
    sphere.applyCentralForce(btVector3(0, 0, switching_force(static_cast<double>(k) * h)));
    world.stepSimulation(h, 0, h);
    direct.lowest = std::min(direct.lowest, sphere.getWorldTransform().getOrigin().z());
  }
  direct.z = sphere.getWorldTransform().getOrigin().z();
  direct.rate = sphere.getLinearVelocity().z();
  world.removeRigidBody(&sphere);
  world.removeRigidBody(&plane);
  const auto r = crbench_run("bullet", h, t_end);
  check_same_motion(r, direct);
}
#endif

}  // namespace engine_direct_tests
