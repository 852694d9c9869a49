"""Sequences and NumPy arrays inside an index, against torch 2.13 (python_variable_indexing.cpp).

torch reads any sequence item of an index (list, tuple, range, deque, array.array, memoryview)
as an index tensor (bool stays a mask, everything else becomes int64, floats truncated), and a
short non-tuple sequence holding a tensor, a sequence, a slice, ``...`` or None as a tuple of
indices, with a deprecation warning. "What is torch.nn really?" indexes with
``input[range(n), target]``. Expected values and errors are torch's, computed in the test.
"""

from __future__ import annotations

import array
import collections
import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _index_cases(lib):
    x = lib.arange(24.).reshape(4, 6)
    return x, {
        "range": range(2), "range in tuple": (range(3), [0, 1, 2]),
        "two ranges": (range(2), range(2)), "tuple in tuple": ((0, 1),),
        "tuple pair": ((0, 1), (2, 3)), "range with step": (slice(None), range(0, 6, 2)),
        "empty range": range(0), "negative range": range(-2, 0),
        "deque": collections.deque([0, 1]), "array.array": array.array("l", [0, 2]),
        "memoryview": memoryview(np.array([0, 1])),
        "list of lists": [[0, 1], [1, 2]], "list of three lists": [[0, 1], [1, 2], [0, 0]],
        "list of ranges": [range(2), range(2)], "list with None": [None, 1],
        "list with ellipsis": [Ellipsis, 1], "list with slice": [slice(None), 1],
        "list of 40 ints": [0] * 40, "long list with slice": [0] * 31 + [slice(None)],
        "list of 0-d tensors": [lib.tensor(0), lib.tensor(2)],
        "list of 0-d tensors in tuple": ([lib.tensor(0), lib.tensor(2)], 1),
        "tuple of bools": ((True, False, True, False),), "list of bools": [True, False, True, False],
        "nested tuples in list": [(0, 1), (1, 2)], "floats": [0.5, 1.7],
        "floats in tuple": ([1.9], 0), "float array": np.array([0., 1.5]),
        "int32 array": np.array([0, 1], np.int32), "0-d float array": np.array(1.5),
        "float array in tuple": (np.array([0., 1.]), 0), "2-d array": np.array([[0, 1], [1, 2]]),
        "mixed bool and int": [True, 0], "str": "a", "str in tuple": (0, "a"),
        "dict": {0: 1}, "set": {0, 1}, "out of range": (range(5),),
        "range and array": (range(2), np.array([1, 2])),
    }


CASES = sorted(_index_cases(leafgrad)[1])


def _outcome(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
            result = ("ok", value.detach().numpy().copy() if value is not None else None)
        except Exception as error:  # the type and first line are compared
            result = ("error", type(error).__name__, str(error).splitlines()[0])
    warned = any("non-tuple sequence" in str(w.message) for w in caught)
    return result, warned


def _same(ours, theirs):
    (ours, our_warning), (theirs, their_warning) = ours, theirs
    assert our_warning == their_warning
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        np.testing.assert_array_equal(ours[1], theirs[1])
        assert ours[1].dtype == theirs[1].dtype and ours[1].shape == theirs[1].shape
    else:
        assert ours[1:] == theirs[1:]


@pytest.mark.parametrize("case", CASES)
def test_getitem(case):
    outcomes = []
    for lib in (leafgrad, torch):
        x, cases = _index_cases(lib)
        outcomes.append(_outcome(lambda: x[cases[case]]))
    _same(*outcomes)


@pytest.mark.parametrize("case", CASES)
def test_setitem(case):
    outcomes = []
    for lib in (leafgrad, torch):
        x, cases = _index_cases(lib)

        def write():
            x[cases[case]] = -1.0
            return x

        outcomes.append(_outcome(write))
    _same(*outcomes)


def test_gradient_through_a_range_index():
    """The negative log-likelihood of "What is torch.nn really?"."""
    grads = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        logits = lib.tensor(np.linspace(-2, 2, 15).reshape(5, 3).astype(np.float32),
                            requires_grad=True)
        target = lib.tensor([0, 2, 1, 1, 0])
        loss = -logits.log_softmax(-1)[range(target.shape[0]), target].mean()
        loss.backward()
        grads.append((loss.item(), logits.grad.numpy().copy(), type(loss.grad_fn).__name__))
    assert grads[0][0] == grads[1][0] and grads[0][2] == grads[1][2]
    # (log_softmax's backward is not bit-exact: docs/float32-bits.md)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("data", [collections.deque([0, 1]), array.array("l", [1, 2]),
                                  array.array("d", [1, 2]), memoryview(b"ab"), bytearray(b"ab"),
                                  collections.deque([0.5, True])],
                         ids=["deque", "array-l", "array-d", "memoryview", "bytearray",
                              "deque-mixed"])
def test_tensor_from_other_sequences(data):
    ours, theirs = leafgrad.tensor(data), torch.tensor(data)
    assert str(ours.dtype).replace("leafgrad", "torch") == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
