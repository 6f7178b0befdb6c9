"""Cases defined without C++ (python/crbench_case.py): a Python definition of dk-plane against the
built-in case, bit for bit; a JSON definition through `crbench case build` and the command line
(run, converge, sweep, list, check); bad definitions named by field; damaged and foreign plugins
refused with exit status 2.

Run by CTest (python_module) with the build folder on PYTHONPATH, CRBENCH_EXE naming the crbench
program and CRBENCH_CASE_CACHE a scratch folder of the build tree.
"""
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np
import sympy as sp

import crbench

EXE = os.environ.get("CRBENCH_EXE", "crbench")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(SOURCE, "examples", "python")


def dk_plane(name="dk-plane-python"):
    """dk-plane (Deryabin & Kozlov 1995, section 6) written as a user would, in sympy."""
    c = crbench.Case(name, "dk-plane, defined in Python")
    g = c.parameter("g", 1.0, min=0.0, max=1e6, min_inclusive=False, unit="length/time^2",
                    description="magnitude of the switching force")
    x, y = c.coordinates(("x", "length"), ("y", "length"))
    c.kinetic_energy = (c.velocity(x) ** 2 + c.velocity(y) ** 2) / 2
    c.force = [0, g * c.switch("x", x)]
    c.unilateral("plane", y, unit="length")
    c.initial(q=[-1, 0], v=[1, 0])
    c.horizon = 3
    c.lift_off_fact("classical", 1, "lambda changes sign at x = 0")
    t = c.t
    c.trajectory_fact("classical", [t - 1, sp.Piecewise((0, t <= 1), (g * (t - 1) ** 2 / 2, True))],
                      "x = t - 1, y = 0 until t = 1 and g (t - 1)^2 / 2 after")
    return c


# The circle of radius R as the ellipse of examples/python/ellipse.json with a = b = R.
def ellipse_definition(**overrides):
    with open(os.path.join(EXAMPLES, "ellipse.json"), encoding="utf-8") as f:
        definition = json.load(f)
    definition.update(overrides)
    return definition


# particle-on-circle at its defaults (R = g = 1, v0 = 0.5) as a TOML definition.
CIRCLE_TOML = """
name = "circle-toml"
description = "particle-on-circle, written in TOML"
coordinates = [{name = "r", unit = "length"}, {name = "theta", unit = "angle (rad)"}]
kinetic_energy = "(r_dot**2 + r**2*theta_dot**2)/2"
potential = "g*r*cos(theta)"
horizon = "4"
parameters = [{name = "R", default = 1.0, min = 0.1, max = 10},
              {name = "g", default = 1.0, min = 0.1, max = 10}]
unilateral = [{name = "circle", f = "r - R", unit = "length"}]
initial = {q = ["R", "0"], v = ["0", "0.5/R"]}
"""


def run_exe(*args, env=None):
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=env)


def without(record, keys=("case", "wall_time_s", "output_time_s", "trajectory")):
    return {k: v for k, v in record.items() if k not in keys}


class PythonCase(unittest.TestCase):
    def test_dk_plane_from_python_is_the_built_in_case_bit_for_bit(self):
        case = dk_plane()
        for solver, options in (("event-driven", {}), ("limit", {}), ("realization", {"N": 1e8})):
            built_in = crbench.run("dk-plane", solver, **options)
            own = crbench.run(case, solver, **options)
            self.assertEqual(own["case"], "dk-plane-python")
            self.assertEqual(json.dumps(without(own)), json.dumps(without(built_in)), solver)
            self.assert_same(own["trajectory"], built_in["trajectory"], solver)

    def assert_same(self, mine, theirs, where):
        if isinstance(theirs, dict):
            self.assertEqual(sorted(mine), sorted(theirs), where)
            for key, value in theirs.items():
                self.assert_same(mine[key], value, f"{where} {key}")
        elif isinstance(theirs, np.ndarray):
            self.assertTrue(np.array_equal(mine, theirs), where)
        else:
            self.assertEqual(mine, theirs, where)

    def test_a_kinematic_constraint_from_python_is_the_built_in_knife_edge(self):
        c = crbench.Case("knife-edge-python", "Kozlov 1992 sections 2-3, defined in Python")
        a_g = c.parameter("a_g", 1.0, min=0.0, max=1e6)
        J = c.parameter("J", 1.0, min=0.0, max=1e6, min_inclusive=False)
        omega = c.parameter("omega", 1.0, min=0.0, max=1e3, min_inclusive=False)
        x, y, phi = c.coordinates(("x", "length"), ("y", "length"), ("phi", "angle (rad)"))
        xd, yd, phid = c.velocities
        c.kinetic_energy = (xd ** 2 + yd ** 2 + J * phid ** 2) / 2
        c.potential = -a_g * x
        c.kinematic("blade", [-sp.sin(phi), sp.cos(phi), 0])
        c.initial(q=[0, 0, 0], v=[0, 0, omega])
        c.horizon = 3
        for solver, options in (("event-driven", {}), ("realization", {"N": 1e6})):
            built_in = crbench.run("knife-edge-incline", solver, trajectory=False, **options)
            own = crbench.run(c, solver, trajectory=False, **options)
            self.assertEqual(json.dumps(without(own)), json.dumps(without(built_in)), solver)

    def test_a_coulomb_row_from_python_is_the_built_in_block_on_incline(self):
        c = crbench.Case("block-python", "block-on-incline, defined in Python")
        angle = c.parameter("angle", 0.3, min=0.0, max=1.5)
        mu = c.parameter("mu", 0.5, min=0.0, max=100.0)
        g = c.parameter("g", 9.81, min=0.0, max=1e6, min_inclusive=False)
        v0 = c.parameter("v0", 1.0, min=0.0, max=1e3)
        ramp = c.parameter("ramp", 0.0, min=0.0, max=1e6)
        x, y = c.coordinates(("x", "length"), ("y", "length"))
        c.kinetic_energy = (c.velocity(x) ** 2 + c.velocity(y) ** 2) / 2
        c.potential = -g * sp.sin(angle) * x + g * sp.cos(angle) * y
        c.force = [ramp * c.t, 0]
        c.unilateral("incline", y, unit="length")
        c.kinematic("slip", [1, 0], condition="incline", coulomb=mu)
        c.initial(q=[0, 0], v=[v0, 0])
        c.horizon = 2
        for solver, options in (("event-driven", {}), ("realization", {"N": 1e4, "slip_beta": 1})):
            built_in = crbench.run("block-on-incline", solver, t_end=2.0, trajectory=False,
                                   **options)
            own = crbench.run(c, solver, t_end=2.0, trajectory=False, **options)
            self.assertEqual(json.dumps(without(own)), json.dumps(without(built_in)), solver)

    def test_a_case_rebuilt_under_its_name_replaces_the_loaded_one(self):
        # The horizon and the facts are cached per case within a process: not across a rebuild.
        case = dk_plane("dk-plane-rebuilt")
        self.assertEqual(crbench.run(case, "event-driven")["final_state"]["t"], 3.0)
        case.horizon = 2.5
        self.assertEqual(crbench.run(case, "event-driven")["final_state"]["t"], 2.5)
        self.assertEqual(crbench.run("dk-plane-rebuilt", "event-driven")["final_state"]["t"], 2.5)

    def test_the_header_is_a_case_and_a_cached_build_is_reused(self):
        case = dk_plane()
        header = case.header()
        for part in ("struct DkPlanePythonCase", "static constexpr bool constant_metric = true;",
                     "template <class S>", '.constraint_names = {"plane"}'):
            self.assertIn(part, header)
        first = case.build()
        self.assertTrue(first.endswith("libcrbench_case_dk_plane_python.so"))
        self.assertEqual(case.build(), first)
        self.assertIn("dk-plane-python", [c["name"] for c in crbench.cases()])

    def test_check_passes_and_a_wrong_fact_fails(self):
        self.assertEqual(dk_plane().check()["exit_status"], 0)
        wrong = dk_plane("dk-plane-wrong-fact")
        wrong.lift_off_fact("classical", 1.25, "a planted wrong lift-off", constraint="plane")
        report = wrong.check()
        self.assertEqual(report["exit_status"], 1)
        self.assertFalse(report["passed"])

    def test_circle_lift_off_is_where_gravity_equals_the_centripetal_force(self):
        # Energy: v^2 = v0^2 + 2 g R (1 - cos th); the point leaves where g cos th = v^2 / R,
        # cos th = (v0^2 / (g R) + 2) / 3, at height y = R cos th.
        R, v0, g = 1.5, 0.3, 2.0
        case = crbench.case_from_json(ellipse_definition(name="circle-slide"))
        record = crbench.run(case, "event-driven", params={"a": R, "b": R, "grav": g, "v0": v0})
        self.assertEqual(record["status"], "ok")
        t = record["trajectory"]
        row = int(np.argmin(np.abs(t["t"] - record["lift_off_time"])))
        y = t["q"][row][1]
        self.assertAlmostEqual(y / R, (v0 ** 2 / (g * R) + 2) / 3, delta=1e-9)


class BadDefinitions(unittest.TestCase):
    def assert_names(self, field, make):
        with self.assertRaises(crbench.CaseError) as caught:
            make().header()
        self.assertIn(field, str(caught.exception))

    def test_each_mistake_is_named_by_its_field(self):
        def non_symmetric():
            c = dk_plane("bad-metric")
            c.metric = [[1, 1], [0, 1]]
            return c

        def undefined_symbol():
            c = dk_plane("bad-symbol")
            c.potential = sp.Symbol("k") * sp.Symbol("x", real=True)
            return c

        def velocity_in_constraint():
            c = dk_plane("bad-constraint")
            x = sp.Symbol("x", real=True)
            c.bilateral("rail", c.velocity(x) - 1)
            return c

        def unknown_function():
            c = dk_plane("bad-function")
            c.potential = sp.Function("h")(sp.Symbol("y", real=True))
            return c

        self.assert_names("metric: not symmetric", non_symmetric)
        self.assert_names("potential: k", undefined_symbol)
        self.assert_names("bilateral rail: depends on the velocity x_dot", velocity_in_constraint)
        self.assert_names("potential: 'h' is an undefined function", unknown_function)
        with self.assertRaises(crbench.CaseError) as caught:
            crbench.case_from_json(ellipse_definition(potential="grav*y + k*x")).header()
        self.assertIn("potential: k is not defined here", str(caught.exception))
        with self.assertRaises(crbench.CaseError) as caught:
            crbench.Case("own").parameter("a_", 1.0)
        self.assertIn("reserved", str(caught.exception))

    def test_a_compiler_failure_names_its_log(self):
        folder = tempfile.mkdtemp()
        settings = crbench_case_module().build_settings()
        del settings["digest"]
        settings["flags"] = settings["flags"] + ["-DCRBENCH_NO_SUCH_HEADER", "-include",
                                                 "no/such/header.hpp"]
        path = os.path.join(folder, "settings.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(settings, f)
        os.environ["CRBENCH_CASE_BUILD"] = path
        try:
            with self.assertRaises(crbench.CaseError) as caught:
                dk_plane("does-not-compile").build()
        finally:
            del os.environ["CRBENCH_CASE_BUILD"]
        message = str(caught.exception)
        self.assertIn("the compiler refused", message)
        log = message.rsplit("its log is ", 1)[1]
        self.assertTrue(os.path.exists(log), log)


def crbench_case_module():
    import crbench_case
    return crbench_case


class CommandLine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.plugins = os.path.join(cls.folder, "plugins")
        done = run_exe("case", "build", os.path.join(EXAMPLES, "ellipse.json"), "--out",
                       cls.plugins)
        assert done.returncode == 0, done.stderr

    def test_run_list_converge_and_sweep_use_the_plugin(self):
        listed = run_exe("list", "--json", "--cases", self.plugins)
        names = {c["name"]: c for c in json.loads(listed.stdout)["cases"]}
        self.assertIn("plugin", names["ellipse-slide"])
        env = dict(os.environ, CRBENCH_CASE_PATH=self.plugins)
        done = run_exe("run", "--case", "ellipse-slide", "--solver", "event-driven", "--json",
                       env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["status"], "ok")
        for kind, flag, path in (("converge", "--study", "ellipse_study.json"),
                                 ("sweep", "--sweep", "ellipse_sweep.json")):
            out = os.path.join(self.folder, kind)
            done = run_exe(kind, flag, os.path.join(EXAMPLES, path), "--out", out, "--no-figures",
                           "--cases", self.plugins)
            self.assertEqual(done.returncode, 0, done.stderr)
        crbench.load_cases(self.plugins)
        with open(os.path.join(EXAMPLES, "ellipse_study.json"), encoding="utf-8") as f:
            study = json.load(f)
        study["N"] = {"from": 100, "to": 10000, "per_decade": 1}  # a short ladder
        summary = crbench.converge(study, out=os.path.join(self.folder, "py"), figures=False)
        self.assertEqual(summary["case"], "ellipse-slide")

    def test_damaged_and_foreign_plugins_exit_2_naming_them(self):
        bad = os.path.join(self.folder, "bad")
        os.makedirs(bad)
        source = os.path.join(self.plugins, "libcrbench_case_ellipse_slide.so")
        with open(source, "rb") as f, open(os.path.join(bad, "libcrbench_case_cut.so"), "wb") as g:
            g.write(f.read()[:4096])
        done = run_exe("--cases", bad, "list")
        self.assertEqual(done.returncode, 2)
        self.assertIn("libcrbench_case_cut.so is not a case plugin", done.stderr)
        self.assertIn("truncated", done.stderr)
        os.remove(os.path.join(bad, "libcrbench_case_cut.so"))
        shutil.copyfile(shutil.which("true") or "/bin/true",
                        os.path.join(bad, "libcrbench_case_program.so"))
        done = run_exe("list", "--cases", bad)
        self.assertEqual(done.returncode, 2)
        self.assertIn("libcrbench_case_program.so is not a case plugin", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        done = run_exe("--cases", os.path.join(self.folder, "none"), "list")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--cases", done.stderr)

    def test_a_toml_definition_is_the_same_system(self):
        path = os.path.join(self.folder, "circle.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(CIRCLE_TOML)
        done = run_exe("case", "build", path, "--out", os.path.join(self.folder, "toml"))
        self.assertEqual(done.returncode, 0, done.stderr)
        done = run_exe("--cases", os.path.join(self.folder, "toml"), "run", "--case",
                       "circle-toml", "--solver", "event-driven", "--json")
        own = json.loads(done.stdout)["lift_off_time"]
        built_in = crbench.run("particle-on-circle", "event-driven", trajectory=False)
        self.assertAlmostEqual(own, built_in["lift_off_time"], delta=1e-11)

    def test_a_bad_json_definition_exits_2_naming_the_field(self):
        path = os.path.join(self.folder, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(ellipse_definition(unilateral=[{"name": "e", "f": "x_dot - 1"}]), f)
        done = run_exe("case", "build", path)
        self.assertEqual(done.returncode, 2)
        self.assertIn("unilateral e: depends on the velocity x_dot", done.stderr)
        self.assertNotIn("Traceback", done.stderr)


if __name__ == "__main__":
    unittest.main()
