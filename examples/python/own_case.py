"""A system of one's own, defined in Python and run at compiled speed: a unit point sliding without
friction under gravity on the outside of the ellipse (x/a)^2 + (y/b)^2 >= 1 (the same system as
ellipse.json, there for `crbench case build`). verify measures the viscous realization's lift-off
against the (0, 1, 0) limit model, a short study fits its order, and the figure shows the paths.

    PYTHONPATH=build/release python3 examples/python/own_case.py [figure.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import crbench  # noqa: E402


def ellipse_slide():
    c = crbench.Case("ellipse-slide-python",
                     "A unit point sliding without friction under gravity on the outside of the "
                     "ellipse (x/a)^2 + (y/b)^2 >= 1, started at its top with speed v0 along x.")
    a = c.parameter("a", 2.0, min=0.1, max=10, unit="length", description="semi-axis along x")
    b = c.parameter("b", 1.0, min=0.1, max=10, unit="length", description="semi-axis along y")
    g = c.parameter("grav", 1.0, min=0, max=100, min_inclusive=False, unit="length/time^2",
                    description="gravity")
    v0 = c.parameter("v0", 0.1, min=0, max=10, unit="length/time",
                     description="initial speed along x at the top")
    x, y = c.coordinates(("x", "length"), ("y", "length"))
    c.kinetic_energy = (c.velocity(x) ** 2 + c.velocity(y) ** 2) / 2
    c.potential = g * y
    c.unilateral("ellipse", (x / a) ** 2 + (y / b) ** 2 - 1, unit="1")
    c.initial(q=[0, b], v=[v0, 0])
    c.horizon = 20
    return c


def main(figure):
    case = ellipse_slide()
    print(f"plugin: {case.build()}")
    report = crbench.verify(case, coarse=1e2, fine=1e4, per_decade=2, digits=6)
    print(f"verify: {report['verdict']}")
    study = {"name": "ellipse-slide-python", "case": case.name,
             "N": {"from": 100, "to": 10000, "per_decade": 2}, "digits": 6,
             "tolerances": {"rtol": 1e-12, "atol": 1e-14, "tight_factor": 100},
             "observables": ["lift_off_time"],
             "models": [{"label": "viscous", "solver": "realization",
                         "set": {"preset": "viscous"}, "reference": "limit",
                         "expected_order": {"lift_off_time": 1}}]}
    summary = crbench.converge(study, out="ellipse-slide-python", figures=False)
    for model in summary["models"]:
        print(f"study: {model['label']}: {model['verdict']}")

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    s = np.linspace(0, 2 * np.pi, 400)
    ax.plot(2 * np.cos(s), np.sin(s), color="0.6", lw=3, label="ellipse a = 2, b = 1")
    for solver, options, style in (("event-driven", {}, "-"), ("limit", {}, "--"),
                                   ("realization", {"N": 30.0}, ":")):
        r = crbench.run(case, solver, t_end=9.0, **options)
        q = r["trajectory"]["q"]
        label = solver + (f" N = {options['N']:g}" if options else "")
        ax.plot(q[:, 0], q[:, 1], style, label=f"{label}: lift-off {r['lift_off_time']:.4f}")
    ax.set_xlabel("x [length]")
    ax.set_ylabel("y [length]")
    ax.set_xlim(-2.3, 3.3)
    ax.set_ylim(-1.6, 1.4)
    ax.set_aspect("equal")
    ax.set_title("A point sliding off an ellipse: classical, limit and realized paths", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.tight_layout()
    fig.savefig(figure, dpi=120)
    print(f"figure: {figure}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "ellipse-slide-python.png")
