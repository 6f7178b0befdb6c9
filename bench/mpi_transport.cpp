// The plugin mpi (bench/mpi_transport.hpp): the point loop of bench/mpi.hpp over MPI messages.
#include "crbench/bench/mpi_transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/plugin.hpp"

namespace crbench::mpi {
namespace {

// This rank's world and the ranks given up (bench/mpi.cpp's), set by init.
World* world_ = nullptr;
std::vector<int>* lost_ranks_ = nullptr;
std::string* lost_message_ = nullptr;

using ojson = nlohmann::ordered_json;
constexpr int kTagRequest = 1;    // rank r > 0 asks for up to `capacity` points
constexpr int kTagAssign = 2;     // rank 0 hands out indices; none: there are no more
constexpr int kTagResult = 3;     // "index\nline" of a finished point
constexpr int kTagHeartbeat = 4;  // empty: the rank is alive
// How often a rank other than 0 says it is alive while it works.
constexpr auto kHeartbeat = std::chrono::seconds(1);
// How long a rank's main thread sleeps between looks for messages when nothing arrived: the
// threads computing points keep the cores (a blocking MPI call would spin on one), and each look
// costs them a context switch. Other ranks hold points in hand (kPrefetch), so an answer that
// waits up to kPollMax does not leave a thread idle unless a point takes less than about that.
constexpr auto kPoll = std::chrono::microseconds(250);
constexpr auto kPollMax = std::chrono::microseconds(2000);
constexpr int kPrefetch = 2;
// A rank r > 0 that waits only for its own threads sleeps until one of them finishes a point.
constexpr auto kIdle = std::chrono::milliseconds(20);

// A failure on rank 0: 0 none, 1 InputError, 2 any other exception.
void broadcast_outcome(int& kind, std::string& text) {
  int header[2] = {kind, static_cast<int>(text.size())};
  MPI_Bcast(header, 2, MPI_INT, 0, MPI_COMM_WORLD);
  kind = header[0];
  text.resize(static_cast<std::size_t>(header[1]));
  MPI_Bcast(text.data(), header[1], MPI_CHAR, 0, MPI_COMM_WORLD);
}

void serve(const std::vector<std::size_t>& anywhere, const std::vector<std::size_t>& root_only,
           int jobs, const std::function<ojson(std::size_t)>& compute,
           const std::function<void(std::size_t, ojson)>& record,
           const std::function<ojson(std::size_t, const std::string&)>& lost) {
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(rank_timeout_seconds());
  const auto size = static_cast<std::size_t>(world_->size);
  std::vector<Clock::time_point> heard(size, Clock::now());
  std::vector<std::vector<std::size_t>> held(size);  // handed to the rank, not yet returned
  std::vector<char> finished_rank(size, 0);          // told there are no more, or given up
  std::mutex mutex;
  std::size_t recorded = 0;
  const std::size_t total = anywhere.size() + root_only.size();
  std::atomic<std::size_t> next_root{0}, next_anywhere{0};
  const auto take_anywhere = [&]() -> std::optional<std::size_t> {
    const std::size_t k = next_anywhere.fetch_add(1);
    if (k < anywhere.size()) return anywhere[k];
    return std::nullopt;
  };
  const auto finish = [&](std::size_t i, ojson line) {
    const std::lock_guard<std::mutex> lock(mutex);
    record(i, std::move(line));
    ++recorded;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) {
    threads.emplace_back([&]() {
      for (;;) {
        const std::size_t k = next_root.fetch_add(1);
        std::optional<std::size_t> i;
        if (k < root_only.size()) {
          i = root_only[k];
        } else {
          i = take_anywhere();
        }
        if (!i) return;
        finish(*i, compute(*i));
      }
    });
  }
  int told_no_more = 0;
  // Looks for messages back off from kPoll to kPollMax while none arrive.
  auto poll = kPoll;
  auto last_heartbeat = Clock::now();
  for (;;) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (recorded == total && told_no_more == world_->size - 1) break;
    }
    if (const auto now = Clock::now(); now - last_heartbeat >= kHeartbeat) {
      // The other way too: a rank still working hears from rank 0 each second, and ends by itself
      // when rank 0 goes silent (work).
      for (std::size_t r = 1; r < size; ++r) {
        if (!finished_rank[r]) {
          MPI_Send(nullptr, 0, MPI_BYTE, static_cast<int>(r), kTagHeartbeat, MPI_COMM_WORLD);
        }
      }
      last_heartbeat = now;
    }
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) {
      // A rank silent for longer than the timeout is given up, and its points with it.
      const auto now = Clock::now();
      for (std::size_t r = 1; r < size; ++r) {
        if (finished_rank[r] || now - heard[r] <= timeout) continue;
        finished_rank[r] = 1;
        ++told_no_more;
        (*lost_ranks_).push_back(static_cast<int>(r));
        const std::string reason =
            "rank " + std::to_string(r) + " stopped answering for " +
            format_number(timeout.count()) +
            " s (CRBENCH_MPI_RANK_TIMEOUT) while computing this point; --resume computes it again";
        for (const std::size_t i : held[r]) finish(i, lost(i, reason));
        if (!(*lost_message_).empty()) (*lost_message_) += "; ";
        (*lost_message_) += "rank " + std::to_string(r) + " stopped answering for " +
                            format_number(timeout.count()) + " s with " +
                            std::to_string(held[r].size()) +
                            " points in hand, recorded with status rank_lost";
        held[r].clear();
      }
      std::this_thread::sleep_for(poll);
      poll = std::min(2 * poll, kPollMax);
      continue;
    }
    poll = kPoll;
    const auto source = static_cast<std::size_t>(status.MPI_SOURCE);
    heard[source] = Clock::now();
    // A rank given up that speaks again (it was only slow): its points are recorded as lost
    // already, so its results are dropped and its requests get an empty answer (no more).
    const bool given_up =
        finished_rank[source] && std::find((*lost_ranks_).begin(), (*lost_ranks_).end(),
                                           static_cast<int>(source)) != (*lost_ranks_).end();
    if (status.MPI_TAG == kTagHeartbeat) {
      MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kTagHeartbeat, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (status.MPI_TAG == kTagRequest) {
      int capacity = 0;
      MPI_Recv(&capacity, 1, MPI_INT, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      std::vector<std::uint64_t> given;
      while (!given_up && given.size() < static_cast<std::size_t>(capacity)) {
        const auto i = take_anywhere();
        if (!i) break;
        given.push_back(*i);
        held[source].push_back(*i);
      }
      MPI_Send(given.data(), static_cast<int>(given.size()), MPI_UINT64_T, status.MPI_SOURCE,
               kTagAssign, MPI_COMM_WORLD);
      if (given.empty() && !given_up) {
        finished_rank[source] = 1;
        ++told_no_more;
      }
    } else if (status.MPI_TAG == kTagResult) {
      int bytes = 0;
      MPI_Get_count(&status, MPI_CHAR, &bytes);
      std::string text(static_cast<std::size_t>(bytes), '\0');
      MPI_Recv(text.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kTagResult, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      const std::size_t newline = text.find('\n');
      const std::size_t i = std::stoull(text.substr(0, newline));
      auto& in_hand = held[source];
      in_hand.erase(std::remove(in_hand.begin(), in_hand.end(), i), in_hand.end());
      // The line as the other rank dumped it; parsed and dumped again it is the same text.
      if (!given_up) finish(i, ojson::parse(text.substr(newline + 1)));
    }
  }
  for (auto& t : threads) t.join();
}

void work(int jobs, const std::function<ojson(std::size_t)>& compute) {
  std::mutex mutex;
  std::condition_variable wake;      // the computing threads: a point, or no more
  std::condition_variable finished;  // the main thread: a point was finished
  std::deque<std::size_t> queue;
  int busy = 0;
  bool no_more = false;
  std::vector<std::string> outbox;
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) {
    threads.emplace_back([&]() {
      for (;;) {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&]() { return !queue.empty() || no_more; });
        if (queue.empty()) return;
        const std::size_t i = queue.front();
        queue.pop_front();
        ++busy;
        lock.unlock();
        std::string text = std::to_string(i) + "\n" + compute(i).dump();
        lock.lock();
        outbox.push_back(std::move(text));
        --busy;
        finished.notify_one();
      }
    });
  }
  // More points than threads in hand, so that a thread never waits for rank 0's answer.
  const int wanted = jobs + kPrefetch;
  auto last_heartbeat = std::chrono::steady_clock::now();
  auto heard_root = last_heartbeat;
  const auto timeout = std::chrono::duration<double>(rank_timeout_seconds());
  int sent = 0;
  std::list<std::pair<std::string, MPI_Request>> sending;  // stable addresses while in flight
  bool awaiting = false;
  for (;;) {
    bool active = false;
    std::vector<std::string> ready;
    int in_hand = 0;
    bool drained = false;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ready.swap(outbox);
      in_hand = static_cast<int>(queue.size()) + busy;
      drained = no_more && queue.empty() && busy == 0;
    }
    for (auto& text : ready) {
      ++sent;
      sending.emplace_back(std::move(text), MPI_REQUEST_NULL);
      auto& [buffer, request] = sending.back();
      MPI_Isend(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, 0, kTagResult,
                MPI_COMM_WORLD, &request);
      active = true;
    }
    for (auto it = sending.begin(); it != sending.end();) {
      int done = 0;
      MPI_Test(&it->second, &done, MPI_STATUS_IGNORE);
      it = done ? sending.erase(it) : std::next(it);
    }
    if (drained && sending.empty()) break;
    for (int heartbeat = 1; heartbeat != 0;) {
      MPI_Iprobe(0, kTagHeartbeat, MPI_COMM_WORLD, &heartbeat, MPI_STATUS_IGNORE);
      if (heartbeat == 0) break;
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTagHeartbeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      heard_root = std::chrono::steady_clock::now();
    }
    if (std::chrono::steady_clock::now() - heard_root > timeout) {
      // Rank 0 is gone (killed, its node lost) under a launcher that keeps the job alive: nothing
      // here can be written, and MPI_Finalize would wait for it for ever.
      std::fprintf(stderr,
                   "crbench: rank %d: rank 0 stopped answering for %s s "
                   "(CRBENCH_MPI_RANK_TIMEOUT); the %d points this rank sent it are written only "
                   "if rank 0 wrote them before it stopped, the rest are lost (--resume computes "
                   "them); ending\n",
                   world_->rank, format_number(timeout.count()).c_str(), sent);
      std::fflush(stderr);
      std::_Exit(3);
    }
    if (const auto now = std::chrono::steady_clock::now(); now - last_heartbeat >= kHeartbeat) {
      // Zero bytes go eagerly: the send does not wait for rank 0.
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagHeartbeat, MPI_COMM_WORLD);
      last_heartbeat = now;
    }
    if (!no_more && !awaiting && in_hand < wanted) {
      int capacity = wanted - in_hand;
      MPI_Send(&capacity, 1, MPI_INT, 0, kTagRequest, MPI_COMM_WORLD);
      awaiting = true;
      active = true;
    }
    if (awaiting) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(0, kTagAssign, MPI_COMM_WORLD, &arrived, &status);
      if (arrived) {
        int count = 0;
        MPI_Get_count(&status, MPI_UINT64_T, &count);
        std::vector<std::uint64_t> given(static_cast<std::size_t>(count));
        MPI_Recv(given.data(), count, MPI_UINT64_T, 0, kTagAssign, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        heard_root = std::chrono::steady_clock::now();
        {
          const std::lock_guard<std::mutex> lock(mutex);
          if (given.empty()) no_more = true;
          for (const auto i : given) queue.push_back(static_cast<std::size_t>(i));
        }
        wake.notify_all();
        awaiting = false;
        active = true;
      }
    }
    if (active) continue;
    if (awaiting || !sending.empty()) {
      std::this_thread::sleep_for(kPoll);  // MPI must be asked
    } else {
      std::unique_lock<std::mutex> lock(mutex);
      finished.wait_for(lock, kIdle, [&]() { return !outbox.empty(); });
    }
  }
  // Heartbeats rank 0 sent before its last answer: none is left unreceived at MPI_Finalize.
  for (int heartbeat = 1; heartbeat != 0;) {
    MPI_Iprobe(0, kTagHeartbeat, MPI_COMM_WORLD, &heartbeat, MPI_STATUS_IGNORE);
    if (heartbeat != 0) {
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTagHeartbeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  for (auto& t : threads) t.join();
}

void init(int& argc, char**& argv, World& world, std::vector<int>& lost_ranks,
          std::string& lost_message) {
  world_ = &world;
  lost_ranks_ = &lost_ranks;
  lost_message_ = &lost_message;
#ifdef OPEN_MPI
  // Open MPI's default point-to-point layer probes UCX first, which lengthens MPI_Init in every
  // process even where there is no UCX device (docs/internals.md); crbench's messages (an index,
  // one JSON line per point) gain nothing from it, so ob1 (shared memory on a node, TCP between
  // nodes) is chosen unless the user chose otherwise (OMPI_MCA_pml in the environment, or mpirun
  // --mca pml).
  setenv("OMPI_MCA_pml", "ob1", 0);
#endif
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_->size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &world_->ranks_on_this_node);
  MPI_Comm_free(&node);
}

void finalize() { MPI_Finalize(); }

void abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

void distribute_points(const std::vector<std::size_t>& anywhere,
                       const std::vector<std::size_t>& root_only, int jobs,
                       const std::function<ojson(std::size_t)>& compute,
                       const std::function<void(std::size_t, ojson)>& record,
                       const std::function<ojson(std::size_t, const std::string&)>& lost) {
  if (world_->rank == 0) {
    serve(anywhere, root_only, jobs, compute, record, lost);
  } else {
    work(jobs, compute);
  }
}

const MpiTransport kTransport{.init = init,
                              .finalize = finalize,
                              .abort = abort,
                              .broadcast_outcome = broadcast_outcome,
                              .distribute_points = distribute_points};

}  // namespace
}  // namespace crbench::mpi

CRBENCH_PLUGIN_ENTRY(mpi) { return &crbench::mpi::kTransport; }
