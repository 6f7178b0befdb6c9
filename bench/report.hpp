// `crbench report`: the main job. Runs every registered case through every registered solver
// with the settings a user gets without flags (cases/), the Siconos comparison (siconos/) and the
// canonical studies (studies/), and writes a short README (overview first, then where things are)
// and timing.md, the only file besides the work–precision tables that changes between runs.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

namespace crbench {

struct Study;
struct ConvergeResult;

// A study's README.md in `dir`: its description, the models table, the figures written there and
// every observable's table. `study_file` is the path a reader runs it with, and `program` the
// program that ran it (crbench, or a program of one's own with its own cases); `timing`, where
// the run's wall times are summarized (empty: nowhere).
void write_study_readme(const Study& study, const ConvergeResult& result,
                        const std::filesystem::path& dir, const std::string& study_file,
                        const std::string& program, const std::string& timing);

// The first solver a study file (its models) or an impact study file (its rows) names that this
// build does not have (an engine built without its package), if any: such a study is left out of
// the report.
std::optional<std::string> unbuilt_solver(const std::filesystem::path& study_file);

int write_report(const std::string& out_dir, int jobs, std::ostream& progress);

}  // namespace crbench
