#include <catch2/catch.hpp>

#include "crbench/cases/params.hpp"

namespace params_tests {

using namespace crbench;

TEST_CASE("parse_finite accepts numbers and rejects everything else", "[params]") {
  CHECK(parse_finite("x", "1e8") == 1e8);
  CHECK(parse_finite("x", "-0.25") == -0.25);
  CHECK(parse_finite("x", "+3") == 3.0);
  for (const char* bad : {"", "abc", "1e8x", "nan", "inf", "-inf", "1e999", "1,5", " 1"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_finite("--rtol", bad), InputError);
  }
  CHECK_THROWS_WITH(parse_finite("--rtol", "abc"), "--rtol: 'abc' is not a number");
  CHECK_THROWS_WITH(parse_finite("--rtol", "nan"), Catch::Contains("is not finite"));
}

TEST_CASE("resolve_params fills defaults - checks names and ranges", "[params]") {
  const std::vector<ParamSpec> specs{
      {.name = "g", .default_value = 1.0, .min = 0.0, .max = 10.0, .min_inclusive = false},
      {.name = "e", .default_value = 1.0, .min = 0.0, .max = 1.0}};
  const auto values = resolve_params(specs, {{"e", "0.5"}}, "case c");
  CHECK(values.at("g") == 1.0);
  CHECK(values.at("e") == 0.5);
  CHECK_THROWS_WITH(resolve_params(specs, {{"h", "1"}}, "case c"),
                    "case c: unknown parameter 'h'; its parameters are: g, e");
  CHECK_THROWS_WITH(resolve_params(specs, {{"g", "0"}}, "case c"),
                    "case c: parameter 'g' = 0 is outside its range (0, 10]");
  CHECK_THROWS_WITH(resolve_params(specs, {{"e", "1.5"}}, "case c"),
                    "case c: parameter 'e' = 1.5 is outside its range [0, 1]");
  CHECK_THROWS_AS(resolve_params(specs, {{"g", "nan"}}, "case c"), InputError);
}

TEST_CASE("parse_assignment wants KEY=VALUE", "[params]") {
  const auto a = parse_assignment("g=2", "--set");
  CHECK(a.key == "g");
  CHECK(a.value == "2");
  CHECK_THROWS_WITH(parse_assignment("g", "--set"), "--set: 'g' is not of the form KEY=VALUE");
  CHECK_THROWS_AS(parse_assignment("=2", "--set"), InputError);
  CHECK_THROWS_AS(parse_assignment("g=", "--set"), InputError);
}

TEST_CASE("format_number gives the shortest round-trip form", "[params]") {
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(1e6) == "1e+06");
  CHECK(format_number(1.0 / 3.0) == "0.3333333333333333");
}

}  // namespace params_tests
