#include <iostream>

#include "bench/cli.hpp"

int main(int argc, char** argv) { return crbench::run_cli(argc, argv, std::cout, std::cerr); }
