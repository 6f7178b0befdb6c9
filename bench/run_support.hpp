// One solve from names and text, as `crbench run` and `crbench report` do it: validation of
// every input, the output grid, and the trajectory CSV written while the solve runs.
#pragma once

#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/record.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

inline constexpr double kDefaultRtol = 1e-12;
inline constexpr double kDefaultAtol = 1e-14;

struct RunRequest {
  std::string case_name;
  std::string solver_name;
  std::vector<Assignment> case_assignments;
  std::vector<Assignment> solver_assignments;
  std::optional<double> rtol;   // default kDefaultRtol
  std::optional<double> atol;   // default kDefaultAtol
  std::optional<double> t_end;  // default: the case's horizon
  int samples = 1001;           // trajectory grid points over [t0, t_end]
  std::string trajectory_path;  // empty: no trajectory
  double max_wall_time = std::numeric_limits<double>::infinity();  // seconds (RunSettings)
  // Called about once a second of the solve with its time t, its start t0 and its horizon t_end
  // (RunSettings::on_progress). May be empty.
  std::function<void(double t, double t0, double t_end)> on_progress;
  // Called with every sample on the grid and at events, besides the CSV (may be empty; a
  // non-empty observer turns the grid on).
  std::function<void(const TrajectorySample&)> observer;
  // Called once before the solve, when the observer is set, with the names of the samples'
  // `extra` entries (Solver::extra_columns; the trajectory CSV's last columns).
  std::function<void(const std::vector<std::string>&)> on_extra_columns;
  // How messages name the solver's options: as flags (--event-time-tol) for the command line, as
  // keywords (event_time_tol) for the Python module.
  bool keyword_names = false;
};

// Every setting of a request that can change what its solve computes (not its callbacks), as
// text with numbers exact: equal texts, equal records. --resume compares points by it.
std::string describe(const RunRequest& request);

// The cores this process may run on (its CPU affinity: taskset, a cgroup, mpirun's binding),
// at least 1: the default number of threads of converge, sweep and report.
int available_cores();

// One solve by names, as `crbench run` and the Python module's run make it: InputError (the message
// of exit status 2) on any bad item, including a solver parameter the solver does not have and
// tolerances given to a solver that takes none; a failing solve is a record with its status, not
// an exception.
RunRecord solve(const RunRequest& request);
// The same without the check that every given option is the solver's (studies, sweeps and the
// report set tolerances for every solver they run).
RunRecord execute(const RunRequest& request);

// A solve with q kept on the request's output grid (event rows left out).
struct GridRun {
  RunRecord record;
  std::vector<double> t;
  std::vector<Eigen::VectorXd> q;
  std::vector<Eigen::VectorXd> v;
  std::vector<Eigen::VectorXd> lambda;  // the multipliers of the given f (0 where inactive)
  // The limit solver's z of each constraint (its columns z0, z1, …; 0 off the constraints);
  // empty for every other solver.
  std::vector<Eigen::VectorXd> z;
};
GridRun solve_on_grid(RunRequest request);

// The sup-norm distance of q from a reference on the same grid: the largest over the grid, or at
// its last point with `final_only`; nullopt when the grids differ or are empty.
std::optional<double> q_deviation(const std::vector<Eigen::VectorXd>& q,
                                  const std::vector<Eigen::VectorXd>& reference, bool final_only);

// A file crbench reads at run time (scripts/figures.py, the canonical studies and sweeps, the
// Siconos reference), by its path relative to the source tree, in the first of: the folder named
// by the environment variable CRBENCH_DATA_DIR; the share/crbench beside the bin/ of the running
// program, when it is an installed crbench (wherever its prefix was installed or moved to); the
// source tree this build came from, if it is still there; the installed copy under the configured
// prefix. The folder is chosen once, not per file: an installed crbench reads only its own copy.
std::filesystem::path data_path(const std::filesystem::path& relative);

// Writes `content` to `path` through a temporary file in the same folder and a rename: `path` is
// always either its previous complete version or the new one, never a truncated file.
// InputError (exit 2) naming the path when the folder cannot be written or the disk is full.
void write_file(const std::filesystem::path& path, std::string_view content);

}  // namespace crbench

namespace crbench {

// An exclusive advisory lock (flock) on an output folder, held while the object lives: a second
// crbench process on the same --out gets an InputError (exit 2) instead of interleaving its
// writes with the first. Released by the kernel when the process ends, even by a kill.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& folder);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace crbench
