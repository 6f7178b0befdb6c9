// Google Benchmark: a whole crbench process, as a script that calls crbench thousands of times
// sees it (`crbench_perf --benchmark_filter=Process`): start-up (the dynamic loader, static
// initialisation), the command line, a solve and the exit. The back-ends' libraries are not part
// of it (solvers/plugin.hpp): the siconos-moreau-jean run loads the Siconos kernel's plugin, which
// is the price of a command that needs one.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

extern char** environ;

namespace {

void run_process(benchmark::State& state, const std::vector<std::string>& arguments) {
  std::string program = CRBENCH_PROGRAM;
  std::vector<std::string> words = arguments;
  std::vector<char*> argv{program.data()};
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t child = 0;
    int status = 0;
    if (posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ) != 0 ||
        waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("crbench did not run and exit with status 0");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
}

void BM_ProcessEventDrivenDkPlane(benchmark::State& state) {
  run_process(state, {"run", "--case", "dk-plane", "--solver", "event-driven"});
}
BENCHMARK(BM_ProcessEventDrivenDkPlane)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProcessList(benchmark::State& state) { run_process(state, {"list"}); }
BENCHMARK(BM_ProcessList)->Unit(benchmark::kMillisecond)->UseRealTime();

#ifdef CRBENCH_HAVE_SICONOS
void BM_ProcessSiconosMoreauJeanBall(benchmark::State& state) {
  run_process(state, {"run", "--case", "bouncing-ball-siconos", "--solver", "siconos-moreau-jean"});
}
BENCHMARK(BM_ProcessSiconosMoreauJeanBall)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

}  // namespace
