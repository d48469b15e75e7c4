#!/usr/bin/python3
"""Float32 outputs of five ladder programs computed by another implementation: NumPy.

The statistical tier of `shlo check` was built and tested against float32 evaluations that
the project computes itself (the interpreter in four summation orders, the CUDA host path,
the tests' plain loops). This computes the same programs with NumPy instead: its matrix
products go to the system BLAS (sgemm: its own loop order and blocking), a convolution is
an im2col product (the window taps gathered in (channel, row, column) order, not the
interpreter's (row, column, channel)), max pooling is NumPy's reduction. Nothing here
imports the project.

  numpy_route.py PROGRAM INPUTS OUT
  (PROGRAM: linear_fwd, mlp_fwd, cnn_fwd, linear_train_step or mlp_train_step; each written
  op for op as the printer's text has it, so that only the summation orders differ)

INPUTS holds <arg>.npy as `shlo run --random-inputs S --out D` writes them (D/inputs).
Writes OUT/<variant>/result<i>.npy (one per output) for each variant:
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


def f32(x):
    return np.asarray(x, dtype=F32)


def softmax_minus_onehot(logits, onehot):
    """exp, a row sum, a quotient, less the one-hot rows: the printer's softmax (no maximum
    subtracted) and its cross-entropy gradient."""
    e = np.exp(logits)
    return f32(f32(e / e.sum(axis=1, dtype=F32)[:, None]) - onehot)


def mean_loss(logits, onehot):
    """The printer's report-only loss: -(sum over rows and classes of onehot log softmax) / 128."""
    e = np.exp(logits)
    log_softmax = np.log(f32(e / e.sum(axis=1, dtype=F32)[:, None]))
    rows = f32(onehot * log_softmax).sum(axis=1, dtype=F32)
    return f32(-(rows.sum(dtype=F32) / F32(128.0)))


def sgd(param, gradient):
    """param - gradient * 0.00078125 (the printer's learning rate over the batch, 0.1 / 128)."""
    return f32(param - f32(gradient * F32(0.00078125)))


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


def linear_train_step(r, a):
    x, W0, b0, onehot = a["x"], a["W0"], a["b0"], a["onehot"]
    d = softmax_minus_onehot(r.dense(x, W0, b0), onehot)
    return [sgd(W0, r.matmul(x.T, d)), sgd(b0, d.sum(axis=0, dtype=F32))]


def mlp_train_step(r, a):
    x, onehot = a["x"], a["onehot"]
    W0, b0, W1, b1, W2, b2 = (a[k] for k in ("W0", "b0", "W1", "b1", "W2", "b2"))
    z0 = r.dense(x, W0, b0)
    h0 = relu(z0)
    z1 = r.dense(h0, W1, b1)
    h1 = relu(z1)
    logits = r.dense(h1, W2, b2)
    d2 = softmax_minus_onehot(logits, onehot)
    d1 = np.where(z1 > 0, r.matmul(d2, W2.T), F32(0))  # compare GT, then select
    d0 = np.where(z0 > 0, r.matmul(d1, W1.T), F32(0))
    return [sgd(W0, r.matmul(x.T, d0)), sgd(b0, d0.sum(axis=0, dtype=F32)),
            sgd(W1, r.matmul(h0.T, d1)), sgd(b1, d1.sum(axis=0, dtype=F32)),
            sgd(W2, r.matmul(h1.T, d2)), sgd(b2, d2.sum(axis=0, dtype=F32)),
            mean_loss(logits, onehot)]


PROGRAMS = {"linear_fwd": linear_fwd, "mlp_fwd": mlp_fwd, "cnn_fwd": cnn_fwd,
            "linear_train_step": linear_train_step, "mlp_train_step": mlp_train_step}
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
        with np.errstate(all="ignore"):  # inputs of both signs overflow the printer's softmax
            ys = PROGRAMS[program](Route(v), args)
        os.makedirs(os.path.join(out, v), exist_ok=True)
        for i, y in enumerate(ys if isinstance(ys, list) else [ys]):
            assert y.dtype == F32, (v, i, y.dtype)
            np.save(os.path.join(out, v, f"result{i}.npy"), y)


if __name__ == "__main__":
    main()
