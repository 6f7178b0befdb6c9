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
  const int status = crbench::run_cli(argc, argv, std::cout, std::cerr);
  if (!crbench::mpi::lost_ranks().empty()) {
    // MPI_Finalize would wait for the rank that is gone: the job ends here, its files written.
    std::cerr << "crbench: " << crbench::mpi::lost_ranks_message()
              << "; the files are written without those points (--resume computes them); "
                 "ending the job\n";
    std::cerr.flush();
    std::cout.flush();
    session->abort(3);
    return 3;
  }
  return status;
}
