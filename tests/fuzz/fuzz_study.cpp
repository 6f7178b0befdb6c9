// libFuzzer target: the study-file reader. Any text must give a Study or an InputError (exit 2
// with one message); anything else (another exception, a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crbench/bench/study.hpp"
#include "crbench/cases/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)crbench::parse_study_text(text, "fuzz");
  } catch (const crbench::InputError&) {
  }
  return 0;
}
