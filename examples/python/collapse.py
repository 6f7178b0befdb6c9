#!/usr/bin/env python3
"""The collapse figure of dk-plane from Python: N f(q_N(t)) of the realization for several N
against z(t) of the limit model (Deryabin & Kozlov 1995, (2.6): N f -> z inside the medium), for the
added-mass model (alpha, beta, gamma) = (1, 0, 1) of the canonical dk-plane study.

    PYTHONPATH=build/release python3 examples/python/collapse.py collapse.png

Prints, per N, the largest |N f - z| on the grid before the predicted lift-off, and writes the
figure to the path given (default collapse.png).
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import crbench  # noqa: E402

model = dict(alpha=1, beta=0, gamma=1)
limit = crbench.run("dk-plane", "limit", **model)
tau = limit["lift_off_time"]
on_grid = np.array([label == "" for label in limit["trajectory"]["label"]])
t = limit["trajectory"]["t"][on_grid]
z = limit["trajectory"]["extra"]["z0"][on_grid]
window = t <= 1.1 * tau

fig, ax = plt.subplots(figsize=(7, 5))
ax.plot(t[window], z[window], "k--", linewidth=2, label="z(t) of the limit model", zorder=3)
for k, N in enumerate([10, 100, 1000]):
    run = crbench.run("dk-plane", "realization", N=N, **model)
    rows = np.array([label == "" for label in run["trajectory"]["label"]])
    Nf = run["trajectory"]["extra"]["Nf0"][rows]
    before = t < tau
    print("N = %-5g lift-off %.10f  max |N f - z| before the predicted lift-off %.3e"
          % (N, run["lift_off_time"], np.max(np.abs(Nf[before] - z[before]))))
    ax.plot(t[window], Nf[window], color="C%d" % k, label="N f(q_N(t)), N = %g" % N)
# N f leaves the medium's scale after the lift-off: the axis keeps z's range in view.
pad = 0.3 * (z[window].max() - z[window].min()) + 1e-12
ax.set_ylim(z[window].min() - pad, z[window].max() + pad)
ax.axvline(tau, color="gray", linewidth=0.8)
ax.axhline(0.0, color="gray", linewidth=0.5)
ax.set_xlabel("t")
ax.set_ylabel("N f  and  z")
ax.set_title("dk-plane, (1, 0, 1): N f(q_N(t)) against z(t), Deryabin & Kozlov 1995 (2.6)")
ax.grid(True, alpha=0.3)
ax.legend(fontsize=8)
out = sys.argv[1] if len(sys.argv) > 1 else "collapse.png"
fig.savefig(out, dpi=120)
print("predicted lift-off %.10f; figure %s" % (tau, out))
