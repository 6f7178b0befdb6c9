#include "crbench/solvers/impulse_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace crbench {

// Named, and anonymous inside: the unity build compiles this file in one unit with the solvers.
namespace impulse_process_detail {
namespace {

// The mode at (v_n, v_t): ρ = dP_t/dP_n and the rates k = W (1, ρ), s the slip's sign (0: stuck).
struct Mode {
  int s;
  double rho, kn, kt;
};

Mode mode_at(const Eigen::Matrix2d& W, double vt, double mu) {
  int s = vt > 0.0 ? 1 : vt < 0.0 ? -1 : 0;
  // At v_t = 0 the contact sticks where the cone holds the tangential impulse that keeps it,
  // |W_tn / W_tt| ≤ μ; otherwise it slips the way the normal impulse drives it, sign(W_tn) (the
  // one direction in which the slip grows against its own friction).
  if (s == 0 && std::abs(W(1, 0)) > mu * W(1, 1)) s = W(1, 0) > 0.0 ? 1 : -1;
  const double rho = s == 0 ? -W(1, 0) / W(1, 1) : -mu * s;
  return {s, rho, W(0, 0) + W(0, 1) * rho, s == 0 ? 0.0 : W(1, 0) + W(1, 1) * rho};
}

constexpr int kMaxSegments = 64;

}  // namespace
}  // namespace impulse_process_detail

ImpulseProcessResult frictional_impulse_process(const ImpulseProcessStart& start) {
  namespace detail = impulse_process_detail;
  ImpulseProcessResult out;
  const Eigen::Matrix2d& W = start.W;
  double vn = start.vn, vt = start.vt, E = 0.0, Ec = 0.0;
  const double keep = 1.0 - start.restitution * start.restitution;  // E at the end, over E_c
  bool compressed = false;  // a compression has ended: the process may end in restitution
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (int segment = 0; segment < detail::kMaxSegments; ++segment) {
    const detail::Mode m = detail::mode_at(W, vt, start.mu);
    if (m.s == 0) out.stuck = true;
    if (segment == 0 && vn >= 0.0 && !(m.kn < 0.0)) {
      out.end = ImpulseProcessEnd::no_impulse;
      out.why = "the normal velocity is " + std::to_string(vn) +
                " and the contact's mode does not make it fall (W_nn + W_nt rho = " +
                std::to_string(m.kn) + ")";
      return out;
    }
    // Where the segment ends, by the first of: the slip stops; the compression ends (v_n rises
    // to 0); the restitution is complete (E falls to keep·E_c); v_n falls back through 0.
    double dP = inf;
    enum { slip_stops, compression_ends, restitution_ends, compression_resumes } what{};
    if (m.s != 0 && m.kt * m.s < 0.0) {
      dP = -vt / m.kt;
      what = slip_stops;
    }
    if (vn < 0.0 && m.kn > 0.0 && -vn / m.kn < dP) {
      dP = -vn / m.kn;
      what = compression_ends;
    }
    // In restitution (v_n > 0, or 0 and rising) E(ΔP) = E − v_n ΔP − k_n ΔP²/2 falls; its
    // smaller root of E(ΔP) = keep·E_c in the form without cancellation.
    if (compressed && (vn > 0.0 || (vn == 0.0 && m.kn > 0.0))) {
      const double excess = std::max(0.0, E - keep * Ec);
      const double disc = vn * vn + 2.0 * m.kn * excess;
      if (disc >= 0.0) {
        const double end = excess == 0.0 ? 0.0 : 2.0 * excess / (vn + std::sqrt(disc));
        if (end < dP) {
          dP = end;
          what = restitution_ends;
        }
      } else if (vn / -m.kn < dP) {  // k_n < 0: v_n falls back to 0 before E is given back
        dP = vn / -m.kn;
        what = compression_resumes;
      }
    }
    if (!std::isfinite(dP)) {
      out.end = ImpulseProcessEnd::unbounded;
      out.why = "the compression never ends: the contact slips with s = " + std::to_string(m.s) +
                " and neither the slip stops nor the normal velocity rises";
      break;
    }
    ++out.segments;
    out.Pn += dP;
    out.Pt += m.rho * dP;
    E += -vn * dP - 0.5 * m.kn * dP * dP;
    vn += m.kn * dP;
    vt += m.kt * dP;
    Ec = std::max(Ec, E);
    switch (what) {
      case slip_stops:
        vt = 0.0;
        break;
      case compression_ends:
        vn = 0.0;
        compressed = true;
        if (keep >= 1.0) {  // e* = 0: nothing is given back
          out.vn = vn;
          out.vt = vt;
          out.compression_energy = Ec;
          return out;
        }
        break;
      case compression_resumes:
        vn = 0.0;
        break;
      case restitution_ends:
        out.vn = vn;
        out.vt = vt;
        out.compression_energy = Ec;
        return out;
    }
  }
  if (out.end == ImpulseProcessEnd::ended) {
    out.end = ImpulseProcessEnd::unbounded;
    out.why = "more than " + std::to_string(detail::kMaxSegments) + " changes of mode";
  }
  out.vn = vn;
  out.vt = vt;
  out.compression_energy = Ec;
  return out;
}

}  // namespace crbench
