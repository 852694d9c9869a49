"""float16 times or divided by a scalar as torch (Note: float16 by a scalar, ops/elementwise.py):
a Python number or 0-d tensor second operand is taken at its value in float32, the product or
quotient rounded once; add/sub and a scalar first operand round the scalar to float16 first."""

import numpy as np

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

_SCALARS = [1 / 3, 0.3, 70000.0, 1e-5, 3, -7, 2.5e4, 1e-8, 65519.0, 0.1]


def test_half_mul_div_by_scalars():
    x = (np.random.default_rng(0).standard_normal(500) * 8).astype(np.float16)
    results = []
    for lib in (lg, torch):
        h = lib.tensor(x)
        out = []
        for s in _SCALARS:
            for scalar in (s, lib.tensor(s), lib.tensor(s, dtype=lib.float64),
                           lib.tensor(float(s), dtype=lib.float16)):
                out.append((h * scalar).tolist())
                out.append((h / scalar).tolist())
                out.append(lib.mul(h, scalar).tolist())
                out.append(lib.div(h, scalar).tolist())
                out.append((h + scalar).tolist())
                out.append((h - scalar).tolist())
                out.append((scalar * h).tolist())
                if not isinstance(scalar, lib.Tensor):
                    out.append((scalar / h).tolist())
                inplace = h.clone()
                inplace.mul_(scalar)
                out.append(inplace.tolist())
                inplace = h.clone()
                inplace /= scalar
                out.append(inplace.tolist())
            out.append(str((h[0] * lib.tensor(s)).dtype).split(".")[-1])  # two 0-d: float32 wins
            out.append((h[0] / lib.tensor(int(s) or 1)).tolist())
        out.append(lib.ones(70000, dtype=lib.float16).nanmean().item())
        results.append([str(item) if not isinstance(item, list) else item for item in out])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_bfloat16_scalar_operands():
    # torch casts scalar operands of a bfloat16 op to bfloat16 first (257 -> 256), ints and
    # 0-d integer tensors included, except the second operand of mul/div/lerp (read in float32)
    values = np.array([1.0, 0.0, 3.0, 2.5, -7.75, 300.0, 1e-3], dtype=np.float32)
    results = []
    for lib in (lg, torch):
        b = lib.tensor(values).bfloat16()
        out = []
        for s in (257, 1 / 3, 0.1, 65793, -513):
            for scalar in (s, lib.tensor(s)):
                out += [b + scalar, b - scalar, b * scalar, b / scalar, scalar * b, scalar + b,
                        lib.lerp(b, b * 2, 0.3), lib.clamp(b, max=s), lib.where(b > 1, b, s)]
                if isinstance(scalar, lib.Tensor):
                    out += [scalar / b, scalar - b]
        results.append([t.float().tolist() for t in out])
    np.testing.assert_array_equal(np.asarray(results[0]), np.asarray(results[1]))
