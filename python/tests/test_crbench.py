"""The Python module crbench against closed forms and against the crbench command line.

Run by CTest (python_module) with the build folder on PYTHONPATH and CRBENCH_EXE naming the
crbench program of the same build; by hand:
    PYTHONPATH=build/release CRBENCH_EXE=build/release/crbench \
        python3 -m unittest discover -s python/tests -v
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import crbench

EXE = os.environ.get("CRBENCH_EXE", "crbench")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SMALL_STUDY = os.path.join(SOURCE, "tests", "data", "studies", "small.json")


def z_added_mass(t):
    """dk-plane (g = 1: lambda = 1 before the switch at t = 1, -1 after) with (alpha, beta, gamma)
    = (1, 0, 1): z'' + z = -lambda, z(0) = z'(0) = 0 (Deryabin & Kozlov 1995, (2.6)), gives
    z = cos t - 1 until t = 1 and z = 1 - 2 cos(t - 1) + cos t after."""
    t = np.asarray(t, dtype=float)
    return np.where(t <= 1.0, np.cos(t) - 1.0, 1.0 - 2.0 * np.cos(t - 1.0) + np.cos(t))


def first_positive_zero(f, a, b):
    for _ in range(200):
        m = 0.5 * (a + b)
        if f(m) < 0.0:
            a = m
        else:
            b = m
    return 0.5 * (a + b)


def cli_failure(*args):
    """The crbench program's exit status and stderr for these arguments."""
    done = subprocess.run([EXE, *args], capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


class Listing(unittest.TestCase):
    def test_cases_and_solvers_are_listed_with_their_parameters(self):
        cases = {c["name"]: c for c in crbench.cases()}
        self.assertIn("dk-plane", cases)
        self.assertEqual(cases["dk-plane"]["dof"], 2)
        self.assertEqual(cases["dk-plane"]["constraints"], 1)
        self.assertIn("g", [p["name"] for p in cases["dk-plane"]["params"]])
        solvers = {s["name"]: s for s in crbench.solvers()}
        # The optional ones where crbench is built with them: the siconos-* solvers with the
        # Siconos kernel (CRBENCH_SICONOS), the engines with theirs (CRBENCH_MUJOCO, CRBENCH_ODE).
        optional = {"siconos-moreau-jean", "siconos-event-driven", "mujoco", "ode", "bullet"}
        self.assertEqual(set(solvers) - optional,
                         {"event-driven", "moreau-jean", "realization", "limit"})
        self.assertIn("N", [p["name"] for p in solvers["realization"]["params"]])
        presets = [c for c in solvers["realization"]["choices"] if c["name"] == "preset"]
        self.assertIn("viscous", presets[0]["options"])


class Run(unittest.TestCase):
    def test_event_driven_lifts_off_where_lambda_vanishes(self):
        # lambda = 1 - t on dk-plane: the classical lift-off is t = 1.
        record = crbench.run("dk-plane", "event-driven")
        self.assertEqual(record["status"], "ok")
        self.assertLessEqual(abs(record["lift_off_time"] - 1.0), 1e-12)

    def test_the_record_is_the_command_line_record(self):
        record = crbench.run("dk-plane", "realization", N=1e4, preset="viscous", trajectory=False)
        done = subprocess.run([EXE, "run", "--case", "dk-plane", "--solver", "realization",
                               "--N", "1e4", "--preset", "viscous", "--json"],
                              capture_output=True, text=True, check=True)
        cli = json.loads(done.stdout)
        for volatile in ("wall_time_s", "output_time_s"):
            record.pop(volatile)
            cli.pop(volatile)
        self.assertEqual(record, cli)
        self.assertNotIn("trajectory", record)

    def test_limit_z_and_lift_off_follow_the_closed_form(self):
        record = crbench.run("dk-plane", "limit", alpha=1, beta=0, gamma=1)
        tau = first_positive_zero(z_added_mass, 2.0, 3.0)
        self.assertLessEqual(abs(record["lift_off_time"] - tau), 1e-12)
        path = record["trajectory"]
        on_grid = np.array([label == "" for label in path["label"]])
        t = path["t"][on_grid]
        self.assertEqual(len(t), 1001)
        before = t < tau
        z = path["extra"]["z0"][on_grid]
        self.assertLessEqual(np.max(np.abs(z[before] - z_added_mass(t[before]))), 1e-11)
        self.assertEqual(path["q"].shape, (len(path["t"]), 2))
        self.assertEqual(path["f"].shape, (len(path["t"]), 1))
        # q's columns are the case's coordinates, named with their units in the record.
        self.assertEqual(path["coordinates"], ["x", "y"])
        self.assertEqual(record["coordinates"][1], {"name": "y", "unit": "length"})

    def test_realization_collapses_onto_z_at_rate_1_over_N(self):
        # Deryabin & Kozlov 1995 Theorem 1: N f(q_N(t)) -> z(t) inside the medium, the error O(1/N).
        tau = first_positive_zero(z_added_mass, 2.0, 3.0)
        errors = []
        for N in (100, 1000):
            path = crbench.run("dk-plane", "realization", N=N, alpha=1, beta=0,
                               gamma=1)["trajectory"]
            on_grid = np.array([label == "" for label in path["label"]])
            t = path["t"][on_grid]
            before = t < tau
            Nf = path["extra"]["Nf0"][on_grid]
            errors.append(np.max(np.abs(Nf[before] - z_added_mass(t[before]))))
        self.assertGreater(errors[0] / errors[1], 8.0)
        self.assertLess(errors[0] / errors[1], 12.0)
        self.assertLess(errors[1], 1e-3)


class Errors(unittest.TestCase):
    def assert_same_message(self, call, *cli_args):
        status, stderr = cli_failure(*cli_args)
        self.assertEqual(status, 2)
        with self.assertRaises(crbench.InputError) as caught:
            call()
        # The command line's message with its flags as Python's keywords (--case: case, --from:
        # coarse, --to: fine, --set: params, --event-time-tol: event_time_tol).
        renamed = {"from": "coarse", "to": "fine", "set": "params", "resume": "resume=True"}
        as_keywords = re.sub(
            r"(?<![A-Za-z0-9])--([A-Za-z][A-Za-z0-9_-]*)",
            lambda m: renamed.get(m.group(1), m.group(1).replace("-", "_")), stderr)
        self.assertEqual("crbench: " + str(caught.exception) + "\n", as_keywords)

    def test_errors_carry_the_exit_2_messages(self):
        self.assert_same_message(lambda: crbench.run("no-such-case", "event-driven"),
                                 "run", "--case", "no-such-case", "--solver", "event-driven")
        self.assert_same_message(lambda: crbench.run("dk-plane", "no-such-solver"),
                                 "run", "--case", "dk-plane", "--solver", "no-such-solver")
        self.assert_same_message(lambda: crbench.run("dk-plane", "event-driven",
                                                     params={"g": float("nan")}),
                                 "run", "--case", "dk-plane", "--solver", "event-driven",
                                 "--set", "g=nan")
        self.assert_same_message(lambda: crbench.run("dk-plane", "realization", N=-1),
                                 "run", "--case", "dk-plane", "--solver", "realization",
                                 "--N", "-1")
        self.assert_same_message(lambda: crbench.run("dk-plane", "realization",
                                                     preset="sticky"),
                                 "run", "--case", "dk-plane", "--solver", "realization",
                                 "--preset", "sticky")
        self.assert_same_message(lambda: crbench.converge(os.path.join(
            SOURCE, "tests", "data", "studies", "misspelt-field.json")),
            "converge", "--study",
            os.path.join(SOURCE, "tests", "data", "studies", "misspelt-field.json"))

    def test_an_option_of_another_solver_is_named_as_a_keyword(self):
        # The command line says --event-time-tol; Python names the keyword event_time_tol.
        with self.assertRaises(crbench.InputError) as caught:
            crbench.run("dk-plane", "moreau-jean", N=10)
        self.assertTrue(str(caught.exception).startswith("N: not a parameter of solver "
                                                         "moreau-jean; its parameters are: h,"))
        self.assertNotIn("--", str(caught.exception))
        with self.assertRaises(crbench.InputError) as caught:
            crbench.run("dk-plane", "realization", event_time=1e-9)
        self.assertIn("event_time_tol", str(caught.exception))
        with self.assertRaises(crbench.InputError) as caught:
            crbench.run("dk-plane", "moreau-jean", rtol=1e-9)
        self.assertTrue(str(caught.exception).startswith("rtol: not a parameter"))

    def test_input_error_is_a_value_error_and_python_types_are_checked(self):
        self.assertTrue(issubclass(crbench.InputError, ValueError))
        with self.assertRaises(crbench.InputError):
            crbench.run("dk-plane", "realization", N=True)
        with self.assertRaises(crbench.InputError):
            crbench.run("dk-plane", "realization", N=[1])
        with self.assertRaises(crbench.InputError):
            crbench.run("dk-plane", "event-driven", samples=1)
        with self.assertRaises(crbench.InputError):
            crbench.verify("dk-plane", nosuch=1)

    def test_a_failing_solve_is_a_record_not_an_exception(self):
        record = crbench.run("dk-plane", "realization", N=1e8, max_steps=10, trajectory=False)
        self.assertEqual(record["status"], "too_many_steps")
        self.assertTrue(record["reason"])


class VerifyAndConverge(unittest.TestCase):
    def test_verify_confirms_the_viscous_delay(self):
        # Deryabin & Kozlov 1995 section 6: tau = 2 for the viscous preset on dk-plane.
        verdict = crbench.verify("dk-plane", coarse=1e3, fine=1e6, digits=5, preset="viscous")
        self.assertEqual(verdict["exit_status"], 0)
        self.assertTrue(verdict["confirmed"])
        self.assertLessEqual(abs(verdict["prediction"]["lift_off_time"] - 2.0), 1e-12)

    def test_verify_fits_moreau_jeans_order_in_h(self):
        # The largest q deviation from the classical motion of dk-plane falls like h.
        verdict = crbench.verify("dk-plane", axis="h", solver="moreau-jean", coarse=3e-2,
                                 fine=3e-5)
        self.assertEqual(verdict["exit_status"], 0)
        fit = verdict["observables"]["max_q_deviation"]["least_squares_order"]
        self.assertLess(abs(fit - 1.0), 0.05)
        with self.assertRaises(crbench.InputError):
            crbench.verify("dk-plane", axis="h", solver="event-driven")

    def test_converge_and_sweep_take_a_dict_and_all_cores_by_default(self):
        with open(SMALL_STUDY, encoding="utf-8") as f:
            study = json.load(f)
        with tempfile.TemporaryDirectory() as scratch:
            summary = crbench.converge(study, out=os.path.join(scratch, "study"), figures=False)
            self.assertEqual(summary["study"], "small")
            self.assertEqual(summary["points_total"], summary["points_computed"])
            plan = {"name": "tiny", "case": "dk-plane", "model": {"alpha": 1},
                    "axes": [{"name": "zeta", "from": 0.1, "to": 10, "count": 3,
                              "spacing": "log"},
                             {"name": "omega0", "from": 0.2, "to": 20, "count": 2,
                              "spacing": "log"}]}
            result = crbench.sweep(plan, out=os.path.join(scratch, "sweep"), figures=False)
            self.assertEqual(result["points_total"], 6)
            self.assertEqual(result["ok"], 6)
            self.assertTrue(os.path.exists(os.path.join(scratch, "sweep", "grid.csv")))
            # One impact at 2 through Moreau-Jean (theta 1/2, restitution 0): v h/2 deep, rests.
            throw = {"name": "throw", "case": "bouncing-ball-siconos", "params": {"h0": 0},
                     "speed": "v0", "speeds": [2], "steps": [1e-3], "t_end": 0.1,
                     "rows": [{"label": "mj", "solver": "moreau-jean",
                               "set": {"restitution": 0}, "restitution": 0,
                               "restitution_source": "Newton's law"}]}
            impacts = crbench.impacts(throw, out=os.path.join(scratch, "impacts"), figures=False)
            self.assertEqual(impacts["points_total"], 1)
            point = impacts["results"][0]
            self.assertTrue(point["rests"])
            self.assertAlmostEqual(point["peak_penetration"], 1e-3 * 2 / 2, places=12)
        with self.assertRaises(crbench.InputError) as caught:
            crbench.converge(3)
        self.assertIn("a file's path or a dict", str(caught.exception))
        with self.assertRaises(crbench.InputError):
            crbench.sweep({"name": "x"})
        with self.assertRaises(crbench.InputError) as caught:
            crbench.impacts({"name": "x"})
        self.assertIn("impacts.case", str(caught.exception))
        with self.assertRaises(crbench.InputError):
            crbench.converge(SMALL_STUDY, jobs=0)

    def test_converge_writes_the_files_of_the_command_line(self):
        with tempfile.TemporaryDirectory() as scratch:
            python_out = os.path.join(scratch, "python")
            cli_out = os.path.join(scratch, "cli")
            summary = crbench.converge(SMALL_STUDY, out=python_out, jobs=2, figures=False)
            # Exit 1: the small study's viscous ladder is NOT CONFIRMED (no error bar).
            cli = subprocess.run([EXE, "converge", "--study", SMALL_STUDY, "--out", cli_out,
                                  "--no-figures"], capture_output=True, check=False)
            self.assertEqual(cli.returncode, 1, cli.stderr)
            self.assertEqual(summary["points_total"], summary["points_computed"])
            with open(os.path.join(python_out, "study.json"), encoding="utf-8") as f:
                self.assertEqual(summary["study"], json.load(f)["study"])
            # The deterministic files: byte for byte (timing and work-precision hold wall times).
            for name in sorted(os.listdir(cli_out)):
                if name.startswith(("timing", "work_precision")) or name == "trajectories":
                    continue
                with open(os.path.join(cli_out, name), "rb") as a, \
                        open(os.path.join(python_out, name), "rb") as b:
                    self.assertEqual(a.read(), b.read(), name)


THREADS_SCRIPT = """
import sys, threading
import crbench  # before numpy: its array API must not be looked up later, from two threads
results = []
def work():
    r = crbench.run('dk-plane', 'event-driven', samples=11)
    results.append(r['lift_off_time'])
    crbench.verify('dk-plane', fine=1e4)
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert len(results) == 4 and all(abs(x - 1.0) < 1e-12 for x in results), results
print('ok')
"""


class Threads(unittest.TestCase):
    def test_four_threads_in_a_fresh_interpreter_do_not_deadlock(self):
        # Each try is a fresh interpreter: the deadlock needed numpy not yet imported.
        for attempt in range(20):
            done = subprocess.run([sys.executable, "-c", THREADS_SCRIPT], capture_output=True,
                                  text=True, timeout=60, env=os.environ.copy())
            self.assertEqual(done.returncode, 0, "attempt %d: %s" % (attempt, done.stderr))
            self.assertEqual(done.stdout.strip(), "ok")


if __name__ == "__main__":
    unittest.main()
