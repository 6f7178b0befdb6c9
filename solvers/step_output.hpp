// What the fixed-step solvers (moreau-jean, siconos-moreau-jean, the engines) share around their
// steps: the samples at the output times, and the warning on a penetration the step does not
// resolve.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

// The samples of a fixed-step run at the output times; the time spent in the caller's callback
// is kept apart (RunRecord::output_time_s).
class StepOutput {
 public:
  StepOutput(const RunSettings& settings, double h)
      : settings_(settings), next_(settings.output_times.begin()), h_(h) {}

  // The samples due at the end of a step from `before` to `after` (at the start, before = after):
  // one per output time in (before.t, after.t]. An output time within 1e-9 h of the step's end
  // takes the state `after`; an earlier one takes q and q̇ interpolated linearly in t between the
  // step's ends (a Moreau–Jean step's positions, and a semi-implicit engine step's, are linear in
  // t within the step), so that a sample is the run's state at the time it is compared with a
  // reference at, whatever h. make(state, at_end) builds a sample (the step's reactions; at_end
  // false for an interpolated state).
  template <class Make>
  void step_end(const State& before, const State& after, Make&& make) {
    if (!settings_.on_sample) return;
    const auto end = settings_.output_times.end();
    while (next_ != end && *next_ <= after.t + 1e-9 * h_) {
      const double t = *next_;
      ++next_;
      if (t >= after.t - 1e-9 * h_ || !(after.t > before.t)) {
        deliver(make(after, true));
        continue;
      }
      const double w = (t - before.t) / (after.t - before.t);
      between_.t = t;
      between_.q = before.q + w * (after.q - before.q);
      between_.v = before.v + w * (after.v - before.v);
      deliver(make(between_, false));
    }
  }

  double seconds() const { return seconds_; }

 private:
  void deliver(const TrajectorySample& sample) {
    const auto started = std::chrono::steady_clock::now();
    settings_.on_sample(sample);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

  const RunSettings& settings_;
  std::vector<double>::const_iterator next_;
  double h_;
  double seconds_ = 0.0;
  State between_;  // an interpolated state (its storage reused)
};

// Whether a step holds a contact's Coulomb row: the contact takes a normal impulse and its
// tangential impulse lies strictly inside the cone (the time-stepping solvers' kinematic_contact
// where this starts, kinematic_release where it ends).
inline bool step_sticks(double normal_impulse, double tangential_impulse, double mu) {
  return normal_impulse > 0.0 && std::abs(tangential_impulse) < (1.0 - 1e-9) * mu * normal_impulse;
}

// Why a time-stepping solver cannot pair each contact with its Coulomb row in the step's
// frictional contact problem (each unilateral constraint with exactly one Coulomb row, no other
// kinematic row), or nothing.
inline std::optional<std::string> coulomb_pairing_refusal(const Model& model) {
  const CaseInfo& info = model.info();
  std::vector<int> rows_of(static_cast<std::size_t>(model.constraint_count()), 0);
  for (const int r : info.coulomb_rows) {
    ++rows_of[static_cast<std::size_t>(model.kinematic_condition(r))];
  }
  if (info.coulomb_rows.empty() ||
      (model.kinematic_count() == static_cast<int>(info.coulomb_rows.size()) &&
       std::all_of(rows_of.begin(), rows_of.end(), [](int c) { return c == 1; }))) {
    return std::nullopt;
  }
  return "Coulomb friction is computed where each unilateral constraint carries exactly one "
         "Coulomb row and no other kinematic row is present; case " +
         info.name + " has another combination";
}

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
