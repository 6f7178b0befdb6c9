// What the output code writes to and what --resume reuses: device nodes, FIFOs and links written
// through and left as they were, the modes of new and replaced files, temporaries of a writer
// that is gone removed, a resumed study or sweep equal to a fresh run whatever setting changed,
// and a rerun's folder holding only its own files.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "crbench/bench/output_file.hpp"
#include "crbench/bench/points.hpp"
#include "tests/support.hpp"

namespace crbench::testing::output_safety_tests {
namespace {

namespace fs = std::filesystem;

// A device node made here (never the system's /dev/null or /dev/full): false when this process
// may not make one (not root).
bool make_device(const fs::path& path, unsigned major_number, unsigned minor_number) {
  fs::remove(path);
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(major_number, minor_number)) != 0) {
    return false;
  }
  ::chmod(path.c_str(), 0666);
  return true;
}

std::string data_study(const std::string& file) {
  return std::string(CRBENCH_TEST_DATA) + "/studies/" + file;
}
fs::path data_sweep(const std::string& file) {
  return fs::path(CRBENCH_TEST_DATA) / "sweeps" / file;
}

bool is_char_device(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666;
}

std::vector<std::string> trajectory_run(const fs::path& path) {
  return {"run",       "--case", "dk-plane",     "--solver",   "event-driven",
          "--samples", "11",     "--trajectory", path.string()};
}

// Under /tmp itself, which the user nobody can traverse (the tests' TMPDIR may not be).
fs::path shared_dir(const std::string& name) {
  const fs::path dir = fs::path("/tmp") / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all);
  return dir;
}

}  // namespace

TEST_CASE("A trajectory onto a null device node writes through it, as root and as nobody",
          "[reliability]") {
  const fs::path dir = shared_dir("crbench-test-null");
  const fs::path null = dir / "null";
  if (!make_device(null, 1, 3)) {
    WARN("not root: no device node can be made here; the test is not run");
    return;
  }
  const CliResult r = cli(trajectory_run(null));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(is_char_device(null));
  // The user nobody, who may write to the node but not create files beside it.
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(98);
    _exit(cli(trajectory_run(null)).status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(is_char_device(null));
  fs::remove_all(dir);
}

TEST_CASE("A trajectory onto a full device node exits 2 and leaves it a device", "[reliability]") {
  const fs::path dir = shared_dir("crbench-test-full");
  const fs::path full = dir / "full";
  if (!make_device(full, 1, 7)) {
    WARN("not root: no device node can be made here; the test is not run");
    return;
  }
  const CliResult r = cli(trajectory_run(full));
  CHECK(r.status == 2);
  CHECK(one_line(r.err));
  CHECK_THAT(r.err, Catch::Contains("--trajectory: cannot write '" + full.string()));
  CHECK(is_char_device(full));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("A trajectory into a FIFO, directly or through a link: the reader gets the CSV",
          "[reliability]") {
  const fs::path dir = fresh_dir("fifo");
  fs::create_directories(dir);
  const fs::path expected_file = dir / "plain.csv";
  REQUIRE(cli(trajectory_run(expected_file)).status == 0);
  const std::string expected = read_text_file(expected_file);
  REQUIRE(expected.rfind("t,label,x,y", 0) == 0);
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_symlink(fifo, dir / "link");
  for (const fs::path& target : {fifo, dir / "link"}) {
    std::string received;
    std::thread reader([&] { received = read_text_file(fifo); });
    const CliResult r = cli(trajectory_run(target));
    reader.join();
    INFO(target << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(received == expected);
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  }
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link")));
}

TEST_CASE("Output files take the umask's mode, a replaced file keeps its own, a link stays a link",
          "[reliability]") {
  const fs::path dir = fresh_dir("modes");
  fs::create_directories(dir);
  const mode_t before = ::umask(022);
  ::umask(before);
  const auto mode_of = [](const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 0777;
  };
  CHECK(new_file_mode() == (0666u & ~static_cast<unsigned>(before)));
  write_output(dir / "new.txt", "a\n", "--out");
  CHECK(mode_of(dir / "new.txt") == new_file_mode());
  ::chmod((dir / "new.txt").c_str(), 0640);
  write_output(dir / "new.txt", "b\n", "--out");
  CHECK(mode_of(dir / "new.txt") == 0640);
  CHECK(read_text_file(dir / "new.txt") == "b\n");
  fs::create_symlink("new.txt", dir / "link.txt");
  write_output(dir / "link.txt", "c\n", "--out");
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link.txt")));
  CHECK(read_text_file(dir / "new.txt") == "c\n");
  CHECK(mode_of(dir / "new.txt") == 0640);
}

TEST_CASE("Temporaries left by a writer that is gone are removed, a running writer keeps its own",
          "[reliability]") {
  const fs::path dir = fresh_dir("partials");
  fs::create_directories(dir / "trajectories");
  // A process id that is no longer running: a child that has been waited for.
  const pid_t gone = fork();
  REQUIRE(gone >= 0);
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const std::string dead = std::to_string(gone), alive = std::to_string(getppid());
  const std::vector<fs::path> stale{dir / ("t.csv.partial-" + dead + "-aB3dE9"),
                                    dir / "t.csv.partial-Xy12Zq",
                                    dir / "trajectories" / ("a.csv.partial-" + dead + "-q1w2e3")};
  const fs::path running = dir / ("t.csv.partial-" + alive + "-r4t5y6");
  // Names that only look alike: a user's files.
  const std::vector<fs::path> others{dir / "t.csv.partial-draft", dir / "t.csv.partial-1-2",
                                     dir / ("t.csv.partial-" + dead + "-toolongname")};
  for (const auto& p : others) std::ofstream(p) << "mine";
  for (const auto& p : stale) std::ofstream(p) << "half";
  std::ofstream(running) << "half";
  write_output(dir / "t.csv", "whole\n", "--trajectory");
  CHECK_FALSE(fs::exists(stale[0]));
  CHECK_FALSE(fs::exists(stale[1]));
  CHECK(fs::exists(stale[2]));  // another file's, in another folder
  CHECK(fs::exists(running));
  for (const auto& p : others) CHECK(fs::exists(p));
  remove_stale_partials(dir, true);
  for (const auto& p : others) CHECK(fs::exists(p));
  CHECK_FALSE(fs::exists(stale[2]));
  CHECK(fs::exists(running));
}

namespace {

// The study tests below run eleven, four and two small studies: [slow] (release only; 2 minutes
// and more under the sanitizers).

// Every file of a folder by its path inside it, wall times left out (they differ from run to run).
std::map<std::string, std::string> folder_files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string text = read_text_file(entry.path());
    std::string kept;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("wall_time") == std::string::npos &&
          line.find("wall time") == std::string::npos) {
        kept += line + "\n";
      }
    }
    files[fs::relative(entry.path(), dir).generic_string()] = kept;
  }
  return files;
}

void check_same_folders(const fs::path& resumed, const fs::path& fresh) {
  const auto a = folder_files(resumed), b = folder_files(fresh);
  std::set<std::string> names;
  for (const auto& [name, text] : a) names.insert(name);
  for (const auto& [name, text] : b) names.insert(name);
  for (const auto& name : names) {
    INFO(name);
    REQUIRE(a.count(name) == 1);
    REQUIRE(b.count(name) == 1);
    CHECK(a.at(name) == b.at(name));
  }
}

// A study file written from JSON, for the mutations below.
fs::path write_json(const fs::path& path, const nlohmann::json& j) {
  std::ofstream(path) << j.dump(2);
  return path;
}

// The small study without its timings (work precision): every file of a run is deterministic.
nlohmann::json small_study() {
  std::ifstream in(data_study("small.json"));
  nlohmann::json j = nlohmann::json::parse(in);
  j.erase("work_precision");
  return j;
}

int converge_status(const fs::path& out, const fs::path& study, bool resume) {
  std::vector<std::string> args{"converge", "--study", study.string(), "--out", out.string(),
                                "--jobs",   "2",       "--no-figures"};
  if (resume) args.push_back("--resume");
  const CliResult r = cli(args);
  INFO(r.err);
  CHECK(r.err.find("internal_error") == std::string::npos);
  return r.status;
}

}  // namespace

TEST_CASE("A resumed study equals a fresh run whatever setting changed: horizon, N, observables",
          "[reliability][slow]") {
  const fs::path dir = fresh_dir("resume_settings");
  fs::create_directories(dir);
  const nlohmann::json base = small_study();
  const fs::path base_out = dir / "base";
  converge_status(base_out, write_json(dir / "base.json", base), false);
  std::vector<std::pair<std::string, nlohmann::json>> changes;
  nlohmann::json j = base;
  j["t_end"] = 3.5;
  changes.emplace_back("the study's t_end", j);
  j = base;
  j["models"][1]["t_end"] = 3.5;
  changes.emplace_back("a model's t_end", j);
  j = base;
  j["collapse"]["N"] = {1000};
  changes.emplace_back("the collapse's N", j);
  j = base;
  j["observables"] = {"lift_off_time", "max_q_deviation"};
  changes.emplace_back("the observables", j);
  j = base;
  j["tolerances"]["tight_factor"] = 10;
  changes.emplace_back("the tight factor", j);
  for (std::size_t k = 0; k < changes.size(); ++k) {
    INFO("changed: " << changes[k].first);
    const fs::path study =
        write_json(dir / ("changed" + std::to_string(k) + ".json"), changes[k].second);
    const fs::path resumed = dir / ("resumed" + std::to_string(k));
    const fs::path fresh = dir / ("fresh" + std::to_string(k));
    fs::copy(base_out, resumed, fs::copy_options::recursive);
    const int status = converge_status(resumed, study, true);
    CHECK(converge_status(fresh, study, false) == status);
    check_same_folders(resumed, fresh);
  }
}

TEST_CASE("A resumed sweep equals a fresh run with another horizon or check", "[reliability]") {
  const fs::path dir = fresh_dir("resume_sweep");
  fs::create_directories(dir);
  const nlohmann::json base = {
      {"name", "resume"},
      {"case", "dk-plane"},
      {"axes",
       {{{"name", "zeta"}, {"from", 0.1}, {"to", 10}, {"count", 3}, {"spacing", "log"}},
        {{"name", "omega0"}, {"from", 0.2}, {"to", 20}, {"count", 3}, {"spacing", "log"}}}},
      {"model", {{"alpha", 1}}},
      {"check", {{"N", 1e6}, {"stride", 2}}}};
  const auto sweep = [](const fs::path& out, const fs::path& file, bool resume) {
    std::vector<std::string> args{"sweep",      "--sweep", file.string(), "--out",
                                  out.string(), "--jobs",  "2",           "--no-figures"};
    if (resume) args.push_back("--resume");
    const CliResult r = cli(args);
    INFO(r.err);
    CHECK(r.status == 0);
  };
  sweep(dir / "base", write_json(dir / "base.json", base), false);
  nlohmann::json horizon = base, check = base;
  horizon["t_end"] = 2.5;
  check["check"]["N"] = 1e7;
  int k = 0;
  for (const auto& changed : {horizon, check}) {
    const fs::path file = write_json(dir / ("changed" + std::to_string(k) + ".json"), changed);
    const fs::path resumed = dir / ("resumed" + std::to_string(k));
    const fs::path fresh = dir / ("fresh" + std::to_string(k));
    fs::copy(dir / "base", resumed, fs::copy_options::recursive);
    sweep(resumed, file, true);
    sweep(fresh, file, false);
    check_same_folders(resumed, fresh);
    ++k;
  }
}

TEST_CASE("A line whose body is not its key's point is computed again by --resume",
          "[reliability][slow]") {
  const fs::path dir = fresh_dir("body_and_key");
  fs::create_directories(dir);
  const fs::path study = write_json(dir / "study.json", small_study());
  const fs::path out = dir / "out";
  converge_status(out, study, false);
  const auto before = folder_files(out);
  // The line of the viscous model at N = 1e4 takes the body of N = 1e2 (sealed again).
  std::vector<nlohmann::ordered_json> lines;
  {
    std::ifstream in(out / "points.jsonl");
    for (std::string text; std::getline(in, text);) {
      lines.push_back(nlohmann::ordered_json::parse(text));
    }
  }
  nlohmann::ordered_json* low = nullptr;
  nlohmann::ordered_json* high = nullptr;
  for (auto& line : lines) {
    if (line.value("kind", "") != "ladder" || line.value("model", "") != "viscous") continue;
    if (line["N"] == 100) low = &line;
    if (line["N"] == 10000) high = &line;
  }
  REQUIRE(low != nullptr);
  REQUIRE(high != nullptr);
  const std::string key = (*high)["key"];
  *high = *low;
  (*high)["key"] = key;
  seal(*high);
  {
    std::ofstream file(out / "points.jsonl");
    for (const auto& line : lines) file << line.dump() << "\n";
  }
  const CliResult r = cli(
      {"converge", "--study", study.string(), "--out", out.string(), "--no-figures", "--resume"});
  CHECK_THAT(r.err + r.out, Catch::Contains("1 of "));
  CHECK(folder_files(out) == before);
}

TEST_CASE("A rerun with other observables or trajectories leaves only its own files",
          "[reliability][slow]") {
  const fs::path dir = fresh_dir("rerun_files");
  fs::create_directories(dir);
  const fs::path out = dir / "out";
  nlohmann::json j = small_study();
  converge_status(out, write_json(dir / "first.json", j), false);
  REQUIRE(fs::exists(out / "final_q_deviation.md"));
  REQUIRE(fs::exists(out / "trajectories" / "viscous.N1e2.csv"));
  std::ofstream(out / "notes.txt") << "a user's own file\n";
  j["observables"] = {"lift_off_time", "max_q_deviation"};
  j["collapse"]["N"] = {1000};
  for (const bool resume : {true, false}) {
    INFO("resume " << resume);
    converge_status(out, write_json(dir / "second.json", j), resume);
    CHECK_FALSE(fs::exists(out / "final_q_deviation.md"));
    CHECK_FALSE(fs::exists(out / "final_q_deviation.csv"));
    CHECK_FALSE(fs::exists(out / "trajectories" / "viscous.N1e2.csv"));
    CHECK(fs::exists(out / "trajectories" / "viscous.N1e3.csv"));
    CHECK(fs::exists(out / "notes.txt"));
  }
  const fs::path fresh = dir / "fresh";
  converge_status(fresh, dir / "second.json", false);
  fs::remove(out / "notes.txt");
  check_same_folders(out, fresh);
}

TEST_CASE("Memory running out in a worker thread ends the sweep with a message, not an abort",
          "[reliability]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("AddressSanitizer maps terabytes of shadow memory: no address-space bound can be set");
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  WARN("AddressSanitizer maps terabytes of shadow memory: no address-space bound can be set");
  return;
#endif
#endif
  // Meant to run in a process of its own, as ctest runs every test: after other tests in the
  // same process, the heaps their threads left mapped can hold the sweep's buffers inside a
  // bound taken from the present size, and the sweep finishes (exit 0).
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // What this process has mapped now, and a little more: the second thread's stack (8 MiB)
    // and the points' buffers do not fit.
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    statm >> pages;
    const rlim_t limit = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (24u << 20);
    const rlimit bound{limit, limit};
    if (::setrlimit(RLIMIT_AS, &bound) != 0) _exit(97);
    const fs::path out = fs::temp_directory_path() / ("crbench-oom-" + std::to_string(getpid()));
    const int status = cli({"sweep", "--sweep", data_sweep("mpi.json").string(), "--out",
                            out.string(), "--jobs", "2", "--no-figures"})
                           .status;
    _exit(status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  INFO("exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << ", signal "
               << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  REQUIRE(WIFEXITED(status));
  // 1: the message that memory ran out (the bound is tight enough that the sweep cannot finish).
  CHECK(WEXITSTATUS(status) == 1);
}

}  // namespace crbench::testing::output_safety_tests
