// Programs written directly against each engine's library, without crbench: a unit sphere of
// radius 0.1 (inertia 0.004) on the plane z = -0.1, x and z free, no gravity: the force on z is
// given at each step (dk-plane's switching_force of x, or a ball's weight), with the engine's
// default contact or the realization's spring-damper mapped as crbench maps it
// (docs/engines.md). By default it starts as dk-plane does, at x = -1 with speed 1; an impact
// starts at z = 0, touching the plane, moving down. With Coulomb's mu the contact has friction and
// the sphere does not turn (block-on-incline: a force along x too, the incline's gravity).
// tests/test_engine_direct.cpp checks crbench's engine solvers against them;
// bench/perf/perf_engine_direct.cpp times them beside crbench's. Compiled only into programs that
// link the engines themselves (CRBENCH_HAVE_<ENGINE>).
#pragma once

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "crbench/cases/params.hpp"

#ifdef CRBENCH_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif
#ifdef CRBENCH_HAVE_ODE
#include <ode/ode.h>
#endif
#ifdef CRBENCH_HAVE_BULLET
#include <btBulletDynamicsCommon.h>
#endif

namespace crbench::direct {

// dk-plane's applied force on the height: -g for x <= 0, +g after (g = 1).
inline double switching_force(double x) { return x <= 0.0 ? -1.0 : 1.0; }

// The sphere's centre and its velocity at the start.
struct Start {
  double x = -1.0, z = 0.0, vx = 1.0, vz = 0.0;
};

// The engine's own contact (engine_default), or the spring-damper force = -(stiffness f + damping
// f') while it pushes; MuJoCo's with the constant impedance d.
struct Contact {
  bool engine_default = true;
  double stiffness = 0.0, damping = 0.0, impedance = 0.9999;
  double dampratio = 1.0;  // MuJoCo's default solref (0.02, dampratio)
  double mu = 0.0;         // Coulomb's coefficient (0: frictionless)
  bool elliptic = false;   // MuJoCo's elliptic friction cone (else its pyramid)
  double impratio = 1.0;   // MuJoCo's impratio
};

#ifdef CRBENCH_HAVE_MUJOCO
// The sphere on two slide joints (x, z) or a free joint; the mapped contact as a pair with the
// direct solref (-k, -b) and solimp (d, d, ...): for a unit mass J M^-1 J^T = 1.
class Mujoco {
 public:
  Mujoco(bool free, const Contact& contact, double h, const Start& start = {}) : z_(free ? 2 : 1) {
    const std::string joints =
        free ? "<freejoint/>"
             : "<joint type='slide' axis='1 0 0'/><joint type='slide' axis='0 0 1'/>";
    const std::string softness =
        contact.engine_default
            ? (contact.dampratio == 1.0 ? std::string()
                                        : " solref='0.02 " + format_number(contact.dampratio) + "'")
            : " solref='" + format_number(-contact.stiffness) + " " +
                  format_number(-contact.damping) + "' solimp='" +
                  format_number(contact.impedance) + " " + format_number(contact.impedance) +
                  " 0.001 0.5 2'";
    const std::string xml =
        "<mujoco><compiler inertiafromgeom='false'/><option timestep='" + format_number(h) +
        "' gravity='0 0 0'" +
        (contact.mu > 0.0 ? std::string(" cone='") + (contact.elliptic ? "elliptic" : "pyramidal") +
                                "' impratio='" + format_number(contact.impratio) + "'"
                          : std::string()) +
        "/><worldbody><geom name='ground' type='plane' size='0 0 1' "
        "pos='0 0 -0.1' contype='0' conaffinity='0'/><body pos='0 0 0'>" +
        joints +
        "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/><geom name='ball' "
        "type='sphere' size='0.1' contype='0' conaffinity='0'/></body></worldbody><contact><pair "
        "geom1='ground' geom2='ball' " +
        (contact.mu > 0.0 ? "condim='3' friction='" + format_number(contact.mu) + " " +
                                format_number(contact.mu) + " 0.005 0.0001 0.0001'"
                          : std::string("condim='1'")) +
        softness + "/></contact></mujoco>";
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    if (mj_makeEmptyFileVFS(&vfs, "direct.xml", static_cast<int>(xml.size())) != 0) {
      throw std::runtime_error("MuJoCo's virtual file system refused the model");
    }
    std::copy(xml.begin(), xml.end(),
              static_cast<char*>(vfs.filedata[mj_findFileVFS(&vfs, "direct.xml")]));
    char error[1000] = "";
    model_ = mj_loadXML("direct.xml", &vfs, error, sizeof error);
    mj_deleteVFS(&vfs);
    if (model_ == nullptr) throw std::runtime_error(error);
    data_ = mj_makeData(model_);
    // x is the slide's and the free joint's qpos[0] alike.
    data_->qpos[0] = start.x;
    data_->qvel[0] = start.vx;
    data_->qpos[z_] = start.z;
    data_->qvel[z_] = start.vz;
  }
  ~Mujoco() {
    mj_deleteData(data_);
    mj_deleteModel(model_);
  }
  Mujoco(const Mujoco&) = delete;
  Mujoco& operator=(const Mujoco&) = delete;

  void step(double force, double force_x = 0.0) {
    data_->qfrc_applied[z_] = force;
    data_->qfrc_applied[0] = force_x;
    mj_step(model_, data_);
  }
  double x() const { return data_->qpos[0]; }
  double rate_x() const { return data_->qvel[0]; }
  double z() const { return data_->qpos[z_]; }
  double rate() const { return data_->qvel[z_]; }
  // Whether the contact pushed during the last step.
  bool pushed() const {
    for (int i = 0; i < data_->nefc; ++i) {
      if (data_->efc_force[i] > 0.0) return true;
    }
    return false;
  }

 private:
  int z_;
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
};
#endif

#ifdef CRBENCH_HAVE_ODE
// A free body; one contact joint a step from dCollide, with the mapped ERP and CFM or the world's.
class Ode {
 public:
  Ode(const Contact& contact, double h, const Start& start = {}) : contact_(contact), h_(h) {
    if (dInitODE2(0) == 0 || dAllocateODEDataForThread(dAllocateMaskAll) == 0) {
      throw std::runtime_error("ODE did not initialize");
    }
    world_ = dWorldCreate();
    dWorldSetGravity(world_, 0.0, 0.0, 0.0);
    body_ = dBodyCreate(world_);
    dMass mass;
    dMassSetParameters(&mass, 1.0, 0.0, 0.0, 0.0, 0.004, 0.004, 0.004, 0.0, 0.0, 0.0);
    dBodySetMass(body_, &mass);
    dBodySetPosition(body_, start.x, 0.0, start.z);
    dBodySetLinearVel(body_, start.vx, 0.0, start.vz);
    sphere_ = dCreateSphere(nullptr, 0.1);
    dGeomSetBody(sphere_, body_);
    plane_ = dCreatePlane(nullptr, 0.0, 0.0, 1.0, -0.1);
    contacts_ = dJointGroupCreate(0);
    if (contact.mu > 0.0) {
      // The sphere must not turn under the friction: an angular motor at rate 0 about x, y, z.
      dJointID motor = dJointCreateAMotor(world_, nullptr);
      dJointAttach(motor, body_, nullptr);
      dJointSetAMotorMode(motor, dAMotorUser);
      dJointSetAMotorNumAxes(motor, 3);
      dJointSetAMotorAxis(motor, 0, 0, 1, 0, 0);
      dJointSetAMotorAxis(motor, 1, 0, 0, 1, 0);
      dJointSetAMotorAxis(motor, 2, 0, 0, 0, 1);
      dJointSetAMotorParam(motor, dParamFMax1, dInfinity);
      dJointSetAMotorParam(motor, dParamFMax2, dInfinity);
      dJointSetAMotorParam(motor, dParamFMax3, dInfinity);
    }
  }
  ~Ode() {
    dJointGroupDestroy(contacts_);
    dGeomDestroy(sphere_);
    dGeomDestroy(plane_);
    dWorldDestroy(world_);
  }
  Ode(const Ode&) = delete;
  Ode& operator=(const Ode&) = delete;

  void step(double force, double force_x = 0.0) {
    dContact c{};
    if (dCollide(sphere_, plane_, 1, &c.geom, sizeof(dContact)) > 0) {
      c.surface.mu = contact_.mu;
      if (contact_.mu > 0.0) c.surface.mode = dContactApprox1;
      if (!contact_.engine_default) {
        const double denominator = h_ * contact_.stiffness + contact_.damping;
        c.surface.mode |= dContactSoftERP | dContactSoftCFM;
        c.surface.soft_erp = h_ * contact_.stiffness / denominator;
        c.surface.soft_cfm = 1.0 / denominator;
      }
      dJointAttach(dJointCreateContact(world_, contacts_, &c), body_, nullptr);
    }
    dBodyAddForce(body_, force_x, 0.0, force);
    dWorldStep(world_, h_);
    dJointGroupEmpty(contacts_);
  }
  double x() const { return dBodyGetPosition(body_)[0]; }
  double rate_x() const { return dBodyGetLinearVel(body_)[0]; }
  double z() const { return dBodyGetPosition(body_)[2]; }
  double rate() const { return dBodyGetLinearVel(body_)[2]; }

 private:
  Contact contact_;
  double h_;
  dWorldID world_ = nullptr;
  dBodyID body_ = nullptr;
  dGeomID sphere_ = nullptr, plane_ = nullptr;
  dJointGroupID contacts_ = nullptr;
};
#endif

#ifdef CRBENCH_HAVE_BULLET
// The sphere kept to x and z by its linear factor; the mapped contact through the bodies'
// contact stiffness and damping (2 kp and kd/2 each, combined in series and in sum), split
// impulse off, 100 iterations; stepSimulation(h, 0, h): one step of exactly h.
class Bullet {
 public:
  Bullet(const Contact& contact, double h, const Start& start = {})
      : h_(h),
        dispatcher_(&configuration_),
        world_(&dispatcher_, &broadphase_, &solver_, &configuration_),
        plane_shape_(btVector3(0, 0, 1), -0.1),
        sphere_shape_(0.1) {
    world_.setGravity(btVector3(0, 0, 0));
    if (!contact.engine_default) {
      world_.getSolverInfo().m_splitImpulse = 0;
      world_.getSolverInfo().m_numIterations = 100;
    }
    btRigidBody::btRigidBodyConstructionInfo plane(0.0, nullptr, &plane_shape_);
    btRigidBody::btRigidBodyConstructionInfo sphere(1.0, nullptr, &sphere_shape_,
                                                    btVector3(0.004, 0.004, 0.004));
    sphere.m_startWorldTransform.setIdentity();
    sphere.m_startWorldTransform.setOrigin(btVector3(start.x, 0, start.z));
    // Bullet's friction of a contact is the product of its bodies'.
    plane.m_friction = contact.mu > 0.0 ? 1.0 : 0.0;
    sphere.m_friction = contact.mu;
    for (auto* info : {&plane, &sphere}) {
      info->m_rollingFriction = 0.0;
      info->m_spinningFriction = 0.0;
    }
    plane_ = std::make_unique<btRigidBody>(plane);
    sphere_ = std::make_unique<btRigidBody>(sphere);
    sphere_->setActivationState(DISABLE_DEACTIVATION);
    sphere_->setLinearFactor(btVector3(1, 0, 1));
    sphere_->setAngularFactor(btVector3(0, 0, 0));
    sphere_->setLinearVelocity(btVector3(start.vx, 0, start.vz));
    for (btRigidBody* body : {plane_.get(), sphere_.get()}) {
      if (!contact.engine_default) {
        body->setContactStiffnessAndDamping(2.0 * contact.stiffness, 0.5 * contact.damping);
        body->setContactProcessingThreshold(0.0);
      }
      world_.addRigidBody(body);
    }
  }
  ~Bullet() {
    world_.removeRigidBody(sphere_.get());
    world_.removeRigidBody(plane_.get());
  }
  Bullet(const Bullet&) = delete;
  Bullet& operator=(const Bullet&) = delete;

  void step(double force, double force_x = 0.0) {
    sphere_->applyCentralForce(btVector3(force_x, 0, force));
    world_.stepSimulation(h_, 0, h_);
  }
  double x() const { return sphere_->getWorldTransform().getOrigin().x(); }
  double rate_x() const { return sphere_->getLinearVelocity().x(); }
  double z() const { return sphere_->getWorldTransform().getOrigin().z(); }
  double rate() const { return sphere_->getLinearVelocity().z(); }

 private:
  double h_;
  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  btDiscreteDynamicsWorld world_;
  btStaticPlaneShape plane_shape_;
  btSphereShape sphere_shape_;
  std::unique_ptr<btRigidBody> plane_, sphere_;
};
#endif

}  // namespace crbench::direct
