// libFuzzer target: --resume's reader of points.jsonl (bench/points.hpp, run_points). Each input
// is written as the points.jsonl of a folder and read back for the four points of a small sweep
// (dk-plane, 2 x 2 (zeta, omega0), limit only), with the sweep's own test of a line's settings.
// A line must be reused (whole, parsed, with this sweep's settings and an intact checksum) or
// discarded or skipped, and every point must end with exactly one line. A reused line must be the
// line the sweep computes for that point, byte for byte, unless it is a consistent forgery: this
// point's key, this sweep's settings and a checksum that is the mark of its own text (recomputed
// here, independently of the reader). The mark guards against lines cut or corrupted on disk, not
// against a line written with its mark recomputed, and libFuzzer does write those: it reads the
// expected mark off the reader's comparison and pastes it in. Anything else (an exception, a
// crash, a sanitizer report, a reused line that is neither) is a bug. The sweep's lines are
// computed once at start-up; seeds: tests/fuzz/seeds/resume (the sweep's own points.jsonl).
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
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

// FNV-1a (64 bits, hexadecimal) of the line's JSON text without its "checksum" field: the mark
// bench/points.cpp documents, written out again so that the oracle does not call the reader.
bool consistent_mark(ojson line) {
  const auto it = line.find("checksum");
  if (it == line.end() || !it->is_string()) return false;
  const std::string mark = it->get<std::string>();
  line.erase("checksum");
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : line.dump()) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return mark == text;
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
    const ojson& line = run.lines[i];
    if (line.dump() == ref.lines[i].dump()) continue;
    // Not the sweep's line: only a reused, consistent forgery for this point may stand here.
    const bool forged = run.resumed[i] && line.is_object() && line.contains("key") &&
                        line["key"] == ref.keys[i] && line.contains("settings") &&
                        line["settings"] == ref.settings && consistent_mark(line);
    if (!forged) std::abort();
  }
  return 0;
}
