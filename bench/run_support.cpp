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
  const std::string key = model_key(model);
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
