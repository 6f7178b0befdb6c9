#include "crbench/bench/points.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "crbench/bench/mpi.hpp"
#include "crbench/bench/output_file.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/params.hpp"
#include "crbench/solvers/solver.hpp"
#include "crbench/version.hpp"

namespace crbench {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// Memory kept aside while points run. The first allocation that fails frees it (the new-handler)
// and is tried again, and every solve is asked to stop (request_interrupt) so that no new point
// starts: what follows — unwinding, the records, nlohmann::json's destructors, which allocate and
// end the process when they cannot — runs in the memory freed, and run_points ends with a message
// instead of std::terminate, the points finished before kept in points.jsonl.
std::atomic<void*> reserve_block{nullptr};
std::atomic<bool> memory_ran_out{false};
constexpr std::size_t kReserveBytes = 16u << 20;

void on_out_of_memory() {
  if (void* block = reserve_block.exchange(nullptr); block != nullptr) {
    std::free(block);
    memory_ran_out = true;
    request_interrupt(true);
    return;
  }
  std::set_new_handler(nullptr);  // nothing left: the allocation throws std::bad_alloc
}

// Sets the reserve aside and the handler for the life of the object.
class MemoryReserve {
 public:
  MemoryReserve() {
    memory_ran_out = false;
    void* none = nullptr;
    void* block = std::malloc(kReserveBytes);
    if (block != nullptr && !reserve_block.compare_exchange_strong(none, block)) std::free(block);
    previous_ = std::set_new_handler(on_out_of_memory);
  }
  ~MemoryReserve() {
    std::set_new_handler(previous_);
    std::free(reserve_block.exchange(nullptr));
    if (memory_ran_out) request_interrupt(false);
  }
  MemoryReserve(const MemoryReserve&) = delete;
  MemoryReserve& operator=(const MemoryReserve&) = delete;

 private:
  std::new_handler previous_ = nullptr;
};

// The integrity mark of a line: FNV-1a (64 bits, hexadecimal) of the line's JSON text without its
// own "checksum" field. A line read back by --resume is reused only when its mark matches, so a
// line cut, edited or corrupted on disk is computed again rather than put in the tables (a
// number turned into a string there ended the command with an internal error, or went into the
// grid as it was).
std::string checksum_of(const ojson& line);
std::string checksum_of_text(const std::string& text);

}  // namespace

std::string fingerprint_text(const std::string& text) { return checksum_of_text(text); }

ojson number_or_null(std::optional<double> x) {
  return x && std::isfinite(*x) ? ojson(*x) : ojson();
}

std::string seal(ojson& line) {
  line.erase("checksum");
  std::string text = line.dump();
  const std::string mark = checksum_of_text(text);
  line["checksum"] = mark;
  // The sealed line's own dump, without dumping it again: the compact text of an ordered object
  // whose last field is now the checksum.
  text.pop_back();
  text += std::string(text.size() > 1 ? "," : "") + "\"checksum\":\"" + mark + "\"}";
  return text;
}

namespace {

std::string checksum_of(const ojson& line) { return checksum_of_text(line.dump()); }

std::string checksum_of_text(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

bool intact(ojson line) {
  const auto it = line.find("checksum");
  if (it == line.end() || !it->is_string()) return false;
  const std::string mark = it->get<std::string>();
  line.erase(it);
  return mark == checksum_of(line);
}

// The lines points.jsonl could not take go to a fallback file (next to the --out folder, else
// in the temporary folder, else on stderr as JSON lines); OutputError says where and how to put
// them back, so that --resume reuses them.
[[noreturn]] void save_unsaved(const fs::path& jsonl, const std::vector<ojson>& lines,
                               const std::vector<std::size_t>& unsaved, int append_errno) {
  // A first empty line: appended after a line the full disk cut short, the first point still
  // starts a line of its own.
  const auto count = [](std::size_t n) {
    return std::to_string(n) + (n == 1 ? " point" : " points");
  };
  std::string text = "\n";
  for (const std::size_t i : unsaved) text += lines[i].dump() + "\n";
  const std::string why = append_errno != 0
                              ? std::error_code(append_errno, std::generic_category()).message()
                              : std::string("an unwritable folder or a full disk");
  const std::string head = "--out: cannot append to '" + jsonl.string() + "' (" + why + "); ";
  if (unsaved.empty()) throw OutputError(head + "no computed point is missing from it");
  const fs::path out = jsonl.parent_path();
  const std::string stem = (out.filename().empty() ? fs::path("out") : out.filename()).string();
  std::vector<fs::path> folders;
  if (!out.parent_path().empty()) folders.push_back(out.parent_path());
  if (out.parent_path().empty()) folders.emplace_back(".");
  std::error_code error;
  const fs::path temporary = fs::temp_directory_path(error);
  if (!error) folders.push_back(temporary);
  for (const fs::path& folder : folders) {
    std::string name = (folder / (stem + ".unsaved-points-XXXXXX.jsonl")).string();
    const int fd = ::mkstemps(name.data(), 6);
    if (fd < 0) continue;
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    const bool whole = done == text.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!whole) {
      ::unlink(name.c_str());
      continue;
    }
    throw OutputError(head + "the " + count(unsaved.size()) + " computed after it failed " +
                      (unsaved.size() == 1 ? "is" : "are") + " in '" + name +
                      "': once there is room, append them (cat '" + name + "' >> '" +
                      jsonl.string() + "') and run again with --resume");
  }
  std::fputs(text.c_str(), stderr);
  throw OutputError(head + "no fallback file could be written either: the " +
                    count(unsaved.size()) + " computed after it failed " +
                    (unsaved.size() == 1 ? "is the JSON line" : "are the JSON lines") +
                    " above on stderr; append them to that file and run again with --resume");
}

// The lines of `jsonl` that --resume reuses, into run.lines and run.resumed (see run_points);
// run.discarded counts the whole lines it does not.
void read_back(const fs::path& jsonl, const std::vector<std::string>& keys,
               const std::function<bool(std::size_t, const ojson&)>& keep, PointRun& run) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
  std::ifstream in(jsonl);
  std::string text;
  while (std::getline(in, text)) {
    // A line cut short by an interruption does not parse; its point is computed again.
    const ojson line = ojson::parse(text, nullptr, false);
    if (line.is_discarded() || !line.is_object() || !line.contains("key") ||
        !line["key"].is_string()) {
      continue;
    }
    const auto it = index.find(line["key"].get<std::string>());
    if (it == index.end()) {
      ++run.discarded;
      continue;
    }
    // A point that failed inside crbench (not a solver status), or that the wall-time bound
    // stopped, is tried again.
    // (Read without trusting the line: a status that is not a string is no status.)
    const std::optional<Status> status = status_in(line);
    if (status == Status::internal_error || status == Status::wall_time_exceeded ||
        status == Status::output_error || status == Status::rank_lost) {
      continue;
    }
    if (!intact(line)) {
      ++run.discarded;
      continue;
    }
    if (!keep(it->second, line)) {
      ++run.discarded;
      continue;
    }
    run.lines[it->second] = line;
    run.resumed[it->second] = true;
  }
}

// The points `todo` on up to `jobs` threads of this process: compute(i) on any thread, record(i,
// line) on one at a time. Stops taking points once an interrupt is requested (a point whose solves
// it cut short is not recorded: --resume computes it). What a thread could not keep to itself
// (memory running out while a finished point is recorded) stops every thread and is thrown once
// they are joined, as it would be with one thread; the points recorded so far stay recorded.
void compute_on_threads(const std::vector<std::size_t>& todo, int jobs_asked,
                        const std::function<ojson(std::size_t)>& compute,
                        const std::function<void(std::size_t, ojson)>& record) {
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  const auto worker = [&]() {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size() || interrupt_requested()) return;
      const std::size_t i = todo[k];
      try {
        ojson line = compute(i);
        if (interrupt_requested()) return;
        const std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
        record(i, std::move(line));
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = todo.size();
        return;
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(jobs_asked, static_cast<int>(todo.size())));
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) {
    // A thread that cannot be started (no memory for its stack) leaves its share to the others.
    try {
      threads.emplace_back(worker);
    } catch (const std::exception&) {
      break;
    }
  }
  worker();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

PointRun run_points(const fs::path& jsonl, const std::vector<std::string>& keys,
                    const std::function<ojson(std::size_t)>& compute,
                    const std::function<bool(std::size_t, const ojson&)>& keep,
                    const PointRunOptions& options) {
  PointRun run;
  run.writer = mpi::is_root();
  std::optional<MemoryReserve> reserve;
  if (mpi::world().size == 1) reserve.emplace();
  std::vector<std::size_t> todo;
  std::ofstream append;
  mpi::on_root([&]() {
    run.lines.assign(keys.size(), ojson());
    run.resumed.assign(keys.size(), false);
    if (options.resume && fs::exists(jsonl)) read_back(jsonl, keys, keep, run);
    // Rewritten with the kept lines only, then appended to as points complete.
    std::ostringstream rewrite;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (run.resumed[i]) rewrite << run.lines[i].dump() << "\n";
    }
    write_file(jsonl, rewrite.str());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!run.resumed[i]) todo.push_back(i);
    }
    if (options.cost) {
      std::stable_sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
        return options.cost(a) > options.cost(b);
      });
    }
    append.open(jsonl, std::ios::app);
  });
  // A file of the point that cannot be written (its trajectory on a full disk) ends the point
  // with status output_error (computed again by --resume) and the command with exit status 2.
  std::string output_error;
  const auto safe_compute = [&](std::size_t i) {
    try {
      return compute(i);
    } catch (const OutputError& e) {
      return ojson{{"key", keys[i]}, {"status", Status::output_error}, {"reason", e.what()}};
    } catch (const std::exception& e) {
      // Kept as a record so that the other points are still written.
      return ojson{{"key", keys[i]}, {"status", Status::internal_error}, {"reason", e.what()}};
    }
  };
  // Each finished point is appended and flushed at once: an interrupted study keeps it. Once an
  // append fails (a full disk) the points finished from then on stay in memory (`unsaved`) and
  // go to a fallback file at the end (save_unsaved).
  bool append_failed = run.writer && !append;
  int append_errno = append_failed ? errno : 0;
  std::vector<std::size_t> unsaved;
  std::size_t finished = 0;
  const auto start = std::chrono::steady_clock::now();
  // Called by one thread at a time.
  const auto record = [&](std::size_t i, ojson line) {
    const std::string text = seal(line);
    if (!append_failed) {
      errno = 0;
      append << text << "\n";
      append.flush();
      if (!append) {
        append_failed = true;
        append_errno = errno;
      }
    }
    if (append_failed) unsaved.push_back(i);
    // (Under MPI the point may have been computed on another rank.)
    if (output_error.empty() && status_in(line) == Status::output_error) {
      output_error = line.value("reason", std::string());
    }
    run.lines[i] = std::move(line);
    ++finished;
    if (!options.progress_line) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta =
        elapsed * static_cast<double>(todo.size() - finished) / static_cast<double>(finished);
    std::fprintf(stderr, "\r%s: %zu/%zu points, %.0f s elapsed, ETA %.0f s   ",
                 options.name.c_str(), finished, todo.size(), elapsed, eta);
    std::fflush(stderr);
  };
  if (mpi::world().size > 1) {
    std::vector<std::size_t> anywhere, root_only;
    for (const std::size_t i : todo) {
      (options.root_only && options.root_only(i) ? root_only : anywhere).push_back(i);
    }
    const auto lost = [&](std::size_t i, const std::string& reason) {
      return ojson{{"key", keys[i]}, {"status", Status::rank_lost}, {"reason", reason}};
    };
    mpi::distribute_points(anywhere, root_only, std::max(1, options.jobs), safe_compute, record,
                           lost);
  } else {
    compute_on_threads(todo, options.jobs, safe_compute, record);
  }
  if (memory_ran_out) {
    throw std::runtime_error("out of memory while computing points (std::bad_alloc); the " +
                             std::to_string(finished) + " points finished before are in " +
                             jsonl.string() + ", and --resume computes the rest");
  }
  if (interrupt_requested()) {
    throw Interrupted("interrupted; the points finished before are in " + jsonl.string());
  }
  if (!run.writer) return run;
  if (options.progress_line) std::fprintf(stderr, "\n");
  append.close();
  if (append_failed) save_unsaved(jsonl, run.lines, unsaved, append_errno);
  if (!output_error.empty()) {
    throw OutputError(output_error +
                      "; the point that wrote it has status output_error, and --resume computes "
                      "it again");
  }
  run.computed = static_cast<int>(todo.size());
  for (const std::size_t i : todo) {
    // Points handed to a rank that was given up were not computed (bench/mpi.hpp).
    if (status_in(run.lines[i]) == Status::rank_lost) --run.computed;
  }
  return run;
}

std::unique_ptr<OutputLock> claim_output_folder(const fs::path& out) {
  std::unique_ptr<OutputLock> lock;
  mpi::on_root([&]() {
    std::error_code error;
    fs::create_directories(out, error);
    if (error || !fs::is_directory(out)) {
      throw InputError(
          "--out: cannot create the folder '" + out.string() + "'" +
          (error ? " (" + error.message() + ")" : std::string(" (a file is in the way)")));
    }
    lock = std::make_unique<OutputLock>(out);
    // Temporaries left by an interrupted earlier run.
    remove_stale_partials(out, true);
  });
  return lock;
}

namespace {

constexpr const char* kManifest = "manifest.txt";

// A manifest's line names a file inside the folder: relative, without "..".
bool inside(const fs::path& relative) {
  if (relative.empty() || relative.is_absolute()) return false;
  return std::none_of(relative.begin(), relative.end(),
                      [](const fs::path& part) { return part == ".." || part == "."; });
}

}  // namespace

OutputManifest::OutputManifest(const fs::path& out) : out_(out) {
  mpi::on_root([&]() {
    active_ = true;
    std::ifstream in(out_ / kManifest);
    for (std::string line; std::getline(in, line);) {
      if (inside(line)) previous_.push_back(line);
    }
    // The start as the file system's own clock gives it (its timestamps are coarser than the
    // steady clock's): the mtime of a file written now.
    const fs::path marker = out_ / ".manifest-start";
    write_file(marker, "");
    std::error_code error;
    start_ = fs::last_write_time(marker, error);
    fs::remove(marker, error);
  });
}

void OutputManifest::finish(const std::vector<std::string>& kept) {
  if (!active_) return;
  std::set<std::string> written;
  for (const std::string& name : kept) {
    std::error_code e;
    if (inside(name) && fs::is_regular_file(out_ / name, e)) written.insert(name);
  }
  std::error_code error;
  for (fs::recursive_directory_iterator it(out_, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code e;
    if (!it->is_regular_file(e) || it->is_symlink(e)) continue;
    const std::string relative = fs::relative(it->path(), out_, e).generic_string();
    if (e || relative == kManifest) continue;
    if (fs::last_write_time(it->path(), e) >= start_ && !e) written.insert(relative);
  }
  for (const std::string& name : previous_) {
    if (written.count(name) != 0) continue;
    std::error_code e;
    if (fs::is_regular_file(fs::symlink_status(out_ / name, e))) fs::remove(out_ / name, e);
  }
  std::string text;
  for (const std::string& name : written) text += name + "\n";
  write_file(out_ / kManifest, text);
}

// No shell: no quote or metacharacter in the arguments is ever interpreted.
int run_program(const std::vector<std::string>& args, const fs::path& log,
                const std::vector<std::string>& default_environment) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  std::vector<std::string> storage(args);
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The caller's environment, plus each NAME=value of default_environment whose NAME it lacks.
  std::vector<std::string> added;
  for (const auto& entry : default_environment) {
    if (std::getenv(entry.substr(0, entry.find('=')).c_str()) == nullptr) added.push_back(entry);
  }
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (auto& entry : added) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string run_figures(const fs::path& folder) {
  const fs::path script = data_path("scripts/figures.py");
  // NumPy's OpenBLAS would start a thread per core that spins between the small operations of a
  // figure: about a second of CPU per folder, for nothing (unless the user sets it).
  const int status = run_program({"/usr/bin/python3", script.string(), folder.string()},
                                 folder / "figures.log", {"OPENBLAS_NUM_THREADS=1"});
  if (status != 0) return "figures not written (see " + (folder / "figures.log").string() + ")";
  fs::remove(folder / "figures.log");
  return "";
}

struct FigureQueue::State {
  struct Job {
    fs::path folder;
    std::function<void(const std::string&)> then;
  };
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<Job> jobs;
  int busy = 0;  // jobs being drawn
  bool stop = false;
  int drawn = 0;
  int submitted = 0;
  std::exception_ptr failure;
  std::vector<std::thread> workers;

  void work() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || !jobs.empty(); });
        if (jobs.empty()) return;
        job = std::move(jobs.front());
        jobs.pop_front();
        ++busy;
      }
      std::exception_ptr thrown;
      bool written = false;
      try {
        const std::string message = run_figures(job.folder);
        written = message.empty();
        job.then(message);
      } catch (...) {
        thrown = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      drawn += written ? 1 : 0;
      if (thrown && !failure) failure = thrown;
      --busy;
      changed.notify_all();
    }
  }
};

FigureQueue::FigureQueue(int workers) : state_(std::make_unique<State>()) {
  for (int i = 0; i < std::max(1, workers); ++i) {
    state_->workers.emplace_back([this] { state_->work(); });
  }
}

FigureQueue::~FigureQueue() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->changed.notify_all();
  for (std::thread& worker : state_->workers) worker.join();
}

void FigureQueue::submit(const fs::path& folder,
                         std::function<void(const std::string& failure)> then) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->jobs.push_back({folder, std::move(then)});
    ++state_->submitted;
  }
  state_->changed.notify_all();
}

void FigureQueue::wait() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->jobs.empty() && state_->busy == 0; });
  if (state_->failure) std::rethrow_exception(std::exchange(state_->failure, nullptr));
}

int FigureQueue::drawn() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->drawn;
}

int FigureQueue::submitted() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->submitted;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
// Text for LaTeX's text mode: its special characters escaped; a power of ten written 10^x (an N
// between decades) becomes $10^{x}$, as TeX reads ^ only in math mode.
std::string tex_field(const std::string& s) {
  // A cell that begins with '[' follows a line break in the table: "{}" keeps it from being read
  // as the break's optional skip.
  std::string out = s.starts_with('[') ? "{}" : "";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '^') {
      std::size_t end = i + 1;
      while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.' ||
                                s[end] == '-' || s[end] == '+')) {
        ++end;
      }
      const std::size_t base = out.size() >= 2 && out.compare(out.size() - 2, 2, "10") == 0
                                   ? out.size() - 2
                                   : std::string::npos;
      if (base != std::string::npos && end > i + 1) {
        out = out.substr(0, base) + "$10^{" + s.substr(i + 1, end - i - 1) + "}$";
        i = end - 1;
      } else {
        out += "\\textasciicircum{}";
      }
    } else if (c == '_' || c == '&' || c == '%' || c == '#' || c == '$' || c == '{' || c == '}') {
      out += '\\';
      out += c;
    } else if (c == '~') {
      out += "\\textasciitilde{}";
    } else if (c == '\\') {
      out += "\\textbackslash{}";
    } else if (c == '<' || c == '>' || c == '|') {
      out += std::string("$") + c + "$";
    } else {
      out += c;
    }
  }
  return out;
}

// A header cell in lines of at most about 10 characters (a nested tabular), so that a table of
// many columns keeps its width.
std::string tex_header(const std::string& s) {
  std::vector<std::string> lines{""};
  std::istringstream words(s);
  for (std::string word; words >> word;) {
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > 10) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  if (lines.size() == 1) return tex_field(s);
  std::string out = "\\begin{tabular}[b]{@{}c@{}}";
  // tex_field keeps a line that begins with '[' (a unit, "[length]") from being read as the
  // break's optional skip.
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\\\\ " : "") + tex_field(lines[i]);
  return out + "\\end{tabular}";
}

std::string markdown(const Table& t) {
  std::ostringstream md;
  md << "| " << t.header[0];
  for (std::size_t i = 1; i < t.header.size(); ++i) md << " | " << t.header[i];
  md << " |\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& r : t.rows) {
    md << "|";
    for (const auto& c : r) md << " " << (c.empty() ? "-" : c) << " |";
    md << "\n";
  }
  return md.str();
}

void write_table(const fs::path& stem, const Table& t) {
  {
    std::ostringstream text;
    text << "### " << t.title << "\n\n" << t.caption << "\n\n" << markdown(t);
    write_file(stem.string() + ".md", text.str());
  }
  std::ostringstream csv;
  for (std::size_t i = 0; i < t.header.size(); ++i) csv << (i ? "," : "") << csv_field(t.header[i]);
  csv << "\n";
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < r.size(); ++i) csv << (i ? "," : "") << csv_field(r[i]);
    csv << "\n";
  }
  write_file(stem.string() + ".csv", csv.str());
  // LaTeX: a cell of more than kLongCell characters (a verdict sentence) keeps its first clause
  // (up to ':') with a note number, and the whole sentence goes to the numbered notes under the
  // table; headers wrap; the table is set in \footnotesize with narrow column gaps, its first
  // column (the labels) wraps at 3 cm when the table has more than 6 columns, and the tabular is
  // scaled down to the line width only if it is still wider.
  constexpr std::size_t kLongCell = 40;
  std::vector<std::string> notes;
  std::ostringstream tex;
  tex << "% " << t.title << " (crbench " << version
      << "; needs \\usepackage{booktabs}, \\usepackage{graphicx} and \\usepackage{array})\n"
      << "\\begin{table}\n\\centering\n\\caption{" << tex_field(t.caption) << "}\n"
      << "\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
      << "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
      << "\\begin{tabular}{"
      << (t.header.size() > 6 ? "@{}>{\\raggedright\\arraybackslash}p{3cm}" : "l")
      << std::string(t.header.size() - 1, 'r') << "@{}}\n\\toprule\n";
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    tex << (i ? " & " : "") << tex_header(t.header[i]);
  }
  tex << " \\\\\n\\midrule\n";
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string cell = r[i];
      if (i > 0 && cell.size() > kLongCell) {
        notes.push_back(cell);
        const std::size_t colon = cell.find(':');
        cell = colon != std::string::npos && colon <= kLongCell ? cell.substr(0, colon) : "see";
        cell = tex_field(cell) + "\\textsuperscript{" + std::to_string(notes.size()) + "}";
      } else {
        cell = tex_field(cell);
      }
      tex << (i ? " & " : "") << cell;
    }
    tex << " \\\\\n";
  }
  tex << "\\bottomrule\n\\end{tabular}}\n";
  if (!notes.empty()) {
    tex << "\\par\\smallskip\n\\begin{minipage}{\\linewidth}\\footnotesize\n";
    for (std::size_t n = 0; n < notes.size(); ++n) {
      tex << "\\textsuperscript{" << n + 1 << "}~" << tex_field(notes[n]) << "\\par\n";
    }
    tex << "\\end{minipage}\n";
  }
  tex << "\\end{table}\n";
  write_file(stem.string() + ".tex", tex.str());
}

}  // namespace crbench
