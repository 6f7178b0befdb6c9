#include <iostream>
#include <optional>

#include "crbench/bench/cli.hpp"
#include "crbench/bench/mpi.hpp"
#include "crbench/cases/params.hpp"

int main(int argc, char** argv) {
  // MPI is initialized only when an MPI launcher started the process (bench/mpi.hpp).
  std::optional<crbench::mpi::Session> session;
  try {
    session.emplace(argc, argv);
  } catch (const crbench::InputError& e) {
    std::cerr << "crbench: " << e.what() << "\n";
    return 2;
  }
  return crbench::run_cli(argc, argv, std::cout, std::cerr);
}
