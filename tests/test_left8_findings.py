"""Differences from torch 2.13 found in the left8 review, each checked against torch itself.

1. ``batch_norm`` saves the running statistics on its node (either mode) as torch's
   NativeBatchNormBackward0 does: writing into them in place between the forward and the
   backward is torch's version error, and ``_saved_running_mean``/``_saved_running_var`` show
   them (None when not given). The backward reads their values when it runs (a write the
   check misses, through ``.data`` or a training-mode update, shows in the gradients).
"""

from __future__ import annotations

import itertools
import warnings

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return "ok", result


def _bits(tensor):
    return None if tensor is None else (str(tensor.dtype).split(".")[1], tuple(tensor.shape),
                                         tensor.detach().numpy().tobytes())


def _update(rm, rv):
    lib = torch if isinstance(rm, torch.Tensor) else leafgrad  # a training-mode update: no bump
    lib.nn.functional.batch_norm(lib.randn(5, 3, 2, dtype=rm.dtype), rm, rv, training=True)


def test_batch_norm_running_statistics_are_saved_and_version_checked():
    writes = {"none": lambda rm, rv: None, "mean": lambda rm, rv: rm.add_(1),
              "var": lambda rm, rv: rv.mul_(2), "mean view": lambda rm, rv: rm[:1].zero_(),
              "data": lambda rm, rv: rm.data.add_(1),
              "update": lambda rm, rv: _update(rm, rv)}
    checked = 0
    for training, (mode, write), needs, module, dtype in itertools.product(
            (False, True), writes.items(), ((True, False), (False, True), (True, True)),
            (False, True), ("float32", "float64")):
        seen = []
        for lib in (torch, leafgrad):
            lib.manual_seed(0)
            kind = getattr(lib, dtype)
            x = lib.randn(4, 3, 2, dtype=kind, requires_grad=needs[0])
            if module:
                bn = lib.nn.BatchNorm1d(3, dtype=kind)
                bn.weight.requires_grad_(needs[1])
                bn.train(training)
                y = bn(x)
                rm, rv, w = bn.running_mean, bn.running_var, bn.weight
            else:
                rm = lib.randn(3, dtype=kind)
                rv = lib.rand(3, dtype=kind) + 0.5
                w = lib.randn(3, dtype=kind, requires_grad=needs[1])
                y = lib.nn.functional.batch_norm(x, rm, rv, w, None, training=training)
            node = y.grad_fn
            saved = (node._saved_running_mean is rm, node._saved_running_var is rv)
            write(rm, rv)
            outcome = _outcome(lambda: y.sum().backward())  # noqa: B023
            seen.append((saved, outcome[:2] if outcome[0] != "ok" else "ok",
                         _bits(x.grad), _bits(w.grad), rm._version, rv._version))
        assert seen[0] == seen[1], (training, mode, needs, module, dtype, seen)
        checked += 1
    assert checked == 2 * 6 * 3 * 2 * 2
    for lib in (torch, leafgrad):  # no statistics: None
        x = lib.randn(4, 3, requires_grad=True)
        node = lib.nn.functional.batch_norm(x, None, None, training=True).grad_fn
        assert node._saved_running_mean is None and node._saved_running_var is None


_INF = float("inf")
_PARTS = (0.0, -0.0, 2.0, -_INF, _INF, float("nan"))
_SPECIAL = [complex(re, im) for re in _PARTS for im in _PARTS]


def _complex_bits(tensor):
    """Each component's bits, every NaN as one (torch and NumPy may keep other payloads)."""
    import numpy as np

    parts = np.stack([tensor.real.numpy(), tensor.imag.numpy()])
    return np.where(np.isnan(parts), np.nan, parts).tobytes(), str(tensor.dtype).split(".")[1]


def test_complex_reciprocal_is_c10s_division_of_one():
    forms = {
        "function": lambda lib, z: lib.reciprocal(z), "method": lambda lib, z: z.reciprocal(),
        "in-place": lambda lib, z: z.clone().reciprocal_(),
        "out=": lambda lib, z: lib.reciprocal(z, out=lib.empty_like(z)),
        "rdiv": lambda lib, z: 1 / z, "pow -1": lambda lib, z: z ** -1,
        "pow(-1.0)": lambda lib, z: lib.pow(z, -1.0), "pow -0.5": lambda lib, z: z.pow(-0.5),
        "pow 0.5": lambda lib, z: z ** 0.5, "rsqrt": lambda lib, z: lib.rsqrt(z),
    }
    torch.manual_seed(0)
    finite = torch.randn(60, dtype=torch.complex128).tolist()
    chunks = [finite[i:i + 3] for i in range(0, 60, 3)]
    checked = 0
    for name, form in forms.items():
        for dtype in ("complex64", "complex128"):
            # every pair of special components in one tensor (torch's vectorised loop) and
            # a few at a time (its scalar loop); finite values in the scalar loop only (the
            # vectorised one scales by an approximate reciprocal: other last bits)
            for values in [_SPECIAL, _SPECIAL[:5], _SPECIAL[7:12], [0j, -2.5 + 3j, 1e-30 - 4j]] \
                    + chunks:
                seen = [_complex_bits(form(lib, lib.tensor(values, dtype=getattr(lib, dtype))))
                        for lib in (torch, leafgrad)]
                assert seen[0] == seen[1], (name, dtype, values)
                checked += 1
    assert checked == len(forms) * 2 * 24


def test_complex_cumprod_starts_from_one():
    checked = 0
    for dtype in ("complex64", "complex128"):
        for rows in ([[_INF, 0.0, 2.0], [2.0, 3.0, _INF], [0.0, 1.0, 2.0]],
                     [[-_INF, 2.0], [float("nan"), 0.0]], [[0.0, _INF, 3.0, 0.0]]):
            for dim, form in itertools.product((0, 1), ("function", "method", "out=", "in-place")):
                seen = []
                for lib in (torch, leafgrad):
                    kind = getattr(lib, dtype)
                    x = lib.tensor(rows, dtype=kind) * lib.tensor(complex(1, -1), dtype=kind)
                    x.requires_grad_(form in ("function", "method"))
                    y = {"function": lambda: lib.cumprod(x, dim),  # noqa: B023
                         "method": lambda: x.cumprod(dim=dim),  # noqa: B023
                         "out=": lambda: lib.cumprod(x, dim, out=lib.empty_like(x)),  # noqa: B023
                         "in-place": lambda: x.clone().cumprod_(dim)}[form]()  # noqa: B023
                    grad = None
                    if y.requires_grad:
                        grad, = lib.autograd.grad(y, x, lib.full_like(y, complex(0.5, -2)))
                    seen.append((_complex_bits(y.detach()),
                                 grad is not None and _complex_bits(grad)))
                assert seen[0] == seen[1], (dtype, rows, dim, form, seen)
                checked += 1
    assert checked == 2 * 3 * 2 * 4
