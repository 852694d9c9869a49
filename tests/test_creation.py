"""Factories and metadata: dtypes, shapes and values equal torch 2.13's for the same call."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

CALLS = [
    "lib.tensor(3.5)", "lib.tensor(3)", "lib.tensor(True)", "lib.tensor([1, 2.5])",
    "lib.tensor([[1, 2], [3, 4]])", "lib.tensor([])", "lib.tensor([[True, False]])",
    "lib.tensor(np.array([1.5, 2.0]))", "lib.tensor(np.array([1, 2], dtype=np.int32))",
    "lib.tensor([1, 2], dtype=lib.float64)", "lib.tensor(np.float32(2.5))",
    "lib.as_tensor([1, 2, 3])", "lib.as_tensor(np.arange(3.0))",
    "lib.zeros(2, 3)", "lib.zeros((2, 3), dtype=lib.int64)", "lib.ones([4])", "lib.ones(())",
    "lib.full((2, 2), 7)", "lib.full((2,), 1.5)", "lib.full((2,), True)",
    "lib.zeros_like(lib.ones(2, dtype=lib.int32))", "lib.ones_like(lib.zeros(3), dtype=lib.float64)",
    "lib.full_like(lib.zeros(2), 3)", "lib.empty(2, 3).shape",
    "lib.arange(5)", "lib.arange(1, 4)", "lib.arange(0, 1, 0.25)", "lib.arange(5.0)",
    "lib.arange(10, 0, -3)", "lib.arange(0, 0.3, 0.1)",
    "lib.linspace(0, 1, 5)", "lib.linspace(-1, 1, 4)", "lib.linspace(0, 10, 1)",
    "lib.linspace(3, 5, 0)", "lib.eye(3)", "lib.eye(2, 3)", "lib.eye(2, dtype=lib.int64)",
    "lib.Tensor([1, 2])", "lib.Tensor(2, 3).shape",
    "lib.tensor([1., 2.]).shape", "lib.tensor([[1., 2.]]).size(1)", "lib.tensor([[1., 2.]]).size()",
    "lib.tensor([[1., 2.]]).dim()", "lib.tensor(1.).ndim", "lib.ones(2, 3).numel()",
    "lib.ones(2, 3).T.shape", "lib.tensor([1, 2]).tolist()", "lib.tensor([[1.5]]).item()",
    "lib.tensor(2).item()", "len(lib.ones(4, 2))", "lib.tensor([1., 2.]).is_leaf",
    "lib.ones(2).dtype", "lib.ones(2).int().dtype", "lib.ones(2).long().dtype",
    "lib.ones(2).double().dtype", "lib.ones(2).bool().dtype", "lib.ones(2).half().dtype",
    "lib.ones(2).type()", "lib.ones(2).long().type()", "lib.ones(2).to(lib.float64).dtype",
    "lib.ones(2).to('cpu').dtype", "str(lib.ones(2).device)", "lib.ones(2).is_floating_point()",
    "lib.ones(2, 3).stride()", "lib.ones(2, 3).t().is_contiguous()", "lib.get_default_dtype()",
    "lib.promote_types(lib.int64, lib.float16)", "lib.promote_types(lib.uint8, lib.int8)",
    "lib.result_type(lib.tensor([1, 2], dtype=lib.int32), 2.5)",
    "lib.result_type(lib.tensor([1, 2], dtype=lib.int32), 5)",
    "lib.result_type(lib.tensor([True]), 1)",
    "(lib.tensor([1, 2]) / lib.tensor([2, 2])).dtype",
    "(lib.tensor([1, 2], dtype=lib.int32) * 2.5).dtype",
    "(lib.ones(2, dtype=lib.float16) + lib.tensor(1., dtype=lib.float64)).dtype",
    "(lib.ones(2, dtype=lib.int32) + lib.tensor(1., dtype=lib.float64)).dtype",
    "(lib.ones(2, dtype=lib.uint8) + lib.ones(2, dtype=lib.int8)).dtype",
    "(lib.tensor([True, False]) + True).dtype", "(lib.tensor([True]) + 1).dtype",
    "float(lib.tensor([2.5]))", "int(lib.tensor(3.7))", "bool(lib.tensor([0.]))",
    "[float(v) for v in lib.tensor([1., 2.])]", "lib.tensor([1., 2.]).equal(lib.tensor([1., 2.]))",
    "lib.is_tensor(lib.ones(1))", "lib.numel(lib.ones(3, 2))",
]


def _normalise(value):
    if hasattr(value, "numpy") and hasattr(value, "dtype") and not isinstance(value, np.ndarray):
        array = value.detach().numpy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), array.tolist())
    if hasattr(value, "is_floating_point") and hasattr(value, "itemsize"):  # a dtype
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, tuple):
        return tuple(value)
    return value


@pytest.mark.parametrize("call", CALLS)
def test_matches_torch(call):
    ours = eval(call, {"lib": leafgrad, "np": np})
    theirs = eval(call, {"lib": torch, "np": np})
    assert _normalise(ours) == _normalise(theirs)


def test_from_numpy_shares_memory():
    array = np.arange(3.0)
    tensor = leafgrad.from_numpy(array)
    array[0] = 10
    assert tensor.tolist() == [10.0, 1.0, 2.0]
    tensor.add_(1)
    assert array.tolist() == [11.0, 2.0, 3.0]
    assert np.shares_memory(tensor.numpy(), array)


def test_tensor_copies_its_input():
    array = np.arange(3.0)
    tensor = leafgrad.tensor(array)
    array[0] = 10
    assert tensor.tolist() == [0.0, 1.0, 2.0]


def test_default_dtype_switch():
    try:
        leafgrad.set_default_dtype(leafgrad.float64)
        torch.set_default_dtype(torch.float64)
        for call in ["lib.tensor([1.5])", "lib.zeros(2)", "lib.arange(0., 1., 0.5)",
                     "(lib.tensor([1, 2]) * 0.5)", "lib.tensor([1, 2]) / 2"]:
            assert _normalise(eval(call, {"lib": leafgrad})) == _normalise(
                eval(call, {"lib": torch}))
        with pytest.raises(TypeError):
            leafgrad.set_default_dtype(leafgrad.int64)
    finally:
        leafgrad.set_default_dtype(leafgrad.float32)
        torch.set_default_dtype(torch.float32)


def test_tensor_of_values_beyond_a_small_float_dtype_is_inf_silently():
    torch = require_torch()
    import warnings

    data = [1e8, -1e39, 65504.0, 1.0]
    for name in ("float16", "float32"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # NumPy's "overflow encountered in cast" was printed
            mine = leafgrad.tensor(data, dtype=getattr(leafgrad, name))
        theirs = torch.tensor(data, dtype=getattr(torch, name))
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_tensor_from_lists_of_numbers_one_pass():
    """torch.tensor of Python numbers (one or two levels, the one-pass path) and of everything
    next to it that takes the general path: dtypes, values, errors as torch's, under both
    default dtypes."""
    from ._torch import require_torch

    torch = require_torch()
    big = 2 ** 63
    cases = [[1.0, 2.0, 3.0], [1, 2, 3], [True, False], [1, 2.5], [True, 2], [True, 2.5],
             (1, 2), ([1, 2], [3, 4]), [[1.5, 2], [3, 4]], [[True], [False]], [(1, 2), [3, 4]],
             [[1, 2], [3]], [[1, 2], 3], [1, [2]], [big - 1], [big], [-big], [-big - 1],
             [[1, big]], [1e300, 1], [float("nan"), float("inf")], [-0.0], [[]], [[], []],
             [0.1, 0.2], [[0.1], [0.3]], [1, None], [[1, "a"]], [1 + 2j, 1], [np.float64(1.5)],
             [np.int32(3), 1], [[np.float32(1.5)], [2.0]], [[[1, 2]], [[3, 4]]], [(), ()],
             [[1, 2], (3, 4.5)], [True], [False, 0.0]]

    def outcome(lib, data):
        try:
            out = lib.tensor(data)
        except Exception as error:  # noqa: BLE001 - compared by type and first line
            return type(error).__name__, str(error).splitlines()[0]
        return str(out.dtype).split(".")[-1], tuple(out.shape), out.numpy().tobytes()

    for default in (torch.float32, torch.float64):
        torch.set_default_dtype(default)
        leafgrad.set_default_dtype(getattr(leafgrad, str(default).split(".")[-1]))
        try:
            for data in cases:
                assert outcome(leafgrad, data) == outcome(torch, data), data
        finally:
            torch.set_default_dtype(torch.float32)
            leafgrad.set_default_dtype(leafgrad.float32)
