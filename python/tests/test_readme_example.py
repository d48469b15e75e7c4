"""Runs the README's Python example as written, with a stand-in for JAX (not installed here):
jax.jit(f).lower(x, w).as_text() returns hand-written StableHLO text for f, and jax.jit(f)(x, w)
evaluates f with NumPy in float32. Environment: README (the file), PYTHONPATH (build/python)."""

import os
import re
import sys
import types
import unittest

import numpy as np

LOWERED = """module @jit_f {
  func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<4x2xf32> {
    %v0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %v1 = stablehlo.constant dense<0.0> : tensor<4x2xf32>
    %v2 = stablehlo.maximum %v0, %v1 : tensor<4x2xf32>
    return %v2 : tensor<4x2xf32>
  }
}
"""


def readme_example():
    text = open(os.environ.get("README", "README.md")).read()
    after = text[text.index("<!-- python-example"):]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


def fake_jax(error=0.0):
    """jax and jax.numpy enough for the example: the lowered text is LOWERED; a call runs f in
    NumPy float32 (plus `error` on every element, for the control)."""
    jax = types.ModuleType("jax")
    jax.numpy = np

    class Jitted:
        def __init__(self, f):
            self.f = f

        def lower(self, *args):
            return types.SimpleNamespace(as_text=lambda: LOWERED)

        def __call__(self, *args):
            return (self.f(*args) + np.float32(error)).astype(np.float32)

    jax.jit = Jitted
    return jax


class ReadmeExample(unittest.TestCase):
    def run_example(self, error):
        sys.modules["jax"] = fake_jax(error)
        sys.modules["jax.numpy"] = np
        try:
            exec(compile(readme_example(), "README.md (python example)", "exec"), {})
        finally:
            del sys.modules["jax"], sys.modules["jax.numpy"]

    def test_runs_as_written(self):
        self.run_example(0.0)

    def test_a_wrong_result_fails_its_assert(self):  # the control
        with self.assertRaises(AssertionError):
            self.run_example(0.01)


if __name__ == "__main__":
    unittest.main(verbosity=2)
