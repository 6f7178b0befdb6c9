"""A case of one's own without writing C++: a system defined with sympy expressions (or a JSON file
of expression strings) becomes a header in crbench's case format, compiled with the system
compiler into a case plugin (cases/case_plugin.hpp) that crbench, its Python module and its
studies load by the case's name. Derivatives stay the suite's automatic differentiation: the
header holds A(q), V(q, t), Q(q, q', t), f(q, t) and the kinematic rows, as a hand-written case.

    from crbench_case import Case          # or crbench.Case
    c = Case("my-plane", "A unit point on the plane y >= 0 under a switching force.")
    g = c.parameter("g", 1.0, min=0.0, max=1e6, min_inclusive=False, unit="length/time^2")
    x, y = c.coordinates(("x", "length"), ("y", "length"))
    c.kinetic_energy = (c.velocity(x)**2 + c.velocity(y)**2) / 2
    s = c.switch("x", x)                   # +1 while x > 0, -1 while x <= 0
    c.force = [0, g * s]
    c.unilateral("plane", y, unit="length")
    c.initial(q=[-1, 0], v=[1, 0])
    c.horizon = 3
    plugin = c.build()                     # compiled once, then taken from the cache

Command line: python3 crbench_case.py build FILE.json [--out DIR] (crbench case build FILE).
"""

import hashlib
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import sympy as sp
except ImportError:
    if __name__ != "__main__":
        raise
    print("crbench case: sympy is missing (apt-get install python3-sympy; bash scripts/setup.sh "
          "installs it)", file=sys.stderr)
    sys.exit(2)

__all__ = ["Case", "CaseError", "build_file", "case_from_json"]


class CaseError(ValueError):
    """A definition crbench cannot build; the message names the field."""


_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_CASE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# Names the generated code uses itself (members, arguments, types) or C++ reserves.
_RESERVED = {"n", "m", "t", "q", "v", "S", "N", "modes", "switches", "kinematic", "bilateral",
             "unilateral_kinematic", "constant_metric", "info", "facts", "std", "crbench",
             "Eigen", "Vec", "Mat", "State", "Facts", "Modes", "ParamValues", "CaseInfo"}
_CXX_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
    "catch", "char", "class", "compl", "concept", "const", "consteval", "constexpr", "continue",
    "decltype", "default", "delete", "do", "double", "else", "enum", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
    "namespace", "new", "noexcept", "not", "nullptr", "operator", "or", "private", "protected",
    "public", "register", "requires", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "while", "xor"}
_MATH = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.asin: "asin", sp.acos: "acos",
         sp.atan: "atan", sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh", sp.exp: "exp",
         sp.log: "log", sp.Abs: "abs", sp.atan2: "atan2"}
# Where a function's `using std::...` declarations and `(void)arg;` lines go, filled in once its
# body is known (_Header.prologues): only the functions and arguments it needs.
_USING = "@PROLOGUE@\n"


def _quote(text):
    return json.dumps(str(text), ensure_ascii=True)


def _number(value):
    """A double literal that reads back to the same double."""
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise ValueError("not finite")
    return text if ("." in text or "e" in text) else text + ".0"


class _Printer:
    """C++ text of a sympy expression for the scalar S of a templated case function: integer
    powers as products, ternaries for Piecewise, the math functions Eigen's AutoDiff defines."""

    def __init__(self, names, field):
        self.names = names  # sympy Symbol -> C++ text
        self.field = field

    def fail(self, why):
        raise CaseError(f"{self.field}: {why}")

    def __call__(self, e):
        e = sp.sympify(e)
        if e.is_Symbol:
            if e not in self.names:
                self.fail(f"'{e}' is not defined here")
            return self.names[e]
        if e.is_Number or e in (sp.pi, sp.E):
            return self.number(e)
        if e.is_Add:
            return self.add(e)
        if e.is_Mul:
            return self.mul(e)
        if e.is_Pow:
            return self.power(e.base, e.exp)
        if isinstance(e, sp.Piecewise):
            return self.piecewise(e)
        if isinstance(e, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan,
                          sp.GreaterThan, sp.Equality, sp.Unequality)):
            return f"({self(e.lhs)} {e.rel_op} {self(e.rhs)})"
        if isinstance(e, sp.And):
            return "(" + " && ".join(self(a) for a in e.args) + ")"
        if isinstance(e, sp.Or):
            return "(" + " || ".join(self(a) for a in e.args) + ")"
        if isinstance(e, sp.Not):
            return f"(!{self(e.args[0])})"
        if e is sp.true or e is sp.false:
            return "true" if e is sp.true else "false"
        if e.func in _MATH:
            return f"{_MATH[e.func]}(" + ", ".join(self(a) for a in e.args) + ")"
        self.fail(f"'{e.func}' in {e} has no C++ form here (the functions are "
                  + ", ".join(sorted(set(_MATH.values()) | {"sqrt", "Piecewise"})) + ")")

    def piecewise(self, e):
        text = "S(std::numeric_limits<double>::quiet_NaN())"  # where no piece holds
        for value, condition in reversed(e.args):
            if condition is sp.true:
                text = f"S({self(value)})"
            else:
                text = f"({self(condition)} ? S({self(value)}) : {text})"
        return text

    def number(self, e):
        if e.is_Rational and not e.is_Integer:
            p, q = int(e.p), int(e.q)
            if q & (q - 1) == 0:  # a power of two: the quotient is exact
                return _number(p / q)
            return f"({_number(p)} / {_number(q)})"
        try:
            return _number(sp.Float(e, 17))
        except (TypeError, ValueError):
            self.fail(f"{e} is not a finite real number")

    def add(self, e):
        terms = [self(a) for a in e.as_ordered_terms()]
        text = terms[0]
        for term in terms[1:]:
            text += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
        return f"({text})"

    def mul(self, e):
        coefficient, factors = e.as_coeff_mul()
        numerator, denominator = [], []
        for f in factors:
            if f.is_Pow and f.exp.is_Rational and f.exp < 0:
                denominator.append(self.power(f.base, -f.exp))
            else:
                numerator.append(self(f))
        sign = ""
        if coefficient < 0:
            sign, coefficient = "-", -coefficient
        if coefficient != 1 or not numerator:
            numerator.insert(0, self.number(coefficient))
        text = " * ".join(numerator)
        if denominator:
            below = " * ".join(denominator)
            text += f" / ({below})" if len(denominator) > 1 else f" / {below}"
        return f"{sign}({text})" if sign else text

    def power(self, base, exponent):
        b = self(base)
        if exponent.is_Integer:
            k = int(exponent)
            if k == 0:
                return "1.0"
            product = "(" + " * ".join([b] * abs(k)) + ")" if abs(k) <= 8 else None
            if product is None:
                product = f"exp({_number(abs(k))} * log({b}))"
            return product if k > 0 else f"(1.0 / {product})"
        if exponent == sp.Rational(1, 2):
            return f"sqrt({b})"
        if exponent == sp.Rational(-1, 2):
            return f"(1.0 / sqrt({b}))"
        # exp(e log b): AutoDiff's pow takes a plain exponent only; defined for b > 0.
        return f"exp({self(exponent)} * log({b}))"


class Case:
    """A system defined with sympy expressions; see the module's documentation."""

    def __init__(self, name, description=""):
        if not isinstance(name, str) or not _CASE_NAME.match(name):
            raise CaseError(f"name: '{name}' is not a case name (lower-case letters, digits and "
                            "'-', starting with a letter or digit)")
        self.name = name
        self.description = description
        self.t = sp.Symbol("t", real=True)
        self.N = sp.Symbol("N", positive=True)  # the realization's N, in closed-form facts
        self._params = []  # dicts
        self._coords = []  # (symbol, velocity symbol, unit)
        self.kinetic_energy = None
        self.metric = None
        self.potential = 0
        self.force = None
        self._switches = []  # (name, mode symbol, expression)
        self._unilateral = []  # (name, expression, unit)
        self._bilateral = []
        self._kinematic = []  # dict(name, a, b, unilateral, condition)
        self._initial = None
        self.horizon = None
        self._lift_off = []
        self._values = []
        self._trajectories = []
        self._settings = []

    # ---- the definition -------------------------------------------------------------------
    def parameter(self, name, default, *, min=-float("inf"), max=float("inf"),
                  min_inclusive=True, max_inclusive=True, unit="", description=""):
        self._check_new_name(name, "parameter")
        try:
            numbers = [float(default), float(min), float(max)]
        except (TypeError, ValueError):
            raise CaseError(f"parameter {name}: default, min and max must be numbers") from None
        if not (numbers[1] <= numbers[0] <= numbers[2]):
            raise CaseError(f"parameter {name}: the default {default} is outside [{min}, {max}]")
        symbol = sp.Symbol(name, real=True)
        self._params.append(dict(symbol=symbol, name=name, default=numbers[0], min=numbers[1],
                                 max=numbers[2], min_inclusive=bool(min_inclusive),
                                 max_inclusive=bool(max_inclusive), unit=str(unit),
                                 description=str(description)))
        return symbol

    def coordinates(self, *specs):
        """Coordinates as names or (name, unit) pairs; returns their sympy symbols. The velocity
        of coordinate x is the symbol x_dot (`velocity(x)`)."""
        symbols = []
        for spec in specs:
            name, unit = (spec, "") if isinstance(spec, str) else (spec[0], spec[1])
            self._check_new_name(name, "coordinate")
            self._check_new_name(name + "_dot", "coordinate's velocity")
            symbol = sp.Symbol(name, real=True)
            self._coords.append((symbol, sp.Symbol(name + "_dot", real=True), str(unit)))
            symbols.append(symbol)
        return symbols[0] if len(symbols) == 1 else symbols

    def velocity(self, coordinate):
        for q, v, _ in self._coords:
            if q == coordinate or str(q) == str(coordinate):
                return v
        raise CaseError(f"velocity: {coordinate} is not a coordinate")

    @property
    def velocities(self):
        return [v for _, v, _ in self._coords]

    def switch(self, name, function):
        """A switching function s(q, q', t) of the force; returns the mode, a symbol that is +1
        while s > 0 and -1 while s <= 0, to be used in `force`."""
        self._check_new_name("mode_" + name, "switch")
        mode = sp.Symbol("mode_" + name, real=True)
        self._switches.append((name, mode, sp.sympify(function)))
        return mode

    def unilateral(self, name, f, unit=""):
        self._check_constraint_name(name)
        self._unilateral.append((name, sp.sympify(f), str(unit)))

    def bilateral(self, name, f, unit=""):
        self._check_constraint_name(name)
        self._bilateral.append((name, sp.sympify(f), str(unit)))

    def kinematic(self, name, a, b=0, *, unilateral=False, condition=None, coulomb=None):
        """A kinematic constraint a(q, t).q' + b(q, t) = 0 (>= 0 when unilateral); `condition`
        names the unilateral constraint while which it holds (a conditional constraint).
        `coulomb`, the friction coefficient mu (an expression of the parameters), makes the row a
        Coulomb row of that constraint: a(q, t).q' is then the slip velocity of the contact point,
        and the row holds only while its reaction stays in the cone (docs/theory.md)."""
        if unilateral and any(not k["unilateral"] for k in self._kinematic):
            raise CaseError(f"kinematic {name}: one-sided rows come before two-sided ones")
        if coulomb is not None and (condition is None or unilateral):
            raise CaseError(f"kinematic {name}.coulomb: a Coulomb row is two-sided and needs the "
                            "condition (the unilateral constraint whose friction it is)")
        self._kinematic.append(dict(name=str(name), a=[sp.sympify(x) for x in a],
                                    b=sp.sympify(b), unilateral=bool(unilateral),
                                    condition=condition,
                                    coulomb=None if coulomb is None else sp.sympify(coulomb)))

    def initial(self, q, v, t=0.0):
        self._initial = (list(q), list(v), t)

    def lift_off_fact(self, model, time, source, constraint=""):
        self._lift_off.append(dict(model=model, time=sp.sympify(time), source=source,
                                   constraint=constraint))

    def value_fact(self, name, value, source):
        self._values.append(dict(name=name, value=sp.sympify(value), source=source))

    def trajectory_fact(self, model, q, source, valid=True):
        """A closed form q(t) of one model (expressions in t, the parameters and, for a
        realization, N); `valid` the condition where it holds."""
        self._trajectories.append(dict(model=model, q=[sp.sympify(x) for x in q],
                                       source=source, valid=sp.sympify(valid)))

    def solver_setting(self, solver, name, value, why):
        self._settings.append(dict(solver=solver, name=name, value=str(value), why=why))

    # ---- checks ---------------------------------------------------------------------------
    def _all_names(self):
        names = {p["name"] for p in self._params}
        for q, v, _ in self._coords:
            names |= {str(q), str(v)}
        return names | {str(mode) for _, mode, _ in self._switches}

    def _check_new_name(self, name, what):
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise CaseError(f"{what} '{name}': not an identifier (a letter, then letters, digits "
                            "or '_')")
        if (name in _RESERVED or name in _CXX_KEYWORDS or keyword.iskeyword(name)
                or name.endswith("_")):
            raise CaseError(f"{what} '{name}': the name is reserved (the generated code's own "
                            "names, C++ keywords, names ending in '_'); choose another")
        if name in self._all_names():
            raise CaseError(f"{what} '{name}': the name is taken")

    def _check_constraint_name(self, name):
        taken = [c[0] for c in self._unilateral + self._bilateral]
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or name in taken:
            raise CaseError(f"constraint '{name}': not an identifier, or taken")

    def _symbols(self, *kinds):
        out = set()
        for kind in kinds:
            if kind == "q":
                out |= {q for q, _, _ in self._coords}
            elif kind == "v":
                out |= {v for _, v, _ in self._coords}
            elif kind == "t":
                out.add(self.t)
            elif kind == "N":
                out.add(self.N)
            elif kind == "params":
                out |= {p["symbol"] for p in self._params}
            elif kind == "modes":
                out |= {mode for _, mode, _ in self._switches}
        return out

    def _depends(self, field, e, allowed, hint=""):
        e = sp.sympify(e)
        for f in e.atoms(sp.Function):
            if isinstance(f, sp.core.function.AppliedUndef):
                raise CaseError(f"{field}: '{f.func}' is an undefined function")
        extra = sorted(str(s) for s in e.free_symbols - allowed)
        if extra:
            velocities = {str(v) for v in self._symbols("v")}
            if hint and any(s in velocities for s in extra):
                raise CaseError(f"{field}: depends on the velocity {', '.join(extra)}; {hint}")
            raise CaseError(f"{field}: {', '.join(extra)} "
                            f"{'is' if len(extra) == 1 else 'are'} not defined here (it may use "
                            + (", ".join(sorted(str(s) for s in allowed)) or "numbers only") + ")")
        return e

    def _metric(self):
        n = len(self._coords)
        qv = self._symbols("q", "params")
        if self.metric is not None:
            A = sp.Matrix(self.metric)
            if A.shape != (n, n):
                raise CaseError(f"metric: {A.shape[0]}x{A.shape[1]}, not {n}x{n}")
            for i in range(n):
                for j in range(n):
                    self._depends(f"metric[{i}][{j}]", A[i, j], qv)
                    if j > i and sp.simplify(A[i, j] - A[j, i]) != 0:
                        raise CaseError(f"metric: not symmetric: entry ({i},{j}) = {A[i, j]} but "
                                        f"({j},{i}) = {A[j, i]}")
            return A
        if self.kinetic_energy is None:
            raise CaseError("kinetic_energy: missing (or give metric)")
        T = sp.expand(sp.sympify(self.kinetic_energy))
        vs = self.velocities
        self._depends("kinetic_energy", T, qv | set(vs))
        A = sp.hessian(T, vs)
        residue = sp.simplify(T - (sp.Matrix([vs]) * A * sp.Matrix(vs))[0] / 2)
        if residue != 0 or any(s in A.free_symbols for s in vs):
            raise CaseError("kinetic_energy: not a quadratic form of the velocities (terms "
                            "linear in the velocities are gyroscopic: put them in force)")
        return A.applyfunc(sp.simplify)

    def _check_positive_definite(self, A, q0):
        """The metric at the initial state and the default parameters: a kinetic energy that
        misses a velocity, or a sign slip, shows here rather than as a failed solve."""
        defaults = {p["symbol"]: p["default"] for p in self._params}
        point = dict(defaults)
        for (q, _, _), e in zip(self._coords, q0):
            point[q] = sp.sympify(e).subs(defaults)
        try:
            values = sp.Matrix(A).subs(point).evalf()
            eigenvalues = [complex(x).real for x in values.eigenvals(multiple=True)]
        except (TypeError, ValueError):
            return  # not numeric there (e.g. a singular expression): the solvers will say
        if min(eigenvalues) <= 0.0:
            raise CaseError(f"metric: not positive definite at the initial state (eigenvalues "
                            f"{', '.join(f'{x:.3g}' for x in sorted(eigenvalues))}); every "
                            "coordinate needs its velocity in the kinetic energy")

    def _validated(self):
        """Every field checked; the parts of the generated header."""
        if not self._coords:
            raise CaseError("coordinates: none given")
        n = len(self._coords)
        A = self._metric()
        q_t_p = self._symbols("q", "t", "params")
        holonomic = "a holonomic constraint is a function of the coordinates and time (declare " \
                    "a kinematic one for a condition on velocities)"
        V = self._depends("potential", self.potential, q_t_p, "the potential is V(q, t)")
        force = [0] * n if self.force is None else list(self.force)
        if len(force) != n:
            raise CaseError(f"force: {len(force)} components for {n} coordinates")
        force = [self._depends(f"force[{i}]", e, self._symbols("q", "v", "t", "params", "modes"))
                 for i, e in enumerate(force)]
        switches = [(name, mode, self._depends(f"switch {name}", e,
                                               self._symbols("q", "v", "t", "params")))
                    for name, mode, e in self._switches]
        uni = [(nm, self._depends(f"unilateral {nm}", f, q_t_p, holonomic), u)
               for nm, f, u in self._unilateral]
        bil = [(nm, self._depends(f"bilateral {nm}", f, q_t_p, holonomic), u)
               for nm, f, u in self._bilateral]
        names = [c[0] for c in uni]
        for k in self._kinematic:
            if len(k["a"]) != n:
                raise CaseError(f"kinematic {k['name']}: a has {len(k['a'])} entries for {n} "
                                "coordinates")
            for i, e in enumerate(k["a"]):
                self._depends(f"kinematic {k['name']}.a[{i}]", e, q_t_p,
                              "a is a(q, t); the velocities enter as a.q'")
            self._depends(f"kinematic {k['name']}.b", k["b"], q_t_p)
            if k["coulomb"] is not None:
                self._depends(f"kinematic {k['name']}.coulomb", k["coulomb"],
                              self._symbols("params"))
            if k["condition"] is not None and k["condition"] not in names:
                raise CaseError(f"kinematic {k['name']}.condition: '{k['condition']}' is not a "
                                f"unilateral constraint ({', '.join(names) or 'none'})")
        if self._initial is None:
            raise CaseError("initial: missing (initial(q=[...], v=[...]))")
        q0, v0, t0 = self._initial
        if len(q0) != n or len(v0) != n:
            raise CaseError(f"initial: q and v need {n} entries each")
        params = self._symbols("params")
        for i, e in enumerate(q0 + v0 + [t0]):
            self._depends("initial." + (f"q[{i}]" if i < n else f"v[{i - n}]" if i < 2 * n
                                        else "t"), e, params)
        self._check_positive_definite(A, q0)
        if self.horizon is None:
            raise CaseError("horizon: missing")
        self._depends("horizon", self.horizon, params)
        for f in self._lift_off:
            self._depends(f"lift_off_fact {f['model']}.time", f["time"], params)
            if f["constraint"] and f["constraint"] not in [c[0] for c in uni + bil]:
                raise CaseError(f"lift_off_fact {f['model']}.constraint: '{f['constraint']}' is "
                                "not a constraint")
        for f in self._values:
            self._depends(f"value_fact {f['name']}", f["value"], params)
        for f in self._trajectories:
            if len(f["q"]) != n:
                raise CaseError(f"trajectory_fact {f['model']}: q needs {n} entries")
            for i, e in enumerate(f["q"] + [f["valid"]]):
                self._depends(f"trajectory_fact {f['model']}." + (f"q[{i}]" if i < n else "valid"),
                              e, self._symbols("t", "N", "params"))
        return dict(A=A, V=V, force=force, switches=switches, uni=uni, bil=bil)

    # ---- the header -----------------------------------------------------------------------
    def type_name(self):
        return "".join(part.capitalize() for part in re.split(r"[-]", self.name)) + "Case"

    def header(self):
        """The generated header: readable, and a case one can copy into the tree and keep."""
        return _Header(self, self._validated()).text()

    def build(self, out=None, *, register=True, verbose=False):
        """Compiles the case into libcrbench_case_<name>.so (in `out`, or in the cache, keyed by
        the header and crbench's build settings) and, when the crbench module is there,
        registers it; returns the plugin's path."""
        # The same definition built before in this process: its plugin, without sympy's work
        # (a Case passed to crbench.run is built at every call).
        fingerprint = (self._fingerprint(), out)
        if getattr(self, "_built", None) and self._built[0] == fingerprint:
            plugin = self._built[1]
        else:
            plugin = _compile(self, self.header(), build_settings(), out, verbose)
            self._built = (fingerprint, plugin)
        if register:
            try:
                import crbench  # the module, when it is on the path
                crbench.load_case(plugin)
            except ImportError:
                pass
        return plugin

    def _fingerprint(self):
        """Every field of the definition as text: equal for equal definitions."""
        state = {k: v for k, v in vars(self).items() if k != "_built"}
        return hashlib.sha256(repr(sorted(state.items(), key=lambda kv: kv[0])).encode()).hexdigest()

    def check(self, **kwargs):
        """`crbench check --case <name>` on this case (built first); its JSON as a dict."""
        import crbench
        self.build()
        return crbench.check(self.name, **kwargs)


def _formatted(text):
    """The header laid out by clang-format where the machine has it (as is otherwise)."""
    program = shutil.which("clang-format")
    if program is None:
        return text
    done = subprocess.run([program, "--style={BasedOnStyle: Google, ColumnLimit: 100}",
                           "--assume-filename=case.hpp"], input=text, capture_output=True,
                          text=True)
    return done.stdout if done.returncode == 0 and done.stdout else text


class _Header:
    """The text of the generated header of one validated case."""

    def __init__(self, case, parts):
        self.c, self.p = case, parts
        self.n = len(case._coords)

    def names(self, double=False, modes=False):
        names = {p["symbol"]: p["name"] for p in self.c._params}
        for i, (q, v, _) in enumerate(self.c._coords):
            names[q], names[v] = f"q({i})", f"v({i})"
        names[self.c.t], names[self.c.N] = "t", "N"
        for j, (_, mode, _) in enumerate(self.c._switches):
            names[mode] = f"(modes[{j}] > 0 ? 1.0 : -1.0)"
        return names

    def expr(self, e, field, wrap=True):
        text = _Printer(self.names(), field)(e)
        return f"S({text})" if wrap else text

    def vector(self, entries, field, size, name):
        lines = [f"    Vec<S, {size}> {name};\n"]
        lines += [f"    {name}({i}) = {self.expr(e, f'{field}[{i}]')};\n"
                  for i, e in enumerate(entries)]
        return "".join(lines)

    def text(self):
        c, p, n = self.c, self.p, self.n
        m, nb, nk = len(p["uni"]), len(p["bil"]), len(c._kinematic)
        constant_metric = not (p["A"].free_symbols & c._symbols("q"))
        members = ", ".join(x["name"] for x in c._params)
        init = ", ".join(f'{x["name"]}(params_.at({_quote(x["name"])}))' for x in c._params)
        out = [
            f"// {c.name}: generated by crbench_case.py from a definition in Python or JSON. A case\n"
            "// in crbench's format (cases/case.hpp); its derivatives come from the suite's AD.\n",
            "#pragma once\n\n#include <cmath>\n#include <limits>\n#include <optional>\n\n"
            "#include \"crbench/cases/case.hpp\"\n\n",
            "namespace crbench::user_cases {\n\n",
            f"struct {c.type_name()} {{\n",
            f"  static constexpr int n = {n};\n  static constexpr int m = {m};\n",
            f"  static constexpr int switches = {len(p['switches'])};\n",
        ]
        if nb:
            out.append(f"  static constexpr int bilateral = {nb};\n")
        if nk:
            uk = sum(1 for k in c._kinematic if k["unilateral"])
            out.append(f"  static constexpr int kinematic = {nk};\n")
            if uk:
                out.append(f"  static constexpr int unilateral_kinematic = {uk};\n")
        if constant_metric:
            out.append("  static constexpr bool constant_metric = true;\n")
        if c._params:
            out.append(f"\n  double {members};\n\n  explicit {c.type_name()}(const ParamValues& params_)"
                       f"\n      : {init} {{}}\n")
        else:
            out.append(f"\n  explicit {c.type_name()}(const ParamValues& /*p*/) {{}}\n")
        out += [self.info(), self.physics(), self.state(), self.facts(), "};\n\n",
                "}  // namespace crbench::user_cases\n"]
        return _formatted(self.prologues("".join(out)))

    @staticmethod
    def prologues(text):
        """Each function's using declarations (the math functions its body calls) and a
        (void) for each argument its body leaves unused (q, v, t, modes, N)."""
        parts = text.split("@PROLOGUE@")
        out = [parts[0]]
        for i, body in enumerate(parts[1:]):
            indent = "    "
            if body.startswith("  "):
                indent, body = "      ", body[2:]
            end = body.find("\n  }\n")  # the end of this function (or lambda's enclosing one)
            region = body if end < 0 else body[:end]
            signatures = re.findall(r"\n[^\n]*\([^\n]*\{\n", parts[i])
            signature = signatures[-1] if signatures else ""
            lines = [f"{indent}using std::{f};\n" for f in sorted(set(_MATH.values()) | {"sqrt"})
                     if re.search(rf"\b{f}\(", region)]
            for arg, use in (("q", r"\bq\("), ("v", r"\bv\("), ("t", r"\bt\b"),
                             ("modes", r"\bmodes\["), ("N", r"\bN\b")):
                declared = re.search(rf"[&\s]{arg}\)|[&\s]{arg},", signature)
                if declared and not re.search(use, region):
                    lines.append(f"{indent}(void){arg};\n")
            out.append("".join(lines) + body[1:] if body.startswith("\n") else "".join(lines) + body)
        return "".join(out)

    def info(self):
        c, p = self.c, self.p
        params = []
        for x in c._params:
            params.append(
                f"{{.name = {_quote(x['name'])}, .default_value = {_number(x['default'])}, "
                f".min = {self.bound(x['min'])}, .max = {self.bound(x['max'])}, "
                f".min_inclusive = {str(x['min_inclusive']).lower()}, "
                f".max_inclusive = {str(x['max_inclusive']).lower()}, "
                f".unit = {_quote(x['unit'])}, .description = {_quote(x['description'])}}}")
        coords = ", ".join(f"{{{_quote(q)}, {_quote(u)}}}" for q, _, u in c._coords)
        rows = p["uni"] + p["bil"]
        units = ", ".join(_quote(u) for _, _, u in rows)
        names = ", ".join(_quote(nm) for nm, _, _ in rows)
        switch_names = ", ".join(_quote(nm) for nm, _, _ in p["switches"])
        uni_names = [nm for nm, _, _ in p["uni"]]
        conditions = ", ".join(str(uni_names.index(k["condition"]) if k["condition"] else -1)
                               for k in c._kinematic)
        settings = ", ".join(f"{{{_quote(s['solver'])}, {_quote(s['name'])}, "
                             f"{_quote(s['value'])}, {_quote(s['why'])}}}" for s in c._settings)
        text = ("\n  static CaseInfo info() {\n    return {\n"
                f"        .name = {_quote(c.name)},\n"
                f"        .description = {_quote(c.description)},\n"
                f"        .params = {{{', '.join(params)}}},\n"
                "        .dof = n,\n"
                f"        .coordinates = {{{coords}}},\n"
                f"        .constraint_units = {{{units}}},\n"
                f"        .constraint_names = {{{names}}},\n"
                "        .constraints = m,\n        .switches = switches,\n"
                f"        .switch_names = {{{switch_names}}},\n")
        if any(k["condition"] for k in c._kinematic):
            text += f"        .kinematic_condition = {{{conditions}}},\n"
        coulomb = [str(r) for r, k in enumerate(c._kinematic) if k["coulomb"] is not None]
        if coulomb:
            text += f"        .coulomb_rows = {{{', '.join(coulomb)}}},\n"
        if c._settings:
            text += f"        .solver_settings = {{{settings}}},\n"
        return text + "    };\n  }\n"

    @staticmethod
    def bound(x):
        if x == float("inf"):
            return "std::numeric_limits<double>::infinity()"
        if x == -float("inf"):
            return "-std::numeric_limits<double>::infinity()"
        return _number(x)

    def physics(self):
        c, p, n = self.c, self.p, self.n
        A = p["A"]
        out = ["\n  template <class S>\n  Mat<S, n, n> metric(const Vec<S, n>& q) const {\n",
               _USING, "    Mat<S, n, n> A_;\n"]
        out += [f"    A_({i}, {j}) = {self.expr(A[i, j], f'metric[{i}][{j}]')};\n"
                for i in range(n) for j in range(n)]
        out.append("    return A_;\n  }\n")
        out += ["\n  template <class S>\n  S potential(const Vec<S, n>& q, const S& t) const {\n",
                _USING,
                f"    return {self.expr(p['V'], 'potential')};\n  }}\n"]
        out += ["\n  template <class S>\n  Vec<S, n> force(const Vec<S, n>& q, const Vec<S, n>& v, "
                "const S& t, Modes modes) const {\n", _USING,
                "",
                self.vector(p["force"], "force", "n", "Q_"), "    return Q_;\n  }\n"]
        out += ["\n  template <class S>\n  Vec<S, m> constraints(const Vec<S, n>& q, const S& t) "
                "const {\n", _USING,
                self.vector([f for _, f, _ in p["uni"]], "unilateral", "m", "f_"),
                "    return f_;\n  }\n"]
        if p["bil"]:
            out += ["\n  template <class S>\n  Vec<S, bilateral> bilateral_constraints("
                    "const Vec<S, n>& q, const S& t) const {\n", _USING,
                    "",
                    self.vector([f for _, f, _ in p["bil"]], "bilateral", "bilateral", "f_"),
                    "    return f_;\n  }\n"]
        if c._kinematic:
            out += self.kinematic()
        out += ["\n  Vec<double, switches> switching(const Vec<double, n>& q, "
                "const Vec<double, n>& v, double t) const {\n    using S = double;\n", _USING,
                "",
                self.vector([e for _, _, e in p["switches"]], "switch", "switches", "s_"),
                "    return s_;\n  }\n"]
        return "".join(out)

    def kinematic(self):
        c = self.c
        out = ["\n  template <class S>\n  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, "
               "const S& t) const {\n", _USING,
               "    Mat<S, kinematic, n> a_;\n"]
        for r, k in enumerate(c._kinematic):
            field = "kinematic " + k["name"]
            out += [f"    a_({r}, {i}) = {self.expr(e, field + f'.a[{i}]')};\n"
                    for i, e in enumerate(k["a"])]
        out.append("    return a_;\n  }\n")
        if any(k["coulomb"] is not None for k in c._kinematic):
            cases = "".join(f"      case {r}:\n        return {self.expr(k['coulomb'], field, False)};\n"
                            for r, k in enumerate(c._kinematic) if k["coulomb"] is not None
                            for field in [f"kinematic {k['name']}.coulomb"])
            out += ["\n  double friction_coefficient(int r) const {\n    using S = double;\n",
                    _USING, "    switch (r) {\n", cases, "    }\n    return 0.0;\n  }\n"]
        if any(k["b"] != 0 for k in c._kinematic):
            out += ["\n  template <class S>\n  Vec<S, kinematic> kinematic_offset("
                    "const Vec<S, n>& q, const S& t) const {\n", _USING,
                    "",
                    self.vector([k["b"] for k in c._kinematic], "kinematic b", "kinematic", "b_"),
                    "    return b_;\n  }\n"]
        return out

    def state(self):
        q0, v0, t0 = self.c._initial
        n = self.n
        qs = ", ".join(self.expr(e, f"initial.q[{i}]", False) for i, e in enumerate(q0))
        vs = ", ".join(self.expr(e, f"initial.v[{i}]", False) for i, e in enumerate(v0))
        return ("\n  State initial_state() const {\n    using S = double;\n" + _USING +
                f"    Eigen::VectorXd q({n}), v({n});\n    q << {qs};\n    v << {vs};\n"
                f"    return {{.t = {self.expr(t0, 'initial.t', False)}, .q = q, .v = v}};\n  }}\n"
                "\n  double horizon() const {\n    using S = double;\n" + _USING +
                f"    return {self.expr(self.c.horizon, 'horizon', False)};\n  }}\n")

    def facts(self):
        c = self.c
        out = ["\n  Facts facts() const {\n    using S = double;\n", _USING, "    Facts facts;\n"]
        for f in c._lift_off:
            out.append(f"    facts.lift_off.push_back({{.model = {_quote(f['model'])}, .time = "
                       f"{self.expr(f['time'], 'lift_off_fact time', False)}, .source = "
                       f"{_quote(f['source'])}, .constraint = {_quote(f['constraint'])}}});\n")
        for f in c._values:
            out.append(f"    facts.values.push_back({{.name = {_quote(f['name'])}, .value = "
                       f"{self.expr(f['value'], 'value_fact', False)}, .source = "
                       f"{_quote(f['source'])}}});\n")
        # A copy of the case: the facts may outlive the object that made them.
        captures = "*this" if c._params else ""
        for f in c._trajectories:
            field = f"trajectory_fact {f['model']}"
            q = ", ".join(self.expr(e, f"{field}.q[{i}]", False) for i, e in enumerate(f["q"]))
            valid = self.expr(f["valid"], f"{field}.valid", False)
            out.append(
                f"    facts.trajectories.push_back({{.model = {_quote(f['model'])}, .source = "
                f"{_quote(f['source'])}, .q = [{captures}](double t, double N) -> "
                "std::optional<Eigen::VectorXd> {\n      using S = double;\n"
                + "@PROLOGUE@  \n"
                + (f"      if (!({valid})) return std::nullopt;\n" if valid != "true" else "") +
                f"      Eigen::VectorXd q({self.n});\n      q << {q};\n      return q;\n"
                "    }});\n")
        out.append("    return facts;\n  }\n")
        return "".join(out)


# ---- compiling -------------------------------------------------------------------------------
def build_settings():
    """How crbench was built (the compiler, its flags, the include folders, the header digest),
    from crbench_case_build.json beside this file or $CRBENCH_CASE_BUILD."""
    path = os.environ.get("CRBENCH_CASE_BUILD") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "crbench_case_build.json")
    try:
        with open(path, encoding="utf-8") as f:
            settings = json.load(f)
    except (OSError, ValueError) as e:
        raise CaseError(f"build settings: {path} cannot be read ({e}); it is written by crbench's "
                        "build beside crbench_case.py") from None
    # Relative folders (an installed tree) are relative to the settings file's own folder.
    here = os.path.dirname(os.path.abspath(path))
    settings["includes"] = [os.path.normpath(os.path.join(here, i)) for i in settings["includes"]]
    settings["digest_header"] = os.path.normpath(os.path.join(here, settings["digest_header"]))
    try:
        with open(settings["digest_header"], encoding="utf-8") as f:
            settings["digest"] = f.read()
    except OSError:
        raise CaseError(f"build settings: {settings['digest_header']} is missing; build crbench "
                        "first") from None
    return settings


def cache_folder():
    """$CRBENCH_CASE_CACHE, else $XDG_CACHE_HOME/crbench/cases, else ~/.cache/crbench/cases."""
    if os.environ.get("CRBENCH_CASE_CACHE"):
        return os.environ["CRBENCH_CASE_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "crbench", "cases")


def _plugin_name(case):
    return "libcrbench_case_" + case.name.replace("-", "_") + ".so"


def _command(case, settings):
    """The compiler's command line, run in the plugin's own folder."""
    # Hidden symbols: calls inside the plugin are direct and inlined as in the program (a
    # plugin's default-visibility functions could be interposed, which blocks both).
    return ([settings["cxx"]] + settings["flags"]
            + ["-fPIC", "-shared", "-fvisibility=hidden", "-fvisibility-inlines-hidden"]
            + [f"-D{d}" for d in settings["defines"]]
            + [f"-I{i}" for i in settings["includes"]]
            + ["plugin.cpp", "-o", _plugin_name(case)])


def _compile(case, header, settings, out, verbose):
    # The cache key: the header, the whole command line and the digest of crbench's headers.
    key = hashlib.sha256("\n".join([header, json.dumps(_command(case, settings)),
                                     settings["digest"]]).encode()).hexdigest()[:16]
    cached = os.path.join(cache_folder(), f"{case.name}-{key}")
    plugin = os.path.join(cached, _plugin_name(case))
    if not os.path.exists(plugin):
        _compile_into(case, header, settings, cached, verbose)
    if out is None:
        return plugin
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, _plugin_name(case))
    shutil.copyfile(plugin, target + ".part")
    os.replace(target + ".part", target)
    shutil.copyfile(os.path.join(cached, case.name + ".hpp"),
                    os.path.join(out, case.name + ".hpp"))
    return target


def _compile_into(case, header, settings, folder, verbose):
    os.makedirs(os.path.dirname(folder) or ".", exist_ok=True)
    work = tempfile.mkdtemp(prefix=os.path.basename(folder) + ".", dir=os.path.dirname(folder))
    try:
        with open(os.path.join(work, case.name + ".hpp"), "w", encoding="utf-8") as f:
            f.write(header)
        with open(os.path.join(work, "plugin.cpp"), "w", encoding="utf-8") as f:
            f.write(f"// The case plugin of {case.name} (cases/case_plugin.hpp).\n"
                    f"#include \"{case.name}.hpp\"\n"
                    "#include \"crbench/cases/case_plugin.hpp\"\n"
                    "#include \"crbench/cases/register_case.hpp\"\n\n"
                    f"CRBENCH_CASE_PLUGIN(crbench::user_cases::{case.type_name()})\n")
        command = _command(case, settings)
        log = os.path.join(work, "build.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(" ".join(command) + "\n")
            f.flush()
            done = subprocess.run(command, cwd=work, stdout=f, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            kept = os.path.join(os.path.dirname(folder), f"failed-{case.name}.log")
            shutil.copyfile(log, kept)
            with open(log, encoding="utf-8") as f:
                first = next((line.strip() for line in f if "error" in line), "")
            raise CaseError(f"build: the compiler refused the generated header of {case.name} "
                            f"({first}); its log is {kept}")
        if verbose:
            print(f"crbench_case: built {case.name} in {folder}", file=sys.stderr)
        try:
            os.replace(work, folder)
        except OSError:  # another process built the same case meanwhile
            if not os.path.exists(os.path.join(folder, _plugin_name(case))):
                raise
    finally:
        if os.path.isdir(work):
            shutil.rmtree(work, ignore_errors=True)


# ---- the declarative file --------------------------------------------------------------------
def case_from_json(definition, origin="definition"):
    """A Case from the fields of a JSON or TOML definition (a dict, or the path of a file, TOML
    when it ends in .toml) holding the same fields as Case's methods, expressions as strings (velocities x_dot, modes mode_<switch>,
    time t, realization N)."""
    if isinstance(definition, str):
        origin = definition
        toml = definition.endswith(".toml")
        try:
            if toml:
                import tomllib  # Python 3.11's standard library
                with open(definition, "rb") as f:
                    definition = tomllib.load(f)
            else:
                with open(definition, encoding="utf-8") as f:
                    definition = json.load(f)
        except (OSError, ValueError) as e:
            raise CaseError(f"{origin}: cannot be read as {'TOML' if toml else 'JSON'} ({e})") \
                from None
    if not isinstance(definition, dict):
        raise CaseError(f"{origin}: a JSON object of fields is expected")
    try:
        return _case_from_dict(definition, origin)
    except KeyError as e:
        raise CaseError(f"{origin}: the field {e} is missing in an entry") from None
    except (TypeError, AttributeError) as e:
        raise CaseError(f"{origin}: a field has the wrong shape ({e})") from None


def _case_from_dict(definition, origin):
    known = {"name", "description", "parameters", "coordinates", "kinetic_energy", "metric",
             "potential", "switches", "force", "unilateral", "bilateral", "kinematic", "initial",
             "horizon", "facts", "solver_settings"}
    unknown = sorted(set(definition) - known)
    if unknown:
        raise CaseError(f"{origin}: unknown field {unknown[0]} (fields: {', '.join(sorted(known))})")
    for field in ("name", "coordinates", "initial", "horizon"):
        if field not in definition:
            raise CaseError(f"{origin}: the field {field} is missing")
    c = Case(definition["name"], definition.get("description", ""))
    for p in definition.get("parameters", []):
        p = dict(p)
        try:
            c.parameter(p.pop("name"), p.pop("default"), **p)
        except (KeyError, TypeError) as e:
            raise CaseError(f"parameters: {e} (each has name, default and optionally min, max, "
                            "min_inclusive, max_inclusive, unit, description)") from None
    for spec in definition["coordinates"]:
        c.coordinates((spec["name"], spec.get("unit", "")) if isinstance(spec, dict) else spec)
    symbols = {str(s): s for s in c._symbols("q", "v", "t", "N", "params")}

    def parse(text, field):
        if isinstance(text, (int, float)):
            return sp.sympify(text)
        try:
            return sp.sympify(text, locals=dict(symbols), rational=False)
        except (sp.SympifyError, SyntaxError, TypeError) as e:
            raise CaseError(f"{field}: '{text}' is not an expression ({e})") from None

    for s in definition.get("switches", []):
        symbols["mode_" + s["name"]] = c.switch(s["name"], parse(s["function"], "switches"))
    if "kinetic_energy" in definition:
        c.kinetic_energy = parse(definition["kinetic_energy"], "kinetic_energy")
    if "metric" in definition:
        c.metric = [[parse(x, "metric") for x in row] for row in definition["metric"]]
    c.potential = parse(definition.get("potential", 0), "potential")
    if "force" in definition:
        c.force = [parse(x, f"force[{i}]") for i, x in enumerate(definition["force"])]
    for u in definition.get("unilateral", []):
        c.unilateral(u["name"], parse(u["f"], f"unilateral {u['name']}"), u.get("unit", ""))
    for u in definition.get("bilateral", []):
        c.bilateral(u["name"], parse(u["f"], f"bilateral {u['name']}"), u.get("unit", ""))
    for k in definition.get("kinematic", []):
        mu = k.get("coulomb")
        c.kinematic(k["name"], [parse(x, f"kinematic {k['name']}.a") for x in k["a"]],
                    parse(k.get("b", 0), f"kinematic {k['name']}.b"),
                    unilateral=k.get("unilateral", False), condition=k.get("condition"),
                    coulomb=None if mu is None else parse(mu, f"kinematic {k['name']}.coulomb"))
    init = definition["initial"]
    c.initial([parse(x, "initial.q") for x in init["q"]],
              [parse(x, "initial.v") for x in init["v"]], parse(init.get("t", 0), "initial.t"))
    c.horizon = parse(definition["horizon"], "horizon")
    facts = definition.get("facts", {})
    for f in facts.get("lift_off", []):
        c.lift_off_fact(f["model"], parse(f["time"], "facts.lift_off"), f.get("source", ""),
                        f.get("constraint", ""))
    for f in facts.get("values", []):
        c.value_fact(f["name"], parse(f["value"], "facts.values"), f.get("source", ""))
    for f in facts.get("trajectories", []):
        c.trajectory_fact(f["model"], [parse(x, "facts.trajectories.q") for x in f["q"]],
                          f.get("source", ""), parse(f.get("valid", "True"),
                                                     "facts.trajectories.valid"))
    for s in definition.get("solver_settings", []):
        c.solver_setting(s["solver"], s["name"], s["value"], s.get("why", ""))
    return c


def build_file(path, out=None):
    """`crbench case build FILE`: the plugin of a JSON definition, in `out` or the cache."""
    return case_from_json(path).build(out, register=False)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="crbench case",
                                     description="build a case plugin from a JSON or TOML "
                                                 "definition")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="compile FILE into a case plugin")
    build.add_argument("file")
    build.add_argument("--out", help="the folder to write the plugin and its header to "
                                     "(default: the cache, whose path is printed)")
    header = sub.add_parser("header", help="print the generated header of FILE")
    header.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.command == "header":
            sys.stdout.write(case_from_json(args.file).header())
        else:
            print(build_file(args.file, args.out))
    except CaseError as e:
        print(f"crbench case: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
