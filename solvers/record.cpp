#include "crbench/solvers/record.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "crbench/version.hpp"

namespace crbench {
namespace {

// JSON has no NaN or infinity; a non-finite number is written as null.
nlohmann::ordered_json number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
}

nlohmann::ordered_json vector_json(const Eigen::VectorXd& x) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < x.size(); ++i) out.push_back(number(x(i)));
  return out;
}

}  // namespace

void finish_contact_episodes(RunRecord& record, double t0) {
  std::vector<ContactEpisode> episodes;
  // Per constraint (indices are small: one per row): its open episode and its latest one, as
  // indices into `episodes`, or kNone.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  int rows = 0;
  for (const Event& e : record.events) rows = std::max(rows, e.index + 1);
  std::vector<std::size_t> open(static_cast<std::size_t>(rows), kNone);
  std::vector<std::size_t> latest(static_cast<std::size_t>(rows), kNone);
  std::size_t open_count = 0;
  const auto add = [&](ContactEpisode episode) {
    latest[static_cast<std::size_t>(episode.constraint)] = episodes.size();
    episodes.push_back(episode);
  };
  for (const Event& e : record.events) {
    if (e.index < 0) continue;
    const int k = e.index;
    std::size_t& open_k = open[static_cast<std::size_t>(k)];
    if (e.kind == EventKind::contact || e.kind == EventKind::enter_medium) {
      if (open_k != kNone) continue;
      // A contact that begins at an impact continues the impact's episode.
      const std::size_t last = latest[static_cast<std::size_t>(k)];
      ContactEpisode* previous = last == kNone ? nullptr : &episodes[last];
      if (previous != nullptr && previous->impact && previous->end && *previous->end == e.t) {
        previous->end.reset();
        open_k = last;
      } else {
        open_k = episodes.size();
        add({.constraint = k, .start = e.t});
      }
      ++open_count;
    } else if (e.kind == EventKind::impact) {
      if (open_k != kNone) continue;
      add({.constraint = k, .start = e.t, .end = e.t, .impact = true});
    } else if (e.kind == EventKind::lift_off || e.kind == EventKind::exit_medium) {
      if (open_k != kNone) {
        episodes[open_k].end = e.t;
        open_k = kNone;
        --open_count;
      } else {
        add({.constraint = k, .start = t0, .end = e.t});
      }
    }
  }
  std::stable_sort(
      episodes.begin(), episodes.end(),
      [](const ContactEpisode& a, const ContactEpisode& b) { return a.start < b.start; });
  record.contact_episodes = episodes;
  record.lift_off_definition = kLiftOffDefinition;
  // Each constraint's lift-off, and the whole system's: the end of the last episode, provided
  // none is still open.
  // A constraint's entry: nullopt until it has an episode, nullopt again once one stays open.
  const std::size_t m = record.constraint_names.size();
  std::vector<bool> open_at_end(m, false);
  record.constraint_lift_off_time.assign(m, std::nullopt);
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& x : episodes) {
    const auto k = static_cast<std::size_t>(x.constraint);
    if (x.end) last = std::max(last, *x.end);
    if (k >= m) continue;
    if (!x.end) open_at_end[k] = true;
    auto& t = record.constraint_lift_off_time[k];
    if (x.end) t = std::max(t.value_or(*x.end), *x.end);
  }
  for (std::size_t k = 0; k < m; ++k) {
    if (open_at_end[k]) record.constraint_lift_off_time[k].reset();
  }
  record.lift_off_time.reset();
  if (open_count > 0 || episodes.empty()) return;
  record.lift_off_time = last;
}

std::optional<double> lift_off_of(const RunRecord& record, std::optional<int> constraint) {
  if (!constraint) return record.lift_off_time;
  const auto k = static_cast<std::size_t>(*constraint);
  return *constraint >= 0 && k < record.constraint_lift_off_time.size()
             ? record.constraint_lift_off_time[k]
             : std::nullopt;
}

void withhold_lift_offs(RunRecord& record) {
  record.lift_off_time.reset();
  for (auto& t : record.constraint_lift_off_time) t.reset();
  record.lift_offs_withheld = true;
}

std::string tolerance_text(const ParamValues& tolerances) {
  std::string text;
  for (const auto& [name, value] : tolerances) {
    text += (text.empty() ? "" : ", ") + name + " " + format_number(value);
  }
  return text;
}

nlohmann::ordered_json to_json(const RunRecord& r, bool include_wall_time) {
  nlohmann::ordered_json j;
  j["crbench_version"] = version;
  j["build"] = build_json();
  j["case"] = r.case_name;
  j["solver"] = r.solver;
  j["params"] = r.params;
  j["solver_params"] = r.solver_params;
  for (const auto& [name, value] : r.solver_choices) j["solver_params"][name] = value;
  if (!r.parameter_sources.empty()) j["parameter_sources"] = r.parameter_sources;
  j["tolerances"] = r.tolerances;
  j["status"] = r.status;
  j["reason"] = r.reason;
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  j["lift_off_time"] = r.lift_off_time ? number(*r.lift_off_time) : nlohmann::ordered_json();
  j["lift_off_definition"] = r.lift_off_definition;
  nlohmann::ordered_json each = nlohmann::ordered_json::array();
  for (const auto& t : r.constraint_lift_off_time) {
    each.push_back(t ? number(*t) : nlohmann::ordered_json());
  }
  j["constraint_lift_off_time"] = each;
  j["constraint_lift_off_definition"] = kConstraintLiftOffDefinition;
  nlohmann::ordered_json episodes = nlohmann::ordered_json::array();
  for (const auto& x : r.contact_episodes) {
    episodes.push_back({{"constraint", x.constraint},
                        {"start", number(x.start)},
                        {"end", x.end ? number(*x.end) : nlohmann::ordered_json()},
                        {"impact", x.impact}});
  }
  j["contact_episodes"] = episodes;
  j["episode_definition"] = r.episode_definition;
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const auto& e : r.events) {
    nlohmann::ordered_json ej = {{"t", number(e.t)}, {"kind", e.kind}};
    ej[to_string(event_index_of(e.kind))] =
        e.index >= 0 ? nlohmann::ordered_json(e.index) : nlohmann::ordered_json();
    if (e.rate_before) ej["rate_before"] = number(*e.rate_before);
    if (e.rate_after) ej["rate_after"] = number(*e.rate_after);
    events.push_back(ej);
  }
  j["events"] = events;
  nlohmann::ordered_json mins = nlohmann::ordered_json::array();
  for (const double x : r.min_constraint) mins.push_back(number(x));
  j["min_constraint"] = mins;
  nlohmann::ordered_json impulses = nlohmann::ordered_json::array();
  for (const double x : r.constraint_impulse) impulses.push_back(number(x));
  j["constraint_impulse"] = impulses;
  nlohmann::ordered_json coordinates = nlohmann::ordered_json::array();
  for (const auto& c : r.coordinates) coordinates.push_back({{"name", c.name}, {"unit", c.unit}});
  j["coordinates"] = coordinates;
  j["constraint_units"] = r.constraint_units;
  j["constraint_names"] = r.constraint_names;
  j["final_state"] = {{"t", number(r.final_state.t)},
                      {"q", vector_json(r.final_state.q)},
                      {"v", vector_json(r.final_state.v)}};
  j["steps"] = r.steps;
  j["rhs_evaluations"] = r.rhs_evaluations;
  if (include_wall_time) {
    j["wall_time_s"] = r.wall_time_s;
    j["output_time_s"] = r.output_time_s;
  }
  j["diagnostics"] = r.diagnostics;
  return j;
}

}  // namespace crbench
