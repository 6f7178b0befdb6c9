// libFuzzer target: --resume's reader of points.jsonl (bench/points.hpp, run_points). Each input
// is written as the points.jsonl of a folder and read back for the four points of a small sweep
// (dk-plane, 2 x 2 (zeta, omega0), limit only), with the sweep's own test of a line's settings.
// A line must be reused (whole, parsed, with this sweep's settings and an intact checksum) or
// discarded or skipped, and every point must end with exactly one line: reused lines are checked
// to be byte-equal to the line the sweep computes for that point. Anything else (an exception, a
// crash, a sanitizer report, a reused line that differs) is a bug. The sweep's lines are computed
// once at start-up; seeds: tests/fuzz/seeds/resume (the sweep's own points.jsonl).
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crbench/bench/points.hpp"
#include "crbench/bench/sweep.hpp"
#include "crbench/cases/params.hpp"

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kSweep = R"({
  "name": "resume", "case": "dk-plane",
  "axes": [{"name": "zeta", "from": 0.5, "to": 2, "count": 2, "spacing": "log"},
           {"name": "omega0", "from": 1, "to": 2, "count": 2, "spacing": "log"}],
  "model": {"alpha": 1}
})";

struct Reference {
  std::filesystem::path folder;
  std::vector<std::string> keys;
  std::vector<ojson> lines;  // as the sweep writes them (sealed)
  ojson settings;
};

const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    std::string name = (std::filesystem::temp_directory_path() / "crbench-fuzz-resume-XXXXXX");
    if (mkdtemp(name.data()) == nullptr) std::abort();
    r.folder = name;
    crbench::SweepOptions options;
    options.out_dir = (r.folder / "sweep").string();
    options.figures = false;
    (void)crbench::run_sweep(crbench::parse_sweep_text(kSweep, "fuzz"), options);
    std::ifstream in(r.folder / "sweep" / "points.jsonl");
    for (std::string text; std::getline(in, text);) {
      ojson line = ojson::parse(text);
      r.keys.push_back(line["key"].get<std::string>());
      r.settings = line["settings"];
      r.lines.push_back(std::move(line));
    }
    if (r.lines.size() != 4) std::abort();
    return r;
  }();
  return ref;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Reference& ref = reference();
  const std::filesystem::path jsonl = ref.folder / "points.jsonl";
  {
    std::ofstream out(jsonl, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  crbench::PointRunOptions options;
  options.resume = true;
  const crbench::PointRun run = crbench::run_points(
      jsonl, ref.keys, [&](std::size_t i) { return ref.lines[i]; },
      [&](std::size_t, const ojson& line) {
        return line.contains("settings") && line["settings"] == ref.settings;
      },
      options);
  for (std::size_t i = 0; i < ref.lines.size(); ++i) {
    // A reused line is one the sweep wrote for this point (its checksum vouches for its text).
    if (run.lines[i].dump() != ref.lines[i].dump()) std::abort();
  }
  return 0;
}
