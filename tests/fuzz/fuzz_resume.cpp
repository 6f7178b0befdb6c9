// libFuzzer target: --resume's reader of points.jsonl. Each input is written as the points.jsonl
// of a small sweep's folder (dk-plane, 2 x 2 points, limit only) and the sweep is resumed from
// it: every line must be reused (whole, with its settings and an intact checksum), discarded and
// computed again, or skipped as cut short. The sweep must end with its files written or an
// InputError; anything else (another exception, a crash, a sanitizer report) is a bug. Seeds:
// tests/fuzz/seeds/resume (the sweep's own points.jsonl).
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "crbench/bench/sweep.hpp"
#include "crbench/cases/params.hpp"

namespace {

constexpr const char* kSweep = R"({
  "name": "resume", "case": "dk-plane",
  "axes": [{"name": "zeta", "from": 0.5, "to": 2, "count": 2, "spacing": "log"},
           {"name": "omega0", "from": 1, "to": 2, "count": 2, "spacing": "log"}],
  "model": {"alpha": 1}
})";

const std::filesystem::path& folder() {
  static const std::filesystem::path dir = [] {
    std::string name = (std::filesystem::temp_directory_path() / "crbench-fuzz-resume-XXXXXX");
    if (mkdtemp(name.data()) == nullptr) std::abort();
    return std::filesystem::path(name);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const crbench::Sweep sweep = crbench::parse_sweep_text(kSweep, "fuzz");
  {
    std::ofstream out(folder() / "points.jsonl", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  crbench::SweepOptions options;
  options.out_dir = folder().string();
  options.jobs = 1;
  options.resume = true;
  options.figures = false;
  try {
    (void)crbench::run_sweep(sweep, options);
  } catch (const crbench::InputError&) {
  }
  return 0;
}
