"""Behaviours found by replaying torch's test_linalg.py (float32/float64 CPU paths) as programs
under torch and leafgrad: empty and batched shapes, error messages, grad_fn names."""

from __future__ import annotations

import math

from ._torch import require_torch
from .test_suite7_findings import _same

torch = require_torch()


def _matrix(m, shape):
    return m.arange(1, 1 + math.prod(shape), dtype=m.float64).reshape(shape).sin()


def test_cond_follows_torch_on_every_order_and_empty_matrices():
    """linalg.cond: an empty input is 0 in the real dtype (before the square check, for the
    numeric orders; after it for 'fro'/'nuc'), +-2 are s_max/s_min through narrow and squeeze
    (SqueezeBackward1), 1/inf/'fro' are norm(A) * norm(inv_ex(A)) with a failed inverse read as
    infinities and nan_to_num (NanToNumBackward0; no LinAlgError for a singular A), 'nuc' is
    sum(s) * sum(1/s); its errors name the order as torch prints it (1.000000, 3, ord=fro)."""
    cases = []
    for order in (None, 2, -2, 1, -1, 1.0, math.inf, -math.inf, "fro", "nuc", 3, "bad", 2.0):
        for shape in ((0, 0), (2, 0, 0), (0, 3), (3, 0), (2, 3), (3, 3), (2, 3, 3)):
            cases.append((f"cond {order!r} {shape}", lambda m, p=order, s=shape: (
                lambda r: (r.dtype, r.shape, r.grad_fn.name() if r.grad_fn else None))(
                m.linalg.cond(_matrix(m, s).requires_grad_(), p))))
        cases.append((f"cond {order!r} 1-d", lambda m, p=order: m.linalg.cond(m.ones(3), p)))
        cases.append((f"cond {order!r} long", lambda m, p=order: m.linalg.cond(
            m.ones(2, 2, dtype=m.long), p)))
        cases.append((f"cond {order!r} float32 empty", lambda m, p=order: m.linalg.cond(
            m.ones(2, 0, 0), p)))
    _same(cases)


def test_empty_reductions_of_norms_and_their_messages():
    """matrix_norm's maximum over an empty dim is 0 with no history (ord 2, 1, inf of a
    matrix with a zero dimension), its minimum amin's error; amax/amin and vector_norm name an
    empty dim as it was given (-1), where max/argmax name it wrapped."""
    cases = []
    for order in (1, -1, 2, -2, math.inf, -math.inf, "nuc", "fro"):
        for shape in ((0, 0), (0, 3), (3, 0), (2, 0, 3)):
            for keepdim in (False, True):
                cases.append((f"matrix_norm {order} {shape} {keepdim}",
                              lambda m, o=order, s=shape, k=keepdim: (lambda r: (
                                  r, r.grad_fn.name() if r.grad_fn else None))(
                                  m.linalg.matrix_norm(m.zeros(s, requires_grad=True), o,
                                                       keepdim=k))))
        cases.append((f"norm {order} (0, 3)", lambda m, o=order: m.linalg.norm(
            m.zeros(0, 3), o)))
    for name in ("amax", "amin", "max", "min", "argmax", "argmin"):
        for dim in (-1, 1, (0, -1), (-1, 0)):
            if isinstance(dim, tuple) and name not in ("amax", "amin"):
                continue
            cases.append((f"{name}(dim={dim})", lambda m, n=name, d=dim: getattr(
                m.zeros(2, 0), n)(d)))
    for order in (math.inf, -math.inf, 0, 2):
        for dim in (-1, 1, (0, -1), (-1, 0), (1, -2)):
            cases.append((f"vector_norm {order} dim={dim}", lambda m, o=order, d=dim:
                          m.linalg.vector_norm(m.zeros(2, 0), o, d)))
    _same(cases)


def test_products_refuse_bool_where_torch_dispatches():
    """mm/matmul/bmm/mv/dot/vdot/baddbmm of bool tensors: torch's kernels have no bool version
    ("addmm_impl_cpu_", "bmm", "addmv_impl_cpu", "dot", "baddbmm") and say so, except where
    they return before dispatching (an empty result or an empty inner dimension; dot always
    dispatches); the integer kernels compute."""
    cases = []
    shapes = {"mm": ((2, 2), (2, 2)), "mm k=0": ((2, 0), (0, 2)), "mm empty": ((0, 2), (2, 2)),
              "mm 1x1": ((1, 2), (2, 1)), "bmm": ((1, 2, 2), (1, 2, 2)),
              "bmm k=0": ((1, 2, 0), (1, 0, 2)), "bmm k=1": ((1, 2, 1), (1, 1, 2)),
              "bmm empty": ((0, 2, 2), (0, 2, 2)), "mv": ((2, 2), (2,)), "mv k=0": ((2, 0), (0,)),
              "mv empty": ((0, 2), (2,)), "dot": ((2,), (2,)), "dot empty": ((0,), (0,))}
    functions = {"mm": "mm", "bmm": "bmm", "mv": "mv", "dot": "dot"}
    for dtype in ("bool", "int64", "uint8", "float32"):
        for label, (first, second) in shapes.items():
            function = functions[label.split()[0]]
            for name in (function, "matmul") + (("vdot",) if function == "dot" else ()):
                cases.append((f"{name} {label} {dtype}", lambda m, n=name, a=first, b=second,
                              d=dtype: getattr(m, n)(m.ones(a, dtype=getattr(m, d)),
                                                     m.ones(b, dtype=getattr(m, d)))))
        cases.append((f"baddbmm {dtype}", lambda m, d=dtype: m.baddbmm(
            m.ones(1, 2, 2, dtype=getattr(m, d)), m.ones(1, 2, 2, dtype=getattr(m, d)),
            m.ones(1, 2, 2, dtype=getattr(m, d)))))
        cases.append((f"multi_dot {dtype}", lambda m, d=dtype: m.linalg.multi_dot(
            [m.ones(2, 2, dtype=getattr(m, d))] * 3)))
        cases.append((f"einsum {dtype}", lambda m, d=dtype: m.einsum(
            "ij,jk", m.ones(2, 2, dtype=getattr(m, d)), m.ones(2, 2, dtype=getattr(m, d)))))
    _same(cases)


def test_solve_triangular_argument_errors():
    """linalg.solve_triangular's arguments as torch's parser reads them: upper is required
    (keyword-only), A is called input, a missing one lists every required parameter from it on
    (with torch's "1 ... arguments" / "2 ... argument"), bools only for the flags."""
    def eye(m):
        return m.eye(2) * 2

    calls = {
        "no upper": lambda m: m.linalg.solve_triangular(eye(m), eye(m)),
        "positional upper": lambda m: m.linalg.solve_triangular(eye(m), eye(m), True),
        "only A": lambda m: m.linalg.solve_triangular(eye(m)),
        "nothing": lambda m: m.linalg.solve_triangular(),
        "unknown keyword": lambda m: m.linalg.solve_triangular(eye(m), eye(m), upper=True, x=1),
        "A keyword": lambda m: m.linalg.solve_triangular(eye(m), eye(m), upper=True, A=eye(m)),
        "A= B=": lambda m: m.linalg.solve_triangular(A=eye(m), B=eye(m), upper=True),
        "input= B=": lambda m: m.linalg.solve_triangular(input=eye(m), B=eye(m), upper=True),
        "B= only": lambda m: m.linalg.solve_triangular(eye(m), upper=True),
        "upper int": lambda m: m.linalg.solve_triangular(eye(m), eye(m), upper=1),
        "left int": lambda m: m.linalg.solve_triangular(eye(m), eye(m), upper=True, left=0),
        "every keyword": lambda m: m.linalg.solve_triangular(
            eye(m), eye(m), upper=False, left=False, unitriangular=True),
        "out": lambda m: m.linalg.solve_triangular(eye(m), eye(m), upper=True,
                                                   out=m.empty(2, 2)),
        "out float64": lambda m: m.linalg.solve_triangular(
            eye(m), eye(m), upper=True, out=m.empty(2, 2, dtype=m.float64)),
    }
    _same(list(calls.items()))
