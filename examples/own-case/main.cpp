// A program of one's own with crbench's whole command line: the user's case joins the registry
// before the command line runs, so `own-case list | run | verify | converge | sweep` see it.
#include <crbench/bench/cli.hpp>
#include <crbench/cases/register_case.hpp>
#include <iostream>

#include "ellipse_cap.hpp"

int main(int argc, char** argv) {
  crbench::register_case(crbench::case_entry<own::EllipseCap>());
  return crbench::run_cli(argc, argv, std::cout, std::cerr);
}
