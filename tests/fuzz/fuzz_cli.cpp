// libFuzzer target: crbench's command line, in process (run_cli). The input is split at NUL or
// newline bytes into arguments. Every argument vector must end in an exit status with its
// messages on the streams, never in an exception escaping run_cli or a sanitizer report.
//
// Kept in bounds: commands that write files (report, converge, --trajectory, --out) are skipped,
// and every run gets --max-wall-time 0.02 so that a fuzzed N = 1e15 does not stall the campaign.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "crbench/bench/cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args = {"crbench"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  args.push_back(current);
  if (args.size() > 40) return 0;
  bool is_run = false;
  for (const auto& a : args) {
    // `case` runs the generator and the compiler; --cases loads shared libraries.
    if (a == "report" || a == "converge" || a == "verify" || a == "case" ||
        a.starts_with("--cases") || a.starts_with("--trajectory") || a.starts_with("--out") ||
        a.starts_with("--max-wall-time")) {
      return 0;
    }
    if (a == "run") is_run = true;
  }
  if (is_run) {
    args.push_back("--max-wall-time");
    args.push_back("0.02");
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  (void)crbench::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return 0;
}
