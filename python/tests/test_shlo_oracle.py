"""The Python module against the `shlo` command on the ladder's small programs: floats bit for bit,
rationals and enclosures exactly, verdicts row by row; every function, and bad input raising
with its location. Environment: SHLO (the command), SHLO_ARTIFACTS_DIR (the printer's programs;
exit 77, skipped, without them), PYTHONPATH (build/python)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path

import numpy as np

import shlo_oracle

SHLO = os.environ.get("SHLO", "build/shlo")
ARTIFACTS = Path(os.environ.get("SHLO_ARTIFACTS_DIR", "../shared/artifacts/lean4-mlir"))
SMALL = ["linear_fwd", "linear_train_step", "mlp_fwd"]  # the ladder's first rungs


def shlo(*args, expect=0):
    r = subprocess.run([SHLO, *map(str, args)], capture_output=True, text=True)
    if r.returncode != expect:
        raise AssertionError(f"shlo {' '.join(map(str, args))}: exit {r.returncode}, expected {expect}\n{r.stdout}{r.stderr}")
    return r


def text_of(name):
    return (ARTIFACTS / f"{name}.mlir").read_text()


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def txt_values(path):
    """result<i>.txt as `shlo run` writes it: a comment line, then one element per line."""
    return [line for line in Path(path).read_text().splitlines() if not line.startswith("#")]


class CommandRun:
    """`shlo run` of one program with drawn inputs, in a temporary folder; the inputs as arrays."""

    def __init__(self, tmp, name, domain, replicas=1, seed=1, range_="-1,1"):
        self.dir = Path(tmp) / f"{name}-{domain.replace(':', '_')}-r{replicas}"
        self.file = ARTIFACTS / f"{name}.mlir"
        shlo("run", self.file, "-d", domain, "-r", replicas, "--random-inputs", seed, "--range", range_, "--out", self.dir)
        self.program = shlo_oracle.parse(text_of(name), str(self.file))
        arg_names = [n.lstrip("%") for n, _ in self.program.arguments]
        self.inputs = [[np.load(self.input_dir(r) / f"{a}.npy") for a in arg_names] for r in range(replicas)]
        self.replicas = replicas

    def input_dir(self, r):
        return (self.dir / f"r{r}" / "inputs") if self.replicas_dir() else self.dir / "inputs"

    def replicas_dir(self):
        return (self.dir / "r0").is_dir()

    def out(self, r, i, ext):
        base = self.dir / f"r{r}" if self.replicas_dir() else self.dir
        return base / f"result{i}.{ext}"


@unittest.skipUnless(ARTIFACTS.is_dir(), "the printer's artifacts are not here")
class AgainstTheCommand(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_parse_summary_and_print(self):
        for name in SMALL:
            p = shlo_oracle.parse(text_of(name), name)
            self.assertEqual(p.entry, "@" + name)
            self.assertEqual(p.print(), text_of(name))  # the printer's text, byte for byte
            summary = shlo("parse", ARTIFACTS / f"{name}.mlir").stdout
            for arg, ty in p.arguments:
                self.assertRegex(summary, rf"\n\s+{arg}\s+{ty}\n")
        self.assertEqual(shlo_oracle.parse(text_of("linear_fwd")).results, [("%v2", "tensor<128x10xf32>")])

    def test_float_runs_equal_the_command_bit_for_bit(self):
        for name in SMALL:
            for domain, dtype in (("f32", np.float32), ("f64", np.float64)):
                with self.subTest(name=name, domain=domain):
                    c = CommandRun(self.tmp.name, name, domain)
                    ours = shlo_oracle.run(c.program, c.inputs[0], domain=domain)
                    self.assertEqual(len(ours), len(c.program.results))
                    for i, y in enumerate(ours):
                        self.assertEqual(y.dtype, dtype)
                        self.assertTrue(same_bits(y, np.load(c.out(0, i, "npy"))), f"result {i}")
        # The control: one input element changed (by 1/4) changes the float32 output bits.
        c = CommandRun(self.tmp.name, "linear_fwd", "f32")
        moved = [a.copy() for a in c.inputs[0]]
        moved[0][0, 0] += np.float32(0.25)
        self.assertFalse(same_bits(shlo_oracle.run(c.program, moved, domain="f32")[0], np.load(c.out(0, 0, "npy"))))

    def test_exact_values_equal_the_command_exactly(self):
        c = CommandRun(self.tmp.name, "linear_fwd", "exact")
        (y,) = shlo_oracle.run(c.program, c.inputs[0], domain="exact")
        self.assertEqual(y.shape, (128, 10))
        self.assertIsInstance(y[0, 0], Fraction)
        expected = [Fraction(t) for t in txt_values(c.out(0, 0, "txt"))]
        self.assertEqual(list(y.ravel()), expected)
        # An independent route for one element: the dot product and bias by Fractions.
        x, w, b = c.inputs[0]
        by_hand = sum(Fraction(float(x[3, k])) * Fraction(float(w[k, 7])) for k in range(784)) + Fraction(float(b[7]))
        self.assertEqual(y[3, 7], by_hand)
        self.assertNotEqual(y[3, 6], by_hand)  # the control: the neighbour differs

    def test_enclosures_equal_the_command(self):
        c = CommandRun(self.tmp.name, "linear_fwd", "interval:256")
        (box,) = shlo_oracle.run(c.program, c.inputs[0])  # interval:256 is the default
        self.assertIsInstance(box, shlo_oracle.Enclosures)
        self.assertEqual(list(box.text.ravel()), txt_values(c.out(0, 0, "txt")))
        self.assertTrue(same_bits(box.mid, np.load(c.out(0, 0, "npy"))))
        (exact,) = shlo_oracle.run(c.program, c.inputs[0], domain="exact")
        for (lo, hi), q, lo_f, hi_f in zip(box.pairs(), exact.ravel(), box.lo_float.ravel(), box.hi_float.ravel()):
            self.assertTrue(Fraction(lo) <= q <= Fraction(hi))
            self.assertTrue(Fraction(lo_f) <= Fraction(lo) and Fraction(hi) <= Fraction(hi_f))  # rounded outward
        self.assertTrue(box.contains(box.mid).all())
        self.assertFalse(box.contains(box.hi_float + 1e-3).any())  # the control

    def test_replicas_each_run_their_own_inputs(self):
        c = CommandRun(self.tmp.name, "linear_fwd", "f32", replicas=2)
        (y,) = shlo_oracle.run(c.program, c.inputs, domain="f32", replicas=2)
        self.assertEqual(y.shape, (2, 128, 10))
        for r in range(2):
            self.assertTrue(same_bits(y[r], np.load(c.out(r, 0, "npy"))))
        self.assertFalse(same_bits(y[0], y[1]))  # the replicas' inputs differ

    def test_check_agrees_with_the_command(self):
        c = CommandRun(self.tmp.name, "mlp_fwd", "f32", range_="0,0.01")
        outputs = [np.load(c.out(0, i, "npy")) for i in range(len(c.program.results))]
        verdict = shlo_oracle.check(c.program, c.inputs[0], outputs, profile="ieee")
        command = json.loads(shlo("check", c.file, "--inputs", c.dir / "inputs", "--outputs", c.dir, "--json").stdout)
        self.assertEqual(verdict.verdict, "PASS")
        self.assertTrue(verdict.passed)
        for row in verdict.rows:  # each row's line is the table's (the command's) own row
            self.assertIn("\n" + row["line"], verdict.table)
            self.assertTrue(row["line"].startswith(row["name"]) and row["line"].rstrip().endswith("PASS"))
        self.assertEqual(len(verdict.rows), len(command["outputs"]))
        self.assertEqual(json.loads(verdict.json)["outputs"], command["outputs"])  # every field of every row
        for ours, theirs in zip(verdict.rows, command["outputs"]):
            self.assertEqual((ours["name"], ours["elements"], ours["verdict"]), (theirs["name"], theirs["elements"], theirs["verdict"]))
            self.assertEqual(ours["max_abs"], theirs["max_abs_error"])
            self.assertEqual(ours["worst_ratio"], theirs["worst_error_over_bound"])
        # The control: one element moved far outside float32 rounding fails in both.
        outputs[0][5, 3] += np.float32(0.5)
        moved = Path(self.tmp.name) / "moved"
        moved.mkdir(exist_ok=True)
        np.save(moved / "result0.npy", outputs[0])
        wrong = shlo_oracle.check(c.program, c.inputs[0], outputs)
        self.assertEqual(wrong.verdict, "FAIL")
        self.assertEqual(wrong.rows[0]["over"], 1)
        self.assertIn("FAIL", wrong.table)
        shlo("check", c.file, "--inputs", c.dir / "inputs", "--outputs", moved, expect=1)

    def test_check_judges_an_overflow_every_evaluation_makes(self):
        # mlp_train_step with inputs in [-1, 1): its softmax overflows, the outputs are NaN in
        # every float32 evaluation; the rows count those elements as the command's JSON does.
        c = CommandRun(self.tmp.name, "mlp_train_step", "f32", range_="-1,1")
        outputs = [np.load(c.out(0, i, "npy")) for i in range(len(c.program.results))]
        self.assertTrue(np.isnan(outputs[0]).all())
        verdict = shlo_oracle.check(c.program, c.inputs[0], outputs)
        command = json.loads(shlo("check", c.file, "--inputs", c.dir / "inputs", "--outputs", c.dir, "--json").stdout)
        self.assertEqual(verdict.verdict, "PASS")  # every element NaN in every evaluation, as the outputs
        self.assertEqual([r["certain_nonfinite"] for r in verdict.rows], [o["certain_nonfinite"] for o in command["outputs"]])
        self.assertEqual(verdict.rows[0]["certain_nonfinite"], outputs[0].size)
        # Every one of them sound (an overflow whatever the rounding), as the command says.
        self.assertEqual([r["probable_nonfinite"] for r in verdict.rows], [o["probable_nonfinite"] for o in command["outputs"]])
        self.assertEqual(verdict.rows[0]["probable_nonfinite"], 0)
        self.assertEqual([r["nan_alternative"] for r in verdict.rows], [o["nan_alternative"] for o in command["outputs"]])
        self.assertEqual(verdict.rows[0]["verdict"], "PASS")
        # The control: a finite number where every evaluation gives NaN fails.
        outputs[0][0, 0] = np.float32(0.5)
        self.assertEqual(shlo_oracle.check(c.program, c.inputs[0], outputs).rows[0]["verdict"], "FAIL")

    def test_check_takes_allowances_set_by_hand(self):
        # exp(1) three float32 steps above the nearest: 1.95 units of |r| 2^-23 from e, outside
        # the ieee profile's 1 ulp, inside an allowance of 2.5, outside 1.5 (the control).
        text = """module @m {
  func.func @f(%x: tensor<f32>) -> tensor<f32> {
    %e = stablehlo.exponential %x : tensor<f32>
    return %e : tensor<f32>
  }
}"""
        x = np.array(1.0, dtype=np.float32)
        nearest = np.float32(np.exp(np.float64(1.0)))
        off = np.array(nearest + np.float32(3 * 2.0 ** -22), dtype=np.float32)
        self.assertEqual(shlo_oracle.check(text, [x], [np.array(nearest)]).verdict, "PASS")
        self.assertEqual(shlo_oracle.check(text, [x], [off]).verdict, "FAIL")
        allowed = shlo_oracle.check(text, [x], [off], allow={"exp": 2.5})
        self.assertEqual(allowed.verdict, "PASS")
        self.assertIn("profile ieee with exp 2.5 (ulps, set by hand)", allowed.table)
        self.assertEqual(shlo_oracle.check(text, [x], [off], allow={"exp": 1.5}).verdict, "FAIL")
        with self.assertRaises(shlo_oracle.InputError) as e:
            shlo_oracle.check(text, [x], [off], allow={"cosh": 2})
        self.assertIn("expected one of", str(e.exception))

    def test_check_runs_the_sampled_tier_as_the_command_does(self):
        text = """module @m {
  func.func @f(%a: tensor<64x256xf32>, %b: tensor<256x16xf32>) -> tensor<64x16xf32> {
    %v0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x256xf32>, tensor<256x16xf32>) -> tensor<64x16xf32>
    return %v0 : tensor<64x16xf32>
  }
}"""
        rng = np.random.default_rng(5)
        a = rng.uniform(-1, 1, (64, 256)).astype(np.float32)
        b = rng.uniform(-1, 1, (256, 16)).astype(np.float32)
        y = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)  # one rounding per sum
        with_tier = shlo_oracle.check(text, [a, b], [y], sampled=True)
        self.assertEqual(with_tier.verdict, "PASS")
        self.assertEqual(with_tier.fitting_profile, "ieee")
        aggregate = json.loads(with_tier.json)["aggregate"]
        self.assertEqual(aggregate["elements"], 1024)
        self.assertFalse(aggregate["unlikely"])
        self.assertIn("all outputs together", with_tier.table)
        # The command on the same files says the same.
        d = Path(self.tmp.name) / "dots"
        (d / "inputs").mkdir(parents=True, exist_ok=True)
        (d / "dots.mlir").write_text(text)
        np.save(d / "inputs" / "a.npy", a)
        np.save(d / "inputs" / "b.npy", b)
        np.save(d / "result0.npy", y)
        command = json.loads(shlo("check", d / "dots.mlir", "--inputs", d / "inputs", "--outputs", d, "--sampled", "--json").stdout)
        self.assertEqual(command["aggregate"], aggregate)
        self.assertEqual(command["fitting_profile"], "ieee")
        # The control: without the tier, no aggregate; the narrowest consistent profile fits.
        alone = shlo_oracle.check(text, [a, b], [y])
        self.assertIsNone(json.loads(alone.json)["aggregate"])
        self.assertNotIn("all outputs together", alone.table)
        self.assertEqual(alone.fitting_profile, "ieee")

    def test_check_sampled_passes_an_overflow_that_may_happen(self):
        # A softmax of two logits, the first 4 x 22.2 = 88.8: float32 overflows (p = [NaN, 0], the
        # sum +inf); under bf16 the logit is within its bound of 88.72, so its exp may or may not.
        text = (Path(__file__).resolve().parents[2] / "tests" / "programs" / "softmax_may_overflow.mlir").read_text()
        x = np.full((1, 4), 22.2, np.float32)
        w = np.array([[1, 0.1], [1, 0], [1, 0], [1, 0]], np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(x @ w)
            s = e.sum(axis=1, dtype=np.float32)
            p = e / s[:, None]
        self.assertTrue(np.isnan(p[0, 0]) and p[0, 1] == 0 and np.isinf(s[0]))
        verdict = shlo_oracle.check(text, [x, w], [p, s], profile="bf16", sampled=True)
        self.assertEqual(verdict.verdict, "PASS")
        self.assertEqual([r["nan_alternative"] for r in verdict.rows], [1, 0])
        self.assertEqual([r["inf_alternative"] for r in verdict.rows], [0, 1])
        self.assertEqual(json.loads(verdict.json)["outputs"][1]["inf_alternative"], 1)
        # The controls: without the tier no verdict; -inf for the sum is no value of it.
        self.assertEqual(shlo_oracle.check(text, [x, w], [p, s], profile="bf16").verdict, "NO VERDICT")
        wrong = shlo_oracle.check(text, [x, w], [p, -s], profile="bf16", sampled=True)
        self.assertEqual(wrong.verdict, "IMPROBABLE")
        self.assertEqual(wrong.rows[1]["improbable"], 1)

    def test_den_with_inputs_equals_the_exact_run(self):
        c = CommandRun(self.tmp.name, "linear_fwd", "exact")
        (meaning,) = shlo_oracle.den(c.program, c.inputs[0], domain="exact")
        expected = [Fraction(t) for t in txt_values(c.out(0, 0, "txt"))]  # the command's exact run
        self.assertEqual(meaning.shape, (128, 10))
        self.assertEqual(list(meaning.ravel()), expected)
        # The control: another input (one element of x moved) gives another meaning in row 3.
        moved = [a.copy() for a in c.inputs[0]]
        moved[0][3, 0] += np.float32(0.25)
        (other,) = shlo_oracle.den(c.program, moved, domain="exact")
        self.assertNotEqual(list(other[3]), list(meaning[3]))
        self.assertEqual(list(other[2]), list(meaning[2]))

    def test_lift_equals_the_command(self):
        out = Path(self.tmp.name) / "lift.json"
        shlo("lift", ARTIFACTS / "linear_train_step.mlir", "-o", out)
        lifted = shlo_oracle.lift(text_of("linear_train_step"))
        self.assertEqual(lifted["render_json"], out.read_text())
        self.assertEqual(lifted["emitted"], text_of("linear_train_step"))
        self.assertGreater(lifted["as_nodes"], 0)


MLP2 = """module @m {
  func.func @mlp(%x: tensor<2x3xf32>, %W0: tensor<3x4xf32>, %b0: tensor<4xf32>, %W1: tensor<4x2xf32>, %b1: tensor<2xf32>) -> tensor<2x2xf32> {
    %v0 = stablehlo.dot_general %x, %W0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %v1 = stablehlo.broadcast_in_dim %b0, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %v2 = stablehlo.add %v0, %v1 : tensor<2x4xf32>
    %v3 = stablehlo.constant dense<0.0> : tensor<2x4xf32>
    %v4 = stablehlo.maximum %v2, %v3 : tensor<2x4xf32>
    %v5 = stablehlo.dot_general %v4, %W1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
    %v6 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %v7 = stablehlo.add %v5, %v6 : tensor<2x2xf32>
    return %v7 : tensor<2x2xf32>
  }
}
"""


class WithoutArtifacts(unittest.TestCase):
    def test_den_equals_the_command(self):
        expr = json.dumps({"constructor": "reluF", "nats": {"n": 3}, "children": [
            {"constructor": "operand", "nats": {"n": 3}, "strings": {"name": "%x"}, "reals": {"v": ["1/2", "-3", "0"]}}]})
        ours = shlo_oracle.den(expr)
        self.assertEqual([Fraction(t) for t in ours["text"]], [Fraction(1, 2), 0, 0])  # relu by hand
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "e.json").write_text(expr)
            shlo("den", Path(tmp, "e.json"), "-d", "exact", "--out", tmp)
            self.assertEqual(ours["text"], txt_values(Path(tmp, "result.txt")))
        with self.assertRaises(shlo_oracle.InputError):
            shlo_oracle.den('{"constructor": "frob"}')

    def test_den_with_inputs_names_a_verbatim_instruction(self):
        text = MLP2.replace("%v7 = stablehlo.add %v5, %v6", "%v7 = stablehlo.subtract %v5, %v6")
        rng = np.random.default_rng(1)
        inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(2, 3), (3, 4), (4,), (4, 2), (2,)]]
        q = [np.vectorize(lambda v: Fraction(float(v)), otypes=[object])(a) for a in inputs]
        hidden = np.maximum(q[0].dot(q[1]) + q[2], Fraction(0))  # by hand, in Fractions
        (y,) = shlo_oracle.den(MLP2, inputs)  # the control: MLP2 lifts whole
        self.assertEqual(list(y.ravel()), list((hidden.dot(q[3]) + q[4]).ravel()))
        with self.assertRaises(shlo_oracle.RunError) as e:
            shlo_oracle.den(text, inputs)
        self.assertIn("<input>:9:5:", e.exception.message)
        self.assertIn("stablehlo.broadcast_in_dim %b1", e.exception.message)

    def test_prop_runs_a_family(self):
        with tempfile.TemporaryDirectory() as corpus:
            result = shlo_oracle.prop(time=2, only=["text"], corpus=corpus)
        listed = shlo("prop", "--list").stdout
        self.assertIsInstance(result, shlo_oracle.PropResult)
        self.assertEqual(result.failed, 0)
        self.assertTrue(result.rows and all(r["property"].startswith("text.") for r in result.rows))
        for r in result.rows:  # the C++ PropRow's fields, real values
            self.assertEqual(set(r), {"property", "runs", "passed", "failed", "discarded", "seconds", "saved_to"})
            self.assertIn(r["property"] + " ", listed)  # a name from the catalogue
            self.assertTrue(r["runs"] > 0 and r["passed"] == r["runs"] and r["failed"] == 0 and r["saved_to"] == "")
        with self.assertRaises(shlo_oracle.InputError) as e:  # the control
            shlo_oracle.prop(time=1, only=["no.such.property"])
        self.assertEqual(e.exception.message, "unknown property 'no.such.property' (see shlo prop --list)")

    def test_bad_text_raises_with_its_location(self):
        bad = "module @m {\n  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n    %v0 = stablehlo.frobnicate %x : tensor<2xf32>\n"
        with self.assertRaises(shlo_oracle.ParseError) as e:
            shlo_oracle.parse(bad, "bad.mlir")
        self.assertEqual((e.exception.file, e.exception.line), ("bad.mlir", 3))
        self.assertGreater(e.exception.column, 0)
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "bad.mlir").write_text(bad)
            message = shlo("parse", Path(tmp, "bad.mlir"), expect=1).stderr.strip()
        self.assertTrue(message.endswith(e.exception.message.split(": ", 1)[1]))
        self.assertIn(f"bad.mlir:3:{e.exception.column}:", e.exception.message)
        with self.assertRaises(shlo_oracle.ParseError):
            shlo_oracle.run(bad, [np.zeros(2, np.float32)])

    def test_bad_inputs_raise_naming_the_argument(self):
        text = ("module @m {\n  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                "    %v0 = stablehlo.add %x, %x : tensor<2xf32>\n    return %v0 : tensor<2xf32>\n  }\n}\n")
        self.assertEqual(list(shlo_oracle.run(text, [np.array([1.5, 2], np.float32)], domain="f32")[0]), [3.0, 4.0])
        with self.assertRaises(shlo_oracle.InputError) as e:
            shlo_oracle.run(text, [np.zeros(3, np.float32)])
        self.assertIn("%x", e.exception.message)
        with self.assertRaises(shlo_oracle.InputError):
            shlo_oracle.run(text, [np.zeros(2, np.float64)])  # f64 data for an f32 argument, as the command
        with self.assertRaises(shlo_oracle.InputError):
            shlo_oracle.run(text, [np.zeros(2, np.float32)], domain="interval:1")
        with self.assertRaises(shlo_oracle.InputError):
            shlo_oracle.check(text, [np.zeros(2, np.float32)], [np.zeros(2, np.float32)], profile="fp8")


if __name__ == "__main__":
    program = unittest.main(exit=False, verbosity=2)
    result = program.result
    if not ARTIFACTS.is_dir():
        print(f"skipped the comparisons: {ARTIFACTS} is not here", file=sys.stderr)
        sys.exit(77 if result.wasSuccessful() else 1)
    sys.exit(0 if result.wasSuccessful() else 1)
