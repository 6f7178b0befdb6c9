// Numbers as the text of tables, verdicts and CSV files (printf formats, so that every writer
// prints a number the same way).
#pragma once

#include <cstdio>
#include <string>

namespace crbench {

// `digits` significant digits in scientific notation: scientific_text(0.000123, 2) = "1.2e-04".
inline std::string scientific_text(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, x);
  return buffer;
}

// `decimals` digits after the point: fixed_text(0.9986, 3) = "0.999".
inline std::string fixed_text(double x, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  return buffer;
}

// Every digit a double carries: full_text(2.0000000099999998) = "2.00000001".
inline std::string full_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.16g", x);
  return buffer;
}

}  // namespace crbench
