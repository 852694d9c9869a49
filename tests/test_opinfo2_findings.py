"""Findings of the OpInfo replay for ops m..z, nn.functional.*, special.* (tests/opinfo/
sweep_m_z.py), each swept beyond op_db's samples against torch."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _same_bits(a, b) -> bool:
    """torch's and leafgrad's tensors: same dtype, shape and every bit (NaNs equal)."""
    x, y = a.detach().numpy(), b.detach().numpy()
    if str(a.dtype).split(".")[1] != str(b.dtype).split(".")[1] or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        nan = np.isnan(x) & np.isnan(y)
        return bool(np.array_equal(x.view(f"u{x.itemsize}")[~nan], y.view(f"u{y.itemsize}")[~nan]))
    return bool(np.array_equal(x, y))


def test_polygamma_and_zeta_replay_atens_arithmetic():
    """polygamma(n >= 2) is (+-1) exp(lgamma(n + 1)) zeta(n + 1, x) with the C library's lgamma
    and exp (Python's math.lgamma rounds differently: n! came out a few ulps off, so every
    element differed); zeta's sums use the C library's pow, Cephes' stopping test (which never
    holds while the sum is negative, q < 0) and, for float32, powf for the first term."""
    grid = np.concatenate([np.linspace(-9.7, 9.3, 1001), [0.5, 1.0, 1e-3, 25.0, -0.5, -3.0]])
    for dtype in ("float64", "float32"):
        x_t = torch.tensor(grid, dtype=getattr(torch, dtype))
        x_l = leafgrad.tensor(grid, dtype=getattr(leafgrad, dtype))
        for n in range(6):
            assert _same_bits(torch.polygamma(n, x_t), leafgrad.polygamma(n, x_l)), (dtype, n)
            assert _same_bits(x_t.polygamma(n), x_l.polygamma(n)), (dtype, n)
        for s in (1.5, 2.0, 3.0, 3.5, 4.0, 5.0, 7.0):
            got_t = torch.special.zeta(torch.full_like(x_t, s), x_t)
            got_l = leafgrad.special.zeta(leafgrad.full(tuple(x_l.shape), s, dtype=x_l.dtype), x_l)
            assert _same_bits(got_t, got_l), (dtype, s)


def test_take_along_dim_wraps_indices_along_dim():
    """torch 2.13's take_along_dim(input, indices, dim) takes the indices modulo the size of
    dim (-1 is the last, size the first), forward and backward; the flat form still refuses."""
    for shape, dim in [((2, 5), 1), ((2, 5), 0), ((3, 4, 2), -1), ((3, 1), 1)]:
        size = shape[dim]
        for values in ([-1], [size], [-size - 1, 2 * size + 1], [0, -size]):
            index_shape = list(shape)
            index_shape[dim] = len(values)
            index = np.broadcast_to(
                np.array(values).reshape([-1 if i == dim % len(shape) else 1
                                          for i in range(len(shape))]), index_shape)
            results = []
            for lib in (torch, leafgrad):
                a = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
                a.requires_grad_(True)
                out = lib.take_along_dim(a, lib.tensor(index.copy()), dim)
                out.backward(lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape))
                results.append((out, a.grad, out.grad_fn.name()))
            (out_t, grad_t, name_t), (out_l, grad_l, name_l) = results
            assert _same_bits(out_t, out_l) and _same_bits(grad_t, grad_l), (shape, dim, values)
            assert name_t == name_l
    messages = []
    for lib in (torch, leafgrad):
        try:
            lib.take_along_dim(lib.zeros(5), lib.tensor([-1, 7]))
        except RuntimeError as error:
            messages.append(str(error))
    assert len(messages) == 2 and messages[0] == messages[1]


def test_masked_fill_out_of_place_broadcasts_to_the_mask():
    """masked_fill (not masked_fill_) expands self and mask to their broadcast shape before the
    fill (torch's expand_outplace); the gradient of self is summed back, the grad_fn stays
    MaskedFillBackward0/1; the in-place form still refuses a mask that would grow self."""
    shapes = [((5,), (3, 5)), ((4, 1), (1, 3)), ((), (2, 2)), ((2, 3), (3,)), ((1,), (0,))]
    for (self_shape, mask_shape), tensor_value in itertools.product(shapes, (False, True)):
        rng = np.random.default_rng(len(self_shape) + 7 * len(mask_shape))
        x = rng.standard_normal(self_shape)
        mask = rng.random(mask_shape) > 0.5
        results = []
        for lib in (torch, leafgrad):
            a = lib.tensor(x, requires_grad=True)
            value = lib.tensor(2.5, dtype=lib.float64, requires_grad=True) if tensor_value else 2.5
            out = a.masked_fill(lib.tensor(mask), value)
            out.backward(lib.ones_like(out) * 3)
            results.append((out, a.grad, value.grad if tensor_value else None,
                            out.grad_fn.name(), out.stride()))
        (o_t, g_t, v_t, n_t, s_t), (o_l, g_l, v_l, n_l, s_l) = results
        assert _same_bits(o_t, o_l) and _same_bits(g_t, g_l) and (n_t, s_t) == (n_l, s_l)
        assert v_t is None or _same_bits(v_t, v_l)
    messages = []
    for lib in (torch, leafgrad):
        try:
            lib.zeros(5).masked_fill_(lib.ones(2, 5, dtype=lib.bool), 1.0)
        except RuntimeError as error:
            messages.append(str(error))
    assert len(messages) == 2 and messages[0] == messages[1]
