// Google Benchmark: a case written by hand in C++ beside the same case defined in JSON and compiled
// into a case plugin (python/crbench_case.py, cases/case_plugin.hpp): dk-plane and
// particle-on-circle against examples/python/dk_plane.json and particle_on_circle.json, with
// event-driven and the realization, to the built-in case's horizon. The plugins are built with
// this program (CMakeLists.txt) when python3-sympy is there; otherwise these benchmarks are
// skipped with that reason.
#include <benchmark/benchmark.h>

#include <string>

#include "crbench/bench/perf/solve_repeatedly.hpp"
#include "crbench/cases/case_plugin.hpp"

namespace {

#ifdef CRBENCH_PERF_CASE_PLUGINS
const bool plugins_loaded = [] {
  crbench::load_case_folder(CRBENCH_PERF_CASE_PLUGINS, "perf case plugins");
  return true;
}();
#endif

void solve_case(benchmark::State& state, const std::string& hand_written, bool generated,
                const std::string& solver, const std::vector<crbench::Assignment>& params) {
#ifndef CRBENCH_PERF_CASE_PLUGINS
  if (generated) {
    state.SkipWithError("the case plugins were not built (python3-sympy missing at build time)");
    return;
  }
#endif
  const double t_end = crbench::make_model(hand_written, {})->horizon();
  crbench::perf::solve_repeatedly(state, generated ? hand_written + "-json" : hand_written, solver,
                                  params, {}, t_end);
}

void BM_CaseEventDriven(benchmark::State& state, const char* name, bool generated) {
  solve_case(state, name, generated, "event-driven", {});
}
void BM_CaseRealization(benchmark::State& state, const char* name, bool generated) {
  solve_case(state, name, generated, "realization", {{"N", "1e6"}, {"preset", "viscous"}});
}

BENCHMARK_CAPTURE(BM_CaseEventDriven, dk_plane_hand_written, "dk-plane", false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseEventDriven, dk_plane_from_json, "dk-plane", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseEventDriven, particle_on_circle_hand_written, "particle-on-circle", false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseEventDriven, particle_on_circle_from_json, "particle-on-circle", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseRealization, dk_plane_hand_written, "dk-plane", false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseRealization, dk_plane_from_json, "dk-plane", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseRealization, particle_on_circle_hand_written, "particle-on-circle", false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CaseRealization, particle_on_circle_from_json, "particle-on-circle", true)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
