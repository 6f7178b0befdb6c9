// The limit of the (α, β)N realization of kinematic constraints a q̇ + b = 0 (Kozlov 1992 §2–3,
// (6)–(7)): the μ = β/α family. With λ the limit of N g (g = a q̇ + b),
//   A q̈ = F − aᵀ(α λ̇ + β λ) + α Ωᵀλ,   a q̈ + g_rate = 0,
// so that α λ̇ = (a A⁻¹ aᵀ)⁻¹ [a A⁻¹ (F + α Ωᵀλ) + g_rate] − β λ with λ(0) = 0 (the initial data
// satisfy the constraint). α = 0 (Carathéodory's viscous friction) makes λ algebraic: the ideal
// nonholonomic (d'Alembert–Lagrange) motion, reaction aᵀν with ν = −βλ. β = 0 (added mass alone)
// gives vakonomic motion. Integrated by dopri5 with dense output (the family is not stiff).
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

// For a case with kinematic constraints and no unilateral ones; α ≥ 0, β ≥ 0, not both 0.
// `record` has its header (case, solver, parameters) filled by the caller.
void run_kinematic_limit(const Model& model, const RunSettings& settings, double alpha, double beta,
                         RunRecord& record);

}  // namespace crbench
