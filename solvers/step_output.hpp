// What the two Moreau–Jean time-stepping solvers (moreau-jean, siconos-moreau-jean) share around
// their steps: the samples at step ends and the warning on a penetration the step does not
// resolve.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// A sample at the end of each step that reaches the next output time (every output time up to it
// is then passed); the time spent in the caller's callback is kept apart
// (RunRecord::output_time_s).
class StepOutput {
 public:
  StepOutput(const RunSettings& settings, double h)
      : settings_(settings), next_(settings.output_times.begin()), h_(h) {}

  // Whether the state at the end of a step at time t is sampled.
  bool due(double t) {
    if (!settings_.on_sample) return false;
    bool due = false;
    while (next_ != settings_.output_times.end() && *next_ <= t + 1e-9 * h_) {
      due = true;
      ++next_;
    }
    return due;
  }

  void deliver(const TrajectorySample& sample) {
    const auto started = std::chrono::steady_clock::now();
    settings_.on_sample(sample);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

  double seconds() const { return seconds_; }

 private:
  const RunSettings& settings_;
  std::vector<double>::const_iterator next_;
  double h_;
  double seconds_ = 0.0;
};

// What a contact episode is for a time-stepping solver (RunRecord::episode_definition).
inline constexpr const char* kStepEpisodeDefinition =
    "consecutive steps with an impulse on the constraint: from the end of the first (an impact "
    "when the constraint was approaching, a contact otherwise) to the end of the last; an "
    "impact whose impulse persists in the next steps (resting contact) stays one open episode, "
    "so a run that ends resting has no lift_off_time";

// A penetration above this fraction of the coordinates' size is reported as a warning.
inline constexpr double kPenetrationWarning = 0.01;

// The warning of a run whose deepest penetration (−min f over the constraints) exceeds
// kPenetrationWarning of the coordinates' size: the scheme's penetration is of order |A⁻¹Q| h²
// per step, and one that reaches a percent of the coordinates means the step does not resolve
// the contact's own time scale (plane-reparametrized with g = 1e6 at h = 1e-3: g h² = 1,
// penetration 2.6, the point left the plane at 0.004 where the ideal one leaves at 1).
inline std::optional<std::string> penetration_warning(const std::vector<double>& min_constraint,
                                                      double coordinate_size) {
  if (min_constraint.empty()) return std::nullopt;
  const double deepest = -*std::min_element(min_constraint.begin(), min_constraint.end());
  if (!(deepest > kPenetrationWarning * coordinate_size)) return std::nullopt;
  std::string text = "the deepest penetration, ";
  text.append(format_number(deepest));
  text.append(", exceeds ");
  text.append(format_number(100.0 * kPenetrationWarning));
  text.append("% of the coordinates' size (");
  text.append(format_number(coordinate_size));
  text.append(
      "): the step h does not resolve the contact (the penetration per step is of order "
      "|A^-1 Q| h^2), and the motion is not a first-order approximation of the ideal one; take a "
      "smaller h");
  return text;
}

}  // namespace crbench
