// `crbench report`: the main job. Runs every registered case through every registered solver
// with the settings a user gets without flags (cases/), the Siconos comparison (siconos/) and the
// canonical studies (studies/), and writes a short README (overview first, then where things are)
// and timing.md, the only file besides the work–precision tables that changes between runs.
#pragma once

#include <ostream>
#include <string>

namespace crbench {

int write_report(const std::string& out_dir, int jobs, std::ostream& progress);

}  // namespace crbench
