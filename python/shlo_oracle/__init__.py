"""shlo-oracle from Python: the exact and certified StableHLO interpreter and float checker.

    import numpy as np, shlo_oracle
    text = jax.jit(f).lower(x).as_text()          # or any StableHLO text the oracle reads
    exact = shlo_oracle.run(text, [x], domain="exact")            # Fractions
    box = shlo_oracle.run(text, [x])                              # interval:256 enclosures
    y = np.asarray(jax.jit(f)(x), dtype=np.float32)
    verdict = shlo_oracle.check(text, [x], [y], profile="ieee")   # PASS / FAIL / IMPROBABLE
    print(verdict.table)

Inputs are NumPy arrays, one per argument of the entry function (float32 for f32 arguments,
float64 only for f64 ones, float16 also for f16 ones, bool for i1, the integer argument's own
dtype: int32 for i32, uint8 for ui8, ...), shared by every replica; with replicas > 1 a list of
such lists gives each replica its own. Errors raise ShloError (ParseError, InputError,
RunError) with .file, .line and .column where the text is at fault.
"""

from fractions import Fraction

import numpy as np

from . import _core

__all__ = ["parse", "run", "check", "lift", "den", "prop", "Program", "Enclosures", "CheckVerdict",
           "PropResult", "ShloError", "ParseError", "InputError", "RunError"]

Program = _core.Program


class ShloError(Exception):
    """A located error: .kind ("parse", "input", "run"), .message, and for text .file, .line, .column."""

    def __init__(self, kind, message, file="", line=0, column=0):
        super().__init__(message)
        self.kind, self.message, self.file, self.line, self.column = kind, message, file, line, column


class ParseError(ShloError):
    """The text does not parse or verify: .file, .line, .column say where."""


class InputError(ShloError):
    """An input or output array, a domain or a profile is wrong (the message names it)."""


class RunError(ShloError):
    """The program cannot run in this domain (the message names the instruction)."""


_ERRORS = {"parse": ParseError, "input": InputError, "run": RunError}


def _unwrap(answer):
    ok, value = answer
    if ok:
        return value
    raise _ERRORS[value["kind"]](value["kind"], value["message"], value["file"], value["line"], value["column"])


def parse(text, file="<input>"):
    """Parses and verifies StableHLO text; returns a Program (.entry, .arguments, .results, .print())."""
    return _unwrap(_core.parse(text, file))


def _program(text_or_program):
    return text_or_program if isinstance(text_or_program, Program) else parse(text_or_program)


def _as_array(x):
    # NumPy arrays keep their dtype (checked against the argument); Python numbers and lists
    # become float32, the type of the programs' arguments.
    return x if isinstance(x, np.ndarray) else np.asarray(x, dtype=np.float32)


def _replica_lists(arrays, replicas):
    arrays = list(arrays)
    per_replica = replicas > 1 and len(arrays) == replicas and all(isinstance(a, (list, tuple)) for a in arrays)
    lists = arrays if per_replica else [arrays]
    return [[_as_array(a) for a in lst] for lst in lists]


class Enclosures:
    """interval:P results: each element an enclosure [lo, hi] of the real value.

    lo, hi      object arrays of exact decimal strings (the endpoints are binary: their
                decimals are finite); "inf" / "-inf" for infinite endpoints
    lo_float    float64 arrays rounded outward: lo_float <= lo, hi <= hi_float
    hi_float
    mid         the midpoints rounded to nearest (what `shlo run --out` writes as result<i>.npy)
    text        each enclosure as `shlo run --out` writes it in result<i>.txt
    """

    def __init__(self, shape, lo, hi, lo_float, hi_float, mid, text):
        self.shape = tuple(shape)
        self.lo = np.array(lo, dtype=object).reshape(self.shape)
        self.hi = np.array(hi, dtype=object).reshape(self.shape)
        self.lo_float = np.asarray(lo_float, dtype=np.float64).reshape(self.shape)
        self.hi_float = np.asarray(hi_float, dtype=np.float64).reshape(self.shape)
        self.mid = np.asarray(mid, dtype=np.float64).reshape(self.shape)
        self.text = np.array(text, dtype=object).reshape(self.shape)

    def pairs(self):
        """Every enclosure as a (lo, hi) pair of exact decimal strings, row-major."""
        return list(zip(self.lo.ravel(), self.hi.ravel()))

    def contains(self, values):
        """Whether each value (a float or a Fraction) lies in its enclosure, compared exactly."""
        v = np.asarray(values, dtype=object).reshape(self.shape)
        inside = [_in_enclosure(Fraction(lo) if lo[-3:] != "inf" else float(lo), Fraction(hi) if hi[-3:] != "inf" else float(hi), x)
                  for lo, hi, x in zip(self.lo.ravel(), self.hi.ravel(), v.ravel())]
        return np.array(inside, dtype=bool).reshape(self.shape)

    def __repr__(self):
        return f"Enclosures(shape={self.shape}, first={self.pairs()[:1]})"


def _in_enclosure(lo, hi, x):
    if isinstance(x, float) and x != x:  # NaN lies in no enclosure
        return False
    x = x if isinstance(x, (Fraction, int)) or not np.isfinite(float(x)) else Fraction(float(x))
    return lo <= x <= hi


def _exact_value(q, infinity):
    return Fraction(q) if infinity == 0 else float("inf") * infinity


def _as_float16(values):
    # An f16 result: every float domain rounds each f16 result to binary16 (the run's
    # round_to_result_type), so the values convert exactly; kept as they are if one would not.
    half = values.astype(np.float16)
    return half if np.array_equal(half.astype(values.dtype), values, equal_nan=True) else values


def _flat_value(out):
    """One output of one replica: (flat parts, kind) to be stacked over replicas."""
    if "predicate" in out:
        return "predicate", out["predicate"]
    if "integer" in out:
        return "integer", out["integer"]
    if "f32" in out:
        return "f32", _as_float16(out["f32"]) if out["element_type"] == "f16" else out["f32"]
    if "exact" in out:
        return "exact", [_exact_value(q, i) for q, i in zip(out["exact"], out["exact_infinity"])]
    if "lo" in out:
        return "interval", out
    return "f64", _as_float16(out["f64"]) if out["element_type"] == "f16" else out["f64"]


def _stack(kind, parts, shape):
    if kind in ("predicate", "integer", "f32", "f64"):
        return np.stack(parts).reshape(shape) if len(parts) > 1 else parts[0]
    if kind == "exact":
        flat = [x for p in parts for x in p]
        arr = np.empty(len(flat), dtype=object)
        arr[:] = flat
        return arr.reshape(shape)
    join = lambda key: [x for p in parts for x in (p[key] if key != "f64" else np.asarray(p[key]).ravel())]
    return Enclosures(shape, join("lo"), join("hi"), join("lo_down"), join("hi_up"), join("f64"), join("text"))


def run(text, inputs, domain="interval:256", replicas=1):
    """Runs the program in `domain` on `replicas` replicas; returns one value per result.

    Domains: "exact" (an object array of fractions.Fraction; +-inf as floats), "interval:P"
    (Enclosures), "mpfr:P", "f64" and "ieee" (float64 arrays), "f32" (float32 arrays, bit for
    bit as `shlo run -d f32`); f16 results in these float domains are float16 arrays (each f16
    result is rounded to binary16 in every domain). i1 results are bool arrays; integer results
    are arrays of their own dtype (int32 for i32, uint8 for ui8, ...) in every domain. With
    replicas > 1 each value has a leading replica axis.
    """
    program = _program(text)
    return _values(_unwrap(_core.run(program, _replica_lists(inputs, replicas), domain, replicas)), replicas)


def _values(runs, replicas):
    """runs[replica][result] output dicts as one value per result (a leading replica axis
    when replicas > 1)."""
    values = []
    for i in range(len(runs[0])):
        kinds_parts = [_flat_value(r[i]) for r in runs]
        shape = tuple(runs[0][i]["shape"])
        if replicas > 1:
            shape = (replicas,) + shape
        values.append(_stack(kinds_parts[0][0], [p for _, p in kinds_parts], shape))
    return values


class CheckVerdict:
    """The verdict of check(): .verdict ("PASS", "FAIL", "IMPROBABLE", "NO VERDICT"), .passed,
    .rows (one dict per output and replica: name, replica, elements, max_abs, max_rel, max_ulps,
    worst_ratio (error over the sound bound), worst_pratio (over the statistical bound), over,
    improbable, flips, unbounded, improbable_probability, statistical_only (elements with no finite
    sound bound, judged by the statistical tier alone), certain_nonfinite (elements that every float
    evaluation makes inf or NaN, judged on that value), probable_nonfinite (of those, the ones decided
    by the statistical tier), nan_alternative (NaN elements where a comparison upstream may take a
    branch that is NaN: NaN is one of their values), inf_alternative (with sampled=True: infinite
    elements where an overflow upstream may or may not happen), verdict), .consistent_profiles,
    .fitting_profile (the narrowest consistent profile under which the errors together are not
    unlikely: with sampled=True the sampled tier's test of all outputs together decides it;
    "" when none), and .table / .json as `shlo check` prints them."""

    def __init__(self, d):
        self.verdict = d["verdict"]
        self.rows = d["rows"]
        self.table = d["table"]
        self.json = d["json"]
        self.consistent_profiles = d["consistent_profiles"]
        self.fitting_profile = d["fitting_profile"]

    @property
    def passed(self):
        return self.verdict == "PASS"

    def __str__(self):
        return self.table

    def __repr__(self):
        return f"CheckVerdict({self.verdict}, {len(self.rows)} rows)"


def check(text, inputs, outputs, profile="ieee", replicas=1, delta=1e-9, allow=None, sampled=False):
    """Checks float32 outputs (one array per result, computed elsewhere) against the exact value
    of the program on the same inputs, in both tiers: sound (FAIL: impossible for any float32
    evaluation under the profile) and statistical (IMPROBABLE at failure probability delta).
    Profiles: ieee, cuda, tf32, bf16. allow, as `shlo check --allow`: {function: ulps} for a
    library less accurate than the profile says (div sqrt rsqrt exp log tanh logistic; the
    largest error of the function's result in ulps, at least 0.5), e.g. {"exp": 2.5, "log": 4}
    for NumPy's float32 exp and log. sampled=True also runs the sampled statistical tier, as
    `shlo check --sampled` (docs/sampled_tier.md: 64 samples of the rounding error carried
    through the program, every correlation kept; about 600 bytes per live element)."""
    program = _program(text)
    d = _unwrap(_core.check(program, _replica_lists(inputs, replicas), _replica_lists(outputs, replicas), profile,
                            replicas, delta, {str(k): float(v) for k, v in (allow or {}).items()}, bool(sampled)))
    return CheckVerdict(d)


def lift(text):
    """The program read back into SHlo expressions: a dict with render_json (as `shlo lift`
    writes it), emitted (printed back: equal to the text), instructions, as_nodes, verbatim,
    constructors."""
    return _unwrap(_core.lift(_program(text)))


def den(what, inputs=None, domain="exact", replicas=1):
    """den, in one of two forms.

    den(program_or_text, inputs, domain="exact", replicas=1): den of the lifted program on
    the inputs (as run() reads them): every result's expression evaluated with its argument
    leaves taken from the inputs, returned in the same forms as run() (Fractions in exact,
    Enclosures in interval:P, float arrays in f64 and f32). In exact it equals run(...,
    domain="exact") wherever the text means what its lift says. Raises RunError naming the
    instruction when the lift kept one verbatim (den needs every instruction in an SHlo node)
    or the node den cannot evaluate, with its line.

    den(expression_json, domain="exact"): den of an SHlo expression with values (JSON text,
    as `shlo den` reads it): a dict with text (each element: "3/4", "[lo, hi]"), nearest
    (doubles) and events.
    """
    if inputs is None or isinstance(inputs, str):  # the expression form: den(json) or den(json, domain)
        return _unwrap(_core.den(what, domain if inputs is None else inputs))
    program = _program(what)
    return _values(_unwrap(_core.den_program(program, _replica_lists(inputs, replicas), domain, replicas)), replicas)


def _shlo_command():
    """The shlo command: $SHLO, else the one this module was built with, else shlo on PATH."""
    import os
    import shutil
    if os.environ.get("SHLO"):
        return os.environ["SHLO"]
    try:
        from ._command import SHLO
        if os.path.exists(SHLO):
            return SHLO
    except ImportError:
        pass
    found = shutil.which("shlo")
    if not found:
        raise InputError("input", "prop: the shlo command is not found (set SHLO to its path)")
    return found


class PropResult:
    """The result of prop(), as the C++ PropResult: .rows, one dict per property with the C++
    PropRow's fields (property, runs, passed, failed, discarded, seconds, saved_to: a failing
    case's corpus folder, else ""), and .failed, the failed cases of all of them."""

    def __init__(self, rows, failed):
        self.rows, self.failed = rows, failed

    def __repr__(self):
        return f"PropResult({len(self.rows)} properties, {self.failed} failed)"


def prop(time=60, only=None, seed=1, corpus="corpus"):
    """The property catalogue for `time` seconds: runs `shlo prop --time TIME --json` through
    the library's prop_with_command (the catalogue forks a child per property, and its
    generators cannot live in this module) and returns a PropResult. A failing property is a
    result (.failed > 0, its row's saved_to), not an exception; an unknown name in `only`
    raises InputError with the command's message; a command that cannot start or crashes
    raises RunError. `only`: names or families (text, skeleton, meaning, domains, theorem)."""
    rows, failed = _unwrap(_core.prop_with_command(_shlo_command(), float(time), list(only or []), int(seed), corpus))
    return PropResult(rows, failed)
