// What the study commands (converge, sweep) share: the points run on K threads with
// points.jsonl appended as they finish (and read back by --resume), tables in Markdown, CSV and
// LaTeX, and the figure script run without a shell.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "crbench/bench/run_support.hpp"

namespace crbench {

class FigureQueue;

// What a folder command (converge, sweep) runs with: its --out folder, threads, --resume, figures
// and log.
struct FolderRunOptions {
  std::string out_dir;
  int jobs = 1;
  bool resume = false;
  bool figures = true;          // run scripts/figures.py (needs /usr/bin/python3 + matplotlib)
  std::ostream* log = nullptr;  // one line per finished stage (may be null)
  // Where set (with figures), the figures are drawn there, on a thread of its own, while the
  // caller goes on, and the folder is finished (its manifest) after them.
  FigureQueue* figure_queue = nullptr;
};

struct PointRunOptions {
  std::string name;  // the study's, for the progress line
  int jobs = 1;
  bool resume = false;
  bool progress_line = false;  // "points done/total, elapsed, ETA" on stderr
  // Points of higher cost are started first, so that a costly one does not start last and keep
  // the other threads (and ranks) idle at the end; none: in point order.
  std::function<double(std::size_t)> cost;
  // Points that must run on rank 0 under MPI (they write files of their own there).
  std::function<bool(std::size_t)> root_only;
};

struct PointRun {
  std::vector<nlohmann::ordered_json> lines;  // in point order
  std::vector<bool> resumed;                  // the line was read back from points.jsonl
  int computed = 0;
  // With resume: whole lines of points.jsonl not reused because no point of this run has their
  // key, `keep` refused them (computed with other settings) or their checksum does not match
  // (altered since written: every line carries one); their points are computed again.
  int discarded = 0;
  // Under MPI only rank 0 holds the lines and writes files; the other ranks return with none.
  bool writer = true;
};

// Sets a line's "checksum" (last field): FNV-1a of its JSON text without it; returns the sealed
// line's text (its dump()). run_points seals every line it records and reuses only intact lines;
// a caller that changes a line before it writes the final points.jsonl seals it again.
std::string seal(nlohmann::ordered_json& line);

// A fingerprint of a text (FNV-1a, 64 bits, hexadecimal; the checksum's function): what a
// point's line must carry to be reused by --resume.
std::string fingerprint_text(const std::string& text);

// x as a JSON number, or null where it is absent or not finite (JSON has no NaN).
nlohmann::ordered_json number_or_null(std::optional<double> x);

// The point with `keys[i]` is read back from `jsonl` (with resume) when its line parses, its
// status is neither internal_error nor wall_time_exceeded and `keep(i, line)` accepts it;
// every other point is computed by `compute(i)` on options.jobs threads (of every MPI rank when
// launched by mpirun: bench/mpi.hpp), its line appended and flushed by rank 0 as it completes
// (an interrupted run keeps it). A compute that throws gives a line with
// status internal_error and the message as its reason. `jsonl` is left holding the lines in
// completion order; the caller writes the final file (point order) from the result.
PointRun run_points(const std::filesystem::path& jsonl, const std::vector<std::string>& keys,
                    const std::function<nlohmann::ordered_json(std::size_t)>& compute,
                    const std::function<bool(std::size_t, const nlohmann::ordered_json&)>& keep,
                    const PointRunOptions& options);

// Creates the --out folder and locks it (OutputLock) on rank 0, the only rank that writes under
// MPI; an InputError naming the folder on every rank when it cannot. Holds the lock while alive.
std::unique_ptr<OutputLock> claim_output_folder(const std::filesystem::path& out);

// The files a study or sweep wrote into its --out folder, listed in manifest.txt there (paths
// relative to the folder, one a line, sorted). A rerun of the same folder with other settings
// (other observables, another case, other trajectories) removes what the previous manifest listed
// and this run neither wrote nor kept, so the folder holds only this run's files; a file no
// manifest listed (a user's own) is never touched. Rank 0 alone; nothing on the other ranks.
class OutputManifest {
 public:
  // Reads the previous manifest and marks the run's start (files written from now on are this
  // run's).
  explicit OutputManifest(const std::filesystem::path& out);
  // After the run's last file: `kept` are files of this run written by an earlier one (the
  // trajectories --resume reused), relative to the folder.
  void finish(const std::vector<std::string>& kept = {});

 private:
  std::filesystem::path out_;
  std::vector<std::string> previous_;
  std::filesystem::file_time_type start_{};
  bool active_ = false;
};

// Runs a program with these arguments, stdout and stderr to `log`, and waits for it; 0 when it
// exits with 0. No shell: the arguments (an --out path among them) are passed as they are. The
// program gets this process's environment and each NAME=value of `default_environment` whose
// NAME is not set in it.
int run_program(const std::vector<std::string>& args, const std::filesystem::path& log,
                const std::vector<std::string>& default_environment = {});

// scripts/figures.py on a folder; "" when it succeeded, else the message naming its log.
std::string run_figures(const std::filesystem::path& folder);

// Figures drawn on threads of their own (`workers`, each one folder at a time, taken in the order
// submitted) while the submitter goes on computing (the report draws a study's figures while the
// next one runs): each job runs run_figures on its folder, then its `then` with run_figures's
// answer, on that thread; jobs must not share a folder. wait() returns when every job has
// finished, and rethrows the first exception a `then` threw.
class FigureQueue {
 public:
  explicit FigureQueue(int workers = 1);
  ~FigureQueue();
  FigureQueue(const FigureQueue&) = delete;
  FigureQueue& operator=(const FigureQueue&) = delete;
  void submit(const std::filesystem::path& folder,
              std::function<void(const std::string& failure)> then);
  void wait();
  int drawn() const;      // folders whose figures were written
  int submitted() const;  // jobs submitted

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct Table {
  std::string title;
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::string csv_field(const std::string& s);
std::string markdown(const Table& t);
// stem.md, stem.csv and stem.tex.
void write_table(const std::filesystem::path& stem, const Table& t);

}  // namespace crbench
