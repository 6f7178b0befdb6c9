// The plugin bullet (solvers/plugin.hpp): the solver bullet's world on Bullet, the only code that
// calls its library (solvers/bullet_solver.hpp).
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/bullet_solver.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench {

namespace {

class BulletWorld final : public EngineWorld {
 public:
  BulletWorld(const EngineScene& scene, const State& x0, const EngineContactLaw& law,
              const RunSettings& settings, ParamValues& tolerances, std::string& contact_model)
      : scene_(scene), n_(static_cast<int>(x0.q.size())) {
    configuration_ = std::make_unique<btDefaultCollisionConfiguration>();
    dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
    broadphase_ = std::make_unique<btDbvtBroadphase>();
    solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
    world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                       solver_.get(), configuration_.get());
    world_->setGravity(btVector3(0, 0, 0));
    btContactSolverInfo& info = world_->getSolverInfo();
    if (!law.engine_default) {
      // A spring-damper needs the penetration's correction to be a force: no split impulse.
      info.m_splitImpulse = 0;
      info.m_numIterations = static_cast<int>(settings.solver_params.at("iterations"));
    }
    tolerances["iterations"] = info.m_numIterations;
    tolerances["warmstarting_factor"] = info.m_warmstartingFactor;
    // Bullet's restitution of a contact is the product of its two bodies' (engine-default only).
    const auto restitution = settings.solver_params.find("restitution");
    const double body_restitution =
        restitution == settings.solver_params.end() ? 0.0 : std::sqrt(restitution->second);
    if (restitution != settings.solver_params.end()) {
      tolerances["restitution"] = restitution->second;
      tolerances["restitution_velocity_threshold"] = info.m_restitutionVelocityThreshold;
    }

    // Bullet's friction of a contact is the product of its two bodies' (clamped to 10): the
    // ground's 1 (where the scene has friction) times the sphere's mu.
    const auto add_body = [&](std::unique_ptr<btCollisionShape> shape, double mass,
                              const btVector3& inertia, const btTransform& pose, int index) {
      btRigidBody::btRigidBodyConstructionInfo construction(mass, nullptr, shape.get(), inertia);
      construction.m_friction = friction_of(scene, index);
      construction.m_rollingFriction = 0.0;
      construction.m_spinningFriction = 0.0;
      construction.m_restitution = body_restitution;
      construction.m_startWorldTransform = pose;
      auto body = std::make_unique<btRigidBody>(construction);
      body->setUserIndex(index);
      // A moving body never sleeps; a static one stays inactive, as Bullet leaves it (an active
      // static plane's unbounded box would be updated in the broadphase at every step).
      if (mass > 0.0) body->setActivationState(DISABLE_DEACTIVATION);
      if (!law.engine_default) {
        // Bullet combines two bodies' contact stiffness in series and their damping as a sum.
        body->setContactStiffnessAndDamping(2.0 * law.stiffness, 0.5 * law.damping);
        body->setContactProcessingThreshold(0.0);
      }
      world_->addRigidBody(body.get());
      shapes_.push_back(std::move(shape));
      bodies_.push_back(std::move(body));
    };
    bool has_plane = false;
    for (const EngineContact& c : scene.contacts) has_plane = has_plane || c.b < 0;
    if (has_plane) {
      btTransform pose;
      pose.setIdentity();
      add_body(std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), scene.plane_height), 0.0,
               btVector3(0, 0, 0), pose, -1);
      ground_ = 1;
    }
    for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
      const EngineBody& body = scene.bodies[b];
      if (body.fixed()) {
        // Mass 0: a static body.
        btTransform pose;
        pose.setIdentity();
        add_body(std::make_unique<btSphereShape>(body.radius), 0.0, btVector3(0, 0, 0), pose,
                 static_cast<int>(b));
        angles_.push_back(0.0);
        continue;
      }
      const double angle = body.rotation < 0 ? 0.0 : x0.q(body.rotation);
      btTransform pose(btQuaternion(btVector3(0, 1, 0), angle),
                       btVector3(scene.body_x(body, x0.q), 0, scene.body_z(body, x0.q)));
      const double I = body.rotational_inertia;
      add_body(std::make_unique<btSphereShape>(body.radius), body.mass, btVector3(I, I, I), pose,
               static_cast<int>(b));
      btRigidBody& rigid = *bodies_.back();
      // Only the case's coordinates move.
      rigid.setLinearFactor(btVector3(body.x < 0 ? 0 : 1, 0, body.z < 0 ? 0 : 1));
      rigid.setAngularFactor(btVector3(0, body.rotation < 0 ? 0 : 1, 0));
      rigid.setLinearVelocity(
          btVector3(body.x < 0 ? 0.0 : x0.v(body.x), 0, body.z < 0 ? 0.0 : x0.v(body.z)));
      rigid.setAngularVelocity(btVector3(0, body.rotation < 0 ? 0.0 : x0.v(body.rotation), 0));
      angles_.push_back(angle);
    }
    if (law.engine_default) {
      contact_model = "Bullet's default contact: ERP " + format_number(info.m_erp2) +
                      " with split impulse (penetration threshold " +
                      format_number(info.m_splitImpulsePenetrationThreshold) +
                      "), CFM 0, contacts processed within the breaking threshold";
    } else {
      contact_model =
          "contact stiffness kp = gamma N and damping kd = beta N (each body 2 kp and kd/2): "
          "the row's ERP = h kp/(h kp + kd), CFM = 1/(h kp + kd), the implicit spring-damper "
          "lambda = -kp f(t+h) - kd f'(t+h), lambda >= 0; no split impulse, contacts at gaps <= "
          "0 only";
    }
    if (restitution != settings.solver_params.end()) {
      contact_model += "; restitution " + format_number(restitution->second) +
                       " (each body's sqrt of it), none below an approach rate of " +
                       format_number(info.m_restitutionVelocityThreshold);
    }
    contact_model +=
        "; btSequentialImpulseConstraintSolver (" + std::to_string(info.m_numIterations) +
        " iterations, warm starting), " +
        (scene.has_friction() ? "the case's Coulomb mu (the ground's 1 times the sphere's mu), "
                                "Bullet's one friction direction"
                              : std::string("frictionless"));
  }

  // The friction of scene body `index` (−1: the ground plane) in Bullet's product rule.
  static double friction_of(const EngineScene& scene, int index) {
    if (index < 0) return scene.has_friction() ? 1.0 : 0.0;
    for (const EngineContact& c : scene.contacts) {
      if (c.a == index && c.friction > 0.0) return c.friction;
    }
    return 0.0;
  }

  ~BulletWorld() override {
    for (auto& body : bodies_) world_->removeRigidBody(body.get());
  }
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  void step(double /*t*/, const Eigen::VectorXd& force, double h) override {
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const EngineBody& body = scene_.bodies[b];
      if (body.fixed()) continue;
      btRigidBody& rigid = sphere(b);
      rigid.applyCentralForce(
          btVector3(body.x < 0 ? 0.0 : force(body.x), 0, body.z < 0 ? 0.0 : force(body.z)));
      if (body.rotation >= 0) rigid.applyTorque(btVector3(0, force(body.rotation), 0));
    }
    // maxSubSteps = 0: one step of exactly h (Bullet's variable time step).
    world_->stepSimulation(h, 0, h);
    impulses_.setZero(static_cast<Eigen::Index>(scene_.contacts.size()));
    for (int i = 0; i < dispatcher_->getNumManifolds(); ++i) {
      const btPersistentManifold* manifold = dispatcher_->getManifoldByIndexInternal(i);
      const int a = manifold->getBody0()->getUserIndex();
      const int b = manifold->getBody1()->getUserIndex();
      for (std::size_t k = 0; k < scene_.contacts.size(); ++k) {
        const EngineContact& c = scene_.contacts[k];
        if (!((c.a == a && c.b == b) || (c.a == b && c.b == a))) continue;
        for (int p = 0; p < manifold->getNumContacts(); ++p) {
          impulses_(static_cast<Eigen::Index>(k)) +=
              manifold->getContactPoint(p).getAppliedImpulse();
        }
      }
    }
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      if (scene_.bodies[b].rotation < 0) continue;
      const btQuaternion q = sphere(b).getOrientation();
      const double raw = 2.0 * std::atan2(q.y(), q.w());
      angles_[b] += std::remainder(raw - angles_[b], 2.0 * std::numbers::pi);
    }
  }

  void state(Eigen::VectorXd& q, Eigen::VectorXd& v) const override {
    q.resize(n_);
    v.resize(n_);
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const EngineBody& body = scene_.bodies[b];
      if (body.fixed()) continue;
      const btRigidBody& rigid = bodies_[b + ground_].operator*();
      const btVector3& position = rigid.getWorldTransform().getOrigin();
      const btVector3& velocity = rigid.getLinearVelocity();
      if (body.x >= 0) q(body.x) = position.x(), v(body.x) = velocity.x();
      if (body.z >= 0) q(body.z) = position.z(), v(body.z) = velocity.z();
      if (body.rotation >= 0) {
        q(body.rotation) = angles_[b];
        v(body.rotation) = rigid.getAngularVelocity().y();
      }
    }
  }

  const Eigen::VectorXd& contact_impulses() const override { return impulses_; }

 private:
  btRigidBody& sphere(std::size_t b) { return *bodies_[b + ground_]; }

  const EngineScene& scene_;
  int n_;
  std::size_t ground_ = 0;  // 1 when bodies_[0] is the ground plane
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<double> angles_;
  Eigen::VectorXd impulses_;
};

std::string version() {
  return "Bullet " + std::to_string(btGetVersion() / 100) + "." +
         std::to_string(btGetVersion() % 100) + " (double precision)";
}

std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                        const EngineContactLaw& law, double /*h*/,
                                        const RunSettings& settings, ParamValues& tolerances,
                                        std::string& contact_model) {
  return std::make_unique<BulletWorld>(scene, x0, law, settings, tolerances, contact_model);
}

const EnginePlugin kPlugin{.version = version, .make_world = make_world};

}  // namespace

}  // namespace crbench

CRBENCH_PLUGIN_ENTRY(bullet) { return &crbench::kPlugin; }
