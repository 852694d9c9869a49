"""Training BatchNorm1d on batches of up to 128 rows per thread is torch's bits: the channels-
last kernels' per-thread float32 buffers are replayed row by row there (the products all in
double first, one NumPy call per row). With the replay stopping at 32 rows, a third of the
outputs at a batch of 128 were a last bit off."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
LIBS = (torch, leafgrad)


@pytest.mark.parametrize("threads", (1, 2))
def test_batchnorm1d_of_a_large_batch_is_torchs_bits(threads):
    saved = [lib.get_num_threads() for lib in LIBS]
    differing = []
    try:
        for lib in LIBS:
            lib.set_num_threads(threads)
        for rows, channels in ((128, 64), (100, 10), (127, 3), (96, 17)):
            rng = np.random.default_rng(rows + channels)
            x = (rng.standard_normal((rows, channels)) * 2 + 0.3).astype(np.float32)
            g = rng.standard_normal((rows, channels)).astype(np.float32)
            seen = []
            for lib in LIBS:
                lib.manual_seed(0)
                layer = lib.nn.BatchNorm1d(channels)
                with lib.no_grad():
                    layer.weight.uniform_(-1, 1)
                    layer.bias.uniform_(-1, 1)
                xt = lib.tensor(x).requires_grad_()
                y = layer(xt)
                y.backward(lib.tensor(g))
                seen.append([t.detach().numpy().tobytes() for t in (
                    y, xt.grad, layer.weight.grad, layer.bias.grad, layer.running_mean,
                    layer.running_var)])
            if seen[0] != seen[1]:
                differing.append((rows, channels, [a == b for a, b in zip(*seen)]))
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    assert not differing, differing


def test_running_statistics_and_eval_outputs_are_torchs_bits():
    """The running mean and variance after training steps (and so eval-mode outputs) are
    torch's update_stats: the kernel's mean and var_sum, the momentum in the dtype, float32's
    variance update fused; NumPy's mean and var gave other last bits on most channels. Layouts
    (row-major 2-d/4-d, channels-last), float32/float64, momentum None (cumulative average)."""
    saved = [lib.get_num_threads() for lib in LIBS]
    differing = []
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
        cases = [((64, 12), np.float32, 0.1), ((64, 12), np.float64, 0.1),
                 ((8, 5, 4, 4), np.float32, 0.3), ((8, 5, 4, 4), np.float32, None),
                 ((6, 9, 3, 3), np.float64, None)]
        for shape, dtype, momentum in cases:
            rng = np.random.default_rng(len(shape) * 7 + shape[1])
            batches = [(rng.standard_normal(shape) * 1.5 + 0.4).astype(dtype) for _ in range(3)]
            for channels_last in ((False, True) if len(shape) == 4 else (False,)):
                seen = []
                for lib in LIBS:
                    cls = lib.nn.BatchNorm1d if len(shape) == 2 else lib.nn.BatchNorm2d
                    layer = cls(shape[1], momentum=momentum, dtype=getattr(lib, np.dtype(
                        dtype).name))
                    for batch in batches:
                        x = lib.tensor(batch)
                        if channels_last:
                            x = x.contiguous(memory_format=lib.channels_last)
                        layer(x)
                    layer.eval()
                    out = layer(lib.tensor(batches[0]))
                    seen.append([t.detach().numpy().tobytes() for t in (
                        layer.running_mean, layer.running_var, out)])
                if seen[0] != seen[1]:
                    differing.append((shape, np.dtype(dtype).name, momentum, channels_last,
                                      [a == b for a, b in zip(*seen)]))
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    assert not differing, differing
