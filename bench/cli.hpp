// The `crbench` command line as a function, so tests run it in-process with captured streams.
// Exit status: 0 success, 1 a solve ended with a failure status, 2 bad input.
#pragma once

#include <ostream>

namespace crbench {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace crbench
