#include "crbench/solvers/velocity_chart.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace crbench {

VelocityChart VelocityChart::of_rows(const Eigen::MatrixXd& a, std::vector<int> rows,
                                     double scale) {
  VelocityChart chart;
  chart.scale_ = scale;
  chart.rows_ = std::move(rows);
  const auto n = static_cast<int>(a.cols());
  const auto k = static_cast<int>(chart.rows_.size());
  std::vector<char> constrained(static_cast<std::size_t>(n), 0);
  if (k > 0) {
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(chart.chart_rows(a));
    if (lu.rank() < k) {
      throw std::runtime_error("the kinematic constraints' rows a(q,t) are linearly dependent");
    }
    for (int r = 0; r < k; ++r)
      constrained[static_cast<std::size_t>(lu.permutationQ().indices()(r))] = 1;
  }
  for (int j = 0; j < n; ++j) {
    (constrained[static_cast<std::size_t>(j)] ? chart.constrained_ : chart.free_).push_back(j);
  }
  return chart;
}

VelocityChart VelocityChart::best_for(const Eigen::MatrixXd& a, double scale) {
  std::vector<int> rows(static_cast<std::size_t>(a.rows()));
  std::iota(rows.begin(), rows.end(), 0);
  return of_rows(a, std::move(rows), scale);
}

VelocityChart VelocityChart::independent_rows(const Eigen::MatrixXd& a,
                                              const std::vector<int>& candidates, double scale,
                                              double margin) {
  std::vector<int> rows;
  if (!candidates.empty()) {
    // The candidates' rows as columns: full pivoting orders them by how much each adds to the
    // ones before it.
    const Eigen::MatrixXd columns = a(candidates, Eigen::all).transpose();
    Eigen::FullPivLU<Eigen::MatrixXd> lu(columns);
    lu.setThreshold(margin);
    for (Eigen::Index r = 0; r < lu.rank(); ++r) {
      rows.push_back(candidates[static_cast<std::size_t>(lu.permutationQ().indices()(r))]);
    }
    std::sort(rows.begin(), rows.end());
  }
  return of_rows(a, std::move(rows), scale);
}

Eigen::MatrixXd VelocityChart::chart_rows(const Eigen::MatrixXd& a) const {
  if (all_rows(static_cast<int>(a.rows()))) return a;
  return a(rows_, Eigen::all);
}

Eigen::VectorXd VelocityChart::chart_rows(const Eigen::VectorXd& b) const {
  if (all_rows(static_cast<int>(b.size()))) return b;
  return b(rows_);
}

double VelocityChart::relative_quality(const Eigen::MatrixXd& a) const {
  if (constrained_.empty()) return 1.0;
  const double best = std::abs(of_rows(a, rows_, scale_).block(a).determinant());
  return best > 0.0 ? std::abs(block(a).determinant()) / best : 0.0;
}

Eigen::VectorXd VelocityChart::coordinates(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                           const Eigen::VectorXd& v) const {
  Eigen::VectorXd w(v.size());
  if (all_rows(static_cast<int>(a.rows()))) {
    w.head(rows()) = scale_ * (a * v + b);
  } else {
    w.head(rows()) = scale_ * (chart_rows(a) * v + chart_rows(b));
  }
  for (std::size_t i = 0; i < free_.size(); ++i)
    w(rows() + static_cast<Eigen::Index>(i)) = v(free_[i]);
  return w;
}

Eigen::VectorXd VelocityChart::velocity(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                        const Eigen::VectorXd& w) const {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(w.size());
  for (std::size_t i = 0; i < free_.size(); ++i)
    v(free_[i]) = w(rows() + static_cast<Eigen::Index>(i));
  if (rows() == 0) return v;
  const Eigen::VectorXd rhs =
      all_rows(static_cast<int>(a.rows()))
          ? Eigen::VectorXd(w.head(rows()) / scale_ - b - a * v)
          : Eigen::VectorXd(w.head(rows()) / scale_ - chart_rows(b) - chart_rows(a) * v);
  const Eigen::VectorXd v_c = block(a).partialPivLu().solve(rhs);
  for (int r = 0; r < rows(); ++r) v(constrained_[static_cast<std::size_t>(r)]) = v_c(r);
  return v;
}

State VelocityChart::state(const Model& model, double t, const Eigen::VectorXd& y,
                           Eigen::MatrixXd& a, Eigen::VectorXd& b) const {
  const Eigen::Index n = y.size() / 2;
  State x;
  x.t = t;
  x.q = y.head(n);
  // a and b also for a chart without rows where the model has kinematic rows: all_nu needs them.
  if (model.kinematic_count() > 0) model.kinematic_affine(t, x.q, a, b);
  if (rows() == 0) {
    x.v = y.tail(n);
    return x;
  }
  x.v = velocity(a, b, y.tail(n));
  return x;
}

Eigen::VectorXd VelocityChart::point(const Model& model, const State& x) const {
  const Eigen::Index n = x.q.size();
  Eigen::VectorXd y(2 * n);
  y.head(n) = x.q;
  if (rows() == 0) {
    y.tail(n) = x.v;
    return y;
  }
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  model.kinematic_affine(x.t, x.q, a, b);
  y.tail(n) = coordinates(a, b, x.v);
  return y;
}

Eigen::MatrixXd VelocityChart::transform(const Eigen::MatrixXd& a) const {
  const Eigen::Index n = a.cols();
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(n, n);
  if (all_rows(static_cast<int>(a.rows()))) {
    T.topRows(rows()) = scale_ * a;
  } else {
    T.topRows(rows()) = scale_ * chart_rows(a);
  }
  for (std::size_t i = 0; i < free_.size(); ++i)
    T(rows() + static_cast<Eigen::Index>(i), free_[i]) = 1.0;
  return T;
}

Eigen::MatrixXd VelocityChart::block(const Eigen::MatrixXd& a) const {
  Eigen::MatrixXd a_c(rows(), rows());
  if (all_rows(static_cast<int>(a.rows()))) {
    for (int r = 0; r < rows(); ++r) a_c.col(r) = a.col(constrained_[static_cast<std::size_t>(r)]);
    return a_c;
  }
  for (int r = 0; r < rows(); ++r) {
    for (int i = 0; i < rows(); ++i) {
      a_c(i, r) = a(rows_[static_cast<std::size_t>(i)], constrained_[static_cast<std::size_t>(r)]);
    }
  }
  return a_c;
}

Eigen::VectorXd VelocityChart::all_nu(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                      const Eigen::VectorXd& v, const Eigen::VectorXd& w) const {
  if (all_rows(static_cast<int>(a.rows()))) return w.head(rows());
  Eigen::VectorXd nu = scale_ * (a * v + b);
  for (int r = 0; r < rows(); ++r) nu(rows_[static_cast<std::size_t>(r)]) = w(r);
  return nu;
}

}  // namespace crbench
