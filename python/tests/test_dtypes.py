"""The Python module's integer and float16 arrays: inputs of every integer dtype and float16 reach
the program in their own type, results come back in theirs, with values computed by hand (two's
complement wrapping, binary16 rounding); a wrong dtype is refused naming the argument and the
dtype it needs. Environment: PYTHONPATH (build/python)."""

import unittest
from fractions import Fraction

import numpy as np

import shlo_oracle

# (NumPy dtype, the text's element type, bits, signed)
INTEGERS = [
    (np.int8, "i8", 8, True), (np.int16, "i16", 16, True), (np.int32, "i32", 32, True), (np.int64, "i64", 64, True),
    (np.uint8, "ui8", 8, False), (np.uint16, "ui16", 16, False), (np.uint32, "ui32", 32, False), (np.uint64, "ui64", 64, False),
]


def binary(op, element, n=3):
    t = f"tensor<{n}x{element}>"
    return (f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
            f"  %r = stablehlo.{op} %x, %y : {t}\n"
            f"  return %r : {t}\n}}\n")


def wrapped(value, bits, signed):
    """A Python integer as the element type holds it: modulo 2^bits, then signed if the type is."""
    value %= 1 << bits
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


class IntegerArrays(unittest.TestCase):
    def test_every_integer_dtype_keeps_its_type_and_wraps(self):
        for dtype, element, bits, signed in INTEGERS:
            top = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
            low = -(1 << (bits - 1)) if signed else 0
            xs, ys = [top, low, 7], [1, -1 if signed else 0, 5]
            # the sums by hand: top + 1 wraps to the lowest value, low - 1 (signed) to the top
            want = [low, top if signed else 0, 12]
            self.assertEqual(want, [wrapped(a + b, bits, signed) for a, b in zip(xs, ys)])
            for domain in ("f32", "exact", "interval:64"):
                with self.subTest(element=element, domain=domain):
                    (r,) = shlo_oracle.run(binary("add", element), [np.array(xs, dtype), np.array(ys, dtype)], domain=domain)
                    self.assertEqual(r.dtype, np.dtype(dtype))
                    self.assertEqual([int(v) for v in r], want)

    def test_unsigned_multiply_wraps_modulo_256(self):
        x, y = np.array([200, 3, 16], np.uint8), np.array([2, 5, 16], np.uint8)
        (r,) = shlo_oracle.run(binary("multiply", "ui8"), [x, y], domain="exact")
        self.assertEqual(r.dtype, np.uint8)
        self.assertEqual(r.tolist(), [144, 15, 0])  # 400 - 256, 15, 256 - 256
        self.assertNotEqual(r.tolist(), [400, 15, 256])  # control: the unwrapped products

    def test_replicas_stack_integer_results(self):
        text = ("func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {\n"
                "  %s = \"stablehlo.all_reduce\"(%x) ({\n"
                "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
                "    %t = stablehlo.add %a, %b : tensor<i32>\n"
                "    stablehlo.return %t : tensor<i32>\n"
                "  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>\n"
                "  return %s : tensor<2xi32>\n}\n")
        inputs = [[np.array([2147483647, -5], np.int32)], [np.array([1, 12], np.int32)]]
        (r,) = shlo_oracle.run(text, inputs, domain="f64", replicas=2)
        self.assertEqual(r.dtype, np.int32)
        self.assertEqual(r.tolist(), [[-2147483648, 7], [-2147483648, 7]])

    def test_a_wrong_dtype_is_refused_naming_what_the_argument_needs(self):
        text = binary("add", "i32")
        ok = np.array([1, 2, 3], np.int32)
        self.assertEqual(shlo_oracle.run(text, [ok, ok], domain="exact")[0].tolist(), [2, 4, 6])
        with self.assertRaises(shlo_oracle.InputError) as e:  # int64 data for an i32 argument
            shlo_oracle.run(text, [np.array([1, 2, 3], np.int64), ok], domain="exact")
        self.assertIn("%x", e.exception.message)
        self.assertIn("dtype is i64, expected i32", e.exception.message)
        with self.assertRaises(shlo_oracle.InputError) as e:  # unsigned for signed, same width
            shlo_oracle.run(text, [ok, np.array([1, 2, 3], np.uint32)], domain="exact")
        self.assertIn("%y", e.exception.message)
        with self.assertRaises(TypeError) as e:  # a dtype the module does not carry
            shlo_oracle.run(text, [np.array([1, 2, 3], np.complex64), ok], domain="exact")
        self.assertIn("complex64", str(e.exception))


class Float16Arrays(unittest.TestCase):
    def test_float16_in_and_out(self):
        x = np.array([1.0, 0.1, 65504.0, -2.0], np.float16)
        y = np.array([2.0 ** -11, 0.1, 65504.0, 0.5], np.float16)
        # by hand: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 and rounds to even (1.0);
        # 0.1h + 0.1h is twice 0.1h exactly (binary16 0x2E66 = 0.0999755859375); 65504 + 65504
        # overflows binary16 to inf; -2 + 0.5 = -1.5 exactly
        want = [1.0, 0.199951171875, float("inf"), -1.5]
        self.assertEqual(float(np.float16(0.1)), 0.0999755859375)
        for domain in ("f32", "f64", "ieee"):
            with self.subTest(domain=domain):
                (r,) = shlo_oracle.run(binary("add", "f16", 4), [x, y], domain=domain)
                self.assertEqual(r.dtype, np.float16)
                self.assertEqual([float(v) for v in r], want)
        # exact: the same roundings to binary16, as fractions (without the overflow)
        (exact,) = shlo_oracle.run(binary("add", "f16", 3), [x[[0, 1, 3]], y[[0, 1, 3]]], domain="exact")
        self.assertEqual(list(exact), [Fraction(1), Fraction(0.199951171875), Fraction(-3, 2)])

    def test_float16_for_an_f32_argument_is_refused(self):
        text = binary("add", "f32", 2)
        with self.assertRaises(shlo_oracle.InputError) as e:
            shlo_oracle.run(text, [np.zeros(2, np.float16), np.zeros(2, np.float32)], domain="f32")
        self.assertIn("%x", e.exception.message)
        # control: float32 data for the same argument runs
        self.assertEqual(shlo_oracle.run(text, [np.ones(2, np.float32), np.ones(2, np.float32)], domain="f32")[0].tolist(), [2.0, 2.0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
