#include "crbench/bench/chain_outcome.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crbench/bench/number_text.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/record.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {

namespace {

namespace fs = std::filesystem;

constexpr int kBalls[] = {3, 5, 10, 30, 100};
constexpr double kStiffnesses[] = {1e2, 1e4, 1e6};

// One run: the penalty realization at N, or (N = 0) the event-driven chain with e = 1.
struct ChainPoint {
  int n;
  double N;
};

std::vector<ChainPoint> chain_points() {
  std::vector<ChainPoint> points;
  for (const int n : kBalls) {
    for (const double N : kStiffnesses) points.push_back({n, N});
    points.push_back({n, 0.0});
  }
  return points;
}

std::string point_key(const ChainPoint& p) {
  return "n=" + std::to_string(p.n) +
         (p.N > 0.0 ? " realization penalty N=" + format_number(p.N) : " event-driven e=1");
}

nlohmann::ordered_json compute(const ChainPoint& p) {
  const auto model = make_model("ball-chain", {{"n", std::to_string(p.n)}, {"gap", "0"}});
  const bool penalty = p.N > 0.0;
  const Solver& solver = find_solver(penalty ? "realization" : "event-driven");
  RunSettings settings;
  settings.t_end = model->horizon();
  std::vector<Assignment> params;
  if (penalty) {
    params.push_back({"preset", "penalty"});
    params.push_back({"N", format_number(p.N)});
  } else {
    params.push_back({"restitution", "1"});
  }
  configure_solver(solver, params, settings);
  const RunRecord r = solver.run(*model, settings);
  nlohmann::ordered_json line;
  line["key"] = point_key(p);
  line["n"] = p.n;
  line["solver"] = solver.name();
  if (penalty) line["N"] = p.N;
  line["status"] = r.status;
  if (!r.reason.empty()) line["reason"] = r.reason;
  line["final_v"] =
      std::vector<double>(r.final_state.v.data(), r.final_state.v.data() + r.final_state.v.size());
  if (r.lift_off_time) line["lift_off_time"] = *r.lift_off_time;
  line["steps"] = r.steps;
  line["rhs_evaluations"] = r.rhs_evaluations;
  line["tolerances"] = r.tolerances;
  return line;
}

// Six significant digits, for the tables (the JSON keeps every digit).
std::string six(double x) {
  std::ostringstream text;
  text << std::setprecision(6) << x;
  return text.str();
}

Eigen::VectorXd velocities(const nlohmann::ordered_json& line) {
  const auto v = line["final_v"].get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// One chain's entry in chain_outcome.json (its runs, the spread over N, the distances to the two
// laws, the conservation errors) and its table row (`columns` wide).
std::pair<nlohmann::ordered_json, std::vector<std::string>> chain_entry(
    int n, const std::vector<const nlohmann::ordered_json*>& penalty,
    const nlohmann::ordered_json& simultaneous_line, std::size_t columns) {
  const nlohmann::ordered_json* simultaneous = &simultaneous_line;
  nlohmann::ordered_json chain;
  chain["n"] = n;
  chain["runs"] = nlohmann::ordered_json::array();
  for (const auto* line : penalty) chain["runs"].push_back(*line);
  chain["runs"].push_back(*simultaneous);
  const bool all_ok = std::all_of(penalty.begin(), penalty.end(),
                                  [](const auto* l) { return status_in(*l) == Status::ok; }) &&
                      status_in(*simultaneous) == Status::ok;
  std::vector<std::string> row{std::to_string(n)};
  if (!all_ok) {
    chain["why"] = "a run did not end with status ok (its record is in runs)";
    row.insert(row.end(), columns - 3, "-");
    row.push_back("failed");
    row.push_back("-");
  } else {
    const Eigen::VectorXd finest = velocities(*penalty.back());
    const Eigen::VectorXd newton = velocities(*simultaneous);
    Eigen::VectorXd sequential = Eigen::VectorXd::Zero(n);
    sequential(n - 1) = 1.0;
    double spread = 0.0, momentum = 0.0, energy = 0.0;
    double scaled_min = std::numeric_limits<double>::infinity(), scaled_max = -scaled_min;
    for (const auto* line : penalty) {
      const Eigen::VectorXd v = velocities(*line);
      spread = std::max(spread, (v - finest).lpNorm<Eigen::Infinity>());
      momentum = std::max(momentum, std::abs(v.sum() - 1.0));
      energy = std::max(energy, std::abs(0.5 * v.squaredNorm() - 0.5));
      if (line->contains("lift_off_time")) {
        const double scaled =
            (*line)["lift_off_time"].get<double>() * std::sqrt((*line)["N"].get<double>());
        scaled_min = std::min(scaled_min, scaled);
        scaled_max = std::max(scaled_max, scaled);
      }
    }
    bool separating = true;
    for (Eigen::Index i = 0; i + 1 < finest.size(); ++i) {
      separating = separating && finest(i) <= finest(i + 1);
    }
    const double to_simultaneous = (finest - newton).lpNorm<Eigen::Infinity>();
    const double to_sequential = (finest - sequential).lpNorm<Eigen::Infinity>();
    chain["spread_over_N"] = spread;
    chain["lift_off_times_sqrt_N"] = scaled_max;
    chain["lift_off_times_sqrt_N_relative_spread"] = (scaled_max - scaled_min) / scaled_max;
    chain["distance_to_simultaneous"] = to_simultaneous;
    chain["distance_to_sequential"] = to_sequential;
    chain["separating"] = separating;
    chain["momentum_error"] = momentum;
    chain["energy_error"] = energy;
    std::ostringstream tolerances;
    bool first = true;
    for (const auto& [name, value] : (*penalty.back())["tolerances"].items()) {
      tolerances << (first ? "" : ", ") << name << " " << format_number(value.get<double>());
      first = false;
    }
    row.insert(
        row.end(),
        {six(finest(0)), six(finest(n - 1)), scientific_text(spread, 2), six(scaled_max),
         scientific_text(chain["lift_off_times_sqrt_N_relative_spread"].get<double>(), 2),
         six(to_simultaneous), six(to_sequential), six(newton(0)) + ", " + six(newton(n - 1)),
         separating ? "yes" : "no", scientific_text(momentum, 2), scientific_text(energy, 2),
         to_string(Status::ok), tolerances.str()});
  }
  return {chain, row};
}

// The folder's README: what the runs are, what the outcome shows, the table and the figure (or
// why there is none: `figures`).
void write_chain_readme(const fs::path& dir, const Table& table, const std::string& figures) {
  std::ostringstream md;
  md << "# Penalty chain outcome\n\n"
     << "Newton's cradle of touching balls (`ball-chain`, gap 0) through the undamped penalty "
        "realization, against the number of balls n and the stiffness N, beside Newton's "
        "simultaneous law and the sequential cradle. Written by `crbench report`; every run's "
        "record summary is in `points.jsonl`, the numbers in `chain_outcome.json`, the table "
        "also as `chain_outcome.csv` and `chain_outcome.tex`.\n\n"
     << "The penalty outcome does not depend on N: the contact is linear and there is no force, "
        "so the motion at N is the motion at N = 1 with time scaled by sqrt(N) (positions by "
        "1/sqrt(N)): the final velocities agree across N to the spread shown (round-off and the "
        "tolerances), and the lift-off time times sqrt(N) is constant. The limit N -> infinity "
        "of the penalty chain is therefore its outcome at any N: a law of its own, neither "
        "Newton's simultaneous law (the event-driven impact LCP with e = 1) nor the sequential "
        "cradle (0, ..., 0, v0) that gapped balls give with every solver. Momentum and energy "
        "are kept by all three.\n\n"
     << markdown(table) << "\n";
  if (figures.empty()) {
    md << "![Final velocities along the chain](chain_outcome.png)\n\n"
       << "*Final velocity of each ball (index scaled to [0, 1]) for every n: the penalty "
          "realization at each N (the markers coincide), Newton's simultaneous law and the "
          "sequential cradle.*\n";
  } else {
    md << "**" << figures << ".**\n";
  }
  write_file(dir / "README.md", md.str());
}

// The report's overview of the chains: one row per n.
std::string chain_overview(const nlohmann::ordered_json& out) {
  std::ostringstream overview;
  overview << "| n | penalty v_0, v_(n-1) | spread over N = 1e2 ... 1e6 | to simultaneous | to "
              "sequential |\n|---|---|---|---|---|\n";
  for (const auto& chain : out["chains"]) {
    if (!chain.contains("spread_over_N")) {
      overview << "| " << chain["n"].get<int>() << " | failed | - | - | - |\n";
      continue;
    }
    const auto v = velocities(chain["runs"][std::size(kStiffnesses) - 1]);
    overview << "| " << chain["n"].get<int>() << " | " << six(v(0)) << ", " << six(v(v.size() - 1))
             << " | " << scientific_text(chain["spread_over_N"].get<double>(), 2) << " | "
             << six(chain["distance_to_simultaneous"].get<double>()) << " | "
             << six(chain["distance_to_sequential"].get<double>()) << " |\n";
  }
  return overview.str();
}

}  // namespace

ChainOutcomeSummary write_chain_outcome(const fs::path& dir, int jobs, std::ostream& progress) {
  fs::create_directories(dir);
  const std::vector<ChainPoint> points = chain_points();
  std::vector<std::string> keys;
  for (const auto& p : points) keys.push_back(point_key(p));
  progress << "chain outcome: " << points.size() << " runs\n";
  const PointRun run = run_points(
      dir / "points.jsonl", keys, [&](std::size_t i) { return compute(points[i]); },
      [](std::size_t, const nlohmann::ordered_json&) { return true; },
      {.name = "chain-outcome",
       .jobs = jobs,
       // The long chains at the largest N first.
       .cost = [&](std::size_t i) { return points[i].n * std::sqrt(std::max(points[i].N, 1.0)); }});
  {
    std::ostringstream text;
    for (const auto& line : run.lines) text << line.dump() << "\n";
    write_file(dir / "points.jsonl", text.str());
  }

  ChainOutcomeSummary summary;
  nlohmann::ordered_json out;
  out["crbench_version"] = version;
  out["build"] = build_json();
  out["case"] = "ball-chain";
  out["params"] = {{"gap", 0.0}, {"m", 1.0}, {"d", 1.0}, {"v0", 1.0}};
  out["penalty"] = "realization --preset penalty (stiffness N, no damping)";
  out["simultaneous"] = "event-driven --restitution 1 (Newton's law on every contact at once)";
  out["sequential"] = "(0, ..., 0, v0): the striker's velocity passed down the chain";
  out["chains"] = nlohmann::ordered_json::array();
  Table table{
      .title = "Penalty chain outcome",
      .caption =
          "ball-chain, touching balls (gap 0, m = 1, d = 1, v0 = 1), the penalty "
          "realization (stiffness N, no damping) at N = 1e2, 1e4, 1e6 beside "
          "Newton's simultaneous law (event-driven, e = 1) and the sequential "
          "cradle (0, ..., 0, v0). Spread: the largest difference of a final "
          "velocity over N; lift-off x sqrt(N): its spread over N, relative; "
          "separating: the final velocities do not decrease along the chain (no "
          "ball catches up with the next, the outcome is final); momentum and "
          "energy errors of the penalty runs (largest over N).",
      .header = {"n", "penalty v_0", "penalty v_(n-1)", "spread over N", "lift-off x sqrt(N)",
                 "its spread", "to simultaneous", "to sequential", "simultaneous v_0, v_(n-1)",
                 "separating", "momentum error", "energy error", "status",
                 "tolerances (N = 1e6; the positions' scale with 1/N, the velocities' in "
                 "the spring medium do not)"}};
  std::size_t at = 0;
  for (const int n : kBalls) {
    std::vector<const nlohmann::ordered_json*> penalty;
    const nlohmann::ordered_json* simultaneous = nullptr;
    for (; at < points.size() && points[at].n == n; ++at) {
      const auto& line = run.lines[at];
      ++summary.points;
      if (status_in(line) == Status::ok) ++summary.ok;
      if (points[at].N > 0.0) {
        penalty.push_back(&line);
      } else {
        simultaneous = &line;
      }
    }
    auto [chain, row] = chain_entry(n, penalty, *simultaneous, table.header.size());
    table.rows.push_back(row);
    out["chains"].push_back(chain);
  }
  write_file(dir / "chain_outcome.json", out.dump(2) + "\n");
  write_table(dir / "chain_outcome", table);
  const std::string figures = run_figures(dir);

  write_chain_readme(dir, table, figures);

  summary.markdown = chain_overview(out);
  return summary;
}

}  // namespace crbench
