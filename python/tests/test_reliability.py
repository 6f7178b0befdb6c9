"""What a Python user meets when things go wrong: Ctrl-C (SIGINT) ends a long run, verify,
converge or sweep with KeyboardInterrupt within 2 s, a study keeping its finished points; and
every error message names the keyword as Python spells it, never a command-line flag."""
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import crbench

# Long computations (tens of seconds to hours), each started in a child process that prints
# "started" just before the call.
LONG_CALLS = {
    "run": "crbench.run('dk-plane', 'realization', N=1e12, preset='penalty', t_end=1e4, "
           "trajectory=False)",
    "verify": "crbench.verify('dk-plane', preset='penalty', coarse=1e10, fine=1e12)",
    "converge": "crbench.converge({'name': 'long', 'case': 'dk-plane', "
                "'N': {'from': 1e10, 'to': 1e12, 'per_decade': 4}, "
                "'observables': ['lift_off_time'], 't_end': 1e3, "
                "'models': [{'label': 'penalty', 'solver': 'realization', "
                "'set': {'preset': 'penalty'}, 'reference': 'limit'}]}, "
                "out=OUT, jobs=1, figures=False)",
    "sweep": "crbench.sweep({'name': 'long', 'case': 'dk-plane', 'axes': ["
             "{'name': 'zeta', 'from': 0.1, 'to': 10, 'count': 200, 'spacing': 'log'}, "
             "{'name': 'omega0', 'from': 0.2, 'to': 20, 'count': 200, 'spacing': 'log'}], "
             "'model': {'alpha': 1}, 'check': {'N': 1e12, 'stride': 1}}, "
             "out=OUT, jobs=1, figures=False)",
}


class CtrlC(unittest.TestCase):
    def interrupt(self, name, check_folder=None, ready=None):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            code = ("import sys, crbench\nOUT = %r\nprint('started', flush=True)\n%s\n"
                    "print('returned', flush=True)\n" % (out, LONG_CALLS[name]))
            child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            self.assertEqual(child.stdout.readline().strip(), "started")
            time.sleep(1.5)
            # A study or sweep: until a point is finished (at most 30 s more on a busy machine).
            for _ in range(300):
                if ready is None or ready(out):
                    break
                time.sleep(0.1)
            self.assertIsNone(child.poll(), name + " ended before the signal")
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            try:
                _, err = child.communicate(timeout=10)
            finally:
                child.kill()
            took = time.monotonic() - sent
            self.assertIn("KeyboardInterrupt", err, name)
            self.assertNotEqual(child.returncode, 0)
            self.assertLess(took, 2.0, name + ": %.2f s after SIGINT" % took)
            if check_folder:
                check_folder(out)

    def test_run(self):
        self.interrupt("run")

    def test_verify(self):
        self.interrupt("verify")

    def test_converge_keeps_its_folder(self):
        self.interrupt("converge", lambda out: self.assertTrue(
            os.path.exists(os.path.join(out, "points.jsonl"))))

    def test_sweep_keeps_its_finished_points(self):
        def check(out):
            with open(os.path.join(out, "points.jsonl")) as f:
                lines = [json.loads(line) for line in f if line.strip()]
            self.assertGreater(len(lines), 0)
            # Only finished points: none cut short by the interrupt.
            for line in lines:
                self.assertEqual(line.get("status"), "ok")
        def finished_a_point(out):
            try:
                with open(os.path.join(out, "points.jsonl")) as f:
                    return any(line.strip() for line in f)
            except OSError:
                return False
        self.interrupt("sweep", check, finished_a_point)


class KeywordMessages(unittest.TestCase):
    """Each keyword of each function, given a value out of its range: the message names the
    keyword as Python spells it and no command-line flag."""

    def refused(self, keyword, call):
        with self.assertRaises(crbench.InputError) as caught:
            call()
        message = str(caught.exception)
        self.assertNotIn("--", message, keyword)
        self.assertIn(keyword, message)

    def test_run(self):
        run = lambda **k: crbench.run("dk-plane", "event-driven", trajectory=False, **k)
        self.refused("case", lambda: crbench.run("no-such-case", "event-driven"))
        self.refused("solver", lambda: crbench.run("dk-plane", "no-such-solver"))
        self.refused("t_end", lambda: run(t_end=-1.0))
        self.refused("rtol", lambda: run(rtol=10.0))
        self.refused("atol", lambda: run(atol=-1.0))
        self.refused("samples", lambda: run(samples=1))
        self.refused("max_wall_time", lambda: run(max_wall_time=-1.0))
        self.refused("'g'", lambda: run(params={"g": math.nan}))
        self.refused("event_time_tol", lambda: run(event_time_tol=-1.0))
        self.refused("N", lambda: crbench.run("dk-plane", "realization", N=-1.0))

    def test_verify(self):
        verify = lambda **k: crbench.verify("dk-plane", **k)
        self.refused("coarse", lambda: verify(coarse=math.nan))
        self.refused("fine", lambda: verify(fine=-1.0))
        self.refused("per_decade", lambda: verify(per_decade=0))
        self.refused("digits", lambda: verify(digits=0))
        self.refused("rtol", lambda: verify(rtol=10.0))
        self.refused("atol", lambda: verify(atol=-1.0))
        self.refused("tight_factor", lambda: verify(tight_factor=0.0))
        self.refused("N", lambda: verify(axis="rtol", N=-1.0))
        self.refused("axis", lambda: verify(axis="q"))

    def test_converge_and_sweep(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = os.path.join(tmp, "file")
            open(blocker, "w").close()
            study = {"name": "s", "case": "dk-plane", "N": {"from": 100, "to": 10000},
                     "observables": ["lift_off_time"],
                     "models": [{"label": "v", "solver": "realization",
                                 "set": {"preset": "viscous"}, "reference": "limit"}]}
            sweep = {"name": "s", "case": "dk-plane",
                     "axes": [{"name": "zeta", "from": 0.1, "to": 10, "count": 2}],
                     "model": {"alpha": 1, "omega0": 1}}
            for function, given in ((crbench.converge, study), (crbench.sweep, sweep)):
                self.refused("jobs", lambda: function(given, jobs=0))
                self.refused("out", lambda: function(given, out=os.path.join(blocker, "x"),
                                                      figures=False))


if __name__ == "__main__":
    unittest.main()
