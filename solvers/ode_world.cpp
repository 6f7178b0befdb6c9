// The plugin ode (solvers/plugin.hpp): the solver ode's world on the Open Dynamics Engine, the only
// code that calls its library (solvers/ode_solver.hpp).
#include <ode/ode.h>

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/ode_solver.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench {

namespace {

// ODE reports through global handlers that by default print to stderr (messages) or print and
// abort the process (errors, debug checks). crbench's keep the messages of this thread for the
// record and throw on errors, so that a failing step ends its record instead.
thread_local long message_count = 0;
thread_local std::string last_message;

std::string formatted(const char* format, va_list arguments) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, arguments);
  return text;
}
void keep_message(int number, const char* format, va_list arguments) {
  ++message_count;
  last_message = "ODE message " + std::to_string(number) + ": " + formatted(format, arguments);
}
[[noreturn]] void throw_error(int number, const char* format, va_list arguments) {
  throw std::runtime_error("ODE error " + std::to_string(number) + ": " +
                           formatted(format, arguments));
}

void initialize_ode() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (dInitODE2(0) == 0) throw std::runtime_error("ODE did not initialize (dInitODE2)");
    dSetMessageHandler(keep_message);
    dSetErrorHandler(throw_error);
    dSetDebugHandler(throw_error);
  });
  // ODE keeps its collision data per thread: each thread that steps a world allocates its own
  // (repeated calls are harmless).
  if (dAllocateODEDataForThread(dAllocateMaskAll) == 0) {
    throw std::runtime_error("ODE did not allocate its data for this thread");
  }
}

class OdeWorld final : public EngineWorld {
 public:
  OdeWorld(const EngineScene& scene, const State& x0, const EngineContactLaw& law, double h,
           const RunSettings& settings, ParamValues& tolerances, std::string& contact_model)
      : scene_(scene),
        law_(law),
        n_(static_cast<int>(x0.q.size())),
        quick_(settings.solver_choices.at("stepper") == "quick") {
    if (const auto bounce = settings.solver_params.find("bounce");
        bounce != settings.solver_params.end()) {
      bounce_ = bounce->second;
    }
    initialize_ode();
    world_ = dWorldCreate();
    // A threading implementation of the world's own: without one, every world steps through
    // ODE's one built-in self-threaded job list, and two worlds stepped in two threads at once
    // (a study's --jobs 2) crashed in it.
    threading_ = dThreadingAllocateSelfThreadedImplementation();
    if (threading_ == nullptr) throw std::runtime_error("ODE did not allocate a threading context");
    dWorldSetStepThreadingImplementation(world_, dThreadingImplementationGetFunctions(threading_),
                                         threading_);
    dWorldSetGravity(world_, 0.0, 0.0, 0.0);
    if (quick_) {
      dWorldSetQuickStepNumIterations(
          world_, static_cast<int>(settings.solver_params.at("quick_iterations")));
      tolerances["quick_iterations"] = settings.solver_params.at("quick_iterations");
    }
    contacts_ = dJointGroupCreate(0);
    for (const EngineBody& b : scene.bodies) {
      if (b.fixed()) {
        // A static geom: a sphere with no body stays where it is put.
        dGeomID sphere = dCreateSphere(nullptr, b.radius);
        dGeomSetPosition(sphere, 0.0, 0.0, 0.0);
        bodies_.push_back(nullptr);
        spheres_.push_back(sphere);
        angles_.push_back(0.0);
        continue;
      }
      dBodyID body = dBodyCreate(world_);
      dMass mass;
      const double I = b.rotational_inertia;
      dMassSetParameters(&mass, b.mass, 0.0, 0.0, 0.0, I, I, I, 0.0, 0.0, 0.0);
      dBodySetMass(body, &mass);
      dBodySetPosition(body, scene.body_x(b, x0.q), 0.0, scene.body_z(b, x0.q));
      dBodySetLinearVel(body, b.x < 0 ? 0.0 : x0.v(b.x), 0.0, b.z < 0 ? 0.0 : x0.v(b.z));
      const double angle = b.rotation < 0 ? 0.0 : x0.q(b.rotation);
      const dQuaternion rotation{std::cos(0.5 * angle), 0.0, std::sin(0.5 * angle), 0.0};
      dBodySetQuaternion(body, rotation);
      dBodySetAngularVel(body, 0.0, b.rotation < 0 ? 0.0 : x0.v(b.rotation), 0.0);
      dGeomID sphere = dCreateSphere(nullptr, b.radius);
      dGeomSetBody(sphere, body);
      if (b.rotation < 0 && scene.has_friction()) hold_rotation(body);
      if (b.rotation >= 0) turning_.push_back(bodies_.size());
      bodies_.push_back(body);
      spheres_.push_back(sphere);
      angles_.push_back(angle);
    }
    plane_ = dCreatePlane(nullptr, 0.0, 0.0, 1.0, scene.plane_height);
    feedback_.resize(scene.contacts.size());
    normals_.resize(scene.contacts.size());
    joined_.assign(scene.contacts.size(), 0);
    if (law.engine_default) {
      tolerances["world_erp"] = dWorldGetERP(world_);
      tolerances["world_cfm"] = dWorldGetCFM(world_);
      contact_model = "ODE's default contact: the world's ERP " +
                      format_number(dWorldGetERP(world_)) + " and CFM " +
                      format_number(dWorldGetCFM(world_));
    } else {
      // ODE user guide, "How To Use ERP and CFM": ERP = h kp/(h kp + kd), CFM = 1/(h kp + kd)
      // make the row the implicit spring-damper λ = −kp f(t+h) − kd ḟ(t+h) (every step is h).
      contact_model =
          "contact rows with ERP = h kp/(h kp + kd), CFM = 1/(h kp + kd), kp = gamma N, kd = "
          "beta N: the implicit spring-damper lambda = -kp f(t+h) - kd f'(t+h), lambda >= 0";
      const double denominator = h * law.stiffness + law.damping;
      tolerances["contact_erp"] = h * law.stiffness / denominator;
      tolerances["contact_cfm"] = 1.0 / denominator;
    }
    if (bounce_) {
      tolerances["bounce"] = *bounce_;
      contact_model +=
          "; restitution by dContactBounce: bounce " + format_number(*bounce_) + ", bounce_vel 0";
    }
    contact_model +=
        std::string("; ") + (quick_ ? "dWorldQuickStep" : "dWorldStep") +
        (scene.has_friction() ? ", the case's Coulomb mu by dContactApprox1 (a friction pyramid in "
                                "two directions), a sphere that does not turn held by an angular "
                                "motor"
                              : ", frictionless (mu = 0)");
  }

  // An ODE body always turns: an angular motor with three axes, each held at rate 0 with no
  // bound on its torque, keeps a sphere from turning under its contact's friction (a rigid row
  // in the step's LCP, as the contact's).
  void hold_rotation(dBodyID body) {
    dJointID motor = dJointCreateAMotor(world_, nullptr);
    dJointAttach(motor, body, nullptr);
    dJointSetAMotorMode(motor, dAMotorUser);
    dJointSetAMotorNumAxes(motor, 3);
    dJointSetAMotorAxis(motor, 0, 0, 1.0, 0.0, 0.0);
    dJointSetAMotorAxis(motor, 1, 0, 0.0, 1.0, 0.0);
    dJointSetAMotorAxis(motor, 2, 0, 0.0, 0.0, 1.0);
    for (const int velocity : {dParamVel1, dParamVel2, dParamVel3}) {
      dJointSetAMotorParam(motor, velocity, 0.0);
    }
    for (const int bound : {dParamFMax1, dParamFMax2, dParamFMax3}) {
      dJointSetAMotorParam(motor, bound, dInfinity);
    }
  }

  ~OdeWorld() override {
    dJointGroupDestroy(contacts_);
    for (dGeomID g : spheres_) dGeomDestroy(g);
    dGeomDestroy(plane_);
    dWorldDestroy(world_);
    dThreadingFreeImplementation(threading_);
  }
  OdeWorld(const OdeWorld&) = delete;
  OdeWorld& operator=(const OdeWorld&) = delete;

  void step(double /*t*/, const Eigen::VectorXd& force, double h) override {
    for (std::size_t k = 0; k < scene_.contacts.size(); ++k) {
      const EngineContact& c = scene_.contacts[k];
      dContact contact{};
      dGeomID other = c.b < 0 ? plane_ : spheres_[static_cast<std::size_t>(c.b)];
      joined_[k] = dCollide(spheres_[static_cast<std::size_t>(c.a)], other, 1, &contact.geom,
                            sizeof(dContact)) > 0
                       ? 1
                       : 0;
      if (!joined_[k]) continue;
      // Coulomb's law with mu the coefficient (dContactApprox1: the pyramid in ODE's two
      // friction directions, each force bounded by mu times the normal force); 0: frictionless.
      contact.surface.mu = c.friction;
      if (c.friction > 0.0) contact.surface.mode = dContactApprox1;
      if (!law_.engine_default) {
        const double denominator = h * law_.stiffness + law_.damping;
        contact.surface.mode |= dContactSoftERP | dContactSoftCFM;
        contact.surface.soft_erp = h * law_.stiffness / denominator;
        contact.surface.soft_cfm = 1.0 / denominator;
      }
      if (bounce_) {
        // ODE's restitution: the row's target normal rate after the step is −bounce times the
        // rate before it, for approach rates above bounce_vel (0: every one).
        contact.surface.mode |= dContactBounce;
        contact.surface.bounce = *bounce_;
        contact.surface.bounce_vel = 0.0;
      }
      for (int i = 0; i < 3; ++i) normals_[k][static_cast<std::size_t>(i)] = contact.geom.normal[i];
      dJointID joint = dJointCreateContact(world_, contacts_, &contact);
      // dCollide's normal points into its first geom: body a is the joint's first body.
      dJointAttach(joint, bodies_[static_cast<std::size_t>(c.a)],
                   c.b < 0 ? nullptr : bodies_[static_cast<std::size_t>(c.b)]);
      dJointSetFeedback(joint, &feedback_[k]);
    }
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const EngineBody& body = scene_.bodies[b];
      if (body.fixed()) continue;
      dBodyAddForce(bodies_[b], body.x < 0 ? 0.0 : force(body.x), 0.0,
                    body.z < 0 ? 0.0 : force(body.z));
      if (body.rotation >= 0) dBodyAddTorque(bodies_[b], 0.0, force(body.rotation), 0.0);
    }
    const long messages_before = message_count;
    const int ok = quick_ ? dWorldQuickStep(world_, h) : dWorldStep(world_, h);
    if (ok == 0) throw std::runtime_error("ODE's step ran out of memory");
    for (std::size_t k = 0; k < scene_.contacts.size(); ++k) {
      const auto slot = static_cast<Eigen::Index>(k);
      impulses_(slot) = 0.0;
      if (!joined_[k]) continue;
      const dJointFeedback& fb = feedback_[k];
      impulses_(slot) =
          h * (fb.f1[0] * normals_[k][0] + fb.f1[1] * normals_[k][1] + fb.f1[2] * normals_[k][2]);
    }
    dJointGroupEmpty(contacts_);
    // Rotations about y, unwrapped from the quaternion's (−2π, 2π] angle.
    for (const std::size_t b : turning_) {
      const dReal* q = dBodyGetQuaternion(bodies_[b]);
      const double raw = 2.0 * std::atan2(q[2], q[0]);
      angles_[b] += std::remainder(raw - angles_[b], 2.0 * std::numbers::pi);
    }
    // ODE's messages come from its LCP solver (dWorldStep's Dantzig pivoting fails with "LCP
    // internal error, s <= 0" on the touching ball chain, whose contacts start at depth 0 with no
    // relative velocity; the ball then passes through): its contact forces are no solution.
    if (message_count != messages_before) {
      throw UntrustedStep("ODE reported \"" + last_message +
                          "\" in the step's LCP and went on with forces that do not solve it "
                          "(--stepper quick iterates instead of pivoting)");
    }
  }

  void state(Eigen::VectorXd& q, Eigen::VectorXd& v) const override {
    q.resize(n_);
    v.resize(n_);
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const EngineBody& body = scene_.bodies[b];
      if (body.fixed()) continue;
      const dReal* position = dBodyGetPosition(bodies_[b]);
      const dReal* velocity = dBodyGetLinearVel(bodies_[b]);
      if (body.x >= 0) q(body.x) = position[0], v(body.x) = velocity[0];
      if (body.z >= 0) q(body.z) = position[2], v(body.z) = velocity[2];
      if (body.rotation >= 0) {
        q(body.rotation) = angles_[b];
        v(body.rotation) = dBodyGetAngularVel(bodies_[b])[1];
      }
    }
  }

  const Eigen::VectorXd& contact_impulses() const override { return impulses_; }

 private:
  const EngineScene& scene_;
  EngineContactLaw law_;
  int n_;
  bool quick_;
  std::optional<double> bounce_;  // dContactBounce's bounce (engine-default only)
  dWorldID world_ = nullptr;
  dThreadingImplementationID threading_ = nullptr;
  dJointGroupID contacts_ = nullptr;
  dGeomID plane_ = nullptr;
  std::vector<dBodyID> bodies_;  // null for a fixed body
  std::vector<dGeomID> spheres_;
  std::vector<double> angles_;
  std::vector<std::size_t> turning_;  // the bodies with a rotation coordinate
  std::vector<dJointFeedback> feedback_;
  std::vector<std::array<double, 3>> normals_;
  // Whether contact k has a joint this step (bytes, not std::vector<bool>'s bits: read twice a
  // step per contact).
  std::vector<unsigned char> joined_;
  Eigen::VectorXd impulses_ =
      Eigen::VectorXd::Zero(static_cast<Eigen::Index>(scene_.contacts.size()));
};

std::string version() {
  return "Open Dynamics Engine " + std::string(dODE_VERSION) + " (" +
         std::string(dGetConfiguration()) + ")";
}

std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                        const EngineContactLaw& law, double h,
                                        const RunSettings& settings, ParamValues& tolerances,
                                        std::string& contact_model) {
  return std::make_unique<OdeWorld>(scene, x0, law, h, settings, tolerances, contact_model);
}

const EnginePlugin kPlugin{.version = version, .make_world = make_world};

}  // namespace

}  // namespace crbench

CRBENCH_PLUGIN_ENTRY(ode) { return &crbench::kPlugin; }
