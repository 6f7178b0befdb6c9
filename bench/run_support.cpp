#include "crbench/bench/run_support.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <system_error>
#include <thread>

#include "crbench/bench/output_file.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {
namespace {

// 17 significant digits: every double in the file reads back exactly.
std::string exact(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

class TrajectoryCsv {
 public:
  // Written through an OutputFile while the solve runs and put in place by finish(): a trajectory
  // file that exists is complete (a resumed study trusts it).
  TrajectoryCsv(const std::string& path, const Model& model, const std::vector<std::string>& extras)
      : output_(path, "--trajectory"),
        file_(output_.stream()),
        extras_(static_cast<Eigen::Index>(extras.size())) {
    // q by the case's coordinate names (x, y, phi), q' as v_x, v_y, v_phi.
    const int n = model.dof(), m = model.constraint_count();
    file_ << "t,label";
    for (int i = 0; i < n; ++i) file_ << "," << model.coordinate_name(i);
    for (int i = 0; i < n; ++i) file_ << ",v_" << model.coordinate_name(i);
    for (int k = 0; k < m; ++k) file_ << ",f" << k;
    for (int k = 0; k < m; ++k) file_ << ",lambda" << k;
    for (int k = 0; k < m; ++k) file_ << ",mu" << k;
    for (int k = 0; k < m; ++k) file_ << ",impulse" << k;
    for (const auto& name : extras) file_ << "," << name;
    file_ << "\n";
  }
  void write(const TrajectorySample& s) {
    file_ << exact(s.x.t) << "," << s.label;
    const auto put = [this](const Eigen::VectorXd& v) {
      for (Eigen::Index i = 0; i < v.size(); ++i) file_ << "," << exact(v(i));
    };
    put(s.x.q);
    put(s.x.v);
    put(s.f);
    put(s.lambda);
    put(s.mu);
    put(s.impulse.size() == s.f.size() ? s.impulse : Eigen::VectorXd::Zero(s.f.size()));
    put(s.extra.size() == extras_ ? s.extra : Eigen::VectorXd::Constant(extras_, std::nan("")));
    file_ << "\n";
  }
  void finish() { output_.commit(); }

 private:
  OutputFile output_;
  std::ostream& file_;
  Eigen::Index extras_;
};

// The folder data_path reads from, chosen once per process (see run_support.hpp).
std::filesystem::path data_root() {
  namespace fs = std::filesystem;
  static const fs::path root = []() -> fs::path {
    if (const char* set = std::getenv("CRBENCH_DATA_DIR"); set != nullptr && *set != '\0') {
      return set;
    }
    std::error_code error;
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
      const fs::path beside = (program.parent_path() / CRBENCH_DATA_FROM_BIN).lexically_normal();
      if (fs::is_directory(beside, error)) return beside;
    }
    if (fs::is_directory(CRBENCH_SOURCE_DIR, error)) return CRBENCH_SOURCE_DIR;
    return CRBENCH_DATA_DIR;
  }();
  return root;
}

}  // namespace

std::filesystem::path data_path(const std::filesystem::path& relative) {
  return data_root() / relative;
}

std::string describe(const RunRequest& r) {
  const auto optional = [](const std::optional<double>& x) {
    return x ? exact(*x) : std::string("default");
  };
  std::string text = "case " + r.case_name + "{";
  for (const auto& a : r.case_assignments) text += a.key + "=" + a.value + ";";
  text += "}|solver " + r.solver_name + "{";
  for (const auto& a : r.solver_assignments) text += a.key + "=" + a.value + ";";
  text += "}|rtol " + optional(r.rtol) + "|atol " + optional(r.atol) + "|t_end " +
          optional(r.t_end) + "|samples " + std::to_string(r.samples) + "|trajectory " +
          r.trajectory_path + "|max_wall_time " + exact(r.max_wall_time);
  return text;
}

void write_file(const std::filesystem::path& path, std::string_view content) {
  write_output(path, content, "--out");
}

// A case's horizon depends only on the case and its parameter values, and some take a root
// search over a quadrature or a special function: each is computed once per process (studies
// and sweeps run thousands of solves of one case).
double horizon_of(const Model& model) {
  static std::mutex mutex;
  static std::map<std::string, double> cache;
  std::string key = model.info().name;
  for (const auto& [name, value] : model.params()) key += "|" + name + "=" + format_number(value);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  const double horizon = model.horizon();
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, horizon).first->second;
}

// The most numbers one trajectory may hold (see execute).
constexpr double kMaxTrajectoryNumbers = 2e7;

RunRecord execute(const RunRequest& request) {
  const Solver& solver = find_solver(request.solver_name);
  const std::unique_ptr<Model> model = make_model(request.case_name, request.case_assignments);
  RunSettings settings;
  settings.rtol = request.rtol.value_or(kDefaultRtol);
  settings.atol = request.atol.value_or(kDefaultAtol);
  check_in_range(kRtolSpec, settings.rtol, "--rtol");
  check_in_range(kAtolSpec, settings.atol, "--atol");
  settings.max_wall_time = request.max_wall_time;
  if (request.on_progress) {
    settings.on_progress = [&request, &settings, t0 = model->initial_state().t](double t) {
      request.on_progress(t, t0, settings.t_end);
    };
  }
  configure_solver(solver, request.solver_assignments, settings, &model->info());
  const double t0 = model->initial_state().t;
  settings.t_end = request.t_end ? *request.t_end : horizon_of(*model);
  if (!(settings.t_end > t0)) {
    throw InputError("--t-end: " + format_number(settings.t_end) +
                     " must be after the initial time " + format_number(t0));
  }

  if (!request.trajectory_path.empty() || request.observer) {
    // The trajectory's size grows with the model's: each sample holds t, q, v, and f, lambda, mu
    // and the impulse per constraint, and the solver's extra columns (ball-chain with 1000 balls:
    // about 6000 numbers). Its bound, kMaxTrajectoryNumbers, keeps a trajectory within about
    // 160 MB in memory (the Python module's arrays) and 500 MB of CSV.
    const double row = 1.0 + 2.0 * model->dof() + 4.0 * model->constraint_count() +
                       static_cast<double>(solver.extra_columns(*model, settings).size());
    const double most = std::floor(kMaxTrajectoryNumbers / row);
    if (static_cast<double>(request.samples) > most) {
      throw InputError("--samples: " + std::to_string(request.samples) + " samples of " +
                       format_number(row) + " numbers each (t, q, v, and f, lambda, mu, impulse " +
                       "per constraint, the solver's columns) exceed the trajectory bound of " +
                       format_number(kMaxTrajectoryNumbers) + " numbers; accepted for " +
                       request.case_name + " with these parameters: [2, " + format_number(most) +
                       "]");
    }
  }
  std::unique_ptr<TrajectoryCsv> csv;
  if (!request.trajectory_path.empty()) {
    csv = std::make_unique<TrajectoryCsv>(request.trajectory_path, *model,
                                          solver.extra_columns(*model, settings));
  }
  if (request.observer && request.on_extra_columns) {
    request.on_extra_columns(solver.extra_columns(*model, settings));
  }
  if (csv || request.observer) {
    for (int i = 0; i < request.samples; ++i) {
      settings.output_times.push_back(i + 1 == request.samples
                                          ? settings.t_end
                                          : t0 + (settings.t_end - t0) * i / (request.samples - 1));
    }
    settings.on_sample = [&csv, &request](const TrajectorySample& s) {
      if (csv) csv->write(s);
      if (request.observer) request.observer(s);
    };
  }
  RunRecord record = solver.run(*model, settings);
  if (csv) csv->finish();
  record.parameter_sources = settings.parameter_sources;
  return record;
}

RunRecord solve(const RunRequest& request) {
  const Solver& solver = find_solver(request.solver_name);
  std::vector<std::string> own;
  if (solver.takes_tolerances()) own = {"rtol", "atol"};
  for (const auto& p : solver.parameters()) own.push_back(p.name);
  for (const auto& c : solver.choices()) own.push_back(c.name);
  const auto flag = [&request](std::string name) {
    if (request.keyword_names) return name;
    std::replace(name.begin(), name.end(), '_', '-');
    return "--" + name;
  };
  const auto check = [&](const std::string& name) {
    if (std::find(own.begin(), own.end(), name) != own.end()) return;
    std::string known;
    for (const auto& p : own) known += (known.empty() ? "" : ", ") + flag(p);
    throw InputError(flag(name) + ": not a parameter of solver " + solver.name() +
                     "; its parameters are: " + (known.empty() ? "(none)" : known));
  };
  if (request.rtol) check("rtol");
  if (request.atol) check("atol");
  for (const auto& a : request.solver_assignments) check(a.key);
  return execute(request);
}

int available_cores() {
  const int node = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    return std::max(1, std::min(node, CPU_COUNT(&allowed)));
  }
  return node;
}

GridRun solve_on_grid(RunRequest request) {
  GridRun run;
  std::vector<Eigen::Index> z_columns;
  request.on_extra_columns = [&z_columns](const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& c = names[i];
      if (c.size() > 1 && c[0] == 'z' &&
          std::all_of(c.begin() + 1, c.end(), [](char d) { return d >= '0' && d <= '9'; })) {
        z_columns.push_back(static_cast<Eigen::Index>(i));
      }
    }
  };
  request.observer = [&run, &z_columns](const TrajectorySample& s) {
    if (!s.label.empty()) return;
    run.t.push_back(s.x.t);
    run.q.push_back(s.x.q);
    run.v.push_back(s.x.v);
    run.lambda.push_back(s.lambda);
    if (z_columns.empty()) return;
    Eigen::VectorXd z(static_cast<Eigen::Index>(z_columns.size()));
    for (std::size_t k = 0; k < z_columns.size(); ++k) {
      const Eigen::Index column = z_columns[k];
      z(static_cast<Eigen::Index>(k)) = column < s.extra.size() ? s.extra(column) : std::nan("");
    }
    run.z.push_back(z);
  };
  run.record = execute(request);
  return run;
}

namespace {

// The window of the z observables: the first contact episode's constraint k and [start, end),
// end the first zero of z_k after the start (or the episode's end, or +inf).
struct ZWindow {
  int constraint = -1;
  double start = 0.0;
  double end = std::numeric_limits<double>::infinity();
};
std::optional<ZWindow> z_window(const GridRun& run) {
  if (run.z.empty() || run.record.contact_episodes.empty()) return std::nullopt;
  const ContactEpisode& first = run.record.contact_episodes.front();
  ZWindow w{.constraint = first.constraint, .start = first.start};
  if (first.end) w.end = *first.end;
  for (const Event& e : run.record.events) {
    if (e.kind == "z_zero" && e.index == first.constraint && e.t >= first.start) {
      w.end = std::min(w.end, e.t);
      break;
    }
  }
  if (w.constraint < 0 || w.constraint >= run.z.front().size()) return std::nullopt;
  return w;
}

// α, β, γ of a limit run whose model is (α, 0, γ) with α, γ > 0.
struct SpringModel {
  double alpha, gamma;
};
std::optional<SpringModel> spring_model(const RunRecord& r) {
  const auto get = [&](const char* name) {
    const auto it = r.solver_params.find(name);
    return it == r.solver_params.end() ? std::nan("") : it->second;
  };
  const double alpha = get("alpha"), beta = get("beta"), gamma = get("gamma");
  if (r.solver != "limit" || !(alpha > 0.0) || beta != 0.0 || !(gamma > 0.0)) return std::nullopt;
  return SpringModel{alpha, gamma};
}

// ∫ from t_i to t_i + θδ of the cubic through (t_{i−1..i+2}, f_{i−1..i+2}) on a uniform grid of
// spacing δ, θ in [0, 1]: the Lagrange basis integrated (θ = 1 gives δ(−f₋₁ + 13f₀ + 13f₁ −
// f₂)/24).
double cubic_partial_integral(const double* f, double theta, double delta) {
  const double t = theta, t2 = t * t, t3 = t2 * t, t4 = t3 * t;
  const double w_minus = -(t4 / 4.0 - t3 + t2) / 6.0;
  const double w0 = (t4 / 4.0 - 2.0 * t3 / 3.0 - t2 / 2.0 + 2.0 * t) / 2.0;
  const double w1 = -(t4 / 4.0 - t3 / 3.0 - t2) / 2.0;
  const double w2 = (t4 / 4.0 - t2 / 2.0) / 6.0;
  return delta * (w_minus * f[-1] + w0 * f[0] + w1 * f[1] + w2 * f[2]);
}

}  // namespace

std::vector<double> first_contact_z(const GridRun& run) {
  const auto w = z_window(run);
  if (!w) return {};
  std::vector<double> out(run.t.size(), std::nan(""));
  for (std::size_t i = 0; i < run.t.size() && i < run.z.size(); ++i) {
    if (run.t[i] >= w->start && run.t[i] < w->end) out[i] = run.z[i](w->constraint);
  }
  return out;
}

std::optional<double> z_deviation(const GridRun& run, const std::vector<double>& reference_z) {
  const std::vector<double> z = first_contact_z(run);
  if (z.empty() || z.size() != reference_z.size()) return std::nullopt;
  std::optional<double> worst;
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (std::isnan(z[i]) || std::isnan(reference_z[i])) continue;
    worst = std::max(worst.value_or(0.0), std::abs(z[i] - reference_z[i]));
  }
  return worst;
}

std::optional<double> run_observable(const std::string& observable, const GridRun& run,
                                     const Model& model) {
  if (observable == "first_contact_time") {
    const double t0 = run.t.empty() ? run.record.final_state.t : run.t.front();
    for (const ContactEpisode& e : run.record.contact_episodes) {
      if (e.start > t0) return e.start;
    }
    return std::nullopt;
  }
  if (observable == "z_first_zero") {
    for (const Event& e : run.record.events) {
      if (e.kind == "z_zero") return e.t;
    }
    return std::nullopt;
  }
  if (observable == "z_oscillation_remainder" || observable == "z_period_average_deviation") {
    const auto spring = spring_model(run.record);
    const auto w = z_window(run);
    if (!spring || !w || run.t.empty() || run.t.front() != w->start ||
        run.lambda.size() != run.t.size()) {
      return std::nullopt;
    }
    const auto k = static_cast<Eigen::Index>(w->constraint);
    const double nu = std::sqrt(spring->alpha / spring->gamma);
    const double lambda0 = run.lambda.front()(k);
    std::size_t end = 0;  // one past the window's last grid point
    while (end < run.t.size() && run.t[end] < w->end) ++end;
    if (observable == "z_oscillation_remainder") {
      std::optional<double> worst;
      for (std::size_t i = 0; i < end; ++i) {
        const double form =
            (lambda0 * std::cos((run.t[i] - w->start) / nu) - run.lambda[i](k)) / spring->gamma;
        worst = std::max(worst.value_or(0.0), std::abs(run.z[i](k) - form));
      }
      return worst;
    }
    // The period average on the uniform output grid: the integral of the cubic interpolant from
    // the window's first grid point, C(t) = ∫ z, at any t whose cubic has its four points inside.
    if (end < 6) return std::nullopt;
    const double delta = (run.t[end - 1] - run.t[0]) / static_cast<double>(end - 1);
    std::vector<double> z(end), cumulative(end, 0.0);
    for (std::size_t i = 0; i < end; ++i) z[i] = run.z[i](k);
    for (std::size_t i = 1; i + 2 < end; ++i) {
      cumulative[i + 1] = cumulative[i] + cubic_partial_integral(&z[i], 1.0, delta);
    }
    // C at t, for t in [t_1, t_{end−2}]: its cell i and the fraction θ.
    const auto integral_to = [&](double t) {
      const double position = (t - run.t[0]) / delta;
      auto i = static_cast<std::size_t>(std::floor(position));
      i = std::clamp<std::size_t>(i, 1, end - 3);
      const double theta = position - static_cast<double>(i);
      return cumulative[i] + cubic_partial_integral(&z[i], theta, delta);
    };
    const double half = std::numbers::pi * nu;
    std::optional<double> worst;
    for (std::size_t i = 1; i + 2 < end; ++i) {
      const double from = run.t[i] - half, to = run.t[i] + half;
      if (from < run.t[1] || to > run.t[end - 2]) continue;
      const double average = (integral_to(to) - integral_to(from)) / (to - from);
      worst = std::max(worst.value_or(0.0), std::abs(average + run.lambda[i](k) / spring->gamma));
    }
    return worst;
  }
  if (observable == "penetration_depth") {
    std::optional<double> depth;
    for (int k = 0; k < model.constraint_count(); ++k) {
      if (model.is_bilateral(k) || k >= static_cast<int>(run.record.min_constraint.size())) {
        continue;
      }
      const double f = run.record.min_constraint[static_cast<std::size_t>(k)];
      depth = std::max(depth.value_or(0.0), std::max(0.0, -f));
    }
    return depth;
  }
  if (observable == "total_impulse") {
    std::optional<double> largest;
    for (const double p : run.record.constraint_impulse) {
      largest = std::max(largest.value_or(0.0), std::abs(p));
    }
    return largest;
  }
  if (observable == "post_impact_velocity") {
    for (const Event& e : run.record.events) {
      if ((e.kind == "impact" || e.kind == "exit_medium") && e.rate_after) return e.rate_after;
    }
    return std::nullopt;
  }
  if (observable == "kinematic_drift") {
    std::optional<double> drift;
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    for (std::size_t i = 0; i < run.q.size() && i < run.v.size(); ++i) {
      model.kinematic_affine(run.t[i], run.q[i], a, b);
      for (int r = 0; r < model.kinematic_count(); ++r) {
        if (model.kinematic_condition(r) >= 0) continue;
        const double g = a.row(r).dot(run.v[i]) + b(r);
        const double violation = model.is_unilateral_kinematic(r) ? std::max(0.0, -g) : std::abs(g);
        drift = std::max(drift.value_or(0.0), violation);
      }
    }
    return drift;
  }
  if (observable == "energy_drift") {
    if (run.q.empty() || run.v.size() != run.q.size()) return std::nullopt;
    const auto energy = [&](std::size_t i) {
      return model.energy(State{.t = run.t[i], .q = run.q[i], .v = run.v[i]});
    };
    const double start = energy(0);
    double drift = 0.0;
    for (std::size_t i = 1; i < run.q.size(); ++i)
      drift = std::max(drift, std::abs(energy(i) - start));
    return drift;
  }
  return std::nullopt;
}

std::vector<double> deviation_by_coordinate(const std::vector<Eigen::VectorXd>& x,
                                            const std::vector<Eigen::VectorXd>& reference,
                                            const std::string& mode) {
  if (x.empty() || x.size() != reference.size()) return {};
  const Eigen::Index n = x.front().size();
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  if (mode == "final") {
    out = (x.back() - reference.back()).cwiseAbs();
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].size() != n || reference[i].size() != n) return {};
      const Eigen::VectorXd d = (x[i] - reference[i]).cwiseAbs();
      out = mode == "l2" ? Eigen::VectorXd(out + d.cwiseAbs2()) : Eigen::VectorXd(out.cwiseMax(d));
    }
    if (mode == "l2") out = (out / static_cast<double>(x.size())).cwiseSqrt();
  }
  return std::vector<double>(out.data(), out.data() + out.size());
}

std::string observable_unit(const std::string& observable, const Model& model) {
  const auto distinct = [](std::vector<std::string> units) {
    std::string out;
    std::vector<std::string> seen;
    for (const auto& u : units) {
      if (u.empty() || std::find(seen.begin(), seen.end(), u) != seen.end()) continue;
      seen.push_back(u);
      if (!out.empty()) out.append("; ");
      out.append(u);
    }
    return out;
  };
  if (observable == "lift_off_time" || observable == "z_first_zero" ||
      observable == "first_contact_time") {
    return "time";
  }
  // z = lim N f has the unit of λ over that of γ, which the cases do not state.
  if (observable == "z_deviation" || observable == "z_oscillation_remainder" ||
      observable == "z_period_average_deviation") {
    return "";
  }
  if (observable == "energy_drift") return "energy";
  std::vector<std::string> units;
  if (observable == "max_q_deviation" || observable == "final_q_deviation" ||
      observable == "l2_q_deviation") {
    for (int i = 0; i < model.dof(); ++i) units.push_back(model.coordinate_unit(i));
    return distinct(units);
  }
  if (observable == "final_v_deviation") {
    for (int i = 0; i < model.dof(); ++i) {
      const std::string u = model.coordinate_unit(i);
      units.push_back(u.empty() ? u : u + "/time");
    }
    return distinct(units);
  }
  if (observable == "kinematic_drift") return "";  // the rows' a q' + b: the case states no unit
  for (int k = 0; k < model.constraint_count(); ++k) {
    if (!model.is_bilateral(k)) units.push_back(model.constraint_unit(k));
  }
  if (observable == "total_impulse") {
    // λ f is an energy: the impulse of λ is energy·time per unit of f, a momentum for a length.
    units.clear();
    for (int k = 0; k < model.constraint_count(); ++k) {
      const std::string u = model.constraint_unit(k);
      units.push_back(u == "length" ? std::string("momentum") : u.empty() ? u : "energy*time/" + u);
    }
    return distinct(units);
  }
  std::string f = distinct(units);
  if (observable == "post_impact_velocity" && !f.empty()) f.append("/time");
  return f;
}

std::optional<double> q_deviation(const std::vector<Eigen::VectorXd>& q,
                                  const std::vector<Eigen::VectorXd>& reference, bool final_only) {
  if (q.empty() || q.size() != reference.size()) return std::nullopt;
  if (final_only) return (q.back() - reference.back()).lpNorm<Eigen::Infinity>();
  double worst = 0.0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    worst = std::max(worst, (q[i] - reference[i]).lpNorm<Eigen::Infinity>());
  }
  return worst;
}

OutputLock::OutputLock(const std::filesystem::path& folder) {
  fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    throw InputError("--out: cannot open the folder '" + folder.string() + "' to lock it");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw InputError("--out: '" + folder.string() +
                     "' is being written by another crbench process; wait for it to finish or "
                     "choose another folder");
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace crbench
