"""Strides of empty tensors and views (Note: strides of empty tensors, tensor.py), against torch:
a view takes its strides from its base whatever its size; a new empty tensor is contiguous with
size-0 dims counted as 1; clone and roll keep an empty tensor's strides."""

from __future__ import annotations

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _x(T):
    return T.arange(6.0).reshape(2, 3)


def _e(T):
    return T.zeros(2, 0, 3)


CASES = {
    "slice_cols": lambda T: _x(T)[:, 3:],
    "slice_rows": lambda T: _x(T)[2:],
    "slice_step": lambda T: _x(T)[:, 3::2],
    "slice_one_step": lambda T: _x(T)[:, 1:2:3],
    "slice_then_t": lambda T: _x(T)[:, 3:].t(),
    "t_then_slice": lambda T: _x(T).t()[3:],
    "narrow": lambda T: _x(T).narrow(1, 3, 0),
    "slice_mid": lambda T: T.zeros(4, 5, 6)[:, 2:2, 1:],
    "slice_steps": lambda T: T.zeros(4, 5, 6)[::2, 5:, ::3],
    "slice_reshape": lambda T: _x(T)[:, 3:].reshape(2, 0),
    "slice_view": lambda T: _x(T)[:, 3:].view(0, 2),
    "new": lambda T: T.zeros(2, 0, 3),
    "new_int": lambda T: T.zeros(0, 4, dtype=T.int64),
    "new_empty": lambda T: T.empty(3, 0),
    "new_ones": lambda T: T.ones(0, 2, 2),
    "new_tensor": lambda T: T.tensor([[], []]),
    "transpose": lambda T: _e(T).transpose(0, 2),
    "permute": lambda T: _e(T).permute(2, 0, 1),
    "movedim": lambda T: _e(T).movedim(0, 2),
    "mT": lambda T: _e(T).mT,
    "T": lambda T: T.zeros(0, 2).T,
    "swapaxes": lambda T: T.zeros(3, 0, 2).swapaxes(0, 1),
    "view": lambda T: _e(T).view(0, 2),
    "reshape": lambda T: _e(T).reshape(3, 0),
    "flatten": lambda T: _e(T).flatten(1),
    "unflatten": lambda T: T.zeros(0, 6).unflatten(1, (2, 3)),
    "unsqueeze_before_empty": lambda T: _e(T).unsqueeze(1),
    "unsqueeze_first": lambda T: _e(T).unsqueeze(0),
    "unsqueeze_last": lambda T: _e(T).unsqueeze(3),
    "squeeze": lambda T: T.zeros(1, 0).squeeze(0),
    "expand": lambda T: T.zeros(1, 0).expand(3, 0),
    "expand_0d": lambda T: T.tensor(1.0).expand(0, 2),
    "select": lambda T: _e(T)[1],
    "select_last": lambda T: _e(T)[:, :, 1],
    "diagonal": lambda T: T.zeros(0, 3).diagonal(),
    "unfold": lambda T: T.zeros(0, 4).unfold(1, 2, 1),
    "split": lambda T: _e(T).split(1, 2)[1],
    "chunk": lambda T: T.zeros(2, 0).chunk(2, 0)[1],
    "unbind": lambda T: _e(T).unbind(2)[0],
    "as_strided": lambda T: _x(T).as_strided((0, 2), (1, 2)),
    "alias": lambda T: _e(T)[...],
    "detach_of_view": lambda T: _e(T).transpose(0, 2).detach(),
    "view_dtype": lambda T: _e(T).view(T.int32),
    "real": lambda T: T.zeros(0, 2, dtype=T.complex64).real,
    "view_as_real": lambda T: T.view_as_real(T.zeros(3, 0, dtype=T.complex64)),
    "view_as_complex": lambda T: T.view_as_complex(T.zeros(3, 0, 2)),
    "index_empty": lambda T: _x(T)[T.tensor([], dtype=T.long)],
    "mask_none": lambda T: _x(T)[_x(T) > 10],
    "clone_of_transposed": lambda T: _e(T).transpose(0, 2).clone(),
    "contiguous_of_transposed": lambda T: _e(T).transpose(0, 2).contiguous(),
    "sum": lambda T: _e(T).sum(1),
    "cat": lambda T: T.cat([_e(T), _e(T)], 2),
    "stack": lambda T: T.stack([_e(T), _e(T)], 1),
    "flip": lambda T: _e(T).flip(0),
    "tril": lambda T: T.zeros(0, 3).tril(),
    "repeat": lambda T: _e(T).repeat(1, 1, 2),
    "tile": lambda T: _e(T).transpose(0, 1).tile(1),
    "roll": lambda T: T.roll(_e(T), 1, 0),
    "roll_flat": lambda T: T.roll(_e(T), 1),
    "roll_rows": lambda T: T.roll(T.zeros(0, 3), 1, 1),
    "roll_transposed": lambda T: T.roll(_e(T).transpose(0, 2), (1, 1), (0, 2)),
    "matmul": lambda T: T.zeros(2, 0) @ T.zeros(0, 3),
    "matmul_empty": lambda T: T.zeros(0, 2) @ T.zeros(2, 3),
    "broadcast_0d": lambda T: T.broadcast_tensors(T.tensor(1.0), T.ones(0, 2))[0],
}


@pytest.mark.parametrize("case", list(CASES))
def test_empty_strides_match_torch(case):
    want = CASES[case](torch)
    got = CASES[case](leafgrad)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()
    for dim in range(-want.dim(), want.dim()):
        assert got.stride(dim) == want.stride(dim)


@pytest.mark.parametrize("case", ["slice_cols", "transpose", "select_last", "unsqueeze_before_empty",
                                  "new"])
def test_empty_views_stay_usable(case):
    """The strides given to empty arrays change nothing else: in-place ops, copies, grads."""
    for T in (torch, leafgrad):
        t = CASES[case](T)
        assert t.clone().numel() == 0 and t.add(1).shape == t.shape
        leaf = T.zeros(tuple(t.shape), requires_grad=True)
        (leaf * 2).transpose(0, -1).sum().backward()
        assert tuple(leaf.grad.shape) == tuple(t.shape)
        t.add_(1)
