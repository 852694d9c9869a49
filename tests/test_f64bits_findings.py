"""float64 activations in torch 2.13's last bits (the f64bits round), each against torch itself.

1. SLEEF's float64 expm1 and log1p (u10), as torch's Vectorized<double> calls them, replayed
   exactly (ops/_sleef_double.py).
2. float64 silu, elu, selu, celu, softplus, logsigmoid and gelu's tanh form, forward and
   backward: SLEEF's exp, expm1, log1p, tanh in the vectors, the C library's on each run's
   leftover, torch's formulas in their rounding order (silu_backward's bracket one fused
   multiply-add), on every size and layout up to the replay limit, and past it under
   ``backends.cpu.torch_bits``.
3. float64 layer_norm and group_norm forward: RowwiseMoments<double> (4 lanes) replayed;
   binary_cross_entropy_with_logits' float64 forward through the log_sigmoid replay.
"""

from __future__ import annotations

import contextlib

import numpy as np

import leafgrad
import leafgrad.nn.functional as LF
from leafgrad.ops import _sleef_double
from tests._torch import require_torch

torch = require_torch()
TF = torch.nn.functional

_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 800.0, -800.0, 1e-310, -1e-310, 20.0,
                      20.000001, -37.0, -710.0, 709.9, 1e300, -1e300, 5e-324, -5e-324, 1.0, -1.0,
                      -36.7, -1e-17, 3e-9, 0.3465, -0.3466])

# (name, keyword arguments): every float64 activation torch runs through SLEEF's exp/expm1/log1p
_ACTIVATIONS = (("silu", {}), ("elu", {}), ("elu", {"alpha": 0.4}), ("selu", {}),
                ("celu", {"alpha": 0.7}), ("softplus", {}),
                ("softplus", {"beta": 1.7, "threshold": 3.0}), ("logsigmoid", {}),
                ("gelu", {"approximate": "tanh"}))


def _same_bits(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    ours, theirs = np.ascontiguousarray(ours), np.ascontiguousarray(theirs)
    return (ours.view(np.int64) == theirs.view(np.int64)) | (np.isnan(ours) & np.isnan(theirs))


def _layouts(rng, n: int):
    """Arrays of n float64 values: contiguous, rows of a wider matrix, a transpose, every
    other element, a 0-d one; the specials and values around 0 and the thresholds."""
    values = rng.standard_normal(4 * n + 8) * np.exp(rng.uniform(-6, 3, 4 * n + 8))
    values[: min(len(_SPECIALS), n)] = _SPECIALS[: min(len(_SPECIALS), n)]
    rng.shuffle(values)
    yield values[:n].copy()
    yield np.lib.stride_tricks.as_strided(values, (2, n), (8 * (n + 3), 8))
    yield values[: 3 * n].reshape(n, 3).T
    yield values[: 2 * n : 2]
    if n == 1:
        yield np.array(values[0])


_SIZES = (1, 5, 15, 16, 17, 31, 32, 33, 47, 100, 257, 1000)


@contextlib.contextmanager
def _torch_bits():
    previous = leafgrad.backends.cpu.torch_bits
    leafgrad.backends.cpu.torch_bits = True
    try:
        yield
    finally:
        leafgrad.backends.cpu.torch_bits = previous


def _check(rng, sizes):
    for name, kwargs in _ACTIVATIONS:
        for n in sizes:
            for x in _layouts(rng, n):
                theirs_x = torch.from_numpy(x).requires_grad_()
                ours_x = leafgrad.from_numpy(x).requires_grad_()
                theirs = getattr(TF, name)(theirs_x, **kwargs)
                ours = getattr(LF, name)(ours_x, **kwargs)
                label = (name, kwargs, x.shape, x.strides)
                same = _same_bits(ours.detach().numpy(), theirs.detach().numpy())
                assert same.all(), (label, x[~same][:4])
                assert ours.grad_fn.name() == theirs.grad_fn.name(), label
                grad = rng.standard_normal(x.shape)
                theirs.backward(torch.from_numpy(grad))
                ours.backward(leafgrad.from_numpy(grad))
                same = _same_bits(ours_x.grad.numpy(), theirs_x.grad.numpy())
                assert same.all(), (label, "grad", x[~same][:4])


def test_sleef_expm1_and_log1p_replays_match_torch():
    """expm1d through float64 elu (``expm1(x) * 1`` on x <= 0, all in vectors) and log1pd
    against torch.log1p, over many binades and the edge values."""
    rng = np.random.default_rng(0)
    magnitudes = np.exp(rng.uniform(-40, 7, 16 * 1500))
    x = -magnitudes
    x[: len(_SPECIALS)] = -np.abs(_SPECIALS)
    theirs = TF.elu(torch.from_numpy(x)).numpy()
    assert _same_bits(_sleef_double.expm1d(x), theirs).all()
    y = np.concatenate([magnitudes, -np.exp(rng.uniform(-40, -1e-9, 16 * 500)), _SPECIALS])
    y = np.concatenate([y, np.zeros(-len(y) % 16)])
    assert _same_bits(_sleef_double.log1pd(y), torch.log1p(torch.from_numpy(y)).numpy()).all()


def test_float64_activations_forward_and_backward_bits():
    """Every float64 activation above, forward and backward, on sizes around the 16-element
    vector pairs, four layouts, special values: torch's bits and node names."""
    _check(np.random.default_rng(1), _SIZES)


def test_float64_activations_past_the_replay_limit_under_torch_bits():
    """Past _softmax_bits.EXPD_LIMIT the replays run only under backends.cpu.torch_bits (the
    scalar leftovers then through the C library at every size)."""
    with _torch_bits():
        _check(np.random.default_rng(2), (4099,))


# -- 3. float64 layer_norm / group_norm statistics ------------------------------------------------


def test_float64_layer_norm_and_group_norm_forward_bits():
    """float64 layer_norm (every affine subset, row lengths around the 4-lane vectors, the
    16-vector chunks and their cascade, a transposed input) and group_norm: RowwiseMoments'
    Welford order in Vectorized<double>, torch's fused output step; native_layer_norm's
    saved mean and rstd too."""
    rng = np.random.default_rng(3)
    for length in (1, 3, 4, 5, 7, 8, 25, 63, 64, 65, 130, 257, 700):
        x = rng.standard_normal((3, length)) * 2 + 0.5
        for layout in (x, np.asfortranarray(x)):
            for affine in ((False, False), (True, False), (False, True), (True, True)):
                params = [rng.standard_normal(length) if wanted else None for wanted in affine]
                theirs = TF.layer_norm(torch.from_numpy(layout), (length,),
                                       *[None if p is None else torch.from_numpy(p)
                                         for p in params])
                ours = LF.layer_norm(leafgrad.from_numpy(layout), (length,),
                                     *[None if p is None else leafgrad.from_numpy(p)
                                       for p in params])
                label = (length, affine, layout.strides)
                assert _same_bits(ours.numpy(), theirs.numpy()).all(), label
        theirs = torch.native_layer_norm(torch.from_numpy(x), (length,), None, None, 1e-5)
        ours = leafgrad.native_layer_norm(leafgrad.from_numpy(x), (length,), None, None, 1e-5)
        for mine, torchs in zip(ours, theirs):
            assert _same_bits(mine.numpy(), torchs.numpy()).all(), length
    for shape, groups in (((2, 4, 5), 2), ((3, 6, 7, 3), 3), ((2, 8, 40), 4), ((1, 4), 2)):
        x = rng.standard_normal(shape)
        for affine in ((False, False), (True, True), (True, False)):
            params = [rng.standard_normal(shape[1]) if wanted else None for wanted in affine]
            theirs = TF.group_norm(torch.from_numpy(x), groups,
                                   *[None if p is None else torch.from_numpy(p) for p in params])
            ours = LF.group_norm(leafgrad.from_numpy(x), groups,
                                 *[None if p is None else leafgrad.from_numpy(p) for p in params])
            assert _same_bits(ours.numpy(), theirs.numpy()).all(), (shape, groups, affine)


def test_float64_bce_with_logits_forward_bits():
    """binary_cross_entropy_with_logits in float64 is built on torch's log_sigmoid kernel: its
    loss (every reduction, with and without pos_weight and weight) takes its bits."""
    rng = np.random.default_rng(4)
    for n in (1, 5, 16, 17, 40, 300):
        x = rng.standard_normal((3, n)) * 4
        target = rng.uniform(0, 1, (3, n))
        extras = rng.uniform(0.5, 2, n), rng.uniform(0.5, 2, (3, n))
        for reduction in ("none", "mean", "sum"):
            for pos_weight in (None, extras[0]):
                for weight in (None, extras[1]):
                    def call(module, wrap):
                        return module.nn.functional.binary_cross_entropy_with_logits(
                            wrap(x), wrap(target),
                            weight=None if weight is None else wrap(weight),
                            pos_weight=None if pos_weight is None else wrap(pos_weight),
                            reduction=reduction)
                    ours = call(leafgrad, leafgrad.from_numpy).numpy()
                    theirs = call(torch, torch.from_numpy).numpy()
                    label = (n, reduction, pos_weight is None, weight is None)
                    assert _same_bits(np.atleast_1d(ours), np.atleast_1d(theirs)).all(), label
