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

// The first solver a study file names that this build does not have (an engine built without
// its package), if any: such a study is left out of the report.
std::optional<std::string> unbuilt_solver(const std::filesystem::path& study_file);

int write_report(const std::string& out_dir, int jobs, std::ostream& progress);

}  // namespace crbench
