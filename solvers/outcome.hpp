// Outcomes as enums printed as text: the status of a solve or of a point, declared once here.
//
// Each enum has one table of (value, text); the text is what the JSON records, the tables and the
// command line print, so the enum changes nothing a user reads. Code compares enums, never text;
// text comes back to an enum only where a file is read (parse_text), and a text the table does
// not know is refused there.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace crbench {

// EnumText<E>::table lists every value of E with its text.
template <class E>
struct EnumText;

template <class E>
concept TextEnum = requires {
  EnumText<E>::table;
};

template <TextEnum E>
constexpr std::string_view text_of(E value) {
  for (const auto& [v, t] : EnumText<E>::table) {
    if (v == value) return t;
  }
  return "?";
}

template <TextEnum E>
std::string to_string(E value) {
  return std::string(text_of(value));
}

template <TextEnum E>
constexpr std::optional<E> parse_text(std::string_view text) {
  for (const auto& [v, t] : EnumText<E>::table) {
    if (t == text) return v;
  }
  return std::nullopt;
}

template <TextEnum E>
std::ostream& operator<<(std::ostream& os, E value) {
  return os << text_of(value);
}

// nlohmann::json (and ordered_json) find an enum's to_json by argument-dependent lookup; it is
// written per enum (CRBENCH_JSON_TEXT) because a template over every enum would be as specialized
// as nlohmann's own, which writes the underlying integer, and the call would be ambiguous.
#define CRBENCH_JSON_TEXT(E)                    \
  template <class Json>                         \
  void to_json(Json& j, const E& value) {       \
    j = std::string(::crbench::text_of(value)); \
  }

// How a solve, or a point of a study or sweep, ended. The first group is set by solvers (a record
// with a reason); the second only by the harness, for a point that has no solver's record.
enum class Status {
  ok,
  step_failure,            // the integrator or a kernel gave up (its message in the reason)
  step_underflow,          // the step size fell below the resolution of t
  too_many_steps,          // max_steps reached
  too_many_events,         // max_events reached
  non_finite,              // a state, an event function or a reaction is NaN or infinite
  impact_accumulation,     // accumulation_count impacts within accumulation_window
  singular_active_set,     // the active constraints' Delassus matrix cannot be factored
  singular_jacobian,       // the constraints' Jacobian lost rank
  lcp_failure,             // the impulse or contact LCP has no solution the solver found
  missed_contact,          // a constraint crossed without an event
  kinematic_violation,     // a kinematic (velocity) constraint drifted beyond its tolerance
  degenerate_constraints,  // the constraints cannot be held together
  painleve_paradox,        // a contact problem with Coulomb friction has no solution or several
  dynamic_jam,             // a slip reached Painleve's p = 0 along the motion (not continued)
  unsupported_event,       // an event the solver does not treat (an impact with Coulomb friction)
  wall_time_exceeded,      // the solve's --max-wall-time budget, or an interrupt
  // Set by the harness only.
  internal_error,  // an exception inside crbench while computing the point
  output_error,    // the point's files could not be written
  rank_lost,       // an MPI rank ended holding the point
};

template <>
struct EnumText<Status> {
  static constexpr std::array<std::pair<Status, std::string_view>, 20> table{{
      {Status::ok, "ok"},
      {Status::step_failure, "step_failure"},
      {Status::step_underflow, "step_underflow"},
      {Status::too_many_steps, "too_many_steps"},
      {Status::too_many_events, "too_many_events"},
      {Status::non_finite, "non_finite"},
      {Status::impact_accumulation, "impact_accumulation"},
      {Status::singular_active_set, "singular_active_set"},
      {Status::singular_jacobian, "singular_jacobian"},
      {Status::lcp_failure, "lcp_failure"},
      {Status::missed_contact, "missed_contact"},
      {Status::kinematic_violation, "kinematic_violation"},
      {Status::degenerate_constraints, "degenerate_constraints"},
      {Status::painleve_paradox, "painleve_paradox"},
      {Status::dynamic_jam, "dynamic_jam"},
      {Status::unsupported_event, "unsupported_event"},
      {Status::wall_time_exceeded, "wall_time_exceeded"},
      {Status::internal_error, "internal_error"},
      {Status::output_error, "output_error"},
      {Status::rank_lost, "rank_lost"},
  }};
};

CRBENCH_JSON_TEXT(Status)

// What a record's event marks. Its index names a constraint, a switching function or a kinematic
// row (event_index_of).
enum class EventKind {
  contact,            // a constraint closes without an impact (event-driven, moreau-jean, engines)
  impact,             // a constraint closes with an impact (rate_before, rate_after)
  lift_off,           // a constraint opens
  enter_medium,       // the realization: a constraint enters the medium (f < 0)
  exit_medium,        // the realization: a constraint leaves the medium
  push,               // the realization's obstacle: the medium starts to push
  release,            // the realization's obstacle: the medium stops pushing
  switch_function,    // a switching function of the case changes sign (printed "switch")
  kinematic_contact,  // a conditional kinematic row engages (rolling starts)
  kinematic_release,  // a conditional kinematic row lets go (sliding starts)
  slip_reversal,      // a sliding Coulomb row stops and slides back at once
  dynamic_jam,        // a sliding Coulomb row's contact problem loses its solution (p = 0)
  z_zero,             // the limit model: z_k reaches 0 (the lift-off of the (0,1,0) limit)
  z_reflection,       // the limit model: z_k reflected at 0 (a contact again)
  z_double_zero,      // the limit model: z_k and its rate vanish together
  lambda_zero,        // the limit model: the classical reaction λ_k crosses 0
};

template <>
struct EnumText<EventKind> {
  static constexpr std::array<std::pair<EventKind, std::string_view>, 16> table{{
      {EventKind::contact, "contact"},
      {EventKind::impact, "impact"},
      {EventKind::lift_off, "lift_off"},
      {EventKind::enter_medium, "enter_medium"},
      {EventKind::exit_medium, "exit_medium"},
      {EventKind::push, "push"},
      {EventKind::release, "release"},
      {EventKind::switch_function, "switch"},
      {EventKind::kinematic_contact, "kinematic_contact"},
      {EventKind::kinematic_release, "kinematic_release"},
      {EventKind::slip_reversal, "slip_reversal"},
      {EventKind::dynamic_jam, "dynamic_jam"},
      {EventKind::z_zero, "z_zero"},
      {EventKind::z_reflection, "z_reflection"},
      {EventKind::z_double_zero, "z_double_zero"},
      {EventKind::lambda_zero, "lambda_zero"},
  }};
};
CRBENCH_JSON_TEXT(EventKind)

// What an event's index counts: the record names the field after it ("constraint", "switch",
// "kinematic_row") and the command line prefixes it with f, s or g.
enum class EventIndex { constraint, switch_function, kinematic_row };
constexpr EventIndex event_index_of(EventKind kind) {
  switch (kind) {
    case EventKind::switch_function:
      return EventIndex::switch_function;
    case EventKind::kinematic_contact:
    case EventKind::kinematic_release:
    case EventKind::slip_reversal:
    case EventKind::dynamic_jam:
      return EventIndex::kinematic_row;
    default:
      return EventIndex::constraint;
  }
}
template <>
struct EnumText<EventIndex> {
  static constexpr std::array<std::pair<EventIndex, std::string_view>, 3> table{{
      {EventIndex::constraint, "constraint"},
      {EventIndex::switch_function, "switch"},
      {EventIndex::kinematic_row, "kinematic_row"},
  }};
};

// Which rule the limit model's lift-off prediction comes from (docs/theory.md section 3).
enum class PredictionRule {
  theorem_1,     // Deryabin & Kozlov 1995 Theorem 1 as stated
  continuation,  // z reflected at zeros with lambda > 0, then Theorem 1's condition
  none,          // a double zero or lambda = 0 at a zero: nothing is predicted
};
template <>
struct EnumText<PredictionRule> {
  static constexpr std::array<std::pair<PredictionRule, std::string_view>, 3> table{{
      {PredictionRule::theorem_1, "theorem-1"},
      {PredictionRule::continuation, "continuation"},
      {PredictionRule::none, "none"},
  }};
};
CRBENCH_JSON_TEXT(PredictionRule)

// The status a JSON record or a line of points.jsonl holds; nullopt when it holds none, or a
// text the table does not know.
template <class Json>
std::optional<Status> status_in(const Json& j) {
  const auto it = j.find("status");
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return parse_text<Status>(it->template get<std::string>());
}

}  // namespace crbench
