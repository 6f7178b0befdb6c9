// `crbench report`: the main job. Runs the canonical studies (bench/studies), then every
// registered case through every registered solver with default parameters, and writes, into one
// folder, each record as JSON (as it completes), its trajectory as CSV, summary.json and a
// README.md that sets each result beside the case's facts.
#pragma once

#include <ostream>
#include <string>

namespace crbench {

int write_report(const std::string& out_dir, int jobs, std::ostream& progress);

}  // namespace crbench
