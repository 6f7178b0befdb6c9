// The points of a sweep or a study spread over MPI ranks (`mpirun -n R crbench sweep|converge`):
// rank 0 reads the input, owns the output folder and writes every file; the other ranks compute
// the points it hands them and send each finished line back. Only the main thread of a rank calls
// MPI (MPI_THREAD_FUNNELED); the points themselves run on --jobs threads per rank.
//
// Built without MPI (CMake option CRBENCH_MPI off, or no MPI found), world() is one rank and the
// functions below run their argument in place.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace crbench::mpi {

struct World {
  int rank = 0;
  int size = 1;
  int ranks_on_this_node = 1;  // for the default number of threads per rank
};

const World& world();
inline bool is_root() { return world().rank == 0; }
// MPI_Init_thread in the constructor when launched by an MPI launcher (and built with MPI),
// MPI_Finalize in the destructor; a plain `crbench …` never initializes MPI. Throws InputError
// when launched by mpirun with several ranks but built without MPI (every rank would otherwise
// run the whole study and write the same files).
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  // Ends every rank of the job at once with `code` (MPI_Abort), where MPI_Finalize would wait
  // for a rank that is gone; with one rank, nothing.
  void abort(int code);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  [[maybe_unused]] bool initialized_ = false;
};

// Rank 0 runs `step`; an exception it throws is thrown on every rank (an InputError as an
// InputError with the same message, so that the command exits with status 2 everywhere and rank
// 0 alone prints it). With one rank: step().
void on_root(const std::function<void()>& step);

// Rank 0 computes `text` (say, reads a file) and every rank receives it; errors as in on_root.
std::string text_from_root(const std::function<std::string()>& text);

// The distributed point loop. On rank 0, `record(i, line)` is called (from one thread at a
// time) for every index of `anywhere` and `root_only` once its line is computed, here or on
// another rank, and the call returns when all have been recorded. `root_only` points run on rank
// 0's threads (they write files of their own on rank 0's disk); `anywhere` points are handed out
// one by one, in the order given, to the threads of every rank as they become free (so costly
// points given first are not left for the end). Other ranks compute what they are given and
// return; their arguments `anywhere`, `root_only` and `record` are not used. `compute` must not
// throw.
//
// A rank that stops answering (killed, its node lost, under a launcher that keeps the job alive
// such as `mpirun --enable-recovery`) does not hang rank 0: every rank other than 0 sends a
// heartbeat each second while it works, and one not heard from for rank_timeout_seconds() is
// given up: each point handed to it is recorded as `lost(i, reason)`, the others go on, and
// lost_ranks() names it. The command then finishes its files and main ends the job (Session::
// abort) with a message naming the rank.
void distribute_points(
    const std::vector<std::size_t>& anywhere, const std::vector<std::size_t>& root_only, int jobs,
    const std::function<nlohmann::ordered_json(std::size_t)>& compute,
    const std::function<void(std::size_t, nlohmann::ordered_json)>& record,
    const std::function<nlohmann::ordered_json(std::size_t, const std::string&)>& lost);

// How long rank 0 waits for a word from a rank that holds points: CRBENCH_MPI_RANK_TIMEOUT
// (seconds, in [1, 1e6]) or 60 s; an InputError naming the variable when it is malformed.
double rank_timeout_seconds();

// The ranks given up so far on rank 0 (empty elsewhere), and a message naming them with the
// number of points each held.
const std::vector<int>& lost_ranks();
std::string lost_ranks_message();

}  // namespace crbench::mpi
