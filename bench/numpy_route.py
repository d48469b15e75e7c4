#!/usr/bin/python3
"""Float32 outputs of three ladder programs computed by another implementation: NumPy.

The statistical tier of `shlo check` was built and tested against float32 evaluations that
the project computes itself (the interpreter in four summation orders, the CUDA host path,
the tests' plain loops). This computes the same programs with NumPy instead: its matrix
products go to the system BLAS (sgemm: its own loop order and blocking), a convolution is
an im2col product (the window taps gathered in (channel, row, column) order, not the
interpreter's (row, column, channel)), max pooling is NumPy's reduction. Nothing here
imports the project.

  numpy_route.py PROGRAM INPUTS OUT     (PROGRAM: linear_fwd, mlp_fwd or cnn_fwd)

INPUTS holds <arg>.npy as `shlo run --random-inputs S --out D` writes them (D/inputs).
Writes OUT/<variant>/result0.npy for each variant:
  f32      every op in float32, the products by BLAS sgemm;
  pairwise each product's terms formed in float32 and summed by numpy.sum along k: NumPy's
           pairwise summation (eight running sums over blocks, then a tree), another order;
  f64once  every matmul and convolution summed in float64 and rounded to float32 once;
  tf32     the matmul and convolution operands rounded to TF32 (10 stored mantissa bits,
           to nearest even) first, then as f32;
  bf16     the same at 7 stored bits.
bench/numpy_route.sh runs `shlo check` on each.
"""
import os
import sys

import numpy as np

F32 = np.float32


def round_mantissa(a, bits):
    """`a` (float32) rounded to nearest even at `bits` stored mantissa bits, still float32."""
    u = np.ascontiguousarray(a, dtype=F32).view(np.uint32).astype(np.uint64)
    drop = 23 - bits
    half = np.uint64(1 << (drop - 1))
    lsb = (u >> np.uint64(drop)) & np.uint64(1)
    rounded = (u + half - np.uint64(1) + lsb) & ~np.uint64((1 << drop) - 1)
    finite = np.isfinite(a)
    out = np.where(finite, rounded, u).astype(np.uint32).view(F32)
    return out.reshape(np.shape(a))


class Route:
    """How a variant computes a product A (m x k) times B (k x n) in float32."""

    def __init__(self, variant):
        self.variant = variant

    def operand(self, a):
        a = np.asarray(a, dtype=F32)
        if self.variant == "tf32":
            return round_mantissa(a, 10)
        if self.variant == "bf16":
            return round_mantissa(a, 7)
        return a

    def matmul(self, a, b):
        a, b = self.operand(a), self.operand(b)
        if self.variant == "pairwise":
            bt = np.ascontiguousarray(b.T)
            rows = max(1, (1 << 24) // max(1, bt.size))  # about 64 MiB of products at a time
            return np.concatenate([(a[i:i + rows, None, :] * bt[None, :, :]).sum(axis=-1, dtype=F32)
                                   for i in range(0, a.shape[0], rows)]).astype(F32)
        if self.variant == "f64once":
            return (a.astype(np.float64) @ b.astype(np.float64)).astype(F32)
        return (a @ b).astype(F32)

    def dense(self, x, w, bias):
        return (self.matmul(x, w) + bias.astype(F32)).astype(F32)

    def conv3x3_same(self, x, w, bias):
        """x: N x C x H x W, w: O x C x 3 x 3, stride 1, padding 1; then + bias[o]."""
        n, c, h, wd = x.shape
        o = w.shape[0]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        # patches[n, y, x, (c, kh, kw)]
        taps = [xp[:, :, i:i + h, j:j + wd] for i in range(3) for j in range(3)]  # each N x C x H x W
        patches = np.stack(taps, axis=2)  # N x C x 9 x H x W
        patches = patches.transpose(0, 3, 4, 1, 2).reshape(n * h * wd, c * 9)
        kernel = w.reshape(o, c * 9).T  # (c, kh, kw) x O
        y = self.matmul(patches, kernel).reshape(n, h, wd, o).transpose(0, 3, 1, 2)
        return (y + bias.astype(F32)[None, :, None, None]).astype(F32)


def relu(x):
    return np.maximum(x, F32(0))


def max_pool_2x2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def linear_fwd(r, a):
    return r.dense(a["x"], a["W0"], a["b0"])


def mlp_fwd(r, a):
    h = relu(r.dense(a["x"], a["W0"], a["b0"]))
    h = relu(r.dense(h, a["W1"], a["b1"]))
    return r.dense(h, a["W2"], a["b2"])


def cnn_fwd(r, a):
    x = a["x"].reshape(-1, 1, 28, 28)
    h = relu(r.conv3x3_same(x, a["W1"], a["b1"]))
    h = relu(r.conv3x3_same(h, a["W2"], a["b2"]))
    h = max_pool_2x2(h).reshape(h.shape[0], -1)
    h = relu(r.dense(h, a["W3"], a["b3"]))
    h = relu(r.dense(h, a["W4"], a["b4"]))
    return r.dense(h, a["W5"], a["b5"])


PROGRAMS = {"linear_fwd": linear_fwd, "mlp_fwd": mlp_fwd, "cnn_fwd": cnn_fwd}
VARIANTS = ["f32", "pairwise", "f64once", "tf32", "bf16"]


def self_check():
    """The rounding to fewer bits against cases worked by hand; exits on a mismatch."""
    one_plus = lambda k: F32(1 + 2.0 ** -k)
    cases = [
        (one_plus(11), 10, F32(1.0)),                 # exactly half an ulp of TF32: to even (1.0)
        (F32(1 + 2.0 ** -11 + 2.0 ** -20), 10, one_plus(10)),  # above half: up
        (F32(1 + 3 * 2.0 ** -11), 10, F32(1 + 2.0 ** -9)),     # 1.5 ulps: half, to even (up)
        (F32(-1 - 2.0 ** -8 - 2.0 ** -20), 7, F32(-1 - 2.0 ** -7)),  # bf16, negative, up in magnitude
        (F32(3.0), 7, F32(3.0)),
    ]
    for x, bits, want in cases:
        got = round_mantissa(np.array([x], dtype=F32), bits)[0]
        if got != want:
            sys.exit(f"round_mantissa({x!r}, {bits}) = {got!r}, want {want!r}")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in PROGRAMS:
        sys.exit(__doc__)
    self_check()
    program, inputs, out = sys.argv[1:]
    args = {f[:-4]: np.load(os.path.join(inputs, f)) for f in os.listdir(inputs) if f.endswith(".npy")}
    for v in VARIANTS:
        y = PROGRAMS[program](Route(v), args)
        assert y.dtype == F32, (v, y.dtype)
        os.makedirs(os.path.join(out, v), exist_ok=True)
        np.save(os.path.join(out, v, "result0.npy"), y)


if __name__ == "__main__":
    main()
