#include "tests/support.hpp"

#include <boost/math/tools/toms748_solve.hpp>
#include <boost/numeric/odeint.hpp>
#include <fstream>

namespace crbench::testing {

double fitted_slope(const std::vector<double>& x, const std::vector<double>& y) {
  for (const double v : y) {
    if (!(v > 0.0) || !std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  }
  return log_log_slope(x, y).value_or(std::numeric_limits<double>::quiet_NaN());
}

RunRecord solve(const Model& model, const SolveOptions& o) {
  const Solver& solver = find_solver(o.solver);
  RunSettings s;
  s.rtol = o.rtol;
  s.atol = o.atol;
  s.t_end = std::isnan(o.t_end) ? model.horizon() : o.t_end;
  configure_solver(solver, o.solver_params, s);
  s.output_times = o.output_times;
  s.on_sample = o.on_sample;
  return solver.run(model, s);
}

std::vector<double> grid(double t0, double t1, int count) {
  std::vector<double> t(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) t[static_cast<std::size_t>(i)] = t0 + (t1 - t0) * i / (count - 1);
  return t;
}

void check_jacobian_columns(const Eigen::MatrixXd& jac,
                            const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& rhs,
                            const Eigen::VectorXd& y, double rel) {
  for (Eigen::Index j = 0; j < y.size(); ++j) {
    const Eigen::VectorXd column = derivative([&](double h) {
      Eigen::VectorXd shifted = y;
      shifted(j) += h;
      return rhs(shifted);
    });
    INFO("column " << j);
    CHECK(close(jac.col(j), column, rel));
  }
}

bool close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double rel) {
  const double scale = std::max(1.0, b.lpNorm<Eigen::Infinity>());
  return (a - b).lpNorm<Eigen::Infinity>() <= rel * scale;
}

void check_realization_jacobian(const Model& model, const State& x, Modes modes,
                                const std::vector<char>& in_medium,
                                const std::vector<char>& pushing, const Medium& medium) {
  const auto qdd = [&](const State& y) {
    Point p;
    model.evaluate(y, modes, p);
    return acceleration<double>(p, y.v, in_medium, pushing, medium, nullptr);
  };
  RealizationJacobianWork work;
  Eigen::MatrixXd jac;
  Eigen::VectorXd dfdt;
  const VelocityChart identity = VelocityChart::identity(model.dof());
  realization_jacobian(model, identity, x.t, identity.point(model, x), modes, in_medium, pushing,
                       medium, work, jac, dfdt);
  const int n = model.dof();
  for (int j = 0; j < 2 * n; ++j) {
    const Eigen::VectorXd column = derivative([&](double h) {
      State y = x;
      (j < n ? y.q(j) : y.v(j - n)) += h;
      return qdd(y);
    });
    INFO(model.info().name << " column " << j);
    CHECK(close(jac.block(n, j, n, 1), column, 1e-7));
  }
  const Eigen::VectorXd time_column = derivative([&](double h) {
    State y = x;
    y.t += h;
    return qdd(y);
  });
  CHECK(close(dfdt.tail(n), time_column, 1e-7));
}

double step_response(double a, double b, double c, double t) {
  if (t <= 0.0) return 0.0;
  const double disc = b * b - 4.0 * a * c;
  const double sigma = b / (2.0 * a);
  if (disc < 0.0) {
    const double w = std::sqrt(-disc) / (2.0 * a);
    return (1.0 - std::exp(-sigma * t) * (std::cos(w * t) + sigma / w * std::sin(w * t))) / c;
  }
  if (disc == 0.0) return (1.0 - std::exp(-sigma * t) * (1.0 + sigma * t)) / c;
  const double r1 = (-b + std::sqrt(disc)) / (2.0 * a), r2 = (-b - std::sqrt(disc)) / (2.0 * a);
  return (1.0 + (r2 * std::exp(r1 * t) - r1 * std::exp(r2 * t)) / (r1 - r2)) / c;
}

double dk_plane_lift_off(double a, double b, double c) {
  const auto z = [&](double t) {
    return 2.0 * step_response(a, b, c, t - 1.0) - step_response(a, b, c, t);
  };
  double lo = 1.0, hi = 1.0;
  while (z(hi + 1e-3) < 0.0) hi += 1e-3;
  hi += 1e-3;
  lo = hi - 1e-3;
  std::uintmax_t iterations = 200;
  const auto root = boost::math::tools::toms748_solve(
      z, lo, hi, [](double x, double y) { return std::abs(y - x) < 1e-15; }, iterations);
  return 0.5 * (root.first + root.second);
}

std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ImpactStudy impact_study_of(const std::string& solver, const std::vector<Assignment>& set,
                            std::vector<double> speeds, std::vector<double> steps,
                            double restitution) {
  ImpactStudy s;
  s.name = "test";
  s.case_name = "bouncing-ball-siconos";
  s.case_assignments = {{"h0", "0"}};
  s.speed_parameter = "v0";
  s.speeds = std::move(speeds);
  s.steps = std::move(steps);
  s.t_end = 0.5;
  s.rows = {{.label = solver,
             .solver = solver,
             .assignments = set,
             .restitution = restitution,
             .restitution_source = "the test's"}};
  return s;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("crbench_test_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "crbench");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

bool one_line(const std::string& s) {
  return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
}

void check_refused(const std::vector<std::string>& args, const std::string& expected) {
  const CliResult r = cli(args);
  INFO(Catch::Detail::stringify(args) << ": " << r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(expected));
  CHECK(one_line(r.err));
}

Eigen::VectorXd final_velocity(const Model& model, const std::string& solver,
                               std::vector<Assignment> params) {
  SolveOptions o;
  o.solver = solver;
  o.solver_params = std::move(params);
  const RunRecord r = solve(model, o);
  INFO(model.info().name << " by " << solver << ": " << r.status << " " << r.reason);
  REQUIRE(r.status == Status::ok);
  return r.final_state.v;
}

std::vector<Eigen::VectorXd> penalty_outcomes(const Model& model) {
  std::vector<Eigen::VectorXd> outcomes;
  for (const char* N : {"1e4", "1e6", "1e8"}) {
    outcomes.push_back(final_velocity(model, "realization", {{"preset", "penalty"}, {"N", N}}));
  }
  return outcomes;
}

Eigen::VectorXd penalty_contacts_by_odeint(const Eigen::MatrixXd& G, const Eigen::VectorXd& c,
                                           const Eigen::VectorXd& scale, double eta,
                                           const Eigen::VectorXd& q0, const Eigen::VectorXd& v0) {
  namespace odeint = boost::numeric::odeint;
  using Y = std::vector<double>;  // q, then v
  const Eigen::Index n = q0.size(), m = c.size();
  std::vector<char> pressed(static_cast<std::size_t>(m), 1);
  const auto position = [n](const Y& y) { return Eigen::Map<const Eigen::VectorXd>(y.data(), n); };
  const auto velocity = [n](const Y& y) {
    return Eigen::Map<const Eigen::VectorXd>(y.data() + n, n);
  };
  const auto rhs = [&](const Y& y, Y& dy, double) {
    const Eigen::VectorXd f = G * position(y) + c;
    Eigen::VectorXd push = Eigen::VectorXd::Zero(m);
    for (Eigen::Index k = 0; k < m; ++k) {
      if (pressed[static_cast<std::size_t>(k)]) {
        push(k) = scale(k) * std::copysign(std::pow(std::abs(f(k)), eta), -f(k));
      }
    }
    const Eigen::VectorXd force = G.transpose() * push;
    dy.resize(y.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      dy[static_cast<std::size_t>(i)] = y[static_cast<std::size_t>(n + i)];
      dy[static_cast<std::size_t>(n + i)] = force(i);
    }
  };
  const auto advance = [&](Y y, double t, double span) {
    if (span > 0.0) {
      odeint::integrate_adaptive(
          odeint::make_controlled(1e-15, 1e-14, odeint::runge_kutta_fehlberg78<Y>()), rhs, y, t,
          t + span, std::min(span, 1e-3));
    }
    return y;
  };
  const auto switched = [&](const Y& y) {
    const Eigen::VectorXd f = G * position(y) + c;
    for (Eigen::Index k = 0; k < m; ++k) {
      if ((pressed[static_cast<std::size_t>(k)] != 0) != (f(k) < 0.0)) return true;
    }
    return false;
  };
  const auto away = [&](const Y& y) {
    const Eigen::VectorXd f = G * position(y) + c;
    const Eigen::VectorXd rate = G * velocity(y);
    for (Eigen::Index k = 0; k < m; ++k) {
      if (pressed[static_cast<std::size_t>(k)] || !(f(k) > 0.0) || rate(k) < 0.0) return false;
    }
    return true;
  };
  Y y(static_cast<std::size_t>(2 * n));
  for (Eigen::Index i = 0; i < n; ++i) {
    y[static_cast<std::size_t>(i)] = q0(i);
    y[static_cast<std::size_t>(n + i)] = v0(i);
  }
  double t = 0.0;
  const double chunk = 0.02;
  while (!away(y) && t < 1e4) {
    Y next = advance(y, t, chunk);
    double span = chunk;
    if (switched(next)) {
      double lo = 0.0, hi = chunk;
      while (hi - lo > 1e-15 * std::max(1.0, t)) {
        const double mid = 0.5 * (lo + hi);
        (switched(advance(y, t, mid)) ? hi : lo) = mid;
      }
      next = advance(y, t, hi);
      span = hi;
      const Eigen::VectorXd f = G * position(next) + c;
      for (Eigen::Index k = 0; k < m; ++k) pressed[static_cast<std::size_t>(k)] = f(k) < 0.0;
    }
    y = std::move(next);
    t += span;
  }
  REQUIRE(away(y));
  return velocity(y);
}

}  // namespace crbench::testing
