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
