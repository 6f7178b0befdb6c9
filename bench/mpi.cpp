#include "crbench/bench/mpi.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "crbench/cases/params.hpp"

#ifdef CRBENCH_WITH_MPI
#include <exception>

#include "crbench/bench/mpi_transport.hpp"
#include "crbench/solvers/plugin.hpp"
#endif

namespace crbench::mpi {
namespace {

World g_world;
std::vector<int> g_lost_ranks;
std::string g_lost_message;

// Open MPI's mpirun, MPICH's hydra and Slurm's srun (PMI-2 or PMIx) each set one of these.
const char* launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name)) return value;
  }
  return nullptr;
}
const char* launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return value;
  }
  return nullptr;
}

// Whether an MPI launcher (mpirun, mpiexec, srun) started the process, before any MPI call.
[[maybe_unused]] bool launched_by_mpi() {
  return launcher_rank() != nullptr || launcher_size() != nullptr;
}

}  // namespace

const World& world() { return g_world; }

const std::vector<int>& lost_ranks() { return g_lost_ranks; }
std::string lost_ranks_message() { return g_lost_message; }

double rank_timeout_seconds() {
  const char* text = std::getenv("CRBENCH_MPI_RANK_TIMEOUT");
  if (text == nullptr || *text == '\0') return 60.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= 1.0 && value <= 1e6)) {
    throw InputError("CRBENCH_MPI_RANK_TIMEOUT: '" + std::string(text) +
                     "' must be a number of seconds in [1, 1e6]");
  }
  return value;
}

#ifdef CRBENCH_WITH_MPI

namespace {

using ojson = nlohmann::ordered_json;

const MpiTransport& transport() {
  static const auto* plugin = static_cast<const MpiTransport*>(
      plugin_interface("mpi", linked_bench_plugin("mpi"), "crbench under an MPI launcher"));
  return *plugin;
}

}  // namespace

Session::Session(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  transport().init(argc, argv, g_world, g_lost_ranks, g_lost_message);
  initialized_ = true;
}

Session::~Session() {
  if (initialized_) transport().finalize();
}

void Session::abort(int code) {
  if (initialized_) transport().abort(code);
}

std::string text_from_root(const std::function<std::string()>& text) {
  if (g_world.size == 1) return text();
  int kind = 0;
  std::string value;
  std::exception_ptr failure;
  if (is_root()) {
    try {
      value = text();
    } catch (const InputError& e) {
      kind = 1;
      value = e.what();
      failure = std::current_exception();
    } catch (const std::exception& e) {
      kind = 2;
      value = e.what();
      failure = std::current_exception();
    }
  }
  transport().broadcast_outcome(kind, value);
  if (failure) std::rethrow_exception(failure);
  if (kind == 1) throw InputError(value);
  if (kind == 2) throw std::runtime_error("rank 0 failed: " + value);
  return value;
}

void distribute_points(const std::vector<std::size_t>& anywhere,
                       const std::vector<std::size_t>& root_only, int jobs,
                       const std::function<ojson(std::size_t)>& compute,
                       const std::function<void(std::size_t, ojson)>& record,
                       const std::function<ojson(std::size_t, const std::string&)>& lost) {
  transport().distribute_points(anywhere, root_only, jobs, compute, record, lost);
}

#else  // built without MPI: one rank

Session::Session(int&, char**&) {
  const char* rank = launcher_rank();
  const char* size = launcher_size();
  if ((rank && std::string_view(rank) != "0") || (size && std::string_view(size) != "1")) {
    throw InputError(
        "mpirun: this crbench was built without MPI, so each rank would run the whole study; "
        "install libopenmpi-dev (bash scripts/setup.sh does) and rebuild (CMake option "
        "CRBENCH_MPI, on when MPI is found)");
  }
}

Session::~Session() = default;

void Session::abort(int) {}

std::string text_from_root(const std::function<std::string()>& text) { return text(); }

void distribute_points(
    const std::vector<std::size_t>&, const std::vector<std::size_t>&, int,
    const std::function<nlohmann::ordered_json(std::size_t)>&,
    const std::function<void(std::size_t, nlohmann::ordered_json)>&,
    const std::function<nlohmann::ordered_json(std::size_t, const std::string&)>&) {
  throw std::logic_error("distribute_points: built without MPI");
}

#endif

void on_root(const std::function<void()>& step) {
  text_from_root([&]() {
    step();
    return std::string();
  });
}

}  // namespace crbench::mpi
