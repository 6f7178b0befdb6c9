#!/usr/bin/python3
"""Figures of one study folder written by `crbench converge` or `crbench sweep` (PNG and PDF).

Usage: /usr/bin/python3 scripts/figures.py DIR

A study: reads DIR/study.json, DIR/trajectories/*.csv and DIR/work_precision.csv; writes
error_vs_N, lift_off_vs_N, collapse, near_lift_off and work_precision (.png and .pdf) into DIR.
A sweep: reads DIR/sweep.json and DIR/grid.csv; writes phase_map (.png and .pdf): one map of
two axes, or for three axes a panel per slice of the last one (a selection: phase_slices).
The report's chain outcome: reads DIR/chain_outcome.json; writes chain_outcome and chain_ratios
(.png and .pdf).
An impact study (`crbench impacts`): reads DIR/impacts.json; writes impacts (.png and .pdf).
Everything drawn is read from those files: no number is computed here except the straight line
of each fitted slope, drawn through the points it was fitted to.
"""
import csv
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "crbench"
matplotlib.rcParams["pdf.compression"] = 6
import matplotlib.lines  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, folder, name, outside_legend=False):
    if not outside_legend:
        fig.tight_layout()
    # A legend below the axes is kept inside the saved image.
    box = {"bbox_inches": "tight"} if outside_legend else {}
    fig.savefig(os.path.join(folder, name + ".png"), dpi=200, **box)
    # No creation date in the PDF, so that reruns give the same file.
    fig.savefig(os.path.join(folder, name + ".pdf"), metadata={"CreationDate": None}, **box)
    plt.close(fig)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def ladder_models(study, observable="lift_off_time", axis="N"):
    """The models with a ladder on `axis` and at least one error of `observable` to draw."""
    return [m for m in study["models"]
            if m.get("axis") == axis and observable in m["observables"]
            and any(r[axis] is not None and r["error"] is not None
                    for r in m["observables"][observable]["rows"])]


def split_rows(rows):
    """The rows with a non-zero error: trusted, then flagged."""
    ok = [r for r in rows if r["error"] is not None and r["error"] != 0]
    return [r for r in ok if not r["flagged"]], [r for r in ok if r["flagged"]]


# Markers of successive series, so that series that coincide remain distinguishable.
MARKERS = "osD^v<>ph"


def fit_label(label, fit, decimals, trusted):
    """A model's legend entry with its fitted order and the theory's; where the theory states
    none and the trusted errors change sign or turn back, or their local orders drift, no
    order: they have none to show."""
    if fit.get("bounded_by_step"):
        return label + " (bounded by h: no power law)"
    if fit.get("floor"):
        return label + " (a floor: no power law)"
    if fit["expected_order"] is None and not power_law_shaped(trusted):
        return label + " (no power law)"
    drift = order_drift(trusted)
    if fit["expected_order"] is None and drift:
        return label + "\n(no power law: local orders %.2f to %.2f)" % drift
    if fit["fitted_order"] is None:
        return label
    label += " (%sorder %.*f" % ("fitted " if decimals == 3 else "", decimals, fit["fitted_order"])
    if fit.get("log_power"):
        # The law carries a logarithm: the order is that of the error over it.
        log = "ln N" if fit["log_power"] == 1 else "(ln N)^%d" % fit["log_power"]
        label += " of error/" + log
    if fit.get("fit_from"):
        decade = math.log10(fit["fit_from"])
        label += " from N = " + ("1e%d" % round(decade) if abs(decade - round(decade)) < 1e-9
                                 else "%g" % fit["fit_from"])
    if fit["expected_order"] is not None:
        label += ", theory %g" % fit["expected_order"]
    # A long entry breaks before its parenthesis, so that the legend stays inside the canvas.
    head, _, tail = label.rpartition(" (")
    return (head + "\n(" + tail if len(label) > 70 else label) + ")"


def label_groups(models):
    """The groups of labels that all read "group: name" (engine-friction's "at rest: ode"), in
    order, where there are several; otherwise None."""
    groups = []
    for m in models:
        if ": " not in m["label"]:
            return None
        group = m["label"].split(": ", 1)[0]
        if group not in groups:
            groups.append(group)
    return groups if len(groups) > 1 else None


def error_vs_step(study, folder, axis):
    """Each h, rtol or parameter ladder's observables against its rung, one panel per observable
    (hollow: flagged rows; dashed: the theory's series where it states its coefficients), and,
    where the theory states a second coefficient, a panel of the error less its leading term
    a1 x^p against the theory's a2 x^2p: the part of the error the leading term does not explain.
    Many series whose labels read "group: name" get a row of panels per group instead, each name
    in one colour and marker throughout."""
    models = [m for m in study["models"] if m.get("axis") == axis]
    if not models:
        return
    observables = [o for o in study["observables"] if ladder_models(study, o, axis)]
    if not observables:
        return

    def coefficients(m, observable):
        """The theory's coefficients a1, a2, ... and their powers of the rung (p, 2p, ... unless
        the study states others)."""
        fit = m["observables"][observable]["fit"]
        expected = fit.get("expected_coefficients") or []
        if any(a is None for a in expected) or fit.get("log_power"):
            # A coefficient the theory does not give, or terms with a logarithm: no series to draw.
            return [], []
        p = fit.get("expected_order")
        powers = fit.get("coefficient_powers") or [p * (j + 1) for j in range(len(expected))]
        return expected, powers

    # More series than a legend inside the axes can leave the data visible beside: each legend
    # goes below its panel, or the series are split by their labels' groups.
    crowded = len(models) > 8
    remainders = [o for o in observables
                  if any(len(coefficients(m, o)[0]) >= 2 for m in models)]
    groups = label_groups(models) if crowded and not remainders else None
    if groups:
        names = []
        for m in models:
            name = m["label"].split(": ", 1)[1]
            if name not in names:
                names.append(name)
        # (group, observable, remainder) per panel: a row per group, a column per observable.
        panels = [(g, o, False) for g in groups for o in observables]
        columns = len(observables)
        style = {name: k for k, name in enumerate(names)}
    else:
        panels = [(None, o, False) for o in observables]
        panels += [(None, o, True) for o in remainders]
        # At most three panels a row, so that each keeps a readable size.
        columns = min(3, len(panels))
    grid_rows = (len(panels) + columns - 1) // columns
    # Grouped panels keep their legends at their right, in the space between the columns.
    width, height = (8.4, 3.6) if groups else (6.0, 4.8)
    fig, axes = plt.subplots(grid_rows, columns, figsize=(width * columns, height * grid_rows),
                             squeeze=False)
    if groups:
        # About 0.9 inch above the panels for the title.
        fig.subplots_adjust(top=1.0 - 0.9 / (height * grid_rows), wspace=0.75, hspace=0.35)
    flat = [a for row in axes for a in row]
    for extra in flat[len(panels):]:
        extra.set_visible(False)
    for ax, (group, observable, remainder) in zip(flat, panels):
        for k, m in enumerate(models):
            if group is not None and not m["label"].startswith(group + ": "):
                continue
            if group is not None:
                k = style[m["label"].split(": ", 1)[1]]
            color = "C%d" % k
            expected, powers = coefficients(m, observable)
            if remainder and len(expected) < 2:
                continue
            rows = m["observables"][observable]["rows"]

            def shown(r):
                # The error, or what is left of it after the theory's leading term.
                if remainder:
                    return abs(r["error"] - expected[0] * r[axis] ** powers[0])
                return abs(r["error"])

            trusted, flagged = split_rows(rows)
            # A ladder at a fixed N says which: its errors include that N's own (a floor).
            name = m["label"] if group is None else m["label"].split(": ", 1)[1]
            if axis != "N" and "N" in m.get("set", {}):
                name += " at N = %g" % float(m["set"]["N"])
            label = fit_label(name, m["observables"][observable]["fit"], 2, trusted)
            if all(r["error"] == 0 for r in rows if r["error"] is not None):
                # Nothing to draw on a log axis: the legend says why the series is missing.
                label = name + " (0 at every rung: not drawn)"
            if remainder:
                label = "%s (theory a2 = %.6g)" % (name, expected[1])
            # A marker of its own and a size falling with k: series that coincide stay visible
            # (one marker inside the other).
            marker, size = MARKERS[k % len(MARKERS)], max(3.0, 8.0 - 0.8 * k)
            ax.loglog([r[axis] for r in trusted], [shown(r) for r in trusted], marker + "-",
                      color=color, label=label, markersize=size, linewidth=0.8)
            if flagged:
                ax.loglog([r[axis] for r in flagged], [shown(r) for r in flagged], marker,
                          color=color, markersize=size, markerfacecolor="none")
            if expected:
                # The theory's series a1 x^p1 + a2 x^p2 + ... (dashed) over the ladder, or its
                # terms after the first.
                rungs = [r[axis] for r in rows if r[axis]]
                lo, hi = min(rungs), max(rungs)
                xs = [lo * (hi / lo) ** (i / 40.0) for i in range(41)]
                terms = list(zip(expected, powers))[1 if remainder else 0:]
                series = [abs(sum(a * x ** q for a, q in terms)) for x in xs]
                if any(v > 0 for v in series):
                    ax.loglog(xs, series, "--", color=color, linewidth=0.8)
        ax.invert_xaxis()
        index = panels.index((group, observable, remainder))
        if group is None or index >= len(panels) - columns:
            ax.set_xlabel(axis + " (finer to the right)")
        in_unit = unit_label(study, models, observable)
        if remainder:
            ax.set_ylabel("|error - a1 %s^p1|%s" % (axis, in_unit))
            ax.set_title("%s less the theory's leading term\n(dashed: the theory's next term)"
                         % observable, fontsize=10)
        elif group is not None:
            if index % columns == 0:
                ax.set_ylabel("|error|" + in_unit, fontsize=8)
            ax.set_title("%s: %s" % (group, observable), fontsize=10)
        else:
            ax.set_ylabel("|error|" + in_unit)
            ax.set_title(observable + ("\n(dashed: the theory's series)" if any(
                coefficients(m, observable)[0] for m in models) else ""), fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        if groups:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        elif crowded:
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)
        else:
            ax.legend(fontsize=7)
    fig.suptitle("%s: error against %s (hollow: flagged rows)" % (study["study"], axis))
    save(fig, folder, "error_vs_" + axis, outside_legend=crowded)


def power_law_shaped(rows):
    """Whether the errors of the rows (in ladder order) keep one sign and change |error|
    monotonically: only then is a fitted power law drawn through them (a line through errors
    that change sign or turn back would show an order the verdict does not accept)."""
    errors = [r["error"] for r in rows]
    if not (all(e > 0 for e in errors) or all(e < 0 for e in errors)):
        return False
    sizes = [abs(e) for e in errors]
    steps = [b - a for a, b in zip(sizes, sizes[1:])]
    return all(d < 0 for d in steps) or all(d > 0 for d in steps)


def order_drift(rows, spread=0.1):
    """The least and largest local orders of the rows when they differ by more than `spread`
    (a sequence with logarithms in it, whose single fitted order would describe none of its
    rungs), else None."""
    orders = [r["local_order"] for r in rows if r.get("local_order") is not None]
    if len(orders) < 2 or max(orders) - min(orders) <= spread:
        return None
    return min(orders), max(orders)


def unit_label(study, models, observable):
    """" [unit]" of the observable for a panel of models (a model whose case gives other units
    than the study's carries its own), or a pointer to the tables where the models' units differ."""
    units = {m.get("observable_units", {}).get(observable)
             or study.get("observable_units", {}).get(observable, "") for m in models}
    if len(units) > 1:
        return " [units by model: the table's unit column]"
    unit = units.pop() if units else ""
    return " [%s]" % unit if unit else ""


def case_panels(models):
    """The models grouped by their case, in the order the cases first appear."""
    panels = {}
    for m in models:
        panels.setdefault(m.get("case", ""), []).append(m)
    return list(panels.items())


def panel_grid(count):
    """A figure with one axes per case: one 7 x 5 panel, or two columns of 6.2 x 4.6."""
    if count == 1:
        fig, ax = plt.subplots(figsize=(7, 5))
        return fig, [ax]
    columns = 2
    rows = (count + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(6.2 * columns, 4.6 * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for extra in flat[count:]:
        extra.set_visible(False)
    return fig, flat[:count]


def title_panels(fig, axes, panels, title):
    """One panel: the figure's title on it; several: the case over each, the title above all."""
    if len(panels) == 1:
        axes[0].set_title(title)
        return
    for ax, (case, _) in zip(axes, panels):
        ax.set_title(case, fontsize=10)
    fig.suptitle(title)


def draw_error_vs_N(ax, models, observable, legend_size):
    for k, m in enumerate(models):
        lift = m["observables"][observable]
        color = "C%d" % k
        trusted, flagged = split_rows(lift["rows"])
        fit = lift["fit"]
        label = fit_label(m["label"], fit, 3, trusted)
        # A marker of its own and a size falling with k: coinciding series stay visible.
        marker, size = MARKERS[k % len(MARKERS)], max(3.0, 8.0 - 0.8 * k)
        # The fit's rows: the trusted ones from the model's fit_from on (the coarser are faint).
        fitted = [r for r in trusted if not r.get("before_fit")]
        coarse = [r for r in trusted if r.get("before_fit")]
        ax.loglog([r["N"] for r in fitted], [abs(r["error"]) for r in fitted], marker,
                  color=color, label=label, markersize=size)
        if coarse:
            ax.loglog([r["N"] for r in coarse], [abs(r["error"]) for r in coarse], marker,
                      color=color, markersize=size, alpha=0.35)
        if flagged:
            ax.loglog([r["N"] for r in flagged], [abs(r["error"]) for r in flagged], marker,
                      color=color, markersize=size, markerfacecolor="none")
        drifting = fit["expected_order"] is None and order_drift(trusted)
        if (fit["fitted_order"] is not None and len(fitted) >= 2 and power_law_shaped(fitted)
                and not drifting):
            # The least-squares law through the fit's rows, C N^-p (ln N)^k (k the law's power
            # of the logarithm, 0 for a power law; C from their mean), on a fine grid.
            p, k = fit["fitted_order"], fit.get("log_power", 0)
            xs = [math.log(r["N"]) for r in fitted]
            ys = [math.log(abs(r["error"])) - k * math.log(x) for r, x in zip(fitted, xs)]
            c = sum(ys) / len(ys) + p * sum(xs) / len(xs)
            grid = [min(xs) + (max(xs) - min(xs)) * i / 40.0 for i in range(41)]
            ax.loglog([math.exp(x) for x in grid],
                      [math.exp(c - p * x) * x ** k for x in grid], "-", color=color,
                      linewidth=0.8)
    ax.set_xlabel("N")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=legend_size)


def error_vs_N(study, folder, observable="lift_off_time"):
    panels = case_panels(ladder_models(study, observable))
    if not panels:
        return
    fig, axes = panel_grid(len(panels))
    if observable == "lift_off_time":
        ylabel = "|lift-off time - predicted lift-off time|"
        title = "%s: lift-off error against N (hollow: flagged rows)" % study["study"]
    elif observable in ("max_q_deviation", "final_q_deviation"):
        # Short enough to stay inside the canvas beside a panel (the title says which).
        ylabel = ("max over t of |q - q_ref|" if observable == "max_q_deviation"
                  else "|q - q_ref| at the end")
        title = "%s: %s against N (hollow: flagged rows)" % (study["study"], observable)
    else:
        ylabel = "|%s - reference|" % observable
        title = "%s: %s against N (hollow: flagged rows)" % (study["study"], observable)
    if any(r.get("before_fit") for _, models in panels for m in models
           for r in m["observables"][observable]["rows"]):
        title = title.replace("(hollow: flagged rows)", "(hollow: flagged; faint: not fitted)")
    for ax, (_, models) in zip(axes, panels):
        draw_error_vs_N(ax, models, observable, 8 if len(panels) == 1 else 7)
        # Each panel is one case: its models' unit.
        ax.set_ylabel(ylabel + unit_label(study, models, observable))
    title_panels(fig, axes, panels, title)
    save(fig, folder, "error_vs_N" if observable == "lift_off_time" else observable + "_vs_N")


def draw_lift_off_vs_N(ax, models, classical, legend_size):
    predicted = {}
    for k, m in enumerate(models):
        rows = [r for r in m["observables"]["lift_off_time"]["rows"] if r["value"] is not None]
        color = "C%d" % k
        ax.semilogx([r["N"] for r in rows], [r["value"] for r in rows],
                    MARKERS[k % len(MARKERS)] + "-", color=color, label=m["label"],
                    markersize=max(3.0, 7.0 - 0.7 * k))
        tau = m["reference"]["lift_off_time"]
        if tau is not None:
            predicted.setdefault(round(tau, 12), []).append((m["label"], color))
    for tau, owners in predicted.items():
        ax.axhline(tau, color=owners[0][1], linestyle="--", linewidth=0.8)
        # Inside the frame, a few points above its line, clear of the markers on it.
        # A panel's only prediction needs no names (the legend has them; a list runs over the
        # markers and out of the frame).
        whose = "" if len(predicted) == 1 else " " + ", ".join(o[0] for o in owners)
        ax.annotate("predicted%s: %.6g" % (whose, tau),
                    (0.985, tau), xycoords=("axes fraction", "data"), xytext=(0, 5),
                    textcoords="offset points", ha="right", va="bottom", fontsize=7)
    if classical is not None:
        ax.axhline(classical, color="black", linewidth=1.2)
        ax.annotate("classical: %g" % classical, (0.015, classical),
                    xycoords=("axes fraction", "data"), xytext=(0, -4),
                    textcoords="offset points", ha="left", va="top", fontsize=8)
    ax.set_xlabel("N")
    ax.set_ylabel("lift-off time")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=legend_size, loc="best")


def lift_off_vs_N(study, folder):
    panels = case_panels(ladder_models(study))
    fig, axes = panel_grid(len(panels))
    title = "%s: lift-off time against N" % study["study"]
    for ax, (_, models) in zip(axes, panels):
        draw_lift_off_vs_N(ax, models, study.get("classical_lift_off_time"),
                           8 if len(panels) == 1 else 7)
    title_panels(fig, axes, panels, title)
    save(fig, folder, "lift_off_vs_N")


def collapse(study, folder):
    c = study.get("collapse")
    if not c:
        return
    files = [f for f in c["files"] if f["status"] == "ok"]
    limit = [f for f in files if f["N"] is None]
    runs = [f for f in files if f["N"] is not None]
    fig, ax = plt.subplots(figsize=(7, 5))
    tau = c["predicted_lift_off_time"]
    # (2.6) holds inside the medium: the curves are drawn up to a little after the lift-offs.
    ends = [f["lift_off_time"] for f in files if f["lift_off_time"] is not None]
    t_max = 1.1 * max(ends) if ends else float("inf")
    z_values = []
    for f in limit:
        rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""
                and float(r["t"]) <= t_max]
        z_values = [float(r["z0"]) for r in rows]
        ax.plot([float(r["t"]) for r in rows], z_values, "k--", linewidth=2,
                label="z(t) of the limit model", zorder=3)
    for k, f in enumerate(runs):
        rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""
                and float(r["t"]) <= t_max]
        ax.plot([float(r["t"]) for r in rows], [float(r["Nf0"]) for r in rows],
                color="C%d" % k, label="N f(q_N(t)), N = %g" % f["N"])
    if z_values:
        low, high = min(z_values), max(z_values)
        pad = 0.3 * (high - low) + 1e-12
        ax.set_ylim(low - pad, high + pad)
    if tau is not None:
        ax.axvline(tau, color="gray", linewidth=0.8,
                   label="predicted lift-off t = %.6g (first zero of z)" % tau)
    ax.axhline(0.0, color="gray", linewidth=0.5)
    ax.set_xlabel("t")
    ax.set_ylabel("N f  and  z")
    ax.set_title("%s, %s:\nN f(q_N(t)) against z(t), Deryabin & Kozlov 1995 (2.6)"
                 % (study["study"], c["model"]), fontsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    save(fig, folder, "collapse")

    # The constraint value itself near the predicted lift-off.
    if tau is None:
        return
    fig, ax = plt.subplots(figsize=(7, 5))
    window = c["window"]
    for k, f in enumerate(runs):
        rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""
                and abs(float(r["t"]) - tau) <= window]
        ax.plot([float(r["t"]) for r in rows], [float(r["f0"]) for r in rows],
                color="C%d" % k, label="N = %g (lift-off %.6g)" % (f["N"], f["lift_off_time"]
                                                                  if f["lift_off_time"] else
                                                                  float("nan")))
    for f in limit:
        rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""
                and abs(float(r["t"]) - tau) <= window]
        ax.plot([float(r["t"]) for r in rows], [float(r["f0"]) for r in rows], "k--",
                label="limit model")
    ax.axvline(tau, color="gray", linewidth=0.8, label="predicted lift-off")
    ax.axhline(0.0, color="gray", linewidth=0.5)
    ax.set_xlabel("t")
    ax.set_ylabel("f(q(t))")
    ax.set_title("%s, %s: f near the predicted lift-off %.6g"
                 % (study["study"], c["model"], tau))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, folder, "near_lift_off")


def paths(study, folder):
    """Each model's path in the (q_x, q_y) plane, or q_y against t: its limit (thick) and
    realizations (thin)."""
    p = study.get("paths")
    if not p:
        return
    # The trajectory files name q's columns by the case's coordinates (x, y, phi): the columns
    # after t and label; the study names their units.
    coordinates = study.get("coordinates", [])

    def column(index):
        first = next(f for m in p["models"] for f in m["files"] if f["status"] == "ok")
        with open(os.path.join(folder, first["file"]), newline="") as f:
            return next(csv.reader(f))[2 + index]

    def axis_label(index):
        if index == "t":
            return "t"
        name = column(index)
        unit = coordinates[index]["unit"] if index < len(coordinates) else ""
        return "%s [%s]" % (name, unit) if unit else name

    if not any(f["status"] == "ok" for m in p["models"] for f in m["files"]):
        return
    x = "t" if p["x"] == "t" else column(p["x"])
    y = column(p["y"])
    fig, ax = plt.subplots(figsize=(7, 6))
    for k, m in enumerate(p["models"]):
        color = "C%d" % k
        files = [f for f in m["files"] if f["status"] == "ok"]
        runs = sorted([f for f in files if f["N"] is not None], key=lambda f: f["N"])
        # One line style per N (dotted for the smallest), named in the legend.
        styles = [":", "-.", "--", (0, (5, 1)), "-"]
        for j, f in enumerate(runs):
            rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""]
            ax.plot([float(r[x]) for r in rows], [float(r[y]) for r in rows], color=color,
                    linewidth=0.9, linestyle=styles[j % len(styles)],
                    label="%s, N = %g" % (m["label"], f["N"]))
        for f in files:
            if f["N"] is None:
                rows = [r for r in read_csv(os.path.join(folder, f["file"])) if r["label"] == ""]
                ax.plot([float(r[x]) for r in rows], [float(r[y]) for r in rows], color=color,
                        linewidth=2.4, label="%s: limit" % m["label"])
    ax.set_xlabel(axis_label(p["x"]))
    ax.set_ylabel(axis_label(p["y"]))
    ax.set_title("%s: paths of the limits (thick) and the realizations at N = %s (thin)"
                 % (study["study"], ", ".join("%g" % n for n in sorted(
                     {f["N"] for m in p["models"] for f in m["files"] if f["N"] is not None}))),
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, folder, "paths")


def work_precision(study, folder):
    path = os.path.join(folder, "work_precision.csv")
    if "work_precision" not in study or not os.path.exists(path):
        return
    rows = read_csv(path)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    series = []
    for r in rows:
        if r["series"] not in series:
            series.append(r["series"])
    references = {s["label"]: s.get("reference", "")
                  for s in study["work_precision"].get("series", [])}
    for k, name in enumerate(series):
        pts = [r for r in rows if r["series"] == name and r["error"] not in ("", "nan")
               and float(r["error"]) > 0]
        err = [float(r["error"]) for r in pts]
        # Solid: the error against the closed form; dashed: against the same solver at rtol
        # 1e-14 (a self-consistency error, not comparable with the others').
        tight = references.get(name) == "tight"
        style = "o--" if tight else "o-"
        label = name + (" (vs itself at rtol 1e-14)" if tight else " (vs the closed form)")
        axes[0].loglog([float(r["wall_time_s"]) for r in pts], err, style, color="C%d" % k,
                       label=label, markersize=4)
        axes[1].loglog([float(r["rhs_evaluations"]) for r in pts], err, style, color="C%d" % k,
                       label=label, markersize=4)
        # Each marker's rtol or h, on the counts panel (deterministic positions).
        for r, e in zip(pts, err):
            axes[1].annotate("%s %g" % (r["vary"], float(r["value"])),
                             (float(r["rhs_evaluations"]), e), textcoords="offset points",
                             xytext=(3, 3), fontsize=5, color="C%d" % k)
    axes[0].set_xlabel("solve time [s] (minimum of the repeats)")
    axes[1].set_xlabel("right-hand-side evaluations (each marker: its rtol or h)")
    for ax in axes:
        ax.set_ylabel("|lift-off error|")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("work-precision on %s" % study["work_precision"]["case"])
    save(fig, folder, "work_precision")


def reason_category(why):
    """The kind of reason why Theorem 1 does not apply, without the numbers of the point."""
    if "double zero" in why:
        return "a double zero of z"
    if "no zero of z" in why:
        return "no zero of z before the horizon"
    if "reflected" in why:
        return "z vanishes where lambda > 0 (lift-off by the continuation past it)"
    if "neither Theorem 1 nor its continuation" in why:
        return "lambda = 0 at a zero of z (no prediction)"
    return re.sub(r"-?[0-9][0-9.e+-]*", "#", why.split(" (")[0])


def _edges(v, log):
    import numpy as np
    v = np.asarray(v, dtype=float)
    if log:
        lv = np.log(v)
        mid = (lv[1:] + lv[:-1]) / 2
        return np.exp(np.concatenate([[2 * lv[0] - mid[0]], mid, [2 * lv[-1] - mid[-1]]]))
    mid = (v[1:] + v[:-1]) / 2
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def _axis_label(axis, short=False):
    names = {"zeta": "damping ratio zeta = beta / (2 sqrt(alpha gamma))",
             "omega0": "natural frequency omega0 = sqrt(gamma / alpha)"}
    if short:
        names = {"zeta": "zeta = beta / (2 sqrt(alpha gamma))",
                 "omega0": "omega0 = sqrt(gamma / alpha)"}
    text = names.get(axis["name"], axis["name"])
    return "%s [%s]" % (text, axis["unit"]) if axis.get("unit") else text


def _delay_grid(axes, rows):
    """The delay (nan where Theorem 1 does not apply) over a two-axis slice, rows in row-major
    order (the second axis fastest)."""
    import numpy as np
    nx, ny = len(axes[0]["values"]), len(axes[1]["values"])
    delay = np.full((ny, nx), np.nan)
    for k, r in enumerate(rows):
        if r["theorem_applies"] == "true" and r["delay"] not in ("", "nan"):
            delay[k % ny, k // ny] = float(r["delay"])
    return delay


def _phase_panel(ax, sweep, axes, rows, norm, reasons, marks):
    """One map of the delay over two axes (rows: the slice's, row-major) with where Theorem 1
    does not apply, the propositions' boundaries and the realization checks; returns the mesh and
    the legend's handles (reasons: counts added up over panels; marks: check kinds drawn)."""
    import numpy as np

    xs, ys = axes[0]["values"], axes[1]["values"]
    nx, ny = len(xs), len(ys)
    delay = _delay_grid(axes, rows)
    outside = np.zeros((ny, nx))
    disc = np.zeros((ny, nx))
    guaranteed = np.zeros((ny, nx))
    for k, r in enumerate(rows):
        i, j = k // ny, k % ny
        if not np.isfinite(delay[j, i]):
            outside[j, i] = 1.0
            reason = reason_category(r["why"]) if r["why"] else "status " + r["status"]
            reasons[reason] = reasons.get(reason, 0) + 1
        a, b, g = float(r["alpha"]), float(r["beta"]), float(r["gamma"])
        disc[j, i] = b * b - 4.0 * a * g
        guaranteed[j, i] = 1.0 if r["proposition"] in ("1", "2") else 0.0

    xlog = axes[0].get("spacing") == "log"
    ylog = axes[1].get("spacing") == "log"
    mesh = ax.pcolormesh(_edges(xs, xlog), _edges(ys, ylog), np.ma.masked_invalid(delay),
                         cmap="viridis", norm=norm, shading="flat")
    ax.pcolormesh(_edges(xs, xlog), _edges(ys, ylog), np.ma.masked_where(outside == 0, outside),
                  cmap="Greys", vmin=0, vmax=2, shading="flat")
    X, Y = np.meshgrid(xs, ys)
    if outside.max() > 0:
        ax.contourf(X, Y, outside, levels=[0.5, 1.5], colors="none", hatches=["//"])
    handles = []
    if disc.min() < 0 < disc.max():
        ax.contour(X, Y, disc, levels=[0.0], colors="orange", linestyles="--", linewidths=1.5)
        handles.append(plt.Line2D([], [], color="orange", ls="--",
                                  label="Prop. 1 boundary  beta^2 = 4 alpha gamma (delay beyond)"))
    if guaranteed.max() > 0.5:
        # The guaranteed side dotted, so that the red edge's two sides read apart.
        ax.contourf(X, Y, guaranteed, levels=[0.5, 1.5], colors="none", hatches=[".."])
        handles.append(matplotlib.patches.Patch(facecolor="none", hatch="..",
                                                label="dotted: a delay guaranteed by Prop. 1 or "
                                                      "2 (sufficient conditions)"))
    if guaranteed.min() < 0.5 < guaranteed.max():
        ax.contour(X, Y, guaranteed, levels=[0.5], colors="red", linewidths=1.2)
        handles.append(plt.Line2D([], [], color="red",
                                  label="edge of the dotted region (beyond it no proposition "
                                        "applies; a delay may still occur)"))
    where = lambda keep: [(float(r[axes[0]["name"]]), float(r[axes[1]["name"]]))
                          for r in rows if keep(r)]
    agree = where(lambda r: r.get("check_agrees") == "true" and r.get("check_flagged") != "true")
    disagree = where(lambda r: r.get("check_N") and r.get("check_agrees") == "false"
                     and r.get("check_flagged") != "true")
    flagged = where(lambda r: r.get("check_flagged") == "true")
    if agree:
        ax.plot(*zip(*agree), "o", mfc="white", mec="black", ms=6)
        marks.add("agree")
    if disagree:
        ax.plot(*zip(*disagree), "x", color="red", ms=7)
        marks.add("disagree")
    if flagged:
        ax.plot(*zip(*flagged), "s", mfc="none", mec="orange", ms=8)
        marks.add("flagged")
    if xlog:
        ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    return mesh, handles


def _phase_legend(sweep, handles, reasons, marks):
    """The legend's entries: the panels' lines (once each), the reasons Theorem 1 does not apply
    with their counts, the realization checks' markers."""
    seen, out = set(), []
    for h in handles:
        if h.get_label() not in seen:
            seen.add(h.get_label())
            out.append(h)
    for reason, count in sorted(reasons.items()):
        out.append(matplotlib.patches.Patch(facecolor="lightgrey", hatch="//",
                                            label="Theorem 1 does not apply: %s (%d)"
                                            % (reason, count)))
    if "check" in sweep:
        n = sweep["check"]["N"]
        if "agree" in marks:
            out.append(plt.Line2D([], [], marker="o", mfc="white", mec="black", ls="",
                                  label="realization N = %g within 10/N" % n))
        if "disagree" in marks:
            out.append(plt.Line2D([], [], marker="x", color="red", ls="",
                                  label="realization N = %g not within 10/N" % n))
        if "flagged" in marks:
            out.append(plt.Line2D([], [], marker="s", mfc="none", mec="orange", ls="",
                                  label="check flagged (untrusted): discretization not "
                                        "below 1%, or the solve warned"))
    return out


def _delay_norm(delays):
    import numpy as np
    from matplotlib.colors import LogNorm
    values = np.concatenate([d.ravel() for d in delays])
    positive = values[np.isfinite(values) & (values > 0)]
    return LogNorm(vmin=positive.min(), vmax=positive.max()) if positive.size else None


def _fixed_text(sweep):
    axes = sweep["axes"]
    fixed = dict(sweep.get("params", {}))
    fixed.update({k: v for k, v in sweep.get("model", {}).items()
                  if k not in [a["name"] for a in axes]})
    return ", ".join("%s = %g" % (k, v) for k, v in sorted(fixed.items())
                     if isinstance(v, (int, float)))


def phase_slices(count, shown=6, stride=None):
    """The slices of a three-axis sweep's last axis drawn as panels: all of them up to `shown`;
    else, with realization checks every `stride` slices and at most shown - 1 of those, the
    checked slices and the last one (every check is drawn); else `shown` evenly spaced ones with
    the first and the last."""
    if count <= shown:
        return list(range(count))
    if stride:
        checked = list(range(0, count, stride))
        if len(checked) <= shown - 1:
            return sorted(set(checked) | {count - 1})
    return sorted({round(k * (count - 1) / (shown - 1)) for k in range(shown)})


def phase_map(sweep, folder):
    """The delay over a two-axis sweep (one map), or over a three-axis one (a map per slice of
    the last axis, a selection of slices: phase_slices), with where Theorem 1 does not apply, the
    propositions' boundaries and the realization checks (all read from grid.csv)."""
    axes = sweep["axes"]
    if len(axes) not in (2, 3):
        return
    rows = read_csv(os.path.join(folder, "grid.csv"))
    fixed_text = _fixed_text(sweep)
    title = ("%s: lift-off delay of the limit model (Deryabin & Kozlov 1995 Theorem 1)%s"
             % (sweep["case"], "\nfixed: " + fixed_text if fixed_text else ""))
    reasons, marks = {}, set()
    if len(axes) == 2:
        fig, ax = plt.subplots(figsize=(8, 6.2))
        mesh, handles = _phase_panel(ax, sweep, axes, rows, _delay_norm([_delay_grid(axes, rows)]),
                                     reasons, marks)
        fig.colorbar(mesh, ax=ax, label="lift-off delay  tau - tau_classical")
        ax.set_xlabel(_axis_label(axes[0]))
        ax.set_ylabel(_axis_label(axes[1]))
        ax.set_title(title, fontsize=10)
        ax.legend(handles=_phase_legend(sweep, handles, reasons, marks), fontsize=7,
                  loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1, framealpha=0.9)
        save(fig, folder, "phase_map", outside_legend=True)
        return
    # Row-major with the last axis fastest: slice l of it is rows[l::nz].
    nz = len(axes[2]["values"])
    slices = phase_slices(nz, stride=sweep["check"]["stride"] if "check" in sweep else None)
    plane = axes[:2]
    norm = _delay_norm([_delay_grid(plane, rows[l::nz]) for l in slices])
    ncol = min(3, len(slices))
    nrow = (len(slices) + ncol - 1) // ncol
    fig, grid = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.9 * nrow), squeeze=False,
                             sharex=True, sharey=True)
    handles, mesh = [], None
    for n, l in enumerate(slices):
        ax = grid[n // ncol][n % ncol]
        mesh, h = _phase_panel(ax, sweep, plane, rows[l::nz], norm, reasons, marks)
        handles += h
        ax.set_title("%s = %g  (slice %d of %d)" % (axes[2]["name"], axes[2]["values"][l], l + 1,
                                                  nz), fontsize=9)
        if n // ncol == nrow - 1:
            ax.set_xlabel(_axis_label(plane[0], short=True), fontsize=8)
        if n % ncol == 0:
            ax.set_ylabel(_axis_label(plane[1], short=True), fontsize=8)
    for n in range(len(slices), nrow * ncol):
        grid[n // ncol][n % ncol].set_visible(False)
    fig.colorbar(mesh, ax=grid.ravel().tolist(), label="lift-off delay  tau - tau_classical")
    fig.suptitle(title + "\n%d of the %d slices of %s; counts in the legend: over the slices "
                 "shown" % (len(slices), nz, axes[2]["name"]), fontsize=10)
    fig.legend(handles=_phase_legend(sweep, handles, reasons, marks), fontsize=7,
               loc="upper center", bbox_to_anchor=(0.45, 0.0), ncol=1, framealpha=0.9)
    save(fig, folder, "phase_map", outside_legend=True)


def work_precision_overview(overview, folder):
    """Error against wall time, one panel per case, one line per solver (SciMLBenchmarks'
    work-precision diagrams); hollow markers: flagged points."""
    timing = {}
    for r in read_csv(os.path.join(folder, "work_precision.csv")):
        timing[(r["case"], r["solver"], float(r["rung"]))] = float(r["wall_time_s"] or "nan")
    cases = overview["cases"]
    if not cases:
        return
    columns = min(4, len(cases))
    rows = int(math.ceil(len(cases) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.0 * rows), squeeze=False)
    solvers = sorted({s["solver"] for c in cases for s in c["solvers"]})
    colors = {name: "C%d" % k for k, name in enumerate(solvers)}
    for ax, c in zip(axes.flat, cases):
        for s in c["solvers"]:
            axis = s["axis"]
            pts = [(p["error"], timing.get((c["case"], s["solver"], p[axis]), float("nan")),
                    p["flag"]) for p in s["points"] if p["error"] is not None and p["error"] > 0]
            trusted = [(e, t) for e, t, f in pts if not f]
            flagged = [(e, t) for e, t, f in pts if f]
            color = colors[s["solver"]]
            if trusted:
                ax.loglog([e for e, _ in trusted], [t for _, t in trusted], "o-", color=color,
                          markersize=3, linewidth=0.8, label="%s (%s)" % (s["solver"], axis))
            if flagged:
                ax.loglog([e for e, _ in flagged], [t for _, t in flagged], "o", color=color,
                          markersize=3, markerfacecolor="none")
        ax.set_title(c["case"], fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        ax.tick_params(labelsize=7)
        # A panel whose times span less than a decade gets two (centred), so that its axis has
        # decade labels like the others rather than minor ones in another format.
        low, high = ax.get_ylim()
        if 0.0 < low and high < 10.0 * low:
            centre = math.sqrt(low * high)
            ax.set_ylim(centre / 10.0, centre * 10.0)
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    for ax in list(axes.flat)[len(cases):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("wall time [s]", fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("max |q - q_ref|", fontsize=8)
    handles = [matplotlib.lines.Line2D([], [], color=colors[n], marker="o", markersize=3, label=n)
               for n in solvers]
    fig.suptitle("Work-precision: error on one axis (max q deviation from the reference) against "
                 "wall time (hollow: flagged points)", y=0.995, fontsize=10)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.975),
               ncol=len(solvers), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save(fig, folder, "overview", outside_legend=True)


def chain_outcome(outcome, folder):
    """Final velocity of each ball against its place in the chain, one panel per n: the penalty
    realization at every N (hollow markers of decreasing size, so that coinciding ones all show),
    Newton's simultaneous law and the sequential cradle (crosses and plusses: one value per ball,
    nothing between balls)."""
    chains = outcome["chains"]
    if not chains:
        return
    fig, axes = plt.subplots(1, len(chains), figsize=(3.0 * len(chains), 3.2), sharey=True,
                             squeeze=False)
    markers = ("o", "s", "^", "v", "D")
    for ax, chain in zip(axes[0], chains):
        n = chain["n"]
        place = [i / (n - 1) for i in range(n)]
        largest = 7.0 if n <= 10 else (5.0 if n <= 30 else 3.5)
        size = largest
        k = 0
        for run in chain["runs"]:
            if run["status"] != "ok":
                continue
            v = run["final_v"]
            if run["solver"] == "realization":
                ax.plot(place, v, markers[k % len(markers)], markersize=size, markerfacecolor="none",
                        markeredgewidth=0.8, linestyle="none", color="C%d" % k,
                        label="penalty, N = %g" % run["N"])
                size = max(1.5, size - largest / 3.0)
                k += 1
            else:
                ax.plot(place, v, "x", color="0.1", markersize=largest * 0.8,
                        markeredgewidth=0.8, linestyle="none", label="Newton simultaneous (e = 1)")
        ax.plot(place, [0.0] * (n - 1) + [1.0], "+", color="0.55", markersize=largest * 0.9,
                markeredgewidth=0.8, linestyle="none", label="sequential (0, ..., 0, v0)")
        ax.axhline(0.0, color="0.8", linewidth=0.6, zorder=0)
        ax.set_title("n = %d" % n, fontsize=9)
        ax.set_xlabel("ball index / (n - 1)", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("final velocity [length/time]", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle("Touching Newton's cradle, v0 = 1: the penalty realization's final velocities "
                 "(the same at every N) against the two ideal laws", y=0.99, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    # Below the panels (save keeps it inside the image).
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=len(labels), fontsize=8)
    save(fig, folder, "chain_outcome", outside_legend=True)


def chain_ratios(outcome, folder):
    """Final velocity of each ball of the three-ball cradle against the stiffness ratio
    r = k_01/k_12, one panel per contact law: every N's outcome (hollow markers of decreasing
    size, so that coinciding ones all show), joined at the middle N, with Newton's simultaneous
    law and the sequential cradle as short marks at the panel's sides (r -> 0 and r -> infinity,
    where the outcome tends to them), and Liu, Zhao & Brogliato's answer where it was run (small
    black dots)."""
    entries = [e for e in outcome.get("ratios", []) if "final_v" in e]
    if not entries:
        return
    laws = sorted({e["exponent"] for e in entries})
    fig, axes = plt.subplots(1, len(laws), figsize=(4.6 * len(laws), 3.6), sharey=True,
                             squeeze=False)
    markers = ("o", "s", "^")
    names = {1.0: "linear spring", 1.5: "Hertz, (-f)^1.5"}
    for ax, eta in zip(axes[0], laws):
        rows = sorted((e for e in entries if e["exponent"] == eta),
                      key=lambda e: e["stiffness_ratio"])
        r = [e["stiffness_ratio"] for e in rows]
        for ball in range(3):
            color = "C%d" % ball
            ax.plot(r, [e["final_v"][ball] for e in rows], "-", color=color, linewidth=0.8,
                    label="ball %d" % ball)
            runs = len(rows[0]["runs"])
            for k in range(runs):
                ax.plot(r, [e["runs"][k]["final_v"][ball] for e in rows], markers[k],
                        markersize=6.0 - 1.8 * k, markerfacecolor="none", markeredgewidth=0.7,
                        linestyle="none", color=color,
                        label="N = 1e%d" % round(math.log10(rows[0]["runs"][k]["N"]))
                        if ball == 0 else None)
            lzb = [e for e in rows if "final_v" in e.get("lzb", {})]
            if lzb:
                ax.plot([e["stiffness_ratio"] for e in lzb],
                        [e["lzb"]["final_v"][ball] for e in lzb], ".", color="0.1",
                        markersize=3.0, linestyle="none",
                        label="LZB (Siconos MultipleImpact, impulse step %g)"
                        % lzb[0]["lzb"]["impulse_step"] if ball == 0 else None)
        left, right = r[0] / 2.5, r[-1] * 2.5
        for v in (-1.0 / 3.0, 2.0 / 3.0):
            ax.plot([left], [v], "x", color="0.1", markersize=7, markeredgewidth=1.0,
                    label="Newton simultaneous (e = 1)" if v < 0 else None)
        for v in (0.0, 1.0):
            ax.plot([right], [v], "+", color="0.1", markersize=8, markeredgewidth=1.0,
                    label="sequential (0, 0, 1)" if v == 0.0 else None)
        ax.set_xscale("log")
        ax.set_xlim(left / 1.6, right * 1.6)
        ax.axhline(0.0, color="0.8", linewidth=0.6, zorder=0)
        ax.set_title("%s (eta = %g)" % (names.get(eta, "power law"), eta), fontsize=9)
        ax.set_xlabel("stiffness ratio r = k_01 / k_12", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("final velocity [length/time]", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    # The balls first, then the N markers, then the two laws.
    order = sorted(range(len(labels)), key=lambda i: (not labels[i].startswith("ball"),
                                                      not labels[i].startswith("N ="), i))
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    fig.suptitle("Three touching balls, v0 = 1: the penalty realization's outcome (the same at "
                 "every N) and Liu, Zhao & Brogliato's against the stiffness ratio", y=0.99,
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=4, fontsize=8)
    save(fig, folder, "chain_ratios", outside_legend=True)


def impacts(study, folder):
    """Per row (a column of panels, four to a line), the restitution (top) and the peak
    penetration (bottom) against the impact speed, a line per step h; the ideal rigid impact's
    restitution dashed. A restitution above 1.05 (a contact that adds energy) is drawn at the
    panel's top with an upward triangle and counted there. The penetration panels share one
    scale; a penetration at or below 1e-15 (round-off: an engine that never lets the body in) is
    not drawn, and its panel says so."""
    rows = study["rows"]
    steps = study["steps"]
    per_line = min(4, len(rows))
    lines = (len(rows) + per_line - 1) // per_line
    fig, axes = plt.subplots(2 * lines, per_line, figsize=(2.9 * per_line, 5.0 * lines),
                             squeeze=False)
    results = [r for r in study["results"] if r["status"] == "ok"]
    roundoff, top_limit = 1e-15, 1.05
    depths = [r["peak_penetration"] for r in results
              if r["peak_penetration"] is not None and r["peak_penetration"] > roundoff]
    depth_range = (min(depths) / 3, max(depths) * 3) if depths else (1e-15, 1.0)
    speeds = study["speeds"]
    speed_range = (min(speeds) / 1.5, max(speeds) * 1.5)
    for i, row in enumerate(rows):
        top = axes[2 * (i // per_line)][i % per_line]
        bottom = axes[2 * (i // per_line) + 1][i % per_line]
        hidden, above, largest = 0, 0, 0.0
        for k, h in enumerate(steps):
            points = sorted((r["speed"], r) for r in results
                            if r["label"] == row["label"] and r["h"] == h)
            if not points:
                continue
            style = dict(color="C%d" % k, marker=MARKERS[k % len(MARKERS)], markersize=4,
                         linewidth=0.9, markerfacecolor="none")
            e = [p[1]["restitution"] for p in points]
            above += sum(1 for x in e if x is not None and x > top_limit)
            largest = max([largest] + [x for x in e if x is not None])
            top.plot([p[0] for p in points],
                     [min(x, top_limit) if x is not None else None for x in e],
                     label="h = %g s" % h, **style)
            top.plot([p[0] for p, x in zip(points, e) if x is not None and x > top_limit],
                     [top_limit] * sum(1 for x in e if x is not None and x > top_limit),
                     "^", color="C%d" % k, markersize=6)
            shown = [(p[0], p[1]["peak_penetration"]) for p in points
                     if p[1]["peak_penetration"] is not None
                     and p[1]["peak_penetration"] > roundoff]
            hidden += len(points) - len(shown)
            if shown:
                bottom.plot([x for x, _ in shown], [y for _, y in shown], **style)
        if above:
            top.text(0.03, 0.80, "%d above 1 (up to %.3g):\nthe contact adds energy" %
                     (above, largest), transform=top.transAxes, fontsize=7, color="0.2")
        if hidden:
            bottom.text(0.5, 0.04, "%d points at or below 1e-15\n(round-off): not drawn" % hidden,
                        transform=bottom.transAxes, ha="center", va="bottom", fontsize=7,
                        color="0.3")
        top.axhline(row["restitution"], color="0.2", linestyle="--", linewidth=0.8,
                    label="ideal rigid impact")
        top.set_title(row["label"], fontsize=9)
        top.set_ylim(-0.03, top_limit + 0.05)
        for ax in (top, bottom):
            ax.set_xscale("log")
            ax.set_xlim(*speed_range)
            # No labels at the minor ticks: over a narrow range of speeds they overlap.
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=7)
        bottom.set_yscale("log")
        bottom.set_ylim(*depth_range)
        bottom.set_xlabel("impact speed %s [length/time]" % study["speed"], fontsize=8)
        if i % per_line == 0:
            top.set_ylabel("restitution\n(rebound / impact speed)", fontsize=8)
            bottom.set_ylabel("peak penetration [length]", fontsize=8)
    for j in range(len(rows), lines * per_line):
        axes[2 * (j // per_line)][j % per_line].set_visible(False)
        axes[2 * (j // per_line) + 1][j % per_line].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle("%s: one impact per run at each speed and step h, each row at its settings"
                 % study["name"], y=0.995, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=len(labels), fontsize=8)
    save(fig, folder, "impacts", outside_legend=True)


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(sys.argv) != 2:
        sys.stderr.write("usage: figures.py DIR\n")
        return 2
    folder = sys.argv[1]
    if not any(os.path.exists(os.path.join(folder, name)) for name in
               ("work_precision_overview.json", "sweep.json", "study.json",
                "chain_outcome.json", "impacts.json")):
        sys.stderr.write("figures.py: %s has no study.json, sweep.json, "
                         "work_precision_overview.json, chain_outcome.json or impacts.json (a "
                         "folder written by crbench converge, sweep, impacts or report)\n" % folder)
        return 2
    impacts_path = os.path.join(folder, "impacts.json")
    if os.path.exists(impacts_path):
        with open(impacts_path) as f:
            impacts(json.load(f), folder)
        return 0
    chain_path = os.path.join(folder, "chain_outcome.json")
    if os.path.exists(chain_path):
        with open(chain_path) as f:
            outcome = json.load(f)
        chain_outcome(outcome, folder)
        chain_ratios(outcome, folder)
        return 0
    overview_path = os.path.join(folder, "work_precision_overview.json")
    if os.path.exists(overview_path):
        with open(overview_path) as f:
            work_precision_overview(json.load(f), folder)
        return 0
    sweep_path = os.path.join(folder, "sweep.json")
    if os.path.exists(sweep_path):
        with open(sweep_path) as f:
            phase_map(json.load(f), folder)
        return 0
    with open(os.path.join(folder, "study.json")) as f:
        study = json.load(f)
    if not any(m.get("axis") == "N" for m in study["models"]):
        pass  # no N ladder (a study of h and rtol ladders only)
    elif "lift_off_time" in study["observables"] and ladder_models(study):
        error_vs_N(study, folder)
        lift_off_vs_N(study, folder)
    else:
        # No lift-off on an N ladder (kinematic constraints): the deviation from the reference
        # motion against N for the first observable that has one.
        first = next((o for o in study["observables"]
                      if o != "lift_off_time" and ladder_models(study, o)), None)
        if first:
            error_vs_N(study, folder, first)
    # The impact observables, each against N where an N ladder has them.
    impact_observables = ("penetration_depth", "post_impact_velocity", "energy_drift", "total_impulse")
    for observable in impact_observables:
        if observable in study["observables"] and ladder_models(study, observable):
            error_vs_N(study, folder, observable)
    error_vs_step(study, folder, "h")
    error_vs_step(study, folder, "rtol")
    # The model parameters the ladders run over (the added mass alpha, ...).
    for parameter in sorted({m["axis"] for m in study["models"]
                             if m.get("axis") not in (None, "N", "h", "rtol")}):
        error_vs_step(study, folder, parameter)
    collapse(study, folder)
    paths(study, folder)
    work_precision(study, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
