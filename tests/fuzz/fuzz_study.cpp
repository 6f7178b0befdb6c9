// libFuzzer target: the readers of study files, sweep files and impact study files (the same
// strict JSON reading, bench/json_fields.hpp, under three schemas). Any text must give a Study, a
// Sweep or an ImpactStudy or an InputError (exit 2 with one message); anything else (another
// exception, a crash, a sanitizer report) is a bug. Each input goes to every reader, so that a
// mutation of one schema's seed that happens to be another's reaches that one too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crbench/bench/impacts.hpp"
#include "crbench/bench/study.hpp"
#include "crbench/bench/sweep.hpp"
#include "crbench/cases/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)crbench::parse_study_text(text, "fuzz");
  } catch (const crbench::InputError&) {
  }
  try {
    (void)crbench::parse_sweep_text(text, "fuzz");
  } catch (const crbench::InputError&) {
  }
  try {
    (void)crbench::parse_impact_study_text(text, "fuzz");
  } catch (const crbench::InputError&) {
  }
  return 0;
}
