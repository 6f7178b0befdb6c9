// Strict reading of the JSON input files (study and sweep files): every field is checked where it
// is read, with messages naming it ("study.models[2].solver: ...") and its accepted range.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/cases/registry.hpp"

namespace crbench {

inline std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Strict reading of one JSON object: every field is checked where it is read, and a field that
// nothing reads is an error, so that a misspelt key does not silently fall back to a default.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(path_ + ": must be a JSON object");
  }
  std::string path(const std::string& key) const { return path_ + "." + key; }
  const nlohmann::json* find(const std::string& key) {
    accepted_.insert(key);
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const nlohmann::json& require(const std::string& key) {
    const auto* x = find(key);
    if (!x) throw InputError(path(key) + ": missing (required)");
    return *x;
  }
  std::string text(const std::string& key, std::optional<std::string> fallback = std::nullopt) {
    const auto* x = fallback ? find(key) : &require(key);
    if (!x) return *fallback;
    if (!x->is_string()) throw InputError(path(key) + ": must be a string");
    return x->get<std::string>();
  }
  double number(const std::string& key, std::optional<double> fallback, const ParamSpec& range) {
    const auto* x = fallback ? find(key) : &require(key);
    if (!x) return *fallback;
    if (!x->is_number()) {
      throw InputError(path(key) + ": must be a number in " + range.range_text());
    }
    const double value = x->get<double>();
    if (!std::isfinite(value) || !range.admits(value)) {
      throw InputError(path(key) + ": " + format_number(value) + " is outside " +
                       range.range_text());
    }
    return value;
  }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!accepted_.count(key)) {
        std::vector<std::string> names(accepted_.begin(), accepted_.end());
        throw InputError(path(key) + ": unknown field; the accepted fields here are " +
                         join(names));
      }
    }
  }

 private:
  const nlohmann::json& j_;
  std::string path_;
  std::set<std::string> accepted_;
};

inline ParamSpec range(double min, double max, bool min_inclusive = true) {
  ParamSpec spec;
  spec.min = min;
  spec.max = max;
  spec.min_inclusive = min_inclusive;
  return spec;
}

// "KEY=value,KEY=value" (a key for maps and point names).
inline std::string assignments_text(const std::vector<Assignment>& assignments) {
  std::string out;
  for (const auto& a : assignments) out += (out.empty() ? "" : ",") + a.key + "=" + a.value;
  return out;
}

// {"KEY": number or string, …} → assignments (numbers printed exactly).
inline std::vector<Assignment> assignments_of(const nlohmann::json* j, const std::string& path) {
  std::vector<Assignment> out;
  if (!j) return out;
  if (!j->is_object()) throw InputError(path + ": must be an object of NAME: value");
  for (const auto& [key, value] : j->items()) {
    if (value.is_number()) {
      out.push_back({key, format_number(value.get<double>())});
    } else if (value.is_string()) {
      out.push_back({key, value.get<std::string>()});
    } else {
      throw InputError(path + "." + key + ": must be a number or a string");
    }
  }
  return out;
}

// A label or name that becomes part of a file's name (a trajectory's, the default --out folder):
// at most 100 characters, so that every file named after it fits the file system's 255 bytes.
inline const std::string& bounded_label(const std::string& text, const std::string& path) {
  if (text.size() > 100) {
    throw InputError(path + ": a label of " + std::to_string(text.size()) +
                     " characters; at most 100 (it names files)");
  }
  return text;
}

// A file's `name` (study, sweep, impacts: the default --out folder): [a-z0-9_-]+, at most 100
// characters; InputError naming `<kind>.name` otherwise.
inline std::string folder_name(Fields& top, const std::string& kind) {
  std::string name = bounded_label(top.text("name"), top.path("name"));
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
    throw InputError(kind + ".name: '" + name +
                     "' must be non-empty and use only a-z, 0-9, '-' and '_'");
  }
  return name;
}

// A file's `case`: a case crbench knows; InputError naming `<kind>.case` otherwise.
inline std::string known_case_name(Fields& top, const std::string& kind) {
  std::string name = top.text("case");
  try {
    find_case(name);
  } catch (const InputError& e) {
    throw InputError(kind + ".case: " + e.what());
  }
  return name;
}

// The JSON in `text` (from `origin`, read for the command-line flag `flag`); InputError when it is
// not JSON or holds a number beyond the range of a double.
inline nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                                      const std::string& flag) {
  // A key given twice in one object is refused: the parser would keep the last silently.
  std::vector<std::set<std::string>> keys;
  const auto unique_keys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
    if (event == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == nlohmann::json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw InputError(flag + ": '" + origin + "' gives the key \"" + parsed.get<std::string>() +
                       "\" twice in one object; give each key once");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, unique_keys);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(flag + ": '" + origin + "' is not valid JSON (at byte " +
                     std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond the range of a double (1e999).
    throw InputError(flag + ": '" + origin + "' holds a number outside the range of a double (" +
                     e.what() + ")");
  }
}

// The contents of the file at `path`; InputError when it is a folder or cannot be opened.
inline std::string read_input_file(const std::string& path, const std::string& flag) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error)) {
    throw InputError(flag + ": '" + path + "' is not a file (it should be JSON)");
  }
  // A study or sweep is a page of JSON; a file of gigabytes is a mistake, and its text would be
  // copied into the outputs.
  constexpr std::uintmax_t kMostBytes = 16u << 20;
  if (const auto bytes = std::filesystem::file_size(path, error); !error && bytes > kMostBytes) {
    throw InputError(flag + ": '" + path + "' has " + std::to_string(bytes) +
                     " bytes; a study or sweep file has at most 16 MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(flag + ": cannot open '" + path + "'");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace crbench
