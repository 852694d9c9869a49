"""Tensor reprs equal torch 2.13's character for character (with ``torch.`` read as ``leafgrad.``).

Every expected string is ``repr()`` of a real torch tensor holding the same values.
"""

from __future__ import annotations

import numpy as np
import pytest

from leafgrad import _dtype
from leafgrad._printing import (
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_repr,
    tensor_str,
)

from ._torch import require_torch

torch = require_torch()

LEAFGRAD_DTYPE = {d.np: d for d in _dtype.ALL}
FLOATS = (np.float16, np.float32, np.float64)
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8)


@pytest.fixture(autouse=True)
def _reset_options():
    """Every test starts and ends with default print options and float32 as default dtype."""
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    _dtype.set_default_dtype(_dtype.float32)
    torch.set_default_dtype(torch.float32)


def torch_tensor(arr: np.ndarray):
    # from_numpy refuses negative strides; the copy changes no value, so not the repr either.
    return torch.from_numpy(np.array(arr, copy=True))


def expected(torch_value) -> str:
    return repr(torch_value).replace("torch.", "leafgrad.")


def ours(arr: np.ndarray, extras=(), prefix: str = "tensor(") -> str:
    return tensor_repr(arr, LEAFGRAD_DTYPE[arr.dtype], list(extras), prefix)


def check(arr, extras=()):
    arr = np.asarray(arr)
    assert ours(arr, extras) == expected(torch_tensor(arr)), f"{arr.dtype} {arr.shape}"


def random_arrays(dtype, shape, seed: int = 0):
    """Arrays of ``shape`` spanning magnitudes, signs and integer-valued floats."""
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        return [rng.random(shape) > 0.5, np.ones(shape, bool)]
    if dtype in INTS:
        info = np.iinfo(dtype)
        small = rng.integers(max(info.min, -100), 100, shape, dtype=dtype, endpoint=True)
        wide = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        return [small, wide]
    arrays = []
    with np.errstate(over="ignore"):  # float16 turns the largest scales into inf, also a case
        for scale in (1e-7, 1e-4, 1e-2, 1.0, 7.0, 1e3, 1e5, 1e9, 1e30):
            arrays.append((rng.standard_normal(shape) * scale).astype(dtype))
            arrays.append(np.round(rng.standard_normal(shape) * scale).astype(dtype))
            arrays.append((rng.uniform(0, 1, shape) * scale).astype(dtype))
    return arrays


SHAPES = [(), (1,), (2,), (6,), (7,), (3, 4), (2, 3, 4), (2, 2, 2, 3), (1, 1, 5), (4, 1)]


@pytest.mark.parametrize("dtype", FLOATS + INTS + (np.bool_,), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_random_values_match_torch(dtype, shape):
    for arr in random_arrays(dtype, shape):
        check(arr)


SPECIAL = [
    [1.5, np.nan, np.inf],
    [np.nan],
    [np.inf, -np.inf],
    [1.0, np.inf],
    [2.0, np.nan, -np.inf],
    [0.0, -0.0],
    [-0.0, 1.0],
    [-0.0, 1.5],
    [-0.0, 1e-5],
    [0.0, 0.0, 0.0],
    [1e-5, 1.0],
    [1.0, 1000.0],
    [1.0, 1001.0],
    [0.5, 500.0],
    [0.5, 501.0],
    [1e-4, 0.5],
    [9.9e-5, 0.5],
    [1e8, 2.0e7],
    [1.00000001e8, 2.0e7],
    [1e15, -3.0],
    [1e20],
    [123456789.0],
    [65504.0, -65504.0],
    [6e-8, 1.0],
    [1e-300, 1.0],
    [1e300, 1.0],
    [-1.0, -2.0, -3.0],
    [0.1, 0.2, 0.3],
    [0.99995, 0.00005],
    [9.99995, 1.0],
    [np.nan, 0.0, -0.0, 7.0],
]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("values", SPECIAL, ids=str)
def test_special_float_values(dtype, values):
    with np.errstate(over="ignore", under="ignore"):
        arr = np.array(values, dtype=dtype)
    check(arr)
    check(arr[0])  # 0-d
    check(arr.reshape(-1, 1))


@pytest.mark.parametrize(
    "values",
    [
        [np.iinfo(np.int64).min, np.iinfo(np.int64).max],
        [-1, 0, 1],
        [0],
        [-7],
    ],
    ids=str,
)
def test_integer_extremes(values):
    check(np.array(values, np.int64))
    check(np.array(values[-1], np.int64))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 1), (0, 0), (1, 0, 2, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS + INTS + (np.bool_,), ids=lambda d: np.dtype(d).name)
def test_empty(shape, dtype):
    arr = np.zeros(shape, dtype)
    check(arr)
    if arr.dtype.kind == "f":
        leaf = torch_tensor(arr).requires_grad_()
        assert ours(arr, ["requires_grad=True"]) == expected(leaf)


@pytest.mark.parametrize(
    "shape",
    [(999,), (1000,), (1001,), (10, 100), (10, 101), (1001, 1), (11, 10, 10), (4, 4, 4, 4, 4),
     (2, 3, 500), (7, 7, 7, 7)],
    ids=str,
)
@pytest.mark.parametrize("dtype", (np.float32, np.float64, np.int64, np.bool_), ids=str)
def test_summarisation_threshold(shape, dtype):
    for arr in random_arrays(dtype, shape, seed=1)[:6]:
        check(arr)


def test_summary_uses_only_shown_values_for_format():
    # The hidden middle has huge values; torch picks the format from the shown edges only.
    arr = np.ones(1001, np.float32)
    arr[500] = 1e20
    check(arr)
    arr2 = np.full((20, 60), 2.0)
    arr2[10, 30] = 0.5
    check(arr2)


@pytest.mark.parametrize("n", [8, 9, 10, 11, 12, 13, 20, 30, 60])
def test_wide_rows_wrap_at_linewidth(n):
    rng = np.random.default_rng(n)
    check((rng.standard_normal(n) * 100).astype(np.float32))
    check((rng.standard_normal((3, n)) * 1e-6).astype(np.float64))
    check(rng.integers(-10**6, 10**6, (2, 2, n)))
    check(rng.integers(0, 9, n))
    check(rng.random(n) > 0.5)


def test_strided_views():
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 7
    for view in (base[:, ::2, 1:], base.transpose(2, 0, 1), base[::-1], base[..., 0],
                 np.broadcast_to(base[0, 0], (3, 5)), base[1, 2, 3]):
        check(view)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    "shape", [(), (3,), (2, 3), (12,), (11,), (2, 2, 2), (0,), (0, 2)], ids=str
)
def test_requires_grad_and_grad_fn_suffixes(dtype, shape):
    rng = np.random.default_rng(7)
    for arr in (
        (rng.standard_normal(shape) * 3).astype(dtype),
        np.round(rng.standard_normal(shape) * 1e4).astype(dtype),
        (rng.standard_normal(shape) * 1e-5).astype(dtype),
    ):
        leaf = torch.tensor(arr, requires_grad=True)
        assert ours(arr, ["requires_grad=True"]) == expected(leaf)
        assert ours(arr, ["grad_fn=<MulBackward0>"]) == expected(leaf * 1)


@pytest.mark.parametrize("n", range(1, 14))
def test_suffixes_move_to_a_new_line_when_too_long(n):
    # Around these lengths "dtype=..." and "grad_fn=<...>" cross the 80 columns one at a time.
    arr = np.linspace(-1, 1, n).astype(np.float64) * 10
    leaf = torch.tensor(arr, requires_grad=True)
    assert ours(arr, ["grad_fn=<MulBackward0>"]) == expected(leaf * 1)
    assert ours(arr, ["requires_grad=True"]) == expected(leaf)
    arr16 = arr.astype(np.float16).reshape(1, -1)
    leaf16 = torch.tensor(arr16, requires_grad=True)
    assert ours(arr16, ["grad_fn=<DivBackward0>"]) == expected(leaf16 / 1)


def test_prefix_of_a_tensor_subclass():
    class MyTensor(torch.Tensor):
        pass

    arr = np.arange(30, dtype=np.float64).reshape(3, 10) / 3
    sub = torch.Tensor._make_subclass(MyTensor, torch_tensor(arr))
    assert ours(arr, prefix="MyTensor(") == expected(sub)


OPTIONS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"precision": 1, "sci_mode": True},
    {"threshold": 5},
    {"threshold": 0},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"linewidth": 40},
    {"linewidth": 200},
    {"linewidth": 1},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "full", "precision": 6},
    {"profile": "short", "linewidth": 120, "sci_mode": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_print_options(options):
    set_printoptions(**options)
    torch.set_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    rng = np.random.default_rng(3)
    arrays = [
        np.zeros((2, 0)),
        np.array([0.0, np.nan, -0.0]),
        np.array(np.pi),
        np.array(0.0),
        np.array([1.0, 2.0, 300.0]),
        np.array([1e-6, 1.0]),
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(-5, 5),
        np.arange(10) % 3 == 0,
    ]
    for shape in [(20,), (1200,), (4, 9), (3, 4, 5), (30, 40)]:
        arrays += random_arrays(np.float32, shape, seed=4)[::4]
        arrays.append(rng.integers(-1000, 1000, shape))
    for arr in arrays:
        check(arr)
        if arr.dtype.kind == "f":
            leaf = torch.tensor(arr, requires_grad=True)
            assert ours(arr, ["grad_fn=<MulBackward0>"]) == expected(leaf * 1)


def test_set_printoptions_resets_sci_mode_and_profile_overrides():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)  # like torch, sci_mode goes back to automatic
    torch.set_printoptions(sci_mode=True)
    torch.set_printoptions(precision=3)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    set_printoptions(profile="full", edgeitems=5)
    torch.set_printoptions(profile="full", edgeitems=5)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    assert get_printoptions() == torch._tensor_str.get_printoptions()


def test_printoptions_context_restores():
    before = get_printoptions()
    with printoptions(precision=1, threshold=3):
        arr = np.arange(10) / 3
        with torch._tensor_str.printoptions(precision=1, threshold=3):
            assert ours(arr) == expected(torch_tensor(arr))
    assert get_printoptions() == before


def test_default_dtype_float64_changes_which_dtype_is_shown():
    _dtype.set_default_dtype(_dtype.float64)
    torch.set_default_dtype(torch.float64)
    for dtype in FLOATS + (np.int64, np.int32, np.bool_):
        check(np.ones(3, dtype))
        check(np.zeros((0,), dtype))
        check(np.zeros((2, 0), dtype))
        check(np.array(2.5).astype(dtype))


def test_str_equals_repr():
    arr = np.array([[1.0, 2.5], [3.0, -4.0]], np.float64)
    assert tensor_str(arr, _dtype.float64) == str(torch_tensor(arr)).replace("torch.", "leafgrad.")
    assert tensor_str(arr, _dtype.float64, ["requires_grad=True"]) == ours(
        arr, ["requires_grad=True"]
    )


def test_documented_examples():
    # The strings of the module's interface description; torch produces each of them too.
    cases = [
        (np.array([2.0, 4.0], np.float32), "tensor([2., 4.])"),
        (np.array(7.0, np.float32), "tensor(7.)"),
        (np.array([1e-5, 1.0], np.float32), "tensor([1.0000e-05, 1.0000e+00])"),
        (np.zeros((0, 3), np.float32), "tensor([], size=(0, 3))"),
        (np.array([True, False]), "tensor([ True, False])"),
        (np.array(3, np.int32), "tensor(3, dtype=leafgrad.int32)"),
        (np.array([1.5, np.nan, np.inf], np.float32), "tensor([1.5000,    nan,    inf])"),
    ]
    for arr, text in cases:
        assert ours(arr) == text == expected(torch_tensor(arr))
