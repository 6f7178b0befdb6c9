#include "crbench/bench/impacts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/number_text.hpp"
#include "crbench/bench/points.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/outcome.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// A grid of speeds × steps × rows that a study may hold (each point is one short run).
constexpr std::size_t kMaxPoints = 10000;

// 1 to 100 distinct numbers above 0 (a restitution divides by the speed) in `spec`'s range.
std::vector<double> positive_list(Fields& top, const std::string& key, const ParamSpec& spec) {
  const auto& list = top.require(key);
  const std::string path = top.path(key);
  if (!list.is_array() || list.empty() || list.size() > 100) {
    throw InputError(path + ": must be an array of 1 to 100 numbers in " + spec.range_text());
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& x = list[i];
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (!x.is_number()) throw InputError(item + ": must be a number in " + spec.range_text());
    const double value = x.get<double>();
    if (!std::isfinite(value) || !spec.admits(value)) {
      throw InputError(item + ": " + format_number(value) + " is outside " + spec.range_text());
    }
    if (value <= 0.0) throw InputError(item + ": " + format_number(value) + " must be above 0");
    if (std::find(out.begin(), out.end(), value) != out.end()) {
      throw InputError(item + ": " + format_number(value) + " is given twice");
    }
    out.push_back(value);
  }
  return out;
}

// impacts.rows[i]: a solver with a step h, its settings, and the restitution they ask for.
ImpactRow read_row(const nlohmann::json& j, std::size_t i, const ImpactStudy& study,
                   const Model& model) {
  const std::string path = "impacts.rows[" + std::to_string(i) + "]";
  Fields r(j, path);
  ImpactRow row;
  row.label = bounded_label(r.text("label"), r.path("label"));
  if (row.label.empty() || row.label.find_first_of(",|\n") != std::string::npos) {
    throw InputError(r.path("label") + ": must be non-empty, without ',', '|' or a line break");
  }
  row.solver = r.text("solver");
  const Solver* solver = nullptr;
  try {
    solver = &find_solver(row.solver);
  } catch (const InputError& e) {
    throw InputError(r.path("solver") + ": " + e.what());
  }
  const auto parameters = solver->parameters();
  if (std::none_of(parameters.begin(), parameters.end(),
                   [](const ParamSpec& p) { return p.name == "h"; })) {
    throw InputError(r.path("solver") + ": '" + row.solver +
                     "' takes no fixed step h; an impact study runs solvers with one (the "
                     "engines, moreau-jean)");
  }
  row.assignments = assignments_of(r.find("set"), r.path("set"));
  for (const auto& a : row.assignments) {
    if (a.key == "h") throw InputError(r.path("set") + ".h: h comes from impacts.steps");
  }
  RunSettings settings;
  try {
    configure_solver(*solver, row.assignments, settings);
  } catch (const InputError& e) {
    throw InputError(r.path("set") + ": " + e.what());
  }
  if (const auto why = solver->refusal(model, settings)) {
    throw InputError(path + ": " + row.solver + " refuses case " + study.case_name + ": " + *why);
  }
  row.restitution = r.number("restitution", std::nullopt, range(0.0, 1.0));
  row.restitution_source = r.text("restitution_source");
  r.finish();
  return row;
}

}  // namespace

ImpactStudy parse_impact_study(const nlohmann::json& j) {
  ImpactStudy s;
  Fields top(j, "impacts");
  s.name = folder_name(top, "impacts");
  s.description = top.text("description", "");
  s.case_name = known_case_name(top, "impacts");
  s.case_assignments = assignments_of(top.find("params"), "impacts.params");
  s.speed_parameter = top.text("speed");
  for (const auto& a : s.case_assignments) {
    if (a.key == s.speed_parameter) {
      throw InputError("impacts.params." + a.key + ": " + a.key + " comes from impacts.speeds");
    }
  }
  std::unique_ptr<Model> model;
  try {
    model = make_model(s.case_name, s.case_assignments);
  } catch (const InputError& e) {
    throw InputError(std::string("impacts.params: ") + e.what());
  }
  const auto& params = model->info().params;
  const auto speed = std::find_if(params.begin(), params.end(),
                                  [&](const ParamSpec& p) { return p.name == s.speed_parameter; });
  if (speed == params.end()) {
    throw InputError("impacts.speed: '" + s.speed_parameter + "' is not a parameter of case " +
                     s.case_name);
  }
  s.speeds = positive_list(top, "speeds", *speed);
  s.steps = positive_list(top, "steps", range(1e-9, 1.0));
  s.t_end = top.number("t_end", s.t_end, range(0.0, 1e3, false));
  // Every step's f is sampled (the first contact's depth): at most the output grid's bound.
  const double smallest = *std::min_element(s.steps.begin(), s.steps.end());
  if (s.t_end / smallest > 999999.0) {
    throw InputError("impacts.t_end: " + format_number(s.t_end) + " is " +
                     format_number(s.t_end / smallest) + " steps of the smallest step " +
                     format_number(smallest) +
                     "; at most 999999 (t_end <= " + format_number(999999.0 * smallest) + ")");
  }
  if (top.find("summary_step")) {
    s.summary_step = top.number("summary_step", std::nullopt, range(1e-9, 1.0));
    if (std::find(s.steps.begin(), s.steps.end(), *s.summary_step) == s.steps.end()) {
      throw InputError("impacts.summary_step: " + format_number(*s.summary_step) +
                       " is not one of impacts.steps");
    }
  }
  const auto& rows = top.require("rows");
  if (!rows.is_array() || rows.empty() || rows.size() > 20) {
    throw InputError("impacts.rows: must be an array of 1 to 20 rows");
  }
  std::set<std::string> labels;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s.rows.push_back(read_row(rows[i], i, s, *model));
    if (!labels.insert(s.rows.back().label).second) {
      throw InputError("impacts.rows[" + std::to_string(i) + "].label: '" + s.rows.back().label +
                       "' is given twice");
    }
  }
  const std::size_t points = s.rows.size() * s.speeds.size() * s.steps.size();
  if (points > kMaxPoints) {
    throw InputError("impacts: " + std::to_string(points) +
                     " points (rows × speeds × steps); at "
                     "most " +
                     std::to_string(kMaxPoints));
  }
  top.finish();
  return s;
}

ImpactStudy parse_impact_study_text(std::string_view text, const std::string& origin) {
  return parse_impact_study(parse_json_text(text, origin, "--file"));
}

ImpactStudy load_impact_study(const std::string& path) {
  return parse_impact_study(parse_json_text(read_input_file(path, "--file"), path, "--file"));
}

namespace {

struct ImpactPoint {
  std::size_t row = 0;
  double speed = 0.0;
  double h = 0.0;
  std::string key;
};

std::vector<ImpactPoint> grid(const ImpactStudy& s) {
  std::vector<ImpactPoint> out;
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    for (const double v : s.speeds) {
      for (const double h : s.steps) {
        out.push_back({r, v, h,
                       s.rows[r].label + "|" + s.speed_parameter + "=" + format_number(v) +
                           "|h=" + format_number(h)});
      }
    }
  }
  return out;
}

// What a point's line must share with the study to be reused by --resume (its row's settings
// are part of it: a changed row computes its points again).
ojson row_settings(const ImpactStudy& s, const ImpactRow& row) {
  ojson params = ojson::object();
  for (const auto& a : s.case_assignments) params[a.key] = a.value;
  ojson set = ojson::object();
  for (const auto& a : row.assignments) set[a.key] = a.value;
  return ojson{{"crbench_version", version}, {"case", s.case_name},           {"params", params},
               {"speed", s.speed_parameter}, {"solver", row.solver},          {"set", set},
               {"t_end", s.t_end},           {"restitution", row.restitution}};
}

// The first contact of constraint 0 in the record: its start, its end (none: it lasts to the end
// of the window), and the rate ḟ it ends with (an impact's rate after it, an exit's from the
// medium; 0 when it does not end).
struct FirstContact {
  double start = 0.0;
  std::optional<double> end;
  double rebound = 0.0;
};

std::optional<FirstContact> first_contact(const RunRecord& r) {
  const auto episode = std::find_if(r.contact_episodes.begin(), r.contact_episodes.end(),
                                    [](const ContactEpisode& e) { return e.constraint == 0; });
  if (episode == r.contact_episodes.end()) return std::nullopt;
  FirstContact c{.start = episode->start, .end = episode->end};
  if (!c.end) return c;
  for (const Event& e : r.events) {
    if (e.index != 0 || e.t < c.start || !e.rate_after) continue;
    if (e.kind == EventKind::impact || e.kind == EventKind::exit_medium) {
      c.rebound = *e.rate_after;
      if (e.kind == EventKind::exit_medium || *e.rate_after > 0.0) break;
    }
  }
  return c;
}

ojson compute_point(const ImpactStudy& s, const ImpactPoint& p, const ojson& settings) {
  const ImpactRow& row = s.rows[p.row];
  RunRequest request{.case_name = s.case_name, .solver_name = row.solver};
  request.case_assignments = s.case_assignments;
  request.case_assignments.push_back({s.speed_parameter, format_number(p.speed)});
  request.solver_assignments = row.assignments;
  request.solver_assignments.push_back({"h", format_number(p.h)});
  request.t_end = s.t_end;
  // f at every step's end (a grid of spacing h: the parser keeps t_end/h within the grid's
  // bound), for the depth of the first contact alone.
  std::vector<std::pair<double, double>> gaps;
  request.samples = static_cast<int>(std::lround(s.t_end / p.h)) + 1;
  request.observer = [&gaps](const TrajectorySample& sample) {
    if (sample.label.empty()) gaps.emplace_back(sample.x.t, sample.f(0));
  };
  const RunRecord r = execute(request);
  const auto contact = first_contact(r);
  std::optional<double> peak;
  if (contact) {
    double lowest = 0.0;
    for (const auto& [t, f] : gaps) {
      if (t >= contact->start - 0.5 * p.h && (!contact->end || t <= *contact->end + p.h)) {
        lowest = std::min(lowest, f);
      }
    }
    peak = lowest < 0.0 ? -lowest : 0.0;
  }
  ojson line;
  line["key"] = p.key;
  line["settings"] = settings;
  line["label"] = row.label;
  line["speed"] = p.speed;
  line["h"] = p.h;
  line["status"] = r.status;
  line["reason"] = r.reason;
  line["touched"] = contact.has_value();
  line["rests"] = contact && !contact->end;
  line["rebound"] = contact ? ojson(contact->rebound) : ojson();
  line["restitution"] = contact ? ojson(contact->rebound / p.speed) : ojson();
  line["ideal_restitution"] = row.restitution;
  line["peak_penetration"] = number_or_null(peak);
  line["contact_duration"] =
      contact && contact->end ? ojson(*contact->end - contact->start) : ojson();
  // The gap at the window's end: a resting contact's depth (MuJoCo's soft contact holds the body
  // below the surface; docs/engines.md).
  line["final_gap"] = r.status == Status::ok && !gaps.empty() ? ojson(gaps.back().second) : ojson();
  line["steps"] = r.steps;
  line["warnings"] = r.warnings;
  line["tolerances"] = r.tolerances;
  return line;
}

// A table of one quantity: a line per row and speed, a column per step h.
Table quantity_table(const ImpactStudy& s, const std::vector<ojson>& lines, const char* field,
                     const std::string& title, const std::string& caption) {
  Table t{.title = title,
          .caption = caption +
                     "; (w): the run warns (a step past the contact's stability bound: "
                     "the reason is in points.jsonl)"};
  t.header = {"row", s.speed_parameter};
  for (const double h : s.steps) t.header.push_back("h = " + format_number(h));
  const bool restitution = std::string_view(field) == "restitution";
  if (restitution) t.header.push_back("ideal");
  std::size_t i = 0;
  for (const ImpactRow& row : s.rows) {
    for (const double v : s.speeds) {
      std::vector<std::string> cells{row.label, format_number(v)};
      for (std::size_t k = 0; k < s.steps.size(); ++k, ++i) {
        const ojson& line = lines[i];
        const ojson& x = line.value(field, ojson());
        std::string cell;
        if (status_in(line) != Status::ok) {
          cell = line.value("status", std::string("internal_error"));
        } else if (!line.value("touched", false)) {
          cell = "no contact";
        } else if (x.is_number()) {
          cell = restitution ? fixed_text(x.get<double>(), 3) : scientific_text(x.get<double>(), 3);
          if (restitution && line.value("rests", false)) cell += " (rests)";
        } else {
          cell = line.value("rests", false) ? "rests" : "-";
        }
        if (!line.value("warnings", ojson::array()).empty()) cell += " (w)";
        cells.push_back(cell);
      }
      if (restitution) cells.push_back(fixed_text(row.restitution, 3));
      t.rows.push_back(std::move(cells));
    }
  }
  return t;
}

ojson impacts_summary(const ImpactStudy& s, const std::vector<ojson>& lines, int not_ok) {
  ojson summary;
  summary["name"] = s.name;
  summary["description"] = s.description;
  summary["crbench_version"] = version;
  summary["case"] = s.case_name;
  ojson params = ojson::object();
  for (const auto& a : s.case_assignments) params[a.key] = a.value;
  summary["params"] = params;
  summary["speed"] = s.speed_parameter;
  summary["speeds"] = s.speeds;
  summary["steps"] = s.steps;
  summary["t_end"] = s.t_end;
  summary["summary_step"] = number_or_null(s.summary_step);
  ojson rows = ojson::array();
  for (const ImpactRow& row : s.rows) {
    ojson set = ojson::object();
    for (const auto& a : row.assignments) set[a.key] = a.value;
    rows.push_back({{"label", row.label},
                    {"solver", row.solver},
                    {"set", set},
                    {"restitution", row.restitution},
                    {"restitution_source", row.restitution_source}});
  }
  summary["rows"] = rows;
  summary["points"] = lines.size();
  summary["not_ok"] = not_ok;
  ojson points = ojson::array();
  for (const ojson& line : lines) {
    ojson p = line;
    p.erase("settings");
    p.erase("checksum");
    points.push_back(p);
  }
  summary["results"] = points;
  return summary;
}

// The README's opening table: per row, at the summary step, the restitution and the peak
// penetration at each speed, with the ideal restitution.
Table summary_table(const ImpactStudy& s, const std::vector<ojson>& lines) {
  Table t{.title = "At h = " + format_number(*s.summary_step),
          .caption = "Restitution / peak penetration of the first contact at each impact speed " +
                     s.speed_parameter +
                     " (rests: no rebound; (w): the run carries a warning, its text in "
                     "points.jsonl)"};
  t.header = {"row", "ideal restitution"};
  for (const double v : s.speeds) t.header.push_back(s.speed_parameter + " = " + format_number(v));
  // The lines are in grid order (rows, then speeds, then steps): the summary step's column.
  const auto step = static_cast<std::size_t>(
      std::find(s.steps.begin(), s.steps.end(), *s.summary_step) - s.steps.begin());
  std::size_t i = 0;
  for (const ImpactRow& row : s.rows) {
    std::vector<std::string> cells{row.label, format_number(row.restitution)};
    for (std::size_t v = 0; v < s.speeds.size(); ++v, i += s.steps.size()) {
      const ojson& line = lines[i + step];
      std::string cell = line.value("status", std::string("internal_error"));
      const bool ok = status_in(line) == Status::ok;
      if (ok && !line["peak_penetration"].is_number()) {
        cell = "no contact";
      } else if (ok) {
        cell = (line.value("rests", false) ? std::string("rests")
                                           : fixed_text(line["restitution"].get<double>(), 3)) +
               " / " + scientific_text(line["peak_penetration"].get<double>(), 2);
        if (!line.value("warnings", ojson::array()).empty()) cell += " (w)";
      }
      cells.push_back(cell);
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

void write_readme(const ImpactStudy& s, const ImpactResult& result, const std::vector<ojson>& lines,
                  const std::vector<Table>& tables, const fs::path& out,
                  const std::string& study_file) {
  std::ostringstream md;
  md << "# Impact study `" << s.name << "`\n\n"
     << "Study file: `" << study_file << "`; " << result.points_total
     << " points. Run it alone with `crbench impacts --file " << study_file << "`.\n\n"
     << s.description << "\n\n"
     << "Each point is one run of case `" << s.case_name << "` over [0, " << format_number(s.t_end)
     << "] with " << s.speed_parameter << " = the impact speed";
  for (const auto& a : s.case_assignments) md << ", " << a.key << " = " << a.value;
  md << ". The ideal rigid impact returns the row's restitution times the speed at once: no "
        "penetration, no duration. Rows:\n\n";
  for (const ImpactRow& row : s.rows) {
    md << "- `" << row.label << "`: solver `" << row.solver << "`";
    for (const auto& a : row.assignments) md << ", " << a.key << " = " << a.value;
    md << "; ideal restitution " << format_number(row.restitution) << " (" << row.restitution_source
       << ").\n";
  }
  md << "\n";
  const auto section = [&md](const Table& t) {
    md << "### " << t.title << "\n\n" << t.caption << ".\n\n" << markdown(t) << "\n";
  };
  if (s.summary_step) section(summary_table(s, lines));
  if (result.points_not_ok > 0) {
    md << "**" << result.points_not_ok
       << " points did not end with status ok; their cells name the status, and the reasons are "
          "in `points.jsonl`.**\n\n";
  }
  if (result.figures_written) {
    md << "![Restitution and peak penetration against the impact speed](impacts.png)\n\n"
       << "*Per row, the restitution (top) and the peak penetration (bottom) against the impact "
          "speed, a line per step h; the ideal rigid impact's restitution dashed.*\n\n";
  } else if (!result.figures_message.empty()) {
    md << "**" << result.figures_message << ".**\n\n";
  }
  for (const Table& t : tables) section(t);
  md << "Every point with its tolerances (the engine's settings): `impacts.json`, "
        "`points.jsonl`; each table also as `.csv` and `.tex`.\n";
  write_file(out / "README.md", md.str());
}

}  // namespace

ImpactResult run_impact_study(const ImpactStudy& study, const FolderRunOptions& options,
                              const std::string& study_file) {
  const fs::path out = options.out_dir;
  const auto lock = claim_output_folder(out);
  OutputManifest manifest(out);
  const std::vector<ImpactPoint> points = grid(study);
  std::vector<ojson> settings;
  for (const ImpactRow& row : study.rows) settings.push_back(row_settings(study, row));
  std::vector<std::string> keys;
  for (const auto& p : points) keys.push_back(p.key);
  const PointRun run = run_points(
      out / "points.jsonl", keys,
      [&](std::size_t i) { return compute_point(study, points[i], settings[points[i].row]); },
      [&](std::size_t i, const ojson& line) {
        return line.value("settings", ojson()) == settings[points[i].row] &&
               line.value("key", std::string()) == points[i].key;
      },
      {.name = study.name, .jobs = options.jobs, .resume = options.resume});
  ImpactResult result;
  if (!run.writer) return result;
  result.points_total = static_cast<int>(points.size());
  result.points_computed = run.computed;
  result.lines_discarded = run.discarded;
  std::ostringstream sorted;
  for (const auto& line : run.lines) {
    sorted << line.dump() << "\n";
    const std::optional<Status> status = status_in(line);
    if (status != Status::ok) ++result.points_not_ok;
    if (status == Status::internal_error) ++result.points_internal_error;
  }
  write_file(out / "points.jsonl", sorted.str());
  result.summary = impacts_summary(study, run.lines, result.points_not_ok);
  write_file(out / "impacts.json", result.summary.dump(1) + "\n");
  const std::string units = " (the case's units; the ideal rigid impact: 0)";
  const std::vector<Table> tables{
      quantity_table(study, run.lines, "restitution", "Restitution",
                     "The normal rate at the end of the first contact over the impact speed; "
                     "(rests): the body stays in contact to the end of the window, rebound 0"),
      quantity_table(study, run.lines, "peak_penetration", "Peak penetration",
                     "The largest depth below the surface during the first contact" + units),
      quantity_table(
          study, run.lines, "contact_duration", "Contact duration",
          "From the first contact to the first exit (rests: none in the window)" + units)};
  write_table(out / "restitution", tables[0]);
  write_table(out / "peak_penetration", tables[1]);
  write_table(out / "contact_duration", tables[2]);
  if (options.figures) {
    const std::string failure = run_figures(out);
    result.figures_written = failure.empty();
    result.figures_message = failure.empty() ? "figures written" : failure;
  }
  write_readme(study, result, run.lines, tables, out, study_file);
  if (options.log) {
    *options.log << "impacts " << study.name << ": " << result.points_computed << " of "
                 << result.points_total << " points computed, " << result.points_not_ok
                 << " not ok; tables in " << out.string();
    if (run.discarded > 0) {
      *options.log << "; --resume discarded " << run.discarded
                   << " lines computed with other settings or altered since written";
    }
    *options.log << "\n";
  }
  manifest.finish();
  return result;
}

}  // namespace crbench
