#include "crbench/cases/params.hpp"

#include <charconv>
#include <cmath>

namespace crbench {

bool ParamSpec::admits(double value) const {
  if (!std::isfinite(value)) return false;
  if (whole && value != std::floor(value)) return false;
  const bool above = min_inclusive ? value >= min : value > min;
  const bool below = max_inclusive ? value <= max : value < max;
  return above && below;
}

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // std::to_chars without a precision gives the shortest form that reads back exactly
  // ("0.1", not "0.10000000000000001").
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string ParamSpec::range_text() const {
  std::string text = min_inclusive ? "[" : "(";
  text += format_number(min) + ", " + format_number(max);
  text += max_inclusive ? "]" : ")";
  if (whole) text += " (whole numbers)";
  return text;
}

Assignment parse_assignment(std::string_view text, std::string_view origin) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError(std::string(origin) + ": '" + std::string(text) +
                     "' is not of the form KEY=VALUE");
  }
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

double parse_finite(std::string_view field, std::string_view text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (text.empty()) throw InputError(std::string(field) + ": an empty value; a number is required");
  if (ec == std::errc::result_out_of_range && ptr == end) {
    throw InputError(
        std::string(field) + ": '" + std::string(text) +
        "' is out of the range of a double (magnitudes up to 1.8e308, down to 4.9e-324)");
  }
  if (ec != std::errc() || ptr != end) {
    throw InputError(std::string(field) + ": '" + std::string(text) + "' is not a number");
  }
  if (!std::isfinite(value)) {
    throw InputError(std::string(field) + ": '" + std::string(text) +
                     "' is not finite; a finite number is required");
  }
  return value;
}

void check_in_range(const ParamSpec& spec, double value, std::string_view owner) {
  if (!spec.admits(value)) {
    throw InputError(std::string(owner) + ": parameter '" + spec.name +
                     "' = " + format_number(value) + " is outside its range " + spec.range_text());
  }
}

ParamValues resolve_params(const std::vector<ParamSpec>& specs,
                           const std::vector<Assignment>& assignments, std::string_view owner) {
  ParamValues values;
  for (const auto& spec : specs) values[spec.name] = spec.default_value;
  for (const auto& a : assignments) {
    const ParamSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (s.name == a.key) spec = &s;
    }
    if (spec == nullptr) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw InputError(std::string(owner) + ": unknown parameter '" + a.key +
                       "'; its parameters are: " + (known.empty() ? "(none)" : known));
    }
    const double value = parse_finite(std::string(owner) + ": parameter '" + a.key + "'", a.value);
    check_in_range(*spec, value, owner);
    values[a.key] = value;
  }
  return values;
}

}  // namespace crbench
