// The observables a study measures on every run, declared once: one row per observable with its
// name, how a ladder judges it, its unit, its table caption and the function that measures it
// (docs/theory.md §5). The study reader accepts the names of this table, the point computation
// calls its measure functions, the table writer its captions and units.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/bench/run_support.hpp"

namespace crbench {

// How the ladder judges an observable.
enum class ObservableClass {
  // Converges to the reference's value, which the ladder extrapolates (the lift-off time, the
  // post-impact velocity, the energy drift, the total impulse, the first zero of z, the first
  // contact time).
  limit_value,
  // Tends to 0 whatever the reference run gives (a deviation from the reference motion, a drift):
  // judged by its order alone.
  tends_to_zero,
  // Compared with the reference run's value, judged by its order alone (the penetration depth:
  // 0 for the ideal model).
  reference_order,
};

// A deviation from the reference motion on the output grid, per coordinate: its mode for
// deviation_by_coordinate ("max", "final", "l2") and whether it compares q' instead of q.
struct GridDeviation {
  const char* mode;
  bool velocity;
};

// What a measure function sees: the run on the study's grid, its case, and the reference's q, q'
// and first-contact z on the same grid (empty where the reference has none).
struct Observation {
  const GridRun& run;
  const Model& model;
  const std::vector<Eigen::VectorXd>& reference_q;
  const std::vector<Eigen::VectorXd>& reference_v;
  const std::vector<double>& reference_z;
  // The constraint a per-constraint observable is measured on (its index); none: the whole
  // system (every constraint).
  std::optional<int> constraint;
};

struct ObservableSpec {
  std::string_view name;
  ObservableClass judged;
  bool by_default;  // measured by a study that names no observables
  // Measured on one constraint where a study or verify names one (Observation::constraint), on
  // the whole system otherwise.
  bool per_constraint;
  std::optional<GridDeviation> grid;
  // The table caption's sentence after the name; "{samples}" stands for the grid's point count.
  std::string_view caption;
  std::string (*unit)(const Model& model);  // for table headers, from the case's units
  std::optional<double> (*measure)(const Observation& x);  // nullopt where the run has none
};

// The observables the harness's own logic names, spelt once (their rows use these): the lift-off,
// which a reference carries apart from its values; the q deviations verify and work–precision
// measure; the penetration depth, which the ideal model's closed form sets to 0.
inline constexpr std::string_view kLiftOffTime = "lift_off_time";
inline constexpr std::string_view kMaxQDeviation = "max_q_deviation";
inline constexpr std::string_view kFinalQDeviation = "final_q_deviation";
inline constexpr std::string_view kPenetrationDepth = "penetration_depth";

// Every observable, in the order the documentation lists them.
const std::vector<ObservableSpec>& observable_table();
// The row of `name`; nullptr for a name that is not an observable.
const ObservableSpec* find_observable(std::string_view name);
// The row of a name already checked (the study reader refuses others); throws std::logic_error.
const ObservableSpec& observable(std::string_view name);
// The names, in the table's order; those measured by default.
std::vector<std::string> observable_names();
std::vector<std::string> default_observables();
// An observable of one run measured without a reference (a deviation then has none: nullopt),
// on the whole system or on one constraint.
std::optional<double> measure(std::string_view name, const GridRun& run, const Model& model,
                              std::optional<int> constraint = std::nullopt);
// The caption sentence with the grid's point count filled in.
std::string observable_caption(const ObservableSpec& spec, int samples);

// z of the first contact's constraint on the grid over the window of the z observables, NaN
// elsewhere; empty without z or contact (the z observables: docs/theory.md §5).
std::vector<double> first_contact_z(const GridRun& run);
// The z deviation: max over the grid points in both runs' windows of |z − z_reference|.
std::optional<double> z_deviation(const GridRun& run, const std::vector<double>& reference_z);

// Per coordinate, the distance of q (or v) from a reference on the same grid: the largest over
// the grid ("max"), at its last point ("final"), or the root mean square over the grid ("l2");
// empty when the grids differ or are empty. The scalar observables are the largest entry (max,
// final: the sup norm) and the Euclidean norm of the entries (l2: sqrt of the mean of |q -
// q_ref|²).
std::vector<double> deviation_by_coordinate(const std::vector<Eigen::VectorXd>& x,
                                            const std::vector<Eigen::VectorXd>& reference,
                                            const std::string& mode);
// A grid deviation's distances per coordinate: of q' when it compares velocities, else of q.
std::vector<double> per_coordinate(const GridDeviation& d, const GridRun& run,
                                   const std::vector<Eigen::VectorXd>& reference_q,
                                   const std::vector<Eigen::VectorXd>& reference_v);

}  // namespace crbench
