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
// The three-ball cradle under stiffness ratios r = k_01/k_12 (ball-chain's stiffness_ratio) and
// the two contact laws: r = 10^(j/4), j = −8 … 8, at three N each.
constexpr int kRatioBalls = 3;
constexpr int kRatiosPerDecade = 4;
constexpr int kRatioDecades = 2;  // each side of r = 1
constexpr double kExponents[] = {1.0, 1.5};
constexpr double kRatioStiffnesses[] = {1e4, 1e6, 1e8};
// Liu, Zhao & Brogliato's multiple-impact law (siconos-event-driven --impact-law lzb) on the same
// springs, at two steps in the impulse: the finer one's answer, the difference as its bar (tested
// against the penalty's outcome at every ratio; a finer step does not bring the kernel's answer
// closer with Hertz's law, docs/siconos.md).
constexpr double kLzbSteps[] = {1e-4, 1e-5};

// One run: the penalty realization at N, or (N = 0) the event-driven chain with e = 1, or (N = 0,
// impulse_step > 0) the Siconos kernel's multiple-impact law at that step; the contacts' law
// (stiffness ratio, exponent) is the case's default unless `ratio` is set.
struct ChainPoint {
  int n;
  double N;
  bool ratio = false;
  double stiffness_ratio = 1.0;
  double exponent = 1.0;
  double impulse_step = 0.0;
};

std::vector<double> ratios() {
  std::vector<double> r;
  for (int j = -kRatioDecades * kRatiosPerDecade; j <= kRatioDecades * kRatiosPerDecade; ++j) {
    r.push_back(std::pow(10.0, static_cast<double>(j) / kRatiosPerDecade));
  }
  return r;
}

std::vector<ChainPoint> chain_points() {
  std::vector<ChainPoint> points;
  for (const int n : kBalls) {
    for (const double N : kStiffnesses) points.push_back({n, N});
    points.push_back({n, 0.0});
  }
  for (const double eta : kExponents) {
    for (const double r : ratios()) {
      for (const double N : kRatioStiffnesses) {
        points.push_back(
            {.n = kRatioBalls, .N = N, .ratio = true, .stiffness_ratio = r, .exponent = eta});
      }
      for (const double step : kLzbSteps) {
        points.push_back({.n = kRatioBalls,
                          .N = 0.0,
                          .ratio = true,
                          .stiffness_ratio = r,
                          .exponent = eta,
                          .impulse_step = step});
      }
    }
  }
  return points;
}

std::string point_key(const ChainPoint& p) {
  const std::string law = p.ratio ? " stiffness_ratio=" + format_number(p.stiffness_ratio) +
                                        " exponent=" + format_number(p.exponent)
                                  : "";
  if (p.impulse_step > 0.0) {
    return "n=" + std::to_string(p.n) + law +
           " siconos-event-driven lzb impulse_step=" + format_number(p.impulse_step);
  }
  return "n=" + std::to_string(p.n) + law +
         (p.N > 0.0 ? " realization penalty N=" + format_number(p.N) : " event-driven e=1");
}

nlohmann::ordered_json compute(const ChainPoint& p) {
  std::vector<Assignment> case_params{{"n", std::to_string(p.n)}, {"gap", "0"}};
  if (p.ratio) {
    case_params.push_back({"stiffness_ratio", format_number(p.stiffness_ratio)});
    case_params.push_back({"exponent", format_number(p.exponent)});
  }
  const auto model = make_model("ball-chain", case_params);
  const bool penalty = p.N > 0.0, lzb = p.impulse_step > 0.0;
  const std::string solver_name = penalty ? "realization"
                                  : lzb   ? "siconos-event-driven"
                                          : "event-driven";
  RunSettings settings;
  settings.t_end = model->horizon();
  std::vector<Assignment> params;
  if (penalty) {
    params.push_back({"preset", "penalty"});
    params.push_back({"N", format_number(p.N)});
  } else {
    params.push_back({"restitution", "1"});
  }
  if (lzb) {
    params.push_back({"impact_law", "lzb"});
    params.push_back({"impulse_step", format_number(p.impulse_step)});
  }
  nlohmann::ordered_json line;
  line["key"] = point_key(p);
  line["n"] = p.n;
  line["solver"] = solver_name;
  if (penalty) line["N"] = p.N;
  if (lzb) line["impulse_step"] = p.impulse_step;
  if (p.ratio) {
    line["stiffness_ratio"] = p.stiffness_ratio;
    line["exponent"] = p.exponent;
  }
  RunRecord r;
  try {
    const Solver& solver = find_solver(solver_name);
    configure_solver(solver, params, settings);
    r = solver.run(*model, settings);
  } catch (const InputError& e) {
    // A build without the Siconos kernel: the law is not run (the line says why).
    line["not_run"] = e.what();
    return line;
  }
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

// Liu, Zhao & Brogliato's answer for one (exponent, ratio) beside the penalty outcome v: the run
// at the finer impulse step, its bar (the difference to the coarser step), the distance to v and
// whether the bar holds it; or why there is none. Into entry["lzb"] and four table cells.
void lzb_entry(const nlohmann::ordered_json* runs, const Eigen::VectorXd* v,
               nlohmann::ordered_json& entry, std::vector<std::string>& row) {
  const std::size_t count = std::size(kLzbSteps);
  nlohmann::ordered_json lzb{{"runs", nlohmann::ordered_json::array()}};
  bool ok = true;
  for (std::size_t i = 0; i < count; ++i) {
    lzb["runs"].push_back(runs[i]);
    ok = ok && status_in(runs[i]) == Status::ok;
  }
  if (!ok) {
    lzb["why"] = runs[0].contains("not_run")
                     ? runs[0]["not_run"].get<std::string>()
                     : std::string("a run did not end with status ok (its record is in runs)");
    entry["lzb"] = lzb;
    row.insert(row.end(), {"-", "-", "-", "-"});
    return;
  }
  const Eigen::VectorXd coarse = velocities(runs[0]), fine = velocities(runs[count - 1]);
  const double bar = (coarse - fine).lpNorm<Eigen::Infinity>();
  lzb["final_v"] = std::vector<double>(fine.data(), fine.data() + fine.size());
  lzb["impulse_step"] = kLzbSteps[count - 1];
  lzb["error_bar"] = bar;
  std::string distance = "-", within = "-";
  if (v != nullptr) {
    const double d = (*v - fine).lpNorm<Eigen::Infinity>();
    lzb["distance_to_penalty"] = d;
    lzb["within_bar"] = d <= bar;
    distance = scientific_text(d, 2);
    within = d <= bar ? "yes" : "no";
  }
  entry["lzb"] = lzb;
  row.insert(row.end(), {six(fine(0)) + ", " + six(fine(1)) + ", " + six(fine(2)),
                         scientific_text(bar, 2), distance, within});
}

// The three-ball cradle under stiffness ratios: per (exponent, ratio) its runs at every N, the
// outcome at the middle N, the spread over N, the conservation errors, the distances to the
// two ideal laws and Liu, Zhao & Brogliato's answer, into out["ratios"] and the table's rows.
void ratio_entries(const std::vector<ChainPoint>& points,
                   const std::vector<nlohmann::ordered_json>& lines, std::size_t at,
                   nlohmann::ordered_json& out, Table& table) {
  const Eigen::Vector3d simultaneous(-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0);
  const Eigen::Vector3d sequential(0.0, 0.0, 1.0);
  const std::size_t per = std::size(kRatioStiffnesses), lzb_runs = std::size(kLzbSteps);
  for (; at + per + lzb_runs <= points.size(); at += per + lzb_runs) {
    const ChainPoint& p = points[at];
    nlohmann::ordered_json entry{
        {"exponent", p.exponent}, {"stiffness_ratio", p.stiffness_ratio}, {"runs", {}}};
    bool ok = true;
    for (std::size_t i = 0; i < per; ++i) {
      entry["runs"].push_back(lines[at + i]);
      ok = ok && status_in(lines[at + i]) == Status::ok;
    }
    std::vector<std::string> row{format_number(p.exponent), six(p.stiffness_ratio)};
    if (!ok) {
      entry["why"] = "a run did not end with status ok (its record is in runs)";
      row.insert(row.end(), table.header.size() - 7, "-");
      lzb_entry(&lines[at + per], nullptr, entry, row);
      row.push_back("failed");
      out["ratios"].push_back(entry);
      table.rows.push_back(row);
      continue;
    }
    const nlohmann::ordered_json& middle = lines[at + per / 2];
    const Eigen::VectorXd v = velocities(middle);
    double spread = 0.0, momentum = 0.0, energy = 0.0;
    for (std::size_t i = 0; i < per; ++i) {
      const Eigen::VectorXd w = velocities(lines[at + i]);
      spread = std::max(spread, (w - v).lpNorm<Eigen::Infinity>());
      momentum = std::max(momentum, std::abs(w.sum() - 1.0));
      energy = std::max(energy, std::abs(0.5 * w.squaredNorm() - 0.5));
    }
    const bool separating = v(0) <= v(1) && v(1) <= v(2);
    entry["final_v"] = std::vector<double>(v.data(), v.data() + v.size());
    entry["spread_over_N"] = spread;
    entry["momentum_error"] = momentum;
    entry["energy_error"] = energy;
    entry["separating"] = separating;
    entry["distance_to_simultaneous"] = (v - simultaneous).lpNorm<Eigen::Infinity>();
    entry["distance_to_sequential"] = (v - sequential).lpNorm<Eigen::Infinity>();
    row.insert(row.end(),
               {six(v(0)), six(v(1)), six(v(2)), scientific_text(spread, 2),
                six(entry["distance_to_simultaneous"].get<double>()),
                six(entry["distance_to_sequential"].get<double>()), separating ? "yes" : "no",
                scientific_text(momentum, 2), scientific_text(energy, 2),
                std::to_string(middle["steps"].get<long>())});
    lzb_entry(&lines[at + per], &v, entry, row);
    row.push_back(to_string(Status::ok));
    out["ratios"].push_back(entry);
    table.rows.push_back(row);
  }
}

Table ratio_table() {
  return {
      .title = "Three-ball cradle under stiffness ratios",
      .caption =
          "ball-chain, three touching balls (m = 1, d = 1, v0 = 1), the penalty "
          "realization with the spring N (-f)^eta on contact 0 (the striker's) and N "
          "(-f)^eta / r on contact 1 (stiffness_ratio r = k_01/k_12, exponent eta: 1 "
          "linear, 1.5 Hertz). Final velocities at N = 1e6; spread: their largest "
          "difference over N = 1e4, 1e6, 1e8 (the outcome does not depend on N); the "
          "distances (largest entry) to Newton's simultaneous law (-1/3, 2/3, 2/3) "
          "and to the sequential cradle (0, 0, 1); separating: no ball catches up "
          "with the next; momentum and energy errors (largest over N); steps at N = "
          "1e6. LZB: Liu, Zhao & Brogliato's multiple-impact law on the same springs "
          "(siconos-event-driven --impact-law lzb, energetic restitution 1) at the impulse "
          "step 1e-5, its bar the difference to the step 1e-4, the largest distance "
          "between its final velocities and the penalty's, and whether the bar holds it. "
          "Tolerances rtol 1e-12, atol 1e-14 (chain_outcome.json: every run's).",
      .header = {"eta", "r", "v_0", "v_1", "v_2", "spread over N", "to simultaneous",
                 "to sequential", "separating", "momentum error", "energy error", "steps (N = 1e6)",
                 "LZB v_0, v_1, v_2", "LZB bar", "to LZB", "within", "status"}};
}

// The folder's README: what the runs are, what the outcome shows, the table and the figure (or
// why there is none: `figures`).
void write_chain_readme(const fs::path& dir, const Table& table, const Table& ratio,
                        const std::string& figures) {
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
  md << "\n## Stiffness ratios and Hertz's law\n\n"
     << "Three touching balls, the striker's contact with the spring N (-f)^eta and the next "
        "with N (-f)^eta / r. With no force and no other scale the motion at N is the motion at "
        "N = 1 with time and lengths scaled by N^(-1/(eta+1)), so again the outcome does not "
        "depend on N, and it depends on r and eta: as r -> 0 the far pair is stiff and takes "
        "the blow as one body of mass 2, (-1/3, 2/3, 2/3), which is also Newton's simultaneous "
        "law here; as r -> infinity the impact splits into two binary ones in sequence, "
        "(0, 0, 1). Between them the outcome is the compliant contact's own; below r = 0.3 it is "
        "not monotone in r (the stiff pair's own vibration when the soft contact opens decides "
        "how the momentum is shared).\n\n"
     << "Liu, Zhao & Brogliato's multiple-impact law (LZB; the Siconos kernel's MultipleImpact, "
        "run as `siconos-event-driven --impact-law lzb` on the same springs) integrates the "
        "impact in the impulse of its primary contact, each contact's potential energy and "
        "force following its spring, with the configuration frozen. Where no contact opens a "
        "gap during the impact that it closes again, that is the penalty's limit in another "
        "parametrization, and the table bears it out: at every ratio and for both laws the two "
        "agree to about 1e-5, within LZB's bar (the difference between its steps 1e-4 and 1e-5 "
        "in the impulse) where the last column says yes. The kernel's process is explicit; a "
        "finer step brings the linear law's answer closer (first order, to about 3e-7 at 1e-7) "
        "but not Hertz's (docs/siconos.md).\n\n"
     << markdown(ratio) << "\n";
  if (figures.empty()) {
    md << "![Final velocities against the stiffness ratio](chain_ratios.png)\n\n"
       << "*Final velocity of each ball against r = k_01/k_12 for the linear and the Hertz "
          "contact (every N drawn, the markers coincide), Liu, Zhao & Brogliato's answer (black "
          "dots) and the two ideal laws at the sides.*\n";
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

ChainOutcomeSummary write_chain_outcome(const fs::path& dir, int jobs, std::ostream& progress,
                                        FigureQueue* figure_queue) {
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
       // The long chains at the largest N and the finest impulse steps first.
       .cost = [&](std::size_t i) {
         const ChainPoint& p = points[i];
         return p.impulse_step > 0.0 ? 1e-2 / p.impulse_step : p.n * std::sqrt(std::max(p.N, 1.0));
       }});
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
  for (std::size_t i = at; i < points.size(); ++i) {
    ++summary.points;
    if (status_in(run.lines[i]) == Status::ok) ++summary.ok;
  }
  out["ratios"] = nlohmann::ordered_json::array();
  Table ratio = ratio_table();
  ratio_entries(points, run.lines, at, out, ratio);
  write_file(dir / "chain_outcome.json", out.dump(2) + "\n");
  write_table(dir / "chain_outcome", table);
  write_table(dir / "chain_ratios", ratio);
  const auto readme = [dir, table, ratio](const std::string& figures) {
    write_chain_readme(dir, table, ratio, figures);
  };
  if (figure_queue) {
    figure_queue->submit(dir, readme);
  } else {
    readme(run_figures(dir));
  }

  summary.markdown = chain_overview(out);
  return summary;
}

}  // namespace crbench
