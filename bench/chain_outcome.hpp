// The outcome of the penalty realization of Newton's cradle (ball-chain, touching balls, e = 1):
// the final velocities of the undamped contact, N(γ f) with γ = 1, against the number of balls n
// and against N, beside the two ideal laws of the same chain: Newton's simultaneous law (the
// event-driven solver's impact LCP, e = 1) and the sequential cradle (the striker's velocity
// passed down the chain, (0, …, 0, v0)).
//
// The penalty outcome does not depend on N: ball-chain's contact is linear (f_k = q_{k+1} − q_k
// − d) and there is no force, so with u = q − q(0) the motion in the medium is u'' = −N M⁻¹Jᵀ J u
// piecewise, and u_N(t) = u_1(√N t)/√N solves it from u(0) = 0, u'(0) = v(0): the velocities
// after the last contact are those at N = 1, and every contact time scales as 1/√N. What is
// measured: the spread of the final velocities over N (round-off and the tolerances), the
// lift-off time times √N (constant), and the distance to each ideal law (neither is the limit:
// the limit N → ∞ of the undamped penalty chain is a third law of its own).
//
// Then three balls under stiffness ratios r = k_01/k_12 and the two contact laws (linear,
// Hertz's (−f)^(3/2)): the same scaling, with time and lengths by N^(−1/(η+1)), makes the outcome
// independent of N again, and it moves from Newton's simultaneous law (r → 0: the far pair acts as
// one body) to the sequential cradle (r → ∞).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace crbench {

struct ChainOutcomeSummary {
  std::string markdown;  // the main README's table, one row per n
  int points = 0;
  int ok = 0;
};

class FigureQueue;

// Runs the chains into `dir` (chain_outcome.json, chain_outcome and chain_ratios tables, README.md,
// the figures) on `jobs` threads; the figures and then the README on `figure_queue` where given.
ChainOutcomeSummary write_chain_outcome(const std::filesystem::path& dir, int jobs,
                                        std::ostream& progress,
                                        FigureQueue* figure_queue = nullptr);

}  // namespace crbench
