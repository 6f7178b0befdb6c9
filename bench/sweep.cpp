#include "crbench/bench/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/ladder_engine.hpp"
#include "crbench/bench/mpi.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const std::vector<std::string> kModelNames{"alpha", "beta", "gamma", "zeta", "omega0"};
// The bound keeps a sweep's files and run time within reason (a 200 × 200 map, a 50 × 50 × 50
// cube: about 120 MB of points.jsonl).
constexpr std::size_t kMaxPoints = 125000;
// Beyond this grid.json (every line again, indented) is not written: grid.csv and points.jsonl
// hold every point.
constexpr std::size_t kMaxGridJsonPoints = 40000;
constexpr std::string_view kCasePrefix = "case.";

bool is_model_name(const std::string& name) {
  return std::find(kModelNames.begin(), kModelNames.end(), name) != kModelNames.end();
}

// One grid point: its indices along the axes and the model and case settings they give.
struct SweepPoint {
  std::string key;
  std::vector<int> index;
  std::vector<double> value;
  double alpha = 0.0, beta = 0.0, gamma = 0.0;
  std::vector<Assignment> case_assignments;
  bool check = false;
};

// (α, β, γ) from the fixed values and the point's axis values; with ζ and ω₀, α is fixed
// (default 1) and β = 2ζ α ω₀, γ = α ω₀² (ζ = β/(2√(αγ)), ω₀ = √(γ/α)).
void set_model(const Sweep& sweep, SweepPoint& p) {
  std::map<std::string, double> v = sweep.model;
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
    if (is_model_name(sweep.axes[a].name)) v[sweep.axes[a].name] = p.value[a];
  }
  if (v.count("zeta") || v.count("omega0")) {
    const double alpha = v.count("alpha") ? v.at("alpha") : 1.0;
    p.alpha = alpha;
    p.gamma = alpha * v.at("omega0") * v.at("omega0");
    p.beta = 2.0 * v.at("zeta") * alpha * v.at("omega0");
  } else {
    p.alpha = v.at("alpha");
    p.beta = v.at("beta");
    p.gamma = v.at("gamma");
  }
}

std::vector<SweepPoint> grid_points(const Sweep& sweep) {
  std::vector<SweepPoint> points;
  std::size_t total = 1;
  for (const auto& axis : sweep.axes) total *= axis.values.size();
  points.reserve(total);
  // Row-major: the last axis varies fastest (a slice of the first axis is a contiguous block).
  std::vector<int> index(sweep.axes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    SweepPoint p;
    p.index = index;
    p.case_assignments = sweep.case_assignments;
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
      const auto& axis = sweep.axes[a];
      p.value.push_back(axis.values[static_cast<std::size_t>(p.index[a])]);
      p.key += (a ? ";" : "") + axis.name + "=" + format_number(p.value[a]);
      if (!is_model_name(axis.name)) {
        p.case_assignments.push_back(
            {axis.name.substr(kCasePrefix.size()), format_number(p.value[a])});
      }
    }
    set_model(sweep, p);
    p.check = sweep.check.has_value() && std::all_of(p.index.begin(), p.index.end(), [&](int k) {
                return k % sweep.check->stride == 0;
              });
    points.push_back(std::move(p));
    for (std::size_t a = sweep.axes.size(); a-- > 0;) {
      if (++index[a] < static_cast<int>(sweep.axes[a].values.size())) break;
      index[a] = 0;
    }
  }
  return points;
}

// Everything besides the axis values that determines a point's line: a line of points.jsonl is
// reused by --resume only when its "settings" equal these (a changed case, parameter, model,
// tolerance, check or version computes the point again).
ojson sweep_settings(const Sweep& sweep) {
  ojson params = ojson::object();
  for (const auto& a : sweep.case_assignments) params[a.key] = a.value;
  ojson model = ojson::object();
  for (const auto& [name, value] : sweep.model) model[name] = value;
  ojson s;
  s["crbench_version"] = version;
  s["case"] = sweep.case_name;
  s["params"] = params;
  s["model"] = model;
  s["rtol"] = sweep.rtol;
  s["atol"] = sweep.atol;
  s["check"] =
      sweep.check ? ojson{{"N", sweep.check->N}, {"stride", sweep.check->stride}} : ojson();
  s["max_wall_time"] = std::isfinite(sweep.max_wall_time) ? ojson(sweep.max_wall_time) : ojson();
  if (sweep.t_end) s["t_end"] = *sweep.t_end;
  return s;
}

// Which of Deryabin & Kozlov 1995 §3's propositions the record's text names.
std::string proposition_class(const std::string& text) {
  if (text.rfind("Proposition 1", 0) == 0) return "1";
  if (text.rfind("Proposition 2", 0) == 0) return "2";
  if (text.rfind("neither", 0) == 0) return "none";
  if (text.empty()) return "";
  return "no zero of lambda";
}

// The classical lift-off (event-driven) for each distinct set of case parameters on the grid: it
// does not depend on the model, so it is solved once per set, not at every point.
std::map<std::string, std::optional<double>> classical_lift_offs(
    const Sweep& sweep, const std::vector<SweepPoint>& points) {
  std::map<std::string, std::optional<double>> out;
  for (const auto& p : points) {
    const std::string key = assignments_text(p.case_assignments);
    if (out.count(key)) continue;
    const RunRecord c = execute({.case_name = sweep.case_name,
                                 .solver_name = "event-driven",
                                 .case_assignments = p.case_assignments,
                                 .rtol = sweep.rtol,
                                 .atol = sweep.atol,
                                 .t_end = sweep.t_end,
                                 .max_wall_time = sweep.max_wall_time});
    out[key] = c.lift_off_time;
  }
  return out;
}

// `settings`: sweep_settings(sweep), built once for every point's line.
ojson compute_point(const Sweep& sweep, const ojson& settings, const SweepPoint& p,
                    const std::optional<double>& classical_lift_off) {
  const auto model_assignments = [&p]() {
    return std::vector<Assignment>{{"alpha", format_number(p.alpha)},
                                   {"beta", format_number(p.beta)},
                                   {"gamma", format_number(p.gamma)}};
  };
  RunRequest limit{.case_name = sweep.case_name,
                   .solver_name = "limit",
                   .case_assignments = p.case_assignments,
                   .solver_assignments = model_assignments(),
                   .rtol = sweep.rtol,
                   .atol = sweep.atol,
                   .t_end = sweep.t_end,
                   .max_wall_time = sweep.max_wall_time};
  const RunRecord r = execute(limit);

  ojson line;
  line["key"] = p.key;
  line["settings"] = settings;
  line["index"] = p.index;
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) line[sweep.axes[a].name] = p.value[a];
  line["alpha"] = p.alpha;
  line["beta"] = p.beta;
  line["gamma"] = p.gamma;
  if (p.alpha > 0.0 && p.gamma > 0.0) {
    line["damping_ratio"] = p.beta / (2.0 * std::sqrt(p.alpha * p.gamma));
    line["natural_frequency"] = std::sqrt(p.gamma / p.alpha);
  }
  line["status"] = r.status;
  line["reason"] = r.reason;
  line["lift_off_time"] = number_or_null(r.lift_off_time);
  line["classical_lift_off_time"] = number_or_null(classical_lift_off);
  line["delay"] = r.lift_off_time && classical_lift_off
                      ? ojson(*r.lift_off_time - *classical_lift_off)
                      : ojson();
  line["theorem_applies"] = r.theorem && r.theorem->applies;
  line["why"] = r.theorem ? r.theorem->why : std::string();
  const std::string proposition = r.diagnostics.value("proposition", std::string());
  line["proposition"] = proposition_class(proposition);
  line["proposition_text"] = proposition;
  const auto zeros = r.diagnostics.find("lambda_zero_time");
  line["lambda_zero_time"] =
      zeros != r.diagnostics.end() && zeros->is_array() && !zeros->empty() ? (*zeros)[0] : ojson();
  line["tolerances"] = r.tolerances;
  if (!p.check) return line;
  // The realization at N (a ladder of one rung), and its tight twin at tolerances / 100 to
  // estimate its discretization error.
  LadderPlan plan;
  plan.base = limit;
  plan.base.solver_name = "realization";
  plan.rtol = sweep.rtol;
  plan.atol = sweep.atol;
  plan.tight_factor = 100.0;
  const RunRequest realization = rung_request(plan, sweep.check->N);
  const RunRecord at_N = execute(realization);
  const RunRecord tight = execute(tight_twin(plan, realization));
  ojson check;
  check["N"] = sweep.check->N;
  check["status"] = at_N.status;
  check["lift_off_time"] = number_or_null(at_N.lift_off_time);
  if (at_N.lift_off_time && tight.lift_off_time && r.lift_off_time) {
    const double error = std::abs(*at_N.lift_off_time - *r.lift_off_time);
    const double discretization = std::abs(*at_N.lift_off_time - *tight.lift_off_time);
    check["error"] = error;
    check["discretization"] = discretization;
    // As in converge: the discretization must stay below 1% of the model error it measures, and
    // a solve that warned (e.g. an exit time below the round-off of f) is not trusted.
    check["flagged"] = !(discretization <= 0.01 * error) || !at_N.warnings.empty();
    if (!at_N.warnings.empty()) check["warnings"] = at_N.warnings;
    // The realization's tolerance on the facts test (tests/test_facts.cpp): 10/N.
    check["agrees"] = error <= 10.0 / sweep.check->N;
  }
  line["check"] = check;
  return line;
}

// With the model given by ζ and ω₀ and α on an axis, the points that differ only in α are one
// model: (α, β, γ) = α (1, 2ζω₀, ω₀²), and scaling (α, β, γ) gives the same limit motion
// (Deryabin & Kozlov 1995, after Theorem 1; z scales by 1/α). The summary says how far the
// computed lift-offs along α lie apart (a check of that statement and of the solver's
// tolerances) and where the classification (Theorem 1, the proposition) changes along α.
std::optional<ojson> scaling_invariance(const Sweep& sweep, const std::vector<ojson>& lines) {
  const auto is_given = [&](const std::string& name) {
    return sweep.model.count(name) ||
           std::any_of(sweep.axes.begin(), sweep.axes.end(),
                       [&](const SweepAxis& a) { return a.name == name; });
  };
  std::size_t alpha_axis = sweep.axes.size();
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
    if (sweep.axes[a].name == "alpha") alpha_axis = a;
  }
  if (alpha_axis == sweep.axes.size() || !is_given("zeta") || !is_given("omega0")) return {};
  struct Column {
    int members = 0, finite = 0;
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    std::set<std::string> classes;
  };
  std::map<std::vector<int>, Column> columns;
  for (const auto& line : lines) {
    if (!line.contains("index") || !line["index"].is_array()) continue;
    std::vector<int> key = line["index"].get<std::vector<int>>();
    if (key.size() != sweep.axes.size()) continue;
    key.erase(key.begin() + static_cast<std::ptrdiff_t>(alpha_axis));
    Column& c = columns[key];
    ++c.members;
    const ojson& t = line.value("lift_off_time", ojson());
    if (status_in(line) == Status::ok && t.is_number()) {
      ++c.finite;
      c.low = std::min(c.low, t.get<double>());
      c.high = std::max(c.high, t.get<double>());
    }
    c.classes.insert(std::string(line.value("theorem_applies", false) ? "applies" : "not") + "/" +
                     line.value("proposition", std::string()));
  }
  int compared = 0, differing = 0;
  double largest = 0.0;
  for (const auto& [key, c] : columns) {
    if (c.classes.size() > 1) ++differing;
    if (c.members < 2 || c.finite != c.members) continue;
    ++compared;
    largest = std::max(largest, c.high - c.low);
  }
  ojson out;
  out["axis"] = "alpha";
  out["columns"] = columns.size();
  out["compared"] = compared;  // columns whose every point is ok with a lift-off
  out["largest_spread"] = compared ? ojson(largest) : ojson();
  out["classification_differs"] = differing;
  return out;
}

std::string cell(const ojson& x) {
  if (x.is_null()) return "";
  if (x.is_boolean()) return x.get<bool>() ? "true" : "false";
  if (x.is_number()) return format_number(x.get<double>());
  if (x.is_string()) return x.get<std::string>();
  return x.dump();
}

}  // namespace

// Every grid point's (α, β, γ) is one the limit solver takes, on a case whose constraints it can
// realize (a kinematic constraint has no stiffness γ): checked when the file is read, as the case
// parameters' axes are, not found out point by point.
void check_models(const Sweep& sweep) {
  const Solver& limit = find_solver("limit");
  std::map<std::string, ParamSpec> specs;
  for (const ParamSpec& p : limit.parameters()) specs[p.name] = p;
  bool kinematic = false;
  if (const auto model = make_model(sweep.case_name, sweep.case_assignments)) {
    kinematic = model->kinematic_count() > 0;
  }
  for (const SweepPoint& p : grid_points(sweep)) {
    const std::pair<const char*, double> values[] = {
        {"alpha", p.alpha}, {"beta", p.beta}, {"gamma", p.gamma}};
    for (const auto& [name, value] : values) {
      const auto spec = specs.find(name);
      if (spec != specs.end() && !spec->second.admits(value)) {
        throw InputError("sweep: at the point " +
                         (p.key.empty() ? std::string("(no axis)") : p.key) + " the model's " +
                         name + " = " + format_number(value) +
                         " is outside the limit solver's range " + spec->second.range_text());
      }
    }
    if (kinematic && p.gamma != 0.0) {
      throw InputError("sweep: at the point " + (p.key.empty() ? std::string("(no axis)") : p.key) +
                       " the model's gamma = " + format_number(p.gamma) + "; case " +
                       sweep.case_name +
                       " has kinematic constraints, which are realized by added mass alpha and "
                       "friction beta alone: give gamma 0");
    }
  }
}

namespace {

// Axis `a` of the sweep file: its name (a model parameter, or case.NAME of the sweep's case), its
// spacing and its values, each in the parameter's range and all distinct.
SweepAxis read_sweep_axis(const nlohmann::json& j, std::size_t a, const Sweep& s,
                          const std::vector<ParamSpec>& case_params) {
  const std::string path = "sweep.axes[" + std::to_string(a) + "]";
  Fields f(j, path);
  SweepAxis axis;
  axis.name = f.text("name");
  const ParamSpec* spec = nullptr;
  if (axis.name.rfind(kCasePrefix, 0) == 0) {
    const std::string param = axis.name.substr(kCasePrefix.size());
    for (const auto& p : case_params) {
      if (p.name == param) spec = &p;
    }
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& p : case_params) names.push_back(std::string(kCasePrefix) + p.name);
      throw InputError(f.path("name") + ": '" + axis.name + "' is not a parameter of " +
                       s.case_name + "; the case's are " + join(names));
    }
    for (const auto& assignment : s.case_assignments) {
      if (assignment.key == param) {
        throw InputError(f.path("name") + ": '" + param +
                         "' is set in sweep.params too; give it in one place");
      }
    }
  } else if (!is_model_name(axis.name)) {
    throw InputError(f.path("name") + ": '" + axis.name + "' is neither a model parameter (" +
                     join(kModelNames) + ") nor a case parameter (case.NAME)");
  }
  const std::string spacing = f.text("spacing", "linear");
  if (spacing != "linear" && spacing != "log") {
    throw InputError(f.path("spacing") + ": '" + spacing + "' must be linear or log");
  }
  const ParamSpec positive = range(0.0, 1e12, false);
  const ParamSpec any = range(-1e12, 1e12);
  const ParamSpec& bounds = spacing == "log" || is_model_name(axis.name) ? positive : any;
  const double from = f.number("from", std::nullopt, bounds);
  const double to = f.number("to", std::nullopt, bounds);
  ParamSpec counts = range(2, 200);
  counts.whole = true;
  const int count = static_cast<int>(f.number("count", std::nullopt, counts));
  if (!(to > from)) {
    throw InputError(f.path("to") + ": " + format_number(to) +
                     " must exceed from = " + format_number(from));
  }
  for (int k = 0; k < count; ++k) {
    const double u = static_cast<double>(k) / (count - 1);
    // A ratio to / from beyond the largest double (from near the smallest positive double) is
    // taken through logarithms; every other axis keeps the plain product.
    const double ratio = to / from;
    const double value =
        k == count - 1     ? to
        : spacing != "log" ? from + (to - from) * u
                           : (std::isfinite(ratio)
                                  ? from * std::pow(ratio, u)
                                  : std::exp(std::log(from) + u * (std::log(to) - std::log(from))));
    if (spec && !spec->admits(value)) {
      throw InputError(path + ": the value " + format_number(value) + " of " + axis.name +
                       " is outside its range " + spec->range_text());
    }
    // Two equal values would give two points one key (and one line of points.jsonl).
    if (!axis.values.empty() && !(value > axis.values.back())) {
      throw InputError(f.path("count") + ": values " + std::to_string(k - 1) + " and " +
                       std::to_string(k) + " of axis '" + axis.name +
                       "' are the same number in double precision (" + format_number(value) +
                       "); accepted: an axis whose values are all distinct (fewer points or a "
                       "wider range)");
    }
    axis.values.push_back(value);
  }
  axis.spacing = spacing;
  f.finish();
  return axis;
}

// The sweep's model: fixed values of (alpha, beta, gamma) or of alpha with (zeta, omega0), the
// others on axes; determined, and in one way.
void read_sweep_model(Fields& top, Sweep& s) {
  if (const auto* model = top.find("model")) {
    Fields m(*model, "sweep.model");
    for (const auto& name : kModelNames) {
      const double fallback = -1.0;
      const double value = m.number(name, fallback, range(0.0, 1e12));
      if (value != fallback) s.model[name] = value;
    }
    m.finish();
  }
  // The model must be determined, and in one way: (α, β, γ), or α with (ζ, ω₀).
  std::set<std::string> given;
  for (const auto& [name, value] : s.model) given.insert(name);
  for (const auto& axis : s.axes) {
    if (!is_model_name(axis.name)) continue;
    if (s.model.count(axis.name)) {
      throw InputError("sweep.model." + axis.name + ": it is an axis too; give it in one place");
    }
    given.insert(axis.name);
  }
  const bool ratio = given.count("zeta") || given.count("omega0");
  if (ratio) {
    for (const char* name : {"zeta", "omega0"}) {
      if (!given.count(name)) {
        throw InputError(std::string("sweep.model.") + name +
                         ": with zeta or omega0 the model needs both (an axis or a fixed value)");
      }
    }
    for (const char* name : {"beta", "gamma"}) {
      if (given.count(name)) {
        throw InputError(std::string("sweep.model.") + name +
                         ": beta and gamma follow from zeta and omega0 (with alpha, default 1)");
      }
    }
    if (s.model.count("alpha") && !(s.model.at("alpha") > 0.0)) {
      throw InputError("sweep.model.alpha: must be positive with zeta and omega0");
    }
  } else {
    for (const char* name : {"alpha", "beta", "gamma"}) {
      if (!given.count(name)) {
        throw InputError(std::string("sweep.model.") + name +
                         ": neither an axis nor a fixed value (the model is (alpha, beta, gamma) "
                         "or alpha with zeta and omega0)");
      }
    }
  }
}

}  // namespace

Sweep parse_sweep(const nlohmann::json& j) {
  Sweep s;
  Fields top(j, "sweep");
  s.name = folder_name(top, "sweep");
  s.description = top.text("description", "");
  s.case_name = known_case_name(top, "sweep");
  s.case_assignments = assignments_of(top.find("params"), "sweep.params");
  std::vector<ParamSpec> case_params;
  try {
    case_params = make_model(s.case_name, s.case_assignments)->info().params;
  } catch (const InputError& e) {
    throw InputError(std::string("sweep.params: ") + e.what());
  }

  const auto& axes = top.require("axes");
  if (!axes.is_array() || axes.empty() || axes.size() > 3) {
    throw InputError("sweep.axes: must be an array of one, two or three axes");
  }
  std::size_t points = 1;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    SweepAxis axis = read_sweep_axis(axes[a], a, s, case_params);
    const std::string path = "sweep.axes[" + std::to_string(a) + "]";
    for (const auto& other : s.axes) {
      if (other.name == axis.name) {
        throw InputError(path + ".name: '" + axis.name + "' is on two axes");
      }
    }
    points *= axis.values.size();
    s.axes.push_back(std::move(axis));
  }
  if (points > kMaxPoints) {
    throw InputError("sweep.axes: " + std::to_string(points) + " points; at most " +
                     std::to_string(kMaxPoints));
  }

  read_sweep_model(top, s);

  if (const auto* tol = top.find("tolerances")) {
    Fields t(*tol, "sweep.tolerances");
    s.rtol = t.number("rtol", s.rtol, kRtolSpec);
    s.atol = t.number("atol", s.atol, kAtolSpec);
    t.finish();
  }
  if (const auto* check = top.find("check")) {
    Fields c(*check, "sweep.check");
    SweepCheck sc;
    sc.N = c.number("N", std::nullopt, range(0.0, 1e15, false));
    ParamSpec strides = range(1, 200);
    strides.whole = true;
    sc.stride = static_cast<int>(c.number("stride", sc.stride, strides));
    c.finish();
    s.check = sc;
  }
  s.max_wall_time = top.number("max_wall_time", s.max_wall_time, kMaxWallTimeSpec);
  if (top.find("t_end")) s.t_end = top.number("t_end", std::nullopt, range(0.0, 1e9, false));
  top.finish();
  check_models(s);
  return s;
}

Sweep parse_sweep_text(std::string_view text, const std::string& origin) {
  return parse_sweep(parse_json_text(text, origin, "--sweep"));
}

Sweep load_sweep(const std::string& path) {
  return parse_sweep(parse_json_text(read_input_file(path, "--sweep"), path, "--sweep"));
}

namespace {

// The sweep's points on the options' threads (and ranks), points.jsonl as they finish.
PointRun run_sweep_points(const Sweep& sweep, const SweepOptions& options,
                          const std::vector<SweepPoint>& points) {
  const fs::path out = options.out_dir;
  const auto classical = classical_lift_offs(sweep, points);
  std::vector<std::string> keys;
  for (const auto& p : points) keys.push_back(p.key);
  const ojson settings = sweep_settings(sweep);
  return run_points(
      out / "points.jsonl", keys,
      [&](std::size_t i) {
        return compute_point(sweep, settings, points[i],
                             classical.at(assignments_text(points[i].case_assignments)));
      },
      [&settings, &points, &sweep](std::size_t i, const ojson& line) {
        if (!line.contains("settings") || line["settings"] != settings) return false;
        // The body must be the point its key names: a line edited and sealed again is not reused.
        if (line.value("index", ojson()) != ojson(points[i].index)) return false;
        for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
          const auto it = line.find(sweep.axes[a].name);
          if (it == line.end() || *it != ojson(points[i].value[a])) return false;
        }
        return true;
      },
      {.name = sweep.name,
       .jobs = options.jobs,
       .resume = options.resume,
       // A check point adds two realization solves to the limit's: on dk-plane at N = 1e8 about
       // twice a limit point's time (bench/sweeps/scaling), more on stiffer cases.
       .cost = [&](std::size_t i) { return points[i].check ? 2.0 : 1.0; }});
}

// What grid.csv's rows add up to, for sweep.json and the log.
struct SweepCounts {
  int applies = 0, ok = 0, delayed = 0, prop1 = 0, prop1_delayed = 0, checks = 0, comparable = 0,
      agreeing = 0, flagged = 0, internal_errors = 0;
};

// grid.csv: one row per point, the axes first; the counts over its rows.
SweepCounts write_grid_csv(const Sweep& sweep, const std::vector<ojson>& lines,
                           const fs::path& out) {
  std::vector<std::string> header;
  for (const auto& axis : sweep.axes) header.push_back(axis.name);
  for (const char* name : {"alpha", "beta", "gamma", "damping_ratio", "natural_frequency", "status",
                           "lift_off_time", "classical_lift_off_time", "delay", "theorem_applies",
                           "why", "proposition", "lambda_zero_time"}) {
    header.emplace_back(name);
  }
  if (sweep.check) {
    for (const char* name : {"check_N", "check_status", "check_lift_off_time", "check_error",
                             "check_discretization", "check_flagged", "check_agrees"}) {
      header.emplace_back(name);
    }
  }
  header.emplace_back("rtol");
  header.emplace_back("atol");
  std::ostringstream csv;
  for (std::size_t i = 0; i < header.size(); ++i) csv << (i ? "," : "") << csv_field(header[i]);
  csv << "\n";
  SweepCounts n;
  for (const auto& line : lines) {
    const std::optional<Status> status = status_in(line);
    if (status == Status::internal_error) ++n.internal_errors;
    if (status == Status::ok) ++n.ok;
    const bool theorem = line.value("theorem_applies", false);
    n.applies += theorem;
    const bool is_delayed =
        line.contains("delay") && line["delay"].is_number() && line["delay"].get<double>() > 0.0;
    n.delayed += theorem && is_delayed;
    const double a = line.value("alpha", 0.0), b = line.value("beta", 0.0),
                 g = line.value("gamma", 0.0);
    if (theorem && b * b >= 4.0 * a * g) {
      ++n.prop1;
      n.prop1_delayed += is_delayed;
    }
    std::vector<std::string> row;
    for (const auto& name : header) {
      if (name.rfind("check_", 0) == 0) {
        const ojson check = line.value("check", ojson::object());
        row.push_back(cell(check.value(name.substr(6), ojson())));
      } else if (name == "rtol" || name == "atol") {
        row.push_back(cell(line.value("tolerances", ojson::object()).value(name, ojson())));
      } else {
        row.push_back(cell(line.value(name, ojson())));
      }
    }
    if (line.contains("check")) {
      ++n.checks;
      n.comparable += line["check"].contains("error");
      n.agreeing += line["check"].value("agrees", false);
      n.flagged += line["check"].value("flagged", false);
    }
    for (std::size_t i = 0; i < row.size(); ++i) csv << (i ? "," : "") << csv_field(row[i]);
    csv << "\n";
  }
  write_file(out / "grid.csv", csv.str());
  return n;
}

// sweep.json: the sweep's settings, axes (with their units) and the counts.
ojson sweep_summary(const Sweep& sweep, const SweepCounts& n, const std::vector<ojson>& lines,
                    int points_total) {
  ojson summary;
  summary["crbench_version"] = version;
  summary["build"] = build_json();
  summary["sweep"] = sweep.name;
  summary["description"] = sweep.description;
  summary["case"] = sweep.case_name;
  ojson params = ojson::object();
  for (const auto& a : sweep.case_assignments) params[a.key] = a.value;
  summary["params"] = params;
  ojson axes = ojson::array();
  // The unit of a case parameter's axis (case.v0: length/time), from the case; the model's
  // axes (zeta, omega0, alpha, beta, gamma) are dimensionless or 1/time by their definitions.
  const auto& case_params = find_case(sweep.case_name).info.params;
  for (const auto& axis : sweep.axes) {
    std::string unit;
    if (axis.name.rfind(kCasePrefix, 0) == 0) {
      const std::string param = axis.name.substr(kCasePrefix.size());
      for (const auto& p : case_params) {
        if (p.name == param) unit = p.unit;
      }
    } else if (axis.name == "omega0") {
      unit = "1/time";
    }
    axes.push_back(
        {{"name", axis.name}, {"unit", unit}, {"spacing", axis.spacing}, {"values", axis.values}});
  }
  summary["axes"] = axes;
  summary["model"] = sweep.model;
  summary["tolerances"] = {{"rtol", sweep.rtol}, {"atol", sweep.atol}};
  if (sweep.t_end) summary["t_end"] = *sweep.t_end;
  if (sweep.check) summary["check"] = {{"N", sweep.check->N}, {"stride", sweep.check->stride}};
  summary["points"] = points_total;
  summary["ok"] = n.ok;
  summary["theorem_applies"] = n.applies;
  summary["delayed"] = n.delayed;  // among the points where Theorem 1 applies
  // Proposition 1 (Deryabin & Kozlov 1995 §3): β² ≥ 4αγ (ζ ≥ 1) guarantees a delay wherever
  // Theorem 1 applies; the map checks it at every such point.
  summary["proposition_1"] = {{"points", n.prop1}, {"delayed", n.prop1_delayed}};
  if (sweep.check) {
    summary["checks"] = {{"points", n.checks},
                         {"comparable", n.comparable},
                         {"agree", n.agreeing},
                         {"flagged", n.flagged}};
  }
  if (const auto invariance = scaling_invariance(sweep, lines)) {
    summary["scaling_invariance"] = *invariance;
  }
  summary["internal_errors"] = n.internal_errors;
  return summary;
}

// sweep.json, and grid.json (the summary with every row) when the grid is small enough.
void write_sweep_json(const fs::path& out, const ojson& summary, const std::vector<ojson>& lines) {
  {
    std::ostringstream text;
    text << summary.dump(2) << "\n";
    write_file(out / "sweep.json", text.str());
    if (lines.size() <= kMaxGridJsonPoints) {
      ojson grid = summary;
      grid["rows"] = lines;
      std::ostringstream rows;
      rows << grid.dump(1) << "\n";
      write_file(out / "grid.json", rows.str());
    } else {
      // A grid.json of an earlier, smaller run of this sweep would contradict grid.csv.
      std::error_code ignored;
      fs::remove(out / "grid.json", ignored);
    }
  }
}

}  // namespace

SweepResult run_sweep(const Sweep& sweep, const SweepOptions& options) {
  const fs::path out = options.out_dir;
  // Under MPI, rank 0 alone owns the folder (bench/mpi.hpp).
  const std::shared_ptr<OutputLock> lock = claim_output_folder(out);
  const auto manifest = std::make_shared<OutputManifest>(out);
  const std::vector<SweepPoint> points = grid_points(sweep);
  const PointRun run = run_sweep_points(sweep, options, points);
  SweepResult result;
  if (!run.writer) return result;
  result.points_total = static_cast<int>(points.size());
  result.points_computed = run.computed;
  result.lines_discarded = run.discarded;
  std::ostringstream sorted;
  for (const auto& line : run.lines) sorted << line.dump() << "\n";
  write_file(out / "points.jsonl", sorted.str());
  const SweepCounts n = write_grid_csv(sweep, run.lines, out);
  result.points_internal_error = n.internal_errors;
  result.summary = sweep_summary(sweep, n, run.lines, result.points_total);
  write_sweep_json(out, result.summary, run.lines);
  if (options.log) {
    *options.log << "sweep " << sweep.name << ": " << result.points_computed << " of "
                 << result.points_total << " points computed, " << n.applies
                 << " where Theorem 1 applies, " << n.delayed << " delayed; Proposition 1 at "
                 << n.prop1 << " points, delayed at " << n.prop1_delayed << "; grid in "
                 << out.string();
    if (run.discarded > 0) {
      *options.log
          << "; --resume discarded " << run.discarded
          << " lines of points.jsonl computed with other settings (case, parameters, "
             "model, tolerances, check or version), off this grid, or altered since written "
             "(checksum)";
    }
    *options.log << "\n";
  }
  // The figures, then the manifest and the caller's on_finished: at once, or on the figure
  // queue's thread (which logs nothing: the caller's log is not its own).
  const auto finish = [lock, manifest, result,
                       on_finished = options.on_finished](const std::string* failure) {
    SweepResult finished = result;
    if (failure) {
      finished.figures_written = failure->empty();
      finished.figures_message = failure->empty() ? "figures written" : *failure;
    }
    manifest->finish();
    if (on_finished) on_finished(finished);
    return finished;
  };
  if (options.figures && options.figure_queue) {
    options.figure_queue->submit(out, [finish](const std::string& failure) { finish(&failure); });
    return result;
  }
  if (!options.figures) return finish(nullptr);
  const std::string failure = run_figures(out);
  if (options.log) {
    *options.log << "sweep " << sweep.name << ": "
                 << (failure.empty() ? "figures written" : failure) << "\n";
  }
  return finish(&failure);
}

}  // namespace crbench
