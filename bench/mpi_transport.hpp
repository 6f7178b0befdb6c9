// The interface of the plugin mpi (solvers/plugin.hpp; bench/mpi_transport.cpp, the only code
// that calls MPI): what bench/mpi.cpp needs of MPI once an MPI launcher started the process.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crbench/bench/mpi.hpp"

namespace crbench::mpi {

struct MpiTransport {
  // MPI_Init_thread (MPI_THREAD_FUNNELED), then this rank's `world`; the transport keeps
  // `lost_ranks` and `lost_message` up to date (lost_ranks(), lost_ranks_message()).
  void (*init)(int& argc, char**& argv, World& world, std::vector<int>& lost_ranks,
               std::string& lost_message);
  void (*finalize)();
  void (*abort)(int code);
  // Rank 0's outcome (0 none, 1 InputError, 2 another exception) and text, to every rank.
  void (*broadcast_outcome)(int& kind, std::string& text);
  // distribute_points (bench/mpi.hpp) with more than one rank.
  void (*distribute_points)(
      const std::vector<std::size_t>& anywhere, const std::vector<std::size_t>& root_only, int jobs,
      const std::function<nlohmann::ordered_json(std::size_t)>& compute,
      const std::function<void(std::size_t, nlohmann::ordered_json)>& record,
      const std::function<nlohmann::ordered_json(std::size_t, const std::string&)>& lost);
};

}  // namespace crbench::mpi
