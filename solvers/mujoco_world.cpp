// The plugin mujoco (solvers/plugin.hpp): the solver mujoco's world on MuJoCo, the only code that
// calls its library (solvers/mujoco_solver.hpp).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/mujoco_solver.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench {

namespace {

// MuJoCo's default solref timeconst (MuJoCo 2.2.2, XML reference: solref).
constexpr double kDefaultTimeconst = 0.02;

// MuJoCo reports errors through a global handler that by default prints and exits the process;
// crbench's throws, so that a failing step ends its record instead. Warnings (which by default go
// to stdout and to MUJOCO_LOG.TXT in the working directory) are counted in mjData::warning and
// read from there; their text is kept per thread for the reason of a failed step.
thread_local std::string last_warning;
void throw_mujoco_error(const char* message) {
  throw std::runtime_error(std::string("MuJoCo: ") + message);
}
void keep_mujoco_warning(const char* message) { last_warning = message; }

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    mju_user_error = throw_mujoco_error;
    mju_user_warning = keep_mujoco_warning;
  });
}

// MuJoCo's passive-force callback is global: it forwards to the world stepping on this thread
// (the case's force at a Runge–Kutta stage), and does nothing for any other mjData.
class MujocoWorld;
thread_local MujocoWorld* stepping_world = nullptr;
void stage_force_callback(const mjModel* m, mjData* d);
void install_stage_force_callback() {
  static std::once_flag once;
  std::call_once(once, [] { mjcb_passive = stage_force_callback; });
}

// MuJoCo's XML parser and compiler keep state that is not documented as thread-safe.
std::mutex& loader_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

std::string num(double value) { return format_number(value); }

// The largest amplification |R(hλ)| of the classical Runge–Kutta method, R(z) = 1 + z + z²/2 +
// z³/6 + z⁴/24, over the roots λ of λ² + b λ + k (the contact's f̈ = −b ḟ − k f).
double runge_kutta_growth(double h, double b, double k) {
  const std::complex<double> root = std::sqrt(std::complex<double>(b * b - 4.0 * k, 0.0));
  double worst = 0.0;
  for (const std::complex<double> lambda : {0.5 * (-b + root), 0.5 * (-b - root)}) {
    const std::complex<double> z = h * lambda;
    worst = std::max(worst, std::abs(1.0 + z * (1.0 + z * (0.5 + z * (1.0 / 6.0 + z / 24.0)))));
  }
  return worst;
}

// J M⁻¹ Jᵀ of a contact: the inverse masses of its spheres (the normal passes through the
// centres, so rotation does not enter).
double contact_inverse_mass(const EngineScene& scene, const EngineContact& c) {
  double inverse = 1.0 / scene.bodies[static_cast<std::size_t>(c.a)].mass;
  if (c.b >= 0 && !scene.bodies[static_cast<std::size_t>(c.b)].fixed()) {
    inverse += 1.0 / scene.bodies[static_cast<std::size_t>(c.b)].mass;
  }
  return inverse;
}

class MujocoWorld final : public EngineWorld {
 public:
  MujocoWorld(const EngineScene& scene, const State& x0, const EngineContactLaw& law, double h,
              const RunSettings& settings, ParamValues& tolerances, std::string& contact_model)
      : scene_(scene), n_(static_cast<int>(x0.q.size())) {
    install_handlers();
    const ParamValues& p = settings.solver_params;
    const std::string& integrator = settings.solver_choices.at("integrator");
    const bool implicit = integrator == "implicit";
    runge_kutta_ = integrator == "rk4";
    free_ = settings.solver_choices.at("joints") == "free";
    if (runge_kutta_) install_stage_force_callback();
    const bool refsafe = settings.solver_choices.at("refsafe") == "on";
    refsafe_ = refsafe;
    if (const auto cone = settings.solver_choices.find("cone");
        cone != settings.solver_choices.end()) {
      cone_ = cone->second;
    }
    if (const auto ratio = p.find("impratio"); ratio != p.end()) impratio_ = ratio->second;
    const double impedance = law.engine_default ? 0.0 : p.at("impedance");
    if (const auto ratio = p.find("dampratio"); ratio != p.end()) dampratio_ = ratio->second;
    // The contact's reference in MuJoCo's direct form (negative solref): k and b in units of
    // acceleration (MuJoCo's mj_makeImpedance divides them by dmax² and dmax, and the solver
    // multiplies the stiffness term by the impedance d, so with dmin = dmax = d the pushing
    // contact has f̈ = (1 − w)·a₀ − (b ḟ + k f)/(d + (1 − d) c), w = d/(d + (1 − d) c), c the
    // ratio of MuJoCo's diagonal approximation to J M⁻¹ Jᵀ: 2/3 for a sphere's contact, 1 for a
    // tendon; docs/engines.md).
    std::string xml = options_xml(h, implicit, refsafe);
    xml += bodies_xml(x0);
    xml += constraints_xml(law, h, impedance);
    load(xml, x0);
    describe(law, h, implicit, refsafe, impedance, tolerances, contact_model);
  }

 private:
  // The model's head: the time step, the integrator, refsafe, the sizes.
  std::string options_xml(double h, bool implicit, bool refsafe) const {
    std::string xml;
    xml.append("<mujoco model=\"crbench\">\n");
    xml.append("  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n");
    // A Coulomb case's friction cone and impratio (MuJoCo's defaults otherwise: the option is
    // then written as before).
    std::string friction_options;
    if (scene_.has_friction()) {
      friction_options = " cone=\"" + cone_ + "\" impratio=\"" + num(impratio_) + "\"";
    }
    xml.append("  <option timestep=\"" + num(h) + "\" gravity=\"0 0 0\" integrator=\"" +
               (implicit ? std::string("implicit") : std::string(runge_kutta_ ? "RK4" : "Euler")) +
               "\"" + friction_options + ">\n");
    xml.append(std::string("    <flag refsafe=\"") + (refsafe ? "enable" : "disable") +
               "\" warmstart=\"enable\"/>\n");
    xml.append("  </option>\n");
    const std::size_t pairs = scene_.contacts.size();
    // A frictional contact has up to four rows (the pyramid's edges).
    const std::size_t rows = scene_.has_friction() ? 4 * pairs + 2 : 2 * pairs + 2;
    xml.append("  <size nconmax=\"" + std::to_string(pairs + 1) + "\" njmax=\"" +
               std::to_string(rows) + "\"/>\n");
    xml.append("  <worldbody>\n");
    bool has_plane = false;
    for (const EngineContact& c : scene_.contacts) has_plane = has_plane || c.b < 0;
    if (has_plane) {
      xml.append("    <geom name=\"ground\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 " +
                 num(scene_.plane_height) + "\" contype=\"0\" conaffinity=\"0\"/>\n");
    }
    return xml;
  }

  // The bodies, each with its sphere: planar, one slide joint per case coordinate on x or z and a
  // hinge per rotation; free, a free joint (sets slot_ and offset_).
  std::string bodies_xml(const State& x0) {
    std::string xml;
    // Joints in the order of the case's coordinates they carry, body by body; slot_[i] is where
    // case coordinate i is in MuJoCo's qpos and qvel.
    slot_.assign(static_cast<std::size_t>(n_), Slot{});
    // A body held by a tendon from the origin starts where it is: at the origin, MuJoCo's
    // reference configuration, the tendon would have no direction and its invweight0 no value.
    // Slide joints then measure the displacement from there (offset_); a free joint's qpos is the
    // body's place in the world, and every free body starts where it is.
    const bool tendons = scene_.has_tendons();
    offset_ = Eigen::VectorXd::Zero(n_);
    stage_p_.resize(n_);
    stage_u_.resize(n_);
    angles_.assign(static_cast<std::size_t>(n_), 0.0);
    if (tendons) xml.append("    <site name=\"origin\" pos=\"0 0 0\"/>\n");
    if (tendons && !free_) {
      for (const EngineBody& body : scene_.bodies) {
        if (body.x >= 0) offset_(body.x) = x0.q(body.x);
        if (body.z >= 0) offset_(body.z) = x0.q(body.z);
      }
    }
    int dof = 0, qpos = 0;
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const EngineBody& body = scene_.bodies[b];
      const std::string id = std::to_string(b);
      if (body.fixed()) {
        xml.append("    <geom name=\"sphere" + id + "\" type=\"sphere\" size=\"" +
                   num(body.radius) + "\" pos=\"0 0 0\" contype=\"0\" conaffinity=\"0\"/>\n");
        continue;
      }
      const double start_x = body.x < 0 ? 0.0 : free_ ? x0.q(body.x) : offset_(body.x);
      const double start_z = body.z < 0 ? 0.0 : free_ ? x0.q(body.z) : offset_(body.z);
      xml.append("    <body name=\"body" + id + "\" pos=\"" + num(start_x) + " 0 " + num(start_z) +
                 "\">\n");
      if (tendons) xml.append("      <site name=\"site" + id + "\" pos=\"0 0 0\"/>\n");
      if (free_) {
        // qpos (x, y, z, quaternion), qvel (linear, angular in the body's frame: a rotation about
        // y keeps that axis, so its rate is the world's).
        xml.append("      <freejoint/>\n");
        const auto slot = [&](int coordinate, int position, int rate, bool angle) {
          if (coordinate >= 0)
            slot_[static_cast<std::size_t>(coordinate)] = {qpos + position, dof + rate, angle};
        };
        slot(body.x, 0, 0, false);
        slot(body.z, 2, 2, false);
        slot(body.rotation, 3, 4, true);
        if (body.rotation >= 0) {
          angles_[static_cast<std::size_t>(body.rotation)] = x0.q(body.rotation);
        }
        qpos += 7;
        dof += 6;
      } else {
        const auto joint = [&](int coordinate, const char* type, const char* axis) {
          if (coordinate < 0) return;
          xml.append(std::string("      <joint type=\"") + type + "\" axis=\"" + axis +
                     "\" limited=\"false\" damping=\"0\" armature=\"0\" stiffness=\"0\"/>\n");
          slot_[static_cast<std::size_t>(coordinate)] = {qpos++, dof++, false};
        };
        joint(body.x, "slide", "1 0 0");
        joint(body.z, "slide", "0 0 1");
        joint(body.rotation, "hinge", "0 1 0");
      }
      const std::string I = num(body.rotational_inertia);
      xml.append("      <inertial pos=\"0 0 0\" mass=\"" + num(body.mass) + "\" diaginertia=\"" +
                 I + " " + I + " " + I + "\"/>\n");
      xml.append("      <geom name=\"sphere" + id + "\" type=\"sphere\" size=\"" +
                 num(body.radius) + "\" contype=\"0\" conaffinity=\"0\"/>\n");
      xml.append("    </body>\n");
    }
    xml.append("  </worldbody>\n");
    return xml;
  }

  // The tendons and contact pairs with the law's reference and impedance (none for MuJoCo's
  // default), and a warning where the step is past the integrator's stability bound.
  std::string constraints_xml(const EngineContactLaw& law, double h, double impedance) {
    std::string xml;
    const bool tendons = scene_.has_tendons();
    double worst_stability = 0.0;
    // The mapped reference and impedance of a contact or tendon limit (direct solref: k and b in
    // units of acceleration), or nothing for MuJoCo's default.
    const auto softness = [&](const EngineContact& c, const char* solref, const char* solimp) {
      if (law.engine_default) {
        // Deep in the contact (d = dmax, c = 1) MuJoCo's default reference makes the contact
        // p'' = −(2/τ) p' − p/(τ ζ)², τ the timeconst after refsafe, ζ the damping ratio
        // (docs/engines.md, "Impacts at the defaults"): its stability as the mapped contact's.
        const double tau = refsafe_ ? std::max(kDefaultTimeconst, 2.0 * h) : kDefaultTimeconst;
        const double zeta = dampratio_.value_or(1.0);
        const double b = 2.0 / tau, k = 1.0 / (tau * tau * zeta * zeta);
        worst_stability = std::max(worst_stability, runge_kutta_ ? 2.0 * runge_kutta_growth(h, b, k)
                                                                 : h * b + 0.5 * h * h * k);
        // MuJoCo's default (timeconst, dampratio), with the damping ratio asked for.
        return dampratio_ ? std::string(" ") + solref + "=\"" + num(kDefaultTimeconst) + " " +
                                num(*dampratio_) + "\""
                          : std::string();
      }
      const double inverse_mass = contact_inverse_mass(scene_, c);
      const double k = law.stiffness * inverse_mass, b = law.damping * inverse_mass;
      // Semi-implicit Euler with the contact's force taken at the step's start is stable for
      // h b + h² k / 2 < 2 (the damped oscillator f̈ = −b ḟ − k f); Runge–Kutta where its
      // amplification |R(hλ)| ≤ 1 at both roots λ of λ² + b λ + k (expressed on the same scale:
      // 2 at the bound).
      worst_stability = std::max(worst_stability, runge_kutta_ ? 2.0 * runge_kutta_growth(h, b, k)
                                                               : h * b + 0.5 * h * h * k);
      return std::string(" ") + solref + "=\"" + num(-k) + " " + num(-b) + "\" " + solimp + "=\"" +
             num(impedance) + " " + num(impedance) + " 0.001 0.5 2\"";
    };
    if (tendons) {
      // One spatial tendon per tendon contact, from the origin to the body's centre, limited to
      // [length, ∞) (a rod) or [0, length] (a string).
      xml.append("  <tendon>\n");
      for (std::size_t k = 0; k < scene_.contacts.size(); ++k) {
        const EngineContact& c = scene_.contacts[k];
        if (c.tendon == 0) continue;
        const double lower = c.tendon > 0 ? c.length : 0.0;
        const double upper = c.tendon > 0 ? 1e6 * (1.0 + c.length) : c.length;
        xml.append("    <spatial limited=\"true\" range=\"" + num(lower) + " " + num(upper) + "\"" +
                   softness(c, "solreflimit", "solimplimit") +
                   ">\n      <site site=\"origin\"/>\n      <site site=\"site" +
                   std::to_string(c.a) + "\"/>\n    </spatial>\n");
        tendon_contact_.push_back(static_cast<int>(k));
      }
      xml.append("  </tendon>\n");
    }
    xml.append("  <contact>\n");
    for (const EngineContact& c : scene_.contacts) {
      if (c.tendon != 0) continue;
      const std::string g1 = c.b < 0 ? std::string("ground") : "sphere" + std::to_string(c.b);
      const std::string g2 = "sphere" + std::to_string(c.a);
      // A frictional pair: condim 3, sliding friction mu in both tangent directions (the
      // torsional and rolling ones are not used at condim 3).
      const std::string friction = c.friction > 0.0
                                       ? "\" condim=\"3\" friction=\"" + num(c.friction) + " " +
                                             num(c.friction) + " 0.005 0.0001 0.0001\""
                                       : "\" condim=\"1\"";
      xml.append("    <pair geom1=\"" + g1 + "\" geom2=\"" + g2 + friction +
                 softness(c, "solref", "solimp") + "/>\n");
    }
    xml.append("  </contact>\n</mujoco>\n");
    if (runge_kutta_ && worst_stability > 2.0) {
      warnings_.push_back(
          "MuJoCo's Runge-Kutta step amplifies the contact's oscillation f'' = -b f' - k f (b, k "
          "the mass-normalized damping and stiffness) by " +
          num(0.5 * worst_stability) +
          " > 1 a step: it is past the method's stability bound; take a smaller h");
    } else if (!runge_kutta_ && worst_stability >= 2.0) {
      warnings_.push_back(
          "MuJoCo takes the contact force at the step's start (explicit): h b + h^2 k / 2 = " +
          num(worst_stability) + " >= 2 (b, k the mass-normalized damping and stiffness" +
          (law.engine_default
               ? std::string("; of MuJoCo's default contact 2/timeconst and 1/(timeconst "
                             "dampratio)^2")
               : std::string()) +
          ") is past the stability bound of the step; take h < " + num(h * 2.0 / worst_stability) +
          " or so");
    }
    return xml;
  }

  // The model from its XML (through a virtual file: no file on disk), its data at x0.
  void load(const std::string& xml, const State& x0) {
    {
      const std::lock_guard<std::mutex> lock(loader_mutex());
      auto vfs = std::make_unique<mjVFS>();
      mj_defaultVFS(vfs.get());
      const char* file = "crbench.xml";
      if (mj_makeEmptyFileVFS(vfs.get(), file, static_cast<int>(xml.size())) != 0) {
        throw std::runtime_error("MuJoCo's virtual file system refused the model");
      }
      const int index = mj_findFileVFS(vfs.get(), file);
      std::memcpy(vfs->filedata[index], xml.data(), xml.size());
      char error[1000] = "";
      model_.reset(mj_loadXML(file, vfs.get(), error, sizeof error));
      mj_deleteVFS(vfs.get());
      if (!model_) throw std::runtime_error(std::string("MuJoCo did not load the scene: ") + error);
    }
    // Geoms by name: a fixed body's sphere is the world's, listed before the bodies' own.
    geom_body_.assign(static_cast<std::size_t>(model_->ngeom), -1);
    for (std::size_t b = 0; b < scene_.bodies.size(); ++b) {
      const int geom = mj_name2id(model_.get(), mjOBJ_GEOM, ("sphere" + std::to_string(b)).c_str());
      geom_body_[static_cast<std::size_t>(geom)] = static_cast<int>(b);
    }
    data_.reset(mj_makeData(model_.get()));
    if (!data_) throw std::runtime_error("MuJoCo could not allocate its data");
    // The free joints' qpos0 is the bodies' start (the XML's pos) with the identity rotation.
    for (int i = 0; i < n_; ++i) {
      const Slot& s = slot_[static_cast<std::size_t>(i)];
      if (s.angle) {
        data_->qpos[s.qpos] = std::cos(0.5 * x0.q(i));
        data_->qpos[s.qpos + 2] = std::sin(0.5 * x0.q(i));
      } else {
        data_->qpos[s.qpos] = x0.q(i) - offset_(i);
      }
      data_->qvel[s.dof] = x0.v(i);
    }
    for (int w = 0; w < mjNWARNING; ++w) warning_counts_[w] = 0;
  }

  // The tolerances the record carries and the contact model in words.
  void describe(const EngineContactLaw& law, double h, bool implicit, bool refsafe,
                double impedance, ParamValues& tolerances, std::string& contact_model) const {
    tolerances["solver_tolerance"] = model_->opt.tolerance;
    tolerances["solver_iterations"] = model_->opt.iterations;
    if (law.engine_default) {
      const double timeconst = refsafe ? std::max(kDefaultTimeconst, 2.0 * h) : kDefaultTimeconst;
      tolerances["timeconst"] = timeconst;
      if (dampratio_) tolerances["dampratio"] = *dampratio_;
      contact_model =
          "MuJoCo's default contact: solref (timeconst, dampratio) = (0.02, " +
          num(dampratio_.value_or(1.0)) + ")" +
          std::string(refsafe ? " with timeconst raised to 2h where larger (refsafe), " : ", ") +
          "solimp (0.9, 0.95, 0.001, 0.5, 2): while it pushes f'' = (1 - d) a0 + d aref, aref = "
          "-(2/(dmax timeconst)) f' - d f/(dmax timeconst dampratio)^2, d from 0.9 at f = 0 to "
          "0.95 at |f| >= 0.001";
    } else {
      tolerances["impedance"] = impedance;
      contact_model =
          "direct reference solref = (-k, -b), k = gamma N J M^-1 J^T, b = beta N J M^-1 J^T, "
          "solimp (d, d, 0.001, 0.5, 2) with d = impedance: while it pushes f'' = (1 - w) a0 - "
          "(b f' + k f)/(d + (1 - d) c), w = d/(d + (1 - d) c), c = MuJoCo's diagonal "
          "approximation / J M^-1 J^T (2/3 for a sphere's contact, 1 for a tendon) (the "
          "realization's: f'' = a0 - b f' - k f)";
    }
    contact_model +=
        std::string("; ") +
        (implicit ? "implicit"
                  : (runge_kutta_ ? "Runge-Kutta 4 (the case's force at each stage)"
                                  : "semi-implicit Euler")) +
        " integrator, " +
        (scene_.has_friction()
             ? "contact pairs with the case's Coulomb mu (condim 3, " + cone_ + " cone, impratio " +
                   num(impratio_) + "; the friction rows with the normal's solref and solimp)"
             : std::string("frictionless contact pairs (condim 1)"));
    if (scene_.has_friction()) {
      tolerances["impratio"] = impratio_;
    }
  }

 public:
  void step(double t, const Eigen::VectorXd& force, double h) override {
    model_->opt.timestep = h;
    // The stages' times are t + c h from the step's start, not MuJoCo's running sum of steps.
    data_->time = t;
    if (runge_kutta_) {
      // The force is the passive callback's, evaluated at each of the four stages.
      stepping_world = this;
      try {
        mj_step(model_.get(), data_.get());
      } catch (...) {
        stepping_world = nullptr;
        throw;
      }
      stepping_world = nullptr;
      throw_on_warning();
      return;
    }
    for (int i = 0; i < n_; ++i)
      data_->qfrc_applied[slot_[static_cast<std::size_t>(i)].dof] = force(i);
    mj_step(model_.get(), data_.get());
    read_angles(data_.get(), angles_);
    throw_on_warning();
  }

  // UntrustedStep where MuJoCo warned during the step of what makes it untrustworthy.
  void throw_on_warning() const {
    for (const mjtWarning w :
         {mjWARN_BADQACC, mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_CNSTRFULL, mjWARN_CONTACTFULL}) {
      if (data_->warning[w].number > warning_counts_[w]) {
        throw UntrustedStep("MuJoCo warned (" + last_warning +
                            (w == mjWARN_BADQACC || w == mjWARN_BADQPOS || w == mjWARN_BADQVEL
                                 ? "; it then resets its state, so the motion is lost)"
                                 : ")"));
      }
    }
  }

  // A free body's rotation about y from its quaternion (w, 0, sin, 0), continued from `angles`.
  void read_angles(const mjData* d, std::vector<double>& angles) const {
    for (int i = 0; i < n_; ++i) {
      const Slot& s = slot_[static_cast<std::size_t>(i)];
      if (!s.angle) continue;
      double& angle = angles[static_cast<std::size_t>(i)];
      const double raw = 2.0 * std::atan2(d->qpos[s.qpos + 2], d->qpos[s.qpos]);
      angle += std::remainder(raw - angle, 2.0 * std::numbers::pi);
    }
  }

  // Case coordinate i from MuJoCo's qpos (an angle continued from `angles`).
  double coordinate(const mjData* d, int i, const std::vector<double>& angles) const {
    const Slot& s = slot_[static_cast<std::size_t>(i)];
    return s.angle ? angles[static_cast<std::size_t>(i)] : d->qpos[s.qpos] + offset_(i);
  }

  void use_stage_force(StageForce stage_force) override { stage_force_ = std::move(stage_force); }

  int force_evaluations_per_step() const override { return runge_kutta_ ? 4 : 1; }

  // The case's force at the stage MuJoCo is evaluating, added to its passive force.
  void add_stage_force(const mjData* d) {
    stage_angles_ = angles_;
    read_angles(d, stage_angles_);
    for (int i = 0; i < n_; ++i) {
      stage_p_(i) = coordinate(d, i, stage_angles_);
      stage_u_(i) = d->qvel[slot_[static_cast<std::size_t>(i)].dof];
    }
    stage_force_(d->time, stage_p_, stage_u_, stage_generalized_force_);
    for (int i = 0; i < n_; ++i)
      data_->qfrc_passive[slot_[static_cast<std::size_t>(i)].dof] += stage_generalized_force_(i);
  }

  const mjData* data() const { return data_.get(); }

  void state(Eigen::VectorXd& q, Eigen::VectorXd& v) const override {
    q.resize(n_);
    v.resize(n_);
    for (int i = 0; i < n_; ++i) {
      q(i) = coordinate(data_.get(), i, angles_);
      v(i) = data_->qvel[slot_[static_cast<std::size_t>(i)].dof];
    }
  }

  const Eigen::VectorXd& contact_impulses() const override {
    Eigen::VectorXd& out = impulses_;
    out.setZero(static_cast<Eigen::Index>(scene_.contacts.size()));
    // mj_step computes the forces at the step's start and holds them over the step.
    for (int i = 0; i < data_->ncon; ++i) {
      const mjContact& c = data_->contact[i];
      if (c.efc_address < 0) continue;
      const int index = pair_index(c.geom1, c.geom2);
      if (index < 0) continue;
      // The normal force in the contact's frame (a pyramid's edges each carry part of it).
      mjtNum frame_force[6];
      mj_contactForce(model_.get(), data_.get(), i, frame_force);
      out(index) += frame_force[0] * model_->opt.timestep;
    }
    for (int r = 0; r < data_->nefc; ++r) {
      if (data_->efc_type[r] != mjCNSTR_LIMIT_TENDON) continue;
      const int tendon = data_->efc_id[r];
      out(tendon_contact_[static_cast<std::size_t>(tendon)]) +=
          data_->efc_force[r] * model_->opt.timestep;
    }
    return out;
  }

  std::vector<std::string> warnings() const override { return warnings_; }

  void add_diagnostics(nlohmann::ordered_json& diagnostics) const override {
    diagnostics["solver_iterations_last_step"] = data_->solver_iter;
  }

 private:
  // The scene contact of a MuJoCo contact between two geoms.
  int pair_index(int g1, int g2) const {
    // The bodies of the two geoms, −1 for the ground; MuJoCo may report a pair in either order.
    const int first = geom_body_[static_cast<std::size_t>(g1)];
    const int second = geom_body_[static_cast<std::size_t>(g2)];
    for (std::size_t k = 0; k < scene_.contacts.size(); ++k) {
      const EngineContact& c = scene_.contacts[k];
      if ((c.a == first && c.b == second) || (c.a == second && c.b == first)) {
        return static_cast<int>(k);
      }
    }
    return -1;
  }

  const EngineScene& scene_;
  int n_;
  // Where a case coordinate is in qpos and qvel; a free body's rotation is read from its
  // quaternion at qpos (w, x, y, z).
  struct Slot {
    int qpos = -1;
    int dof = -1;
    bool angle = false;
  };
  bool free_ = false;  // free joints (else slides and hinges)
  // The damping ratio of the default solref where asked for (engine-default only).
  std::optional<double> dampratio_;
  bool refsafe_ = true;             // MuJoCo's refsafe: a default timeconst raised to 2h
  std::string cone_ = "pyramidal";  // a Coulomb case's friction cone
  double impratio_ = 1.0;           // and its ratio of frictional to normal impedance
  // contact_impulses()'s storage (filled from the data at each call).
  mutable Eigen::VectorXd impulses_;
  std::vector<Slot> slot_;
  std::vector<double> angles_, stage_angles_;  // the rotations so far, by case coordinate
  Eigen::VectorXd offset_;                     // the engine coordinate at each joint's zero
  std::vector<int> tendon_contact_;            // the scene contact of each MuJoCo tendon
  std::vector<int> geom_body_;  // the scene body of each MuJoCo geom (−1: the ground)
  bool runge_kutta_ = false;
  StageForce stage_force_;
  Eigen::VectorXd stage_p_, stage_u_, stage_generalized_force_;
  std::unique_ptr<mjModel, ModelDeleter> model_;
  std::unique_ptr<mjData, DataDeleter> data_;
  int warning_counts_[mjNWARNING] = {};
  std::vector<std::string> warnings_;
};

void stage_force_callback(const mjModel* /*m*/, mjData* d) {
  if (stepping_world != nullptr && stepping_world->data() == d) stepping_world->add_stage_force(d);
}

std::string version() { return std::string("MuJoCo ") + mj_versionString(); }

std::unique_ptr<EngineWorld> make_world(const EngineScene& scene, const State& x0,
                                        const EngineContactLaw& law, double h,
                                        const RunSettings& settings, ParamValues& tolerances,
                                        std::string& contact_model) {
  return std::make_unique<MujocoWorld>(scene, x0, law, h, settings, tolerances, contact_model);
}

const EnginePlugin kPlugin{.version = version, .make_world = make_world};

}  // namespace

}  // namespace crbench

CRBENCH_PLUGIN_ENTRY(mujoco) { return &crbench::kPlugin; }
