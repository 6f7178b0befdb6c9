// The impulse process of one contact with Coulomb friction at a fixed configuration (Darboux's
// and Keller's impulse dynamics; docs/theory.md §2, "Frictional impacts and the impact without
// collision"): the normal impulse P_n is the clock, the contact velocities move by
//   d(v_n, v_t) = W (1, ρ) dP_n,   W = [J; a] A⁻¹ [J; a]ᵀ,
// with ρ = dP_t/dP_n = −μ s while the contact slips with s = sign v_t, and ρ = −W_tn/W_tt while
// it sticks (v_t = 0, admissible where |W_tn| ≤ μ W_tt). The normal compliance stores the energy
// E with dE/dP_n = −v_n (compression while v_n < 0); the process ends in restitution (v_n > 0)
// when E has fallen to (1 − e*²) E_c, E_c the largest E, Stronge's energetic coefficient e*
// (1: the undamped normal spring gives back what it stored). Every mode is linear in P_n, so the
// process is a sequence of segments with closed-form ends, exact to round-off.
//
// It covers an impact (v_n < 0 at the start) and the impact without collision of Painlevé's
// paradox (v_n = 0, the slip making the normal velocity fall, W_nn − μ s W_nt < 0): the
// compliant contact lets E grow from 0 and the slip stop before the contact opens.
#pragma once

#include <Eigen/Core>
#include <string>

namespace crbench {

struct ImpulseProcessStart {
  Eigen::Matrix2d W;         // the Delassus matrix of (normal, tangential), symmetric positive
  double vn = 0.0;           // the normal contact velocity, ≤ 0
  double vt = 0.0;           // the slip velocity
  double mu = 0.0;           // Coulomb's coefficient
  double restitution = 1.0;  // Stronge's energetic coefficient e* in [0, 1]
};

enum class ImpulseProcessEnd {
  ended,       // restitution is complete
  unbounded,   // the compression never ends: the slip neither stops nor lets v_n rise
  no_impulse,  // v_n = 0 and nothing makes it fall: not an impact
};

struct ImpulseProcessResult {
  ImpulseProcessEnd end = ImpulseProcessEnd::ended;
  double Pn = 0.0, Pt = 0.0;        // the normal and tangential impulses
  double vn = 0.0, vt = 0.0;        // the contact velocities after
  double compression_energy = 0.0;  // E_c
  int segments = 0;                 // the modes passed through
  bool stuck = false;               // the slip stopped at some point of the process
  std::string why;                  // for unbounded and no_impulse
};

ImpulseProcessResult frictional_impulse_process(const ImpulseProcessStart& start);

}  // namespace crbench
