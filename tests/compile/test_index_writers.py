"""Index writers and readers under leafgrad.compile, with the index an input that changes.

index_add_/index_copy_/index_fill_/put_/index_reduce_ (and their out-of-place forms) check the
index's values and hand the op a flat (wrapped) index computed from them; scatter/gather check
the bounds. Those are kernels of the index's array, so a replay recomputes them from each
call's index, and a bad index raises eager's error (type and message) instead of NumPy's, or
a negative index silently wrapping around. Compiled == eager, over calls with changing indices
and values, for every index writer; eager == torch (values, gradients, errors).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

PROGRAMS = {
    "index_add_": lambda T, x, s, i: x.clone().index_add_(0, i, s) * 2,
    "index_add_-alpha": lambda T, x, s, i: x.clone().index_add_(0, i, s, alpha=-3),
    "index_add": lambda T, x, s, i: T.index_add(x, 0, i, s).exp(),
    "index_copy_": lambda T, x, s, i: x.clone().index_copy_(0, i, s) * 2,
    "index_copy": lambda T, x, s, i: T.index_copy(x, 0, i, s) * 2,
    "index_fill_": lambda T, x, s, i: x.clone().index_fill_(0, i, 3.0) * s.sum(),
    "index_fill_-tensor": lambda T, x, s, i: x.clone().index_fill_(0, i, s[1]) * s.sum(),
    "index_fill": lambda T, x, s, i: x.index_fill(0, i, -1.0) * s[0],
    "put_": lambda T, x, s, i: x.clone().put_(i, s) * 2,
    "put_-accumulate": lambda T, x, s, i: x.clone().put_(i, s, accumulate=True) * 2,
    "put": lambda T, x, s, i: x.put(i, s) * 2,
    "index_reduce_": lambda T, x, s, i: x.clone().index_reduce_(0, i, s, "prod") * 2,
    "index_reduce_-amax": lambda T, x, s, i: x.clone().index_reduce_(
        0, i, s, "amax", include_self=False) * 2,
    "index_put_": lambda T, x, s, i: x.clone().index_put_((i,), s) * 2,
    "index_put_-accumulate": lambda T, x, s, i: x.clone().index_put_((i,), s, True) * 2,
    "scatter_": lambda T, x, s, i: x.clone().scatter_(0, i, s) * 2,
    "scatter_add_": lambda T, x, s, i: x.clone().scatter_add_(0, i, s) * 2,
    "scatter_reduce_": lambda T, x, s, i: x.clone().scatter_reduce_(0, i, s, "amax") * 2,
    "scatter": lambda T, x, s, i: T.scatter(x, 0, i, s) * 2,
    "scatter_add": lambda T, x, s, i: T.scatter_add(x, 0, i, s) * 2,
    "gather": lambda T, x, s, i: T.gather(x, 0, i) * s,
    "index_select": lambda T, x, s, i: T.index_select(x, 0, i) * s,
    "take": lambda T, x, s, i: T.take(x, i) * s,
    "setitem": lambda T, x, s, i: _setitem(x.clone(), i, s) * 2,
}

# scatter/gather's index must be in range for every element (no wrap-around); the others take
# negative indices (index_fill_, put_, index_put_, take) or refuse them
GOOD = ([0, 2], [4, 1], [3, 3], [1, 0])
BAD = ([0, 7], [-9, 1], [-1, 2], [5, 0])


def _setitem(x, i, s):
    x[i] = s
    return x


def _call(fn, T, x, s, i):
    try:
        return fn(T, x, s, i)
    except Exception as error:  # noqa: BLE001 - compared with the other side's
        return type(error).__name__, str(error).splitlines()[0]


def _same(got, want, what):
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert got == want, what
    else:
        assert got.dtype == want.dtype, what
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy(), err_msg=what)


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_changing_index(name):
    """Good indices replay from one capture; bad ones raise eager's error on a replay."""
    body = PROGRAMS[name]
    compiled = leafgrad.compile(lambda x, s, i: body(leafgrad, x, s, i))
    torch = require_torch()
    rng = np.random.default_rng(0)
    for call, index in enumerate(GOOD + BAD + GOOD[:1]):
        x = rng.standard_normal(5)
        s = rng.standard_normal(2)
        args = (leafgrad.tensor(x), leafgrad.tensor(s), leafgrad.tensor(index))
        want = _call(body, leafgrad, *args)
        got = _call(lambda T, *a: compiled(*a), leafgrad, *args)
        _same(got, want, f"call {call} {index}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _call(body, torch, torch.tensor(x), torch.tensor(s), torch.tensor(index))
        if isinstance(ref, tuple) or isinstance(want, tuple):
            # both raise (eager index_select's message for dim 0 is not torch's: outside
            # leafgrad.compile; compiled == eager is checked above, message and all)
            assert isinstance(ref, tuple) and isinstance(want, tuple), (call, ref, want)
        else:
            np.testing.assert_allclose(want.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
    assert [b for entry in compiled.captures for b in entry.breaks] == []
    assert len(compiled.captures) == 1


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_changing_index_grads(name):
    """A training-like step through the index writer: gradients of x and s, replayed."""
    body = PROGRAMS[name]

    def step(x, s, i):
        out = body(leafgrad, x, s, i).sum()
        out.backward()
        return out

    compiled = leafgrad.compile(step)
    rng = np.random.default_rng(1)
    for call, index in enumerate(GOOD):
        x0, s0 = rng.standard_normal(5), rng.standard_normal(2)
        grads = []
        for fn in (step, compiled):
            x = leafgrad.tensor(x0, requires_grad=True)
            s = leafgrad.tensor(s0, requires_grad=True)
            out = fn(x, s, leafgrad.tensor(index))
            grads.append((out.detach(), x.grad, s.grad))
        for want, got in zip(*grads):
            if want is None:
                assert got is None, (call, index)
            else:
                _same(got, want, f"call {call} {index}")
    assert len(compiled.captures) == 1 and compiled.replays == len(GOOD) - 1
