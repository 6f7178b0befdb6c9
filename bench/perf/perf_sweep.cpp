// Google Benchmark: the sweep's unit of work and the sweep itself on dk-plane (Deryabin & Kozlov
// 1995 §6) at the default tolerances (rtol 1e-12, atol 1e-14).
//   BM_LimitDkPlanePoint/<integrator>: one limit solve at (α, β, γ) = (1, 0.7, 2) (ζ = 0.25,
//     ω₀ = √2), the solve alone as `wall_time_s`; dop853 is the limit's default, dopri5 the other
//     choice.
//   BM_SweepDkPlane2500: bench/sweeps/scaling/dk-plane-2500.json without its checks (a 50 × 50
//     (ζ, ω₀) map, the limit at every point), one thread, files and all but the figure.
//   BM_SweepDkPlaneCube/<jobs>: a 20 × 20 × 10 (ζ, ω₀, α) cube (4000 points), the report's
//     dk-plane-cube at a coarser grid, on 1 and 2 threads.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "crbench/bench/sweep.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace {

namespace fs = std::filesystem;

void BM_LimitDkPlanePoint(benchmark::State& state, const char* integrator) {
  const auto model = crbench::make_model("dk-plane", {});
  const crbench::Solver& solver = crbench::find_solver("limit");
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(
      solver, {{"alpha", "1"}, {"beta", "0.7"}, {"gamma", "2"}, {"integrator", integrator}},
      settings);
  long steps = 0, evaluations = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != crbench::Status::ok || !r.lift_off_time) state.SkipWithError("solve failed");
    steps = r.steps;
    evaluations = r.rhs_evaluations;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["rhs_evaluations"] = static_cast<double>(evaluations);
}
BENCHMARK_CAPTURE(BM_LimitDkPlanePoint, dop853, "dop853")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LimitDkPlanePoint, dopri5, "dopri5")->Unit(benchmark::kMicrosecond);

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("crbench-perf-" + name + "-" + std::to_string(::getpid()));
}

void run_sweep_repeatedly(benchmark::State& state, const nlohmann::json& file, int jobs) {
  const crbench::Sweep sweep = crbench::parse_sweep(file);
  const fs::path out = scratch(sweep.name);
  crbench::SweepOptions options;
  options.out_dir = out.string();
  options.jobs = jobs;
  options.figures = false;
  int points = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(out);
    state.ResumeTiming();
    const crbench::SweepResult result = crbench::run_sweep(sweep, options);
    if (result.points_computed != result.points_total) state.SkipWithError("points not computed");
    points = result.points_total;
  }
  fs::remove_all(out);
  state.counters["points"] = points;
  state.counters["time_per_point"] =
      benchmark::Counter(static_cast<double>(points) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

nlohmann::json axis(const char* name, double from, double to, int count) {
  return {{"name", name}, {"from", from}, {"to", to}, {"count", count}, {"spacing", "log"}};
}

void BM_SweepDkPlane2500(benchmark::State& state) {
  const nlohmann::json file = {{"name", "perf-dk-plane-2500"},
                               {"case", "dk-plane"},
                               {"axes", {axis("zeta", 0.05, 20, 50), axis("omega0", 0.1, 20, 50)}},
                               {"model", {{"alpha", 1}}}};
  run_sweep_repeatedly(state, file, 1);
}
BENCHMARK(BM_SweepDkPlane2500)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_SweepDkPlaneCube(benchmark::State& state) {
  const nlohmann::json file = {
      {"name", "perf-dk-plane-cube"},
      {"case", "dk-plane"},
      {"axes",
       {axis("zeta", 0.05, 20, 20), axis("omega0", 0.1, 20, 20), axis("alpha", 0.1, 10, 10)}}};
  run_sweep_repeatedly(state, file, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_SweepDkPlaneCube)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2)
    ->UseRealTime();

}  // namespace
