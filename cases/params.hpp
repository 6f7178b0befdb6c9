// Named real parameters with admissible ranges, shared by cases and solvers, and the strict
// parsing of user input into them. Every rejection is an InputError whose message names the item
// and what is accepted; the command line turns it into one line and exit status 2.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crbench {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file that cannot be written (an unwritable folder, a full disk): exit status 2 like a bad
// input, but inside a study's point it stops the point without being taken for a failure of the
// computation (bench/points.hpp).
struct OutputError : InputError {
  using InputError::InputError;
};

struct ParamSpec {
  std::string name;
  double default_value = 0.0;
  double min = 0.0;
  double max = 0.0;
  bool min_inclusive = true;
  bool max_inclusive = true;
  std::string unit;
  std::string description;
  // Non-empty when the effective default depends on other settings (e.g. a preset's α, β, γ):
  // `list` shows this instead of default_value, and records name it as the value's source.
  std::string default_note;
  // Counts and switches (max_steps, impulse_history): only whole numbers are admitted.
  bool whole = false;
  // Left out of the settings, hence of records, while at its default: a setting added after
  // records existed that changes nothing at its default, so that those records stay what they were.
  bool omitted_at_default = false;

  bool admits(double value) const;
  // "[0, 1]", "(0, inf)", ...
  std::string range_text() const;
};

// Ordered by name, so that records and JSON are deterministic.
using ParamValues = std::map<std::string, double>;

struct Assignment {
  std::string key;
  std::string value;
};

// Parses "KEY=VALUE"; `origin` names the option for the message (e.g. "--set").
Assignment parse_assignment(std::string_view text, std::string_view origin);

// The whole string must be a finite decimal number; `field` names it in the message.
double parse_finite(std::string_view field, std::string_view text);

// Defaults overridden by the assignments; unknown keys and out-of-range values are InputErrors
// naming `owner` (e.g. "case dk-plane").
ParamValues resolve_params(const std::vector<ParamSpec>& specs,
                           const std::vector<Assignment>& assignments, std::string_view owner);

// Checks one value against its spec (InputError otherwise).
void check_in_range(const ParamSpec& spec, double value, std::string_view owner);

std::string format_number(double value);

}  // namespace crbench
