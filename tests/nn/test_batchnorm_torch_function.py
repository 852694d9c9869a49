"""A ``TorchFunctionMode`` sees the calls torch's BatchNorm modules make: the counter's
``add_`` and ``F.batch_norm`` (leafgrad's module called its kernel directly, so a mode, and
``SummaryWriter.add_graph``, saw no batch norm), with the same running statistics after, for
momentum None (the cumulative factor 1 / num_batches_tracked) and a number, train and eval."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _seen(lib, momentum, training, dims):
    names = []

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            names.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    lib.manual_seed(0)
    cls = {2: lib.nn.BatchNorm1d, 4: lib.nn.BatchNorm2d}[dims]
    module = cls(3, momentum=momentum)
    module.train(training)
    x = lib.randn(*((4, 3) if dims == 2 else (2, 3, 2, 2)))
    with Mode():
        for _ in range(3):
            out = module(x * 2)
    return (names, out.detach().numpy().tobytes(), module.running_mean.numpy().tobytes(),
            module.running_var.numpy().tobytes(), int(module.num_batches_tracked))


@pytest.mark.parametrize("dims", [2, 4])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("momentum", [None, 0.1, 0.5])
def test_mode_sees_batch_norm(momentum, training, dims):
    ours = _seen(leafgrad, momentum, training, dims)
    theirs = _seen(torch, momentum, training, dims)
    assert "batch_norm" in theirs[0]
    assert ours == theirs
    np.testing.assert_equal(len(ours[0]), len(theirs[0]))
