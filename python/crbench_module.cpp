// The Python module `crbench`: cases and solvers by name, one solve with its trajectory as NumPy
// arrays, verify and converge, through the same code as the command line (bench/run_support.hpp,
// bench/verify.hpp, bench/study.hpp). Bad input raises crbench.InputError (a ValueError) with
// the message the command line prints before exiting with status 2.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "crbench/bench/check.hpp"
#include "crbench/bench/impacts.hpp"
#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/report.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/bench/sweep.hpp"
#include "crbench/bench/verify.hpp"
#include "crbench/cases/case_plugin.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace py = pybind11;

namespace crbench::python {
namespace {

// `work()` run without the GIL in a thread of its own while this thread, the caller's, looks at
// Python's signals every 50 ms: Ctrl-C reaches the interpreter's main thread, which would see it
// only once a long solve returned. On a signal whose handler raises (KeyboardInterrupt), every
// solve in progress is asked to stop (request_interrupt: a study keeps its finished points, as on
// SIGINT from the command line), and once `work` has returned the handler's exception is raised.
// The calls in progress, of every kind: the last to end clears the interrupt request (one counter
// for all of them, not one per instantiation of interruptible).
std::atomic<int> calls_in_progress{0};

template <class Work>
auto interruptible(Work&& work) -> decltype(work()) {
  std::optional<decltype(work())> result;
  std::exception_ptr failure;
  std::optional<py::error_already_set> raised;
  {
    const py::gil_scoped_release release;
    ++calls_in_progress;
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::thread worker([&]() {
      try {
        result.emplace(work());
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      if (raised) continue;
      lock.unlock();
      {
        const py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) raised.emplace();
      }
      if (raised) request_interrupt(true);
      lock.lock();
    }
    lock.unlock();
    worker.join();
    // The last call in progress clears the request.
    if (--calls_in_progress == 0) request_interrupt(false);
  }
  if (raised) throw std::move(*raised);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

// A message of the command line's code as the Python functions' keywords say it: every flag
// (--t-end, --from, --event-time-tol) becomes the keyword that sets it (t_end, coarse,
// event_time_tol). The one place where flags and keywords differ beyond '-' and '_'.
std::string in_keywords(const std::string& message) {
  static const std::map<std::string, std::string> renamed = {
      {"from", "coarse"}, {"to", "fine"}, {"set", "params"}, {"resume", "resume=True"}};
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const bool flag = message.compare(i, 2, "--") == 0 && i + 2 < message.size() &&
                      std::isalpha(static_cast<unsigned char>(message[i + 2])) &&
                      (i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1])));
    if (!flag) {
      out += message[i++];
      continue;
    }
    std::size_t end = i + 2;
    while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) ||
                                    message[end] == '-' || message[end] == '_')) {
      ++end;
    }
    std::string name = message.substr(i + 2, end - i - 2);
    if (const auto it = renamed.find(name); it != renamed.end()) {
      name = it->second;
    } else {
      for (char& c : name) c = c == '-' ? '_' : c;
    }
    out += name;
    i = end;
  }
  return out;
}

// JSON text to Python objects (dict, list, float, None) in the text's key order.
py::object from_json(const nlohmann::ordered_json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

// A keyword value as the command line would have received it: numbers in their shortest exact
// decimal form (Python's repr), names as they are. Anything else is refused by name.
std::string text_of(const std::string& field, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) {
    throw InputError(field + ": a number or a name is expected, not a bool");
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return py::repr(value).cast<std::string>();
  }
  throw InputError(field + ": a number or a name is expected, not " +
                   py::repr(py::type::of(value)).cast<std::string>());
}

std::vector<Assignment> assignments_of(const std::string& field, const py::dict& values) {
  std::vector<Assignment> out;
  for (const auto& [key, value] : values) {
    const std::string name = py::str(key).cast<std::string>();
    out.push_back({name, text_of(field + " " + name, value)});
  }
  return out;
}

py::list param_list(const std::vector<ParamSpec>& specs) {
  py::list out;
  for (const auto& p : specs) {
    py::dict d;
    d["name"] = p.name;
    d["default"] = p.default_value;
    d["default_note"] = p.default_note;
    d["range"] = p.range_text();
    d["min"] = p.min;
    d["max"] = p.max;
    d["unit"] = p.unit;
    d["description"] = p.description;
    out.append(d);
  }
  return out;
}

py::list cases() {
  py::list out;
  for (const auto& c : case_registry()) {
    py::dict d;
    d["name"] = c.info.name;
    d["description"] = c.info.description;
    d["dof"] = c.info.dof;
    d["constraints"] = c.info.constraints;
    d["kinematic"] = c.info.kinematic;
    d["bilateral"] = c.info.bilateral;
    d["params"] = param_list(c.info.params);
    if (!c.plugin.empty()) d["plugin"] = c.plugin;
    out.append(d);
  }
  return out;
}

py::list solvers() {
  py::list out;
  for (const auto& s : solver_registry()) {
    py::dict d;
    d["name"] = s->name();
    d["description"] = s->description();
    d["takes_tolerances"] = s->takes_tolerances();
    d["params"] = param_list(s->parameters());
    py::list choices;
    for (const auto& c : s->choices()) {
      py::dict cd;
      cd["name"] = c.name;
      cd["options"] = c.options;
      cd["default"] = c.default_value;
      cd["description"] = c.description;
      if (!c.open_form.empty()) cd["form"] = c.open_form;  // any text of this form
      choices.append(cd);
    }
    d["choices"] = choices;
    out.append(d);
  }
  return out;
}

// Rows of equal-length vectors as a (rows, columns) float64 array.
py::array_t<double> matrix_of(const std::vector<Eigen::VectorXd>& rows, Eigen::Index columns) {
  py::array_t<double> a({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(columns)});
  auto view = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (Eigen::Index k = 0; k < columns; ++k) {
      view(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(k)) = rows[i](k);
    }
  }
  return a;
}

struct Trajectory {
  std::vector<std::string> extra_names;
  std::vector<double> t;
  std::vector<std::string> label;
  std::vector<Eigen::VectorXd> q, v, f, lambda, mu, impulse, extra;
};

// A case given by name, or as a crbench.Case (python/crbench_case.py), which is built (or taken
// from its cache) and loaded first.
std::string case_name_of(const py::object& given) {
  if (py::isinstance<py::str>(given)) return given.cast<std::string>();
  if (py::hasattr(given, "build") && py::hasattr(given, "name")) {
    given.attr("build")();
    return given.attr("name").cast<std::string>();
  }
  throw InputError("case: a case's name or a crbench.Case is expected, not " +
                   py::str(py::type::of(given)).cast<std::string>());
}

py::dict run(const py::object& given_case, const std::string& solver_name,
             const std::optional<py::dict>& params, const std::optional<double>& rtol,
             const std::optional<double>& atol, const std::optional<double>& t_end, int samples,
             const std::optional<double>& max_wall_time, bool trajectory,
             const py::kwargs& solver_options) {
  RunRequest request;
  request.case_name = case_name_of(given_case);
  request.solver_name = solver_name;
  if (params) request.case_assignments = assignments_of("params", *params);
  request.solver_assignments = assignments_of("solver option", solver_options);
  request.keyword_names = true;
  request.rtol = rtol;
  request.atol = atol;
  request.t_end = t_end;
  if (samples < 2 || samples > 1000000) {
    throw InputError("samples: " + std::to_string(samples) + " must be a whole number in [2, 1e6]");
  }
  request.samples = samples;
  if (max_wall_time) {
    if (!kMaxWallTimeSpec.admits(*max_wall_time)) {
      throw InputError("max_wall_time: " + format_number(*max_wall_time) + " must be in " +
                       kMaxWallTimeSpec.range_text() + " (seconds)");
    }
    request.max_wall_time = *max_wall_time;
  }
  Trajectory path;
  if (trajectory) {
    request.on_extra_columns = [&path](const std::vector<std::string>& names) {
      path.extra_names = names;
    };
    request.observer = [&path](const TrajectorySample& s) {
      path.t.push_back(s.x.t);
      path.label.push_back(s.label);
      path.q.push_back(s.x.q);
      path.v.push_back(s.x.v);
      path.f.push_back(s.f);
      path.lambda.push_back(s.lambda);
      path.mu.push_back(s.mu);
      path.impulse.push_back(s.impulse);
      path.extra.push_back(s.extra);
    };
  }
  // The solve calls no Python: other Python threads may run meanwhile.
  const RunRecord record = interruptible([&]() { return solve(request); });
  py::dict out = from_json(to_json(record));
  if (trajectory) {
    const Eigen::Index n = record.final_state.q.size();
    const Eigen::Index m = path.f.empty() ? 0 : path.f.front().size();
    py::dict columns;
    columns["t"] = py::array_t<double>(static_cast<py::ssize_t>(path.t.size()), path.t.data());
    columns["label"] = path.label;
    // q's columns in the order of the case's coordinates (record["coordinates"]).
    py::list names;
    for (const auto& c : record.coordinates) names.append(c.name);
    columns["coordinates"] = names;
    columns["q"] = matrix_of(path.q, n);
    columns["v"] = matrix_of(path.v, n);
    columns["f"] = matrix_of(path.f, m);
    columns["lambda"] = matrix_of(path.lambda, m);
    columns["mu"] = matrix_of(path.mu, m);
    columns["impulse"] = matrix_of(path.impulse, m);
    py::dict extra;
    for (std::size_t k = 0; k < path.extra_names.size(); ++k) {
      std::vector<double> column;
      for (const auto& e : path.extra) column.push_back(e(static_cast<Eigen::Index>(k)));
      extra[py::str(path.extra_names[k])] =
          py::array_t<double>(static_cast<py::ssize_t>(column.size()), column.data());
    }
    columns["extra"] = extra;
    out["trajectory"] = columns;
  }
  return out;
}

py::dict verify(const py::object& given_case, const std::optional<py::dict>& params,
                const std::string& axis, const std::string& solver, std::optional<double> N,
                std::optional<double> coarse, std::optional<double> fine, int per_decade,
                int digits, double rtol, double atol, double tight_factor,
                const py::kwargs& model_options) {
  VerifyRequest request;
  request.axis = parse_axis(axis, "axis");
  request.solver = solver;
  request.N_fixed = N;
  request.from = coarse;
  request.to = fine;
  request.case_name = case_name_of(given_case);
  if (params) request.case_assignments = assignments_of("params", *params);
  request.model_assignments = assignments_of("model option", model_options);
  for (const auto& a : request.model_assignments) {
    bool known = false;
    for (const char* name :
         {"preset", "alpha", "beta", "gamma", "interaction", "kappa", "k", "theta"}) {
      known = known || a.key == name;
    }
    if (!known) {
      throw InputError(a.key +
                       ": not a model option of verify; they are: preset, alpha, beta, gamma, "
                       "interaction, kappa, k, theta");
    }
  }
  request.per_decade = per_decade;
  request.digits = digits;
  request.rtol = rtol;
  request.atol = atol;
  request.tight_factor = tight_factor;
  request.json = true;
  std::ostringstream text;
  const int status = interruptible([&]() { return run_verify(request, text); });
  py::dict out = py::module_::import("json").attr("loads")(text.str());
  out["exit_status"] = status;
  return out;
}

// A study or sweep given as a file's path or as a dict (the file's content): its text and a name
// for messages.
std::pair<std::string, std::string> input_text(const std::string& field, const py::object& given) {
  if (py::isinstance<py::dict>(given)) {
    return {py::module_::import("json").attr("dumps")(given).cast<std::string>(),
            "the dict given to crbench." + field + "()"};
  }
  if (py::isinstance<py::str>(given) || py::hasattr(given, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(given));
    return {read_input_file(path, field), path};
  }
  throw InputError(field + ": a file's path or a dict is expected, not " +
                   py::repr(py::type::of(given)).cast<std::string>());
}

// jobs=None: every core this process may use, as the command line.
int jobs_of(const std::optional<int>& jobs) {
  if (!jobs) return available_cores();
  if (*jobs < 1 || *jobs > 256) {
    throw InputError("jobs: " + std::to_string(*jobs) + " must be a whole number in [1, 256]");
  }
  return *jobs;
}

// A study's or sweep's summary (its study.json or sweep.json) with where it was written and how
// many points were computed.
template <class Result>
py::dict summary_of(const Result& result, const std::string& out_dir) {
  py::dict out = from_json(result.summary);
  out["out"] = out_dir;
  out["points_total"] = result.points_total;
  out["points_computed"] = result.points_computed;
  out["points_internal_error"] = result.points_internal_error;
  out["figures_written"] = result.figures_written;
  return out;
}

// A folder run's options from the module's arguments: the output folder (the study's name by
// default), the threads, resume and figures.
template <class Options>
Options folder_options(const std::string& name, const std::optional<std::string>& out_dir,
                       const std::optional<int>& jobs, bool resume, bool figures) {
  Options options;
  options.out_dir = out_dir ? *out_dir : name;
  options.jobs = jobs_of(jobs);
  options.resume = resume;
  options.figures = figures;
  return options;
}

py::dict converge(const py::object& given, const std::optional<std::string>& out_dir,
                  const std::optional<int>& jobs, bool resume, bool figures) {
  const auto [text, origin] = input_text("study", given);
  const Study study = parse_study_text(text, origin);
  const auto options = folder_options<ConvergeOptions>(study.name, out_dir, jobs, resume, figures);
  const ConvergeResult result = interruptible([&]() {
    ConvergeResult done = run_study(study, options);
    write_study_readme(study, done, options.out_dir, origin, "crbench", "");
    return done;
  });
  return summary_of(result, options.out_dir);
}

py::dict sweep(const py::object& given, const std::optional<std::string>& out_dir,
               const std::optional<int>& jobs, bool resume, bool figures) {
  const auto [text, origin] = input_text("sweep", given);
  const Sweep plan = parse_sweep_text(text, origin);
  const auto options = folder_options<SweepOptions>(plan.name, out_dir, jobs, resume, figures);
  const SweepResult result = interruptible([&]() { return run_sweep(plan, options); });
  return summary_of(result, options.out_dir);
}

py::dict impacts(const py::object& given, const std::optional<std::string>& out_dir,
                 const std::optional<int>& jobs, bool resume, bool figures) {
  const auto [text, origin] = input_text("impacts", given);
  const ImpactStudy study = parse_impact_study_text(text, origin);
  const auto options = folder_options<FolderRunOptions>(study.name, out_dir, jobs, resume, figures);
  const ImpactResult result =
      interruptible([&]() { return run_impact_study(study, options, origin); });
  py::dict out = summary_of(result, options.out_dir);
  out["points_not_ok"] = result.points_not_ok;
  return out;
}

// `crbench check --case C --json` as a dict, with 'exit_status' (0 every check passed, 1 not).
py::dict check(const py::object& given_case, const std::optional<py::dict>& params,
               const py::kwargs& realization_options) {
  CheckRequest request;
  request.case_name = case_name_of(given_case);
  if (params) request.case_assignments = assignments_of("params", *params);
  request.realization_assignments = assignments_of("realization option", realization_options);
  request.json = true;
  std::ostringstream text;
  const int status = interruptible([&]() { return run_check(request, text); });
  py::dict out = py::module_::import("json").attr("loads")(text.str());
  out["exit_status"] = status;
  return out;
}

// The parts of the module written in Python (python/crbench_case.py), imported at first use:
// sympy costs the import of crbench half a second otherwise.
py::object python_part(const std::string& name) {
  static const std::vector<std::string> names = {"Case", "CaseError", "case_from_json"};
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw py::attribute_error("module 'crbench' has no attribute '" + name + "'");
  }
  return py::module_::import("crbench_case").attr(name.c_str());
}

}  // namespace
}  // namespace crbench::python

PYBIND11_MODULE(crbench, m) {
  using namespace crbench::python;
  m.doc() =
      "crbench: constraint-realization limits (Deryabin & Kozlov). cases(), solvers(), run(), "
      "verify(), check(), converge() and sweep() as the crbench command line, errors as "
      "crbench.InputError; Case (a system of one's own from sympy expressions, compiled into a "
      "case plugin), load_case() and load_cases() for plugins built before.";
  m.attr("__version__") = crbench::version;
  // NumPy's array API is looked up once, here, under the import's GIL: pybind11 otherwise does it
  // in a function-local static on the first array made, where a second thread that holds the GIL
  // and waits for that static deadlocks with the first, which imports numpy and waits for the GIL.
  py::module_::import("numpy");
  py::detail::npy_api::get();
  static py::exception<crbench::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const crbench::InputError& e) {
      PyErr_SetString(input_error.ptr(), in_keywords(e.what()).c_str());
    }
  });
  m.def(
      "load_case", [](const std::string& file) { return crbench::load_case_plugin(file, "file"); },
      py::arg("file"),
      "Loads a case plugin (libcrbench_case_<name>.so, as Case.build() makes) and registers its "
      "case; returns the case's name. A case of the same name loaded from another plugin is "
      "replaced.");
  m.def(
      "load_cases",
      [](const std::string& folder) { return crbench::load_case_folder(folder, "folder"); },
      py::arg("folder"), "Loads every case plugin of a folder; returns their cases' names.");
  m.def("check", &check, py::arg("case"), py::kw_only(), py::arg("params") = py::none(),
        "`crbench check --case C --json` as a dict, with 'exit_status' (0 every check passed, 1 "
        "not): the case's AD derivatives against finite differences, its facts against "
        "event-driven, its metric along the trajectory, its constraints' round-off floors. Other "
        "keywords: the realization's settings (N, preset, ...).");
  m.def("__getattr__", &python_part, py::arg("name"));
  m.def("cases", &cases, "The cases: name, description, sizes and parameters (as `crbench list`).");
  m.def("solvers", &solvers, "The solvers: name, description, parameters and choices.");
  m.def("run", &run, py::arg("case"), py::arg("solver"), py::kw_only(),
        py::arg("params") = py::none(), py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
        py::arg("t_end") = py::none(), py::arg("samples") = 1001,
        py::arg("max_wall_time") = py::none(), py::arg("trajectory") = true,
        "One solve, as `crbench run --json`: the record as a dict. params: the case's parameters "
        "(as --set); other keywords: the solver's parameters and choices (N=1e8, "
        "preset='viscous'). With trajectory=True the record's 'trajectory' holds t, q, v, f, "
        "lambda, mu, impulse (NumPy arrays, one row per sample: a grid of `samples` points and "
        "the rows just before and after events, named by 'label') and the solver's extra "
        "columns.");
  m.def("verify", &verify, py::arg("case"), py::kw_only(), py::arg("params") = py::none(),
        py::arg("axis") = "N", py::arg("solver") = "realization", py::arg("N") = py::none(),
        py::arg("coarse") = py::none(), py::arg("fine") = py::none(), py::arg("per_decade") = 1,
        py::arg("digits") = 8, py::arg("rtol") = 1e-12, py::arg("atol") = 1e-14,
        py::arg("tight_factor") = 100.0,
        "`crbench verify --json` as a dict, with 'exit_status' (0 confirmed, 1 not): axis 'N' "
        "(the realization against the limit model), 'h' or 'rtol' (solver's error down that "
        "ladder, at a fixed N for the realization); coarse and fine are the ends (--from, --to). "
        "Other keywords: preset, alpha, beta, gamma, interaction, kappa, k, theta.");
  m.def("converge", &converge, py::arg("study"), py::kw_only(), py::arg("out") = py::none(),
        py::arg("jobs") = py::none(), py::arg("resume") = false, py::arg("figures") = true,
        "`crbench converge`: runs a study (a file's path, or a dict with the file's fields) into "
        "`out` (default: the study's name) on `jobs` threads (default: every core this process "
        "may use) and returns its study.json as a dict.");
  m.def("sweep", &sweep, py::arg("sweep"), py::kw_only(), py::arg("out") = py::none(),
        py::arg("jobs") = py::none(), py::arg("resume") = false, py::arg("figures") = true,
        "`crbench sweep`: runs a sweep (a file's path, or a dict with the file's fields) into "
        "`out` (default: the sweep's name) and returns its sweep.json as a dict.");
  m.def("impacts", &impacts, py::arg("impacts"), py::kw_only(), py::arg("out") = py::none(),
        py::arg("jobs") = py::none(), py::arg("resume") = false, py::arg("figures") = true,
        "`crbench impacts`: runs an impact study (a file's path, or a dict with the file's "
        "fields) into `out` (default: the study's name) and returns its impacts.json as a dict.");
}
