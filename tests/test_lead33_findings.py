"""Defects left by the Scalar-argument sweep (tests/scalars_sweep.py) and fixed in stop 33,
each swept against torch."""

from __future__ import annotations

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - compared by type and first line
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad.", "torch.")
    return str(result.dtype).split(".")[-1], repr(result.tolist())  # (repr: NaNs compare)


def test_keepdim_without_dim_is_torchs_parser_error():
    """sum/mean/prod: torch's overload without ``dim`` takes no ``keepdim``, so
    ``x.sum(keepdim=True)`` (or False) is its TypeError while ``x.sum(None, True)`` reduces
    everything (leafgrad returned the keepdim result); with ``dtype`` too the message says
    ``dim`` is missing, except torch.mean's, which lists its overloads."""
    forms = {
        "method": lambda L, name, *a, **k: getattr(L.tensor([[1., 2.], [3., 4.]]), name)(*a, **k),
        "function": lambda L, name, *a, **k: getattr(L, name)(L.tensor([[1., 2.], [3., 4.]]),
                                                              *a, **k),
    }
    calls = [((), {"keepdim": True}), ((), {"keepdim": False}), ((None, True), {}),
             ((), {"dim": None, "keepdim": True}), ((), {}), ((0,), {}), ((1, True), {}),
             ((), {"keepdim": True, "dtype": "float64"}), ((0,), {"keepdim": True}),
             ((), {"dtype": "float64"}), ((1,), {"keepdim": 1}), ((None,), {})]
    checked = 0
    for name in ("sum", "mean", "prod"):
        for form, call in forms.items():
            for args, kwargs in calls:
                def run(L, args=args, kwargs=kwargs, call=call, name=name):
                    given = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
                    return call(L, name, *args, **given)

                got, want = _outcome(lambda: run(leafgrad)), _outcome(lambda: run(torch))
                assert got == want, (name, form, args, kwargs, got, want)
                checked += 1
    assert checked == 72


def test_float_alpha_into_integer_index_add_is_checked():
    """index_add's alpha on an integer tensor is converted to the kernel's integer type by
    c10's checked conversion: NaN, inf and values outside the type's range are torch's
    overflow error (leafgrad multiplied by the wrapped cast), inside it truncated; a failed
    call leaves the tensor and its version as they were."""
    dtypes = ["int64", "int32", "int16", "int8", "uint8"]
    alphas = [float("inf"), float("-inf"), float("nan"), 1e30, 2.7, -2.7, -0.5, 300.0, 2.0,
              3e9, -3e9, 70000.0]
    checked = 0
    for dtype in dtypes:
        for alpha in alphas:
            for inplace in (False, True):
                def run(L, dtype=dtype, alpha=alpha, inplace=inplace):
                    target = L.zeros(3, dtype=getattr(L, dtype))
                    source = L.full((2,), 3, dtype=getattr(L, dtype))
                    method = target.index_add_ if inplace else target.index_add
                    return method(0, L.tensor([0, 2]), source, alpha=alpha)

                got, want = _outcome(lambda: run(leafgrad)), _outcome(lambda: run(torch))
                assert got == want, (dtype, alpha, inplace, got, want)
                if inplace and got[0] == "RuntimeError":
                    target = leafgrad.zeros(3, dtype=getattr(leafgrad, dtype))
                    source = leafgrad.full((2,), 3, dtype=getattr(leafgrad, dtype))
                    try:
                        target.index_add_(0, leafgrad.tensor([0, 2]), source, alpha=alpha)
                    except RuntimeError:
                        pass
                    assert target._version == 0 and target.tolist() == [0, 0, 0]
                checked += 1
    assert checked == len(dtypes) * len(alphas) * 2


def test_threshold_numbers_as_the_integer_kernel_converts_them():
    """F.threshold on integer tensors converts threshold and value to the kernel's type:
    out-of-range numbers (floats, NaN and inf, ints past a narrow type) are torch's overflow
    error, uint8 takes -1 as 255 (everything then at or below the threshold), floats in
    range truncate (leafgrad compared with -1, ignored the range and cast inf)."""
    numbers = [-1, 7, 300, -200, 2.7, -0.5, float("inf"), float("nan"), 1e30, 0, 1]
    checked = 0
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        for threshold in numbers:
            for value in (0, -1, 9.9, 300, float("inf")):
                def run(L, dtype=dtype, threshold=threshold, value=value):
                    x = L.arange(-2, 5).to(getattr(L, dtype)) if dtype != "uint8" else \
                        L.arange(5).to(L.uint8)
                    return L.nn.functional.threshold(x, threshold, value)

                got, want = _outcome(lambda: run(leafgrad)), _outcome(lambda: run(torch))
                assert got == want, (dtype, threshold, value, got, want)
                checked += 1
    assert checked == 5 * len(numbers) * 5


def test_arange_bounds_are_numbers():
    """arange's start/end/step are Numbers: an array, a list, None, a string, a tensor of one
    element or requiring grad are torch's parser errors (leafgrad read arrays and tensors by
    value, and arange(0, None) made an empty tensor); arange(end=n) works as in torch."""
    bad = [lambda L: np.array(3), lambda L: L.tensor([3]), lambda L: None, lambda L: "3",
           lambda L: [3], lambda L: L.tensor(3., requires_grad=True)]
    good = [lambda L: 3, lambda L: 2.5, lambda L: np.int64(3), lambda L: np.float32(2.5),
            lambda L: L.tensor(3), lambda L: True]
    forms = [lambda L, v: L.arange(v), lambda L, v: L.arange(0, v), lambda L, v: L.arange(v, 4),
             lambda L, v: L.arange(0, 4, v), lambda L, v: L.arange(end=v),
             lambda L, v: L.arange(0, end=v), lambda L, v: L.arange(0, 4, step=v),
             lambda L, v: L.arange(start=v, end=5)]
    checked = 0
    for make in bad + good:
        for form in forms:
            got = _outcome(lambda: form(leafgrad, make(leafgrad)))
            want = _outcome(lambda: form(torch, make(torch)))
            assert got == want, (got, want)
            checked += 1
    assert _outcome(lambda: leafgrad.arange()) == _outcome(lambda: torch.arange())
    assert checked == 96


def test_float_arange_with_integral_bounds_as_torch():
    """float arange with integral start and step takes the exact shortcut only where every
    value is an integer the dtype holds (float32: up to 2**24), and gives torch's bits on both
    sides of that limit (torch's vector lanes add k * step to the cast base of each vector)."""
    checked = 0
    for start in (0, 5, -3, 2 ** 24 - 40, 2 ** 30, -(2 ** 40)):
        for step in (1, 2, -1, 3, 1000, 7):
            for count in (0, 1, 7, 16, 17, 33, 100):
                end = start + step * count
                for dtype in ("float32", "float64"):
                    got = leafgrad.arange(float(start), float(end), float(step),
                                          dtype=getattr(leafgrad, dtype)).numpy()
                    want = torch.arange(float(start), float(end), float(step),
                                        dtype=getattr(torch, dtype)).numpy()
                    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (
                        start, step, count, dtype)
                    checked += 1
    for args in ((5.,), (0., 10.), (0., 1., 0.1), (-2.5, 3.5, 0.5)):
        assert leafgrad.arange(*args).numpy().tobytes() == torch.arange(*args).numpy().tobytes()
    assert checked == 6 * 6 * 7 * 2
