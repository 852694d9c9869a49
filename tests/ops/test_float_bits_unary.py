"""float32 exp, log, tanh, sin, cos, sigmoid, pow and arange against torch (issue 11, 13).

sigmoid, pow and arange replay torch's kernels exactly (ops/_float_kernels.py,
ops/_sleef_powf.py, _creation.py's _arange_float): every result must be torch's (sigmoid:
but for glibc's expf on its scalar path). exp, log, tanh, sin and cos run MKL's closed code in
torch; leafgrad rounds the float64 result once, which agrees on at least 99% of a grid (the
shares measured by docs/gen_float_bits.py), so those tests ask for a share, and check that
every call form (in place, out=, strided, 0-d, empty) gives the same values as the plain call.
Expected values are always torch's results on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _float_kernels, _isa
from tests._torch import require_torch

torch = require_torch()


@pytest.fixture(autouse=True)
def _one_thread():
    """One torch thread, and leafgrad's exact SLEEF replays on (sigmoid, silu, pow: by
    default a cheaper form, ops/_float_kernels.py); test_default_mode_shares checks the default."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    leafgrad.backends.cpu.torch_bits = True
    yield
    leafgrad.backends.cpu.torch_bits = False
    torch.set_num_threads(previous)


@pytest.mark.parametrize("name,make", [
    ("sigmoid", lambda lib, x: lib.sigmoid(x)),
    ("silu", lambda lib, x: lib.nn.functional.silu(x)),
    ("x ** 4", lambda lib, x: x ** 4), ("x ** -3", lambda lib, x: x ** -3),
    ("x ** 1.5", lambda lib, x: x.abs() ** 1.5), ("x ** x", lambda lib, x: x.abs() ** (x / 7)),
])
def test_default_mode_shares(name, make):
    """Without the switch: SLEEF's kernels computed with fewer NumPy passes (ops/_float_kernels.py),
    at least 99.9% of torch's bits (issue 11 asks for 99%); with it, every bit."""
    leafgrad.backends.cpu.torch_bits = False
    grid = np.linspace(-20, 20, 100_000, dtype=np.float32)
    # tensors up to the replay limit (Note: the replay limit, ops/_float_kernels.py)
    pieces = np.array_split(grid, -(-grid.size // _float_kernels.REPLAY_LIMIT))
    ours = np.concatenate([make(leafgrad, leafgrad.tensor(p)).numpy() for p in pieces])
    theirs = make(torch, torch.from_numpy(grid)).numpy()
    same = np.mean((ours == theirs) | (np.isnan(ours) & np.isnan(theirs)))
    assert same >= 0.999, f"{name}: {same:.3%}"
    # past it NumPy's own exp: within 4 ulps of torch (95-96% of the bits for sigmoid, silu)
    whole = make(leafgrad, leafgrad.tensor(grid)).numpy()
    same = np.mean((whole == theirs) | (np.isnan(whole) & np.isnan(theirs)))
    assert same >= 0.95, f"{name}: {same:.3%}"
    finite = np.isfinite(theirs)
    assert np.all(np.abs(whole[finite].view(np.int32).astype(np.int64)
                         - theirs[finite].view(np.int32).astype(np.int64)) <= 4)
    leafgrad.backends.cpu.torch_bits = True
    exact = make(leafgrad, leafgrad.tensor(grid)).numpy()
    assert np.array_equal(exact, theirs, equal_nan=True) or name == "x ** x"


@pytest.mark.parametrize("exponent", [4, 5, 7, 10, -3, -9, 33, 1.5, -0.3, 1 / 3, -12.25, 100.0])
@pytest.mark.parametrize("low,high", [(-10, 10), (0.5, 2), (0, 1e3), (0.9, 1.1)])
def test_pow_replays_only_near_midpoints(exponent, low, high):
    """With torch_bits, the full powf replay runs only where float64's power lies within 0.125
    float32 ulp of a rounding midpoint (SLEEF's error stays under 0.09 ulp): the result must be
    the full replay's on every element (the replay itself is checked against torch above)."""
    from leafgrad.ops._sleef_powf import powf

    x = np.random.default_rng(11).uniform(low, high, 64 * 1024).astype(np.float32)
    with np.errstate(all="ignore"):
        full = powf(x, float(np.float32(exponent)))
    ours = (leafgrad.tensor(x) ** exponent).numpy()
    assert np.array_equal(ours, full, equal_nan=True)


def test_pow_default_large_and_small_arrays_agree():
    """Without the switch, arrays of 8192 elements or more compute SLEEF's value only near the
    rounding midpoints: each element must come out as it does in a small array."""
    leafgrad.backends.cpu.torch_bits = False
    x = np.random.default_rng(12).uniform(-4, 4, 32 * 1024).astype(np.float32)
    for exponent in (4, -3, 1.5):
        whole = (leafgrad.tensor(x).abs() ** exponent).numpy()
        pieces = np.concatenate([(leafgrad.tensor(chunk).abs() ** exponent).numpy()
                                 for chunk in np.split(x, 32)])  # 1024 each: no leftover
        assert np.array_equal(whole, pieces, equal_nan=True)


def _same_bits(ours, theirs) -> None:
    ours = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    theirs = theirs.detach().numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    both_nan = np.isnan(ours) & np.isnan(theirs)  # a NaN's sign and payload are not compared
    ours, theirs = np.where(both_nan, 0, ours), np.where(both_nan, 0, theirs)
    assert ours.tobytes() == theirs.tobytes(), (
        f"{np.mean(ours != theirs):.2%} of {ours.size} differ")


def _share(ours, theirs) -> float:
    ours, theirs = ours.detach().numpy(), theirs.detach().numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    return float(np.mean((ours == theirs) | (np.isnan(ours) & np.isnan(theirs))))


# -- sigmoid: torch's vector kernel (SLEEF expf) and its scalar leftover ------------------------

SIGMOID_SIZES = [0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4099, 20000, 100003]


@pytest.mark.parametrize("size", SIGMOID_SIZES)
def test_sigmoid_bits(size):
    grid = np.linspace(-30, 30, size, dtype=np.float32)
    _same_bits(leafgrad.sigmoid(leafgrad.tensor(grid)), torch.sigmoid(torch.from_numpy(grid)))


LAYOUTS = {
    "rows of 45": lambda t: t[:, :45],
    "every other column": lambda t: t[:, ::2],
    "every other row": lambda t: t[::2],
    "offset columns": lambda t: t[:, 3:],
    "transposed": lambda t: t.T,
    "narrow rows": lambda t: t[:, :7],
    "a column": lambda t: t[:, 5],
    "0-d": lambda t: t[3, 4],
    "empty": lambda t: t[:0],
}


def _sigmoid_agrees(ours, theirs) -> None:
    """Bit for bit, but for the elements of torch's scalar path where glibc's expf is not
    correctly rounded (about 0.07% of them: leafgrad rounds float64's exp there)."""
    ours_a, theirs_a = ours.detach().numpy(), theirs.detach().numpy()
    assert ours_a.dtype == theirs_a.dtype and ours_a.shape == theirs_a.shape
    differ = int(np.sum(ours_a != theirs_a))
    assert differ <= max(1, ours_a.size // 500), f"{differ} of {ours_a.size} differ"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_sigmoid_bits_strided(layout):
    grid = np.linspace(-12, 12, 300 * 70, dtype=np.float32).reshape(300, 70)
    view = LAYOUTS[layout]
    _sigmoid_agrees(leafgrad.sigmoid(view(leafgrad.tensor(grid))),
                    torch.sigmoid(view(torch.from_numpy(grid))))


@pytest.mark.parametrize("layout", ["rows of 45", "transposed", "0-d", "every other row"])
def test_sigmoid_in_place_and_out_bits(layout):
    grid = np.linspace(-12, 12, 300 * 70, dtype=np.float32).reshape(300, 70)
    view = LAYOUTS[layout]
    ours, theirs = leafgrad.tensor(grid), torch.from_numpy(grid.copy())
    view(ours).sigmoid_()
    view(theirs).sigmoid_()
    _sigmoid_agrees(ours, theirs)
    ours_out, theirs_out = leafgrad.empty(0), torch.empty(0)
    leafgrad.sigmoid(view(leafgrad.tensor(grid)), out=ours_out)
    torch.sigmoid(view(torch.from_numpy(grid)), out=theirs_out)
    _sigmoid_agrees(ours_out, theirs_out)


def test_sigmoid_gradient_bits():
    """The gradient reuses the forward output, so it is torch's bit for bit too."""
    grid = np.linspace(-8, 8, 1001, dtype=np.float32)
    ours = leafgrad.tensor(grid, requires_grad=True)
    theirs = torch.tensor(grid, requires_grad=True)
    ours.sigmoid().sum().backward()
    theirs.sigmoid().sum().backward()
    _same_bits(ours.grad, theirs.grad)


def test_sigmoid_special_values():
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.0, -88.0, 104.0, -104.0, 105.0,
                       -105.0, 1e-30, -1e-30, 3e38, -3e38] * 3, dtype=np.float32)
    _same_bits(leafgrad.sigmoid(leafgrad.tensor(values)), torch.sigmoid(torch.from_numpy(values)))


@pytest.mark.parametrize("layout", ["narrow rows", "rows of 45", "a column", "0-d",
                                    "every other column", "empty"])
def test_sigmoid_float64_scalar_path_bits(layout):
    """float64: the elements torch's vectorised loop leaves to its scalar op (rows shorter than
    16 doubles, as an LSTM's gate chunks; each row's leftover) are ``1 / (1 + exp(-x))`` with
    glibc's exp: every bit. (The vector part's SLEEF exp is not replayed: NumPy's exp gives
    torch's bits on about 97% of it.)"""
    grid = np.linspace(-40, 40, 300 * 70).reshape(300, 70)
    grid[0, :6] = [np.inf, -np.inf, np.nan, 800.0, -800.0, -0.0]
    view = LAYOUTS[layout]
    ours = leafgrad.sigmoid(view(leafgrad.tensor(grid))).numpy()
    theirs = torch.sigmoid(view(torch.from_numpy(grid))).numpy()
    if layout == "rows of 45":  # by pairs of vectors (16 or 8 doubles: ops/_isa.py), the
        start = 45 - 45 % _isa.pair(8)  # rest of each row by the scalar op
        ours, theirs = ours[:, start:], theirs[:, start:]
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs, equal_nan=True)


# -- exp, log, tanh: float64 rounded once ------------------------------------------------------

ROUNDED = [("exp", -20, 20, 0.985), ("log", 1e-3, 100, 0.999), ("tanh", -10, 10, 0.99),
           ("sin", -10, 10, 0.94), ("cos", -10, 10, 0.94)]


@pytest.mark.parametrize("name,low,high,share", ROUNDED)
def test_rounded_share(name, low, high, share):
    grid = np.linspace(low, high, 100_000, dtype=np.float32)
    ours = getattr(leafgrad, name)(leafgrad.tensor(grid))
    theirs = getattr(torch, name)(torch.from_numpy(grid))
    assert _share(ours, theirs) >= share


@pytest.mark.parametrize("name,low,high,share", ROUNDED)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_rounded_call_forms_agree(name, low, high, share, layout):
    """Every call form gives the plain call's values (and torch's on most elements)."""
    grid = np.linspace(low, high, 300 * 70, dtype=np.float32).reshape(300, 70)
    view = LAYOUTS[layout]
    plain = getattr(leafgrad, name)(leafgrad.tensor(np.array(view(grid))))
    strided = getattr(leafgrad, name)(view(leafgrad.tensor(grid)))
    _same_bits(strided, torch.from_numpy(plain.numpy()))
    inplace = leafgrad.tensor(grid)
    getattr(view(inplace), name + "_")()
    _same_bits(view(inplace), torch.from_numpy(plain.numpy()))
    out = leafgrad.empty(0)
    getattr(leafgrad, name)(view(leafgrad.tensor(grid)), out=out)
    _same_bits(out, torch.from_numpy(plain.numpy()))
    theirs = getattr(torch, name)(view(torch.from_numpy(grid)))
    if theirs.numel() >= 1000:
        assert _share(plain, theirs) >= share
    assert plain.dtype == leafgrad.float32


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sin", "cos", "sigmoid"])
def test_float64_results_unchanged(name):
    """float64 keeps NumPy's float64 kernels (within an ulp of torch's)."""
    grid = np.linspace(0.01, 5, 1000)
    ours = getattr(leafgrad, name)(leafgrad.tensor(grid)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(grid)).numpy()
    assert ours.dtype == np.float64
    np.testing.assert_allclose(ours, theirs, rtol=4e-16, atol=0)


# -- arange ------------------------------------------------------------------------------------

ARANGE_CASES = [(0, 10, 0.1), (-3.3, 7.7, 0.01), (1.5, 2.5, 1e-5), (0, 1000, 0.37), (0, 1, 0.3),
                (2, 5, 0.7), (10, 0, -0.3), (0, 100, 1.1), (1, 2, 0.001), (0.5, 40.5, 1.0),
                (-1e6, 1e6, 12345.678), (0, 1, 1 / 3), (7,), (0, 15, 1), (0, 16, 1.5)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ARANGE_CASES)
def test_arange_bits(case, dtype):
    _same_bits(leafgrad.arange(*case, dtype=getattr(leafgrad, dtype)),
               torch.arange(*case, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("case", ARANGE_CASES[:6])
def test_arange_default_dtype_bits(case):
    _same_bits(leafgrad.arange(*case), torch.arange(*case))


# -- pow with a number exponent: SLEEF's powf and the scalar leftover ---------------------------

POW_EXPONENTS = [4, 5, 6, 7, 10, -3, -4, 1.5, 2.5, -1.5, 0.3, 1e-3, 4.0, 1 / 3, 33, -0.75]


@pytest.mark.parametrize("exponent", POW_EXPONENTS)
@pytest.mark.parametrize("size", [1, 5, 31, 32, 33, 100, 100_000])
def test_pow_scalar_bits(exponent, size):
    grid = np.linspace(-3, 3, size, dtype=np.float32)
    if exponent != int(exponent) or exponent < 0:
        grid = np.abs(grid) + np.float32(1e-3)
    _same_bits(leafgrad.tensor(grid) ** exponent, torch.from_numpy(grid) ** exponent)


@pytest.mark.parametrize("exponent", [4, -3, 1.5, 0.5000001, 1e10, -1e10, float("inf"),
                                      float("-inf"), float("nan"), 0, 1, 0.0, 1.0, 2 ** 25])
def test_pow_scalar_special_values(exponent):
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, np.inf, -np.inf, np.nan,
                       1e-30, -1e-30, 3e38, 1e-45, 80.0, -80.0] * 3, dtype=np.float32)
    _same_bits(leafgrad.tensor(values) ** exponent, torch.from_numpy(values) ** exponent)


@pytest.mark.parametrize("exponent", [4, -3, 2.5])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_pow_scalar_call_forms_bits(exponent, layout):
    grid = np.linspace(0.1, 3, 300 * 70, dtype=np.float32).reshape(300, 70)
    view = LAYOUTS[layout]
    expected = view(torch.from_numpy(grid)) ** exponent
    _same_bits(view(leafgrad.tensor(grid)) ** exponent, expected)
    _same_bits(leafgrad.pow(view(leafgrad.tensor(grid)), exponent), expected)
    _same_bits(view(leafgrad.tensor(grid)).pow(exponent), expected)
    ours, theirs = leafgrad.tensor(grid), torch.from_numpy(grid.copy())
    view(ours).pow_(exponent)
    view(theirs).pow_(exponent)
    _same_bits(ours, theirs)
    ours_out, theirs_out = leafgrad.empty(0), torch.empty(0)
    leafgrad.pow(view(leafgrad.tensor(grid)), exponent, out=ours_out)
    torch.pow(view(torch.from_numpy(grid)), exponent, out=theirs_out)
    _same_bits(ours_out, theirs_out)


@pytest.mark.parametrize("exponent", [4, 5, -3, -2.5])
def test_pow_scalar_gradient_bits(exponent):
    """The gradient is exponent * x ** (exponent - 1), a pow torch computes the same way."""
    grid = np.linspace(0.1, 3, 1001, dtype=np.float32)
    ours = leafgrad.tensor(grid, requires_grad=True)
    theirs = torch.tensor(grid, requires_grad=True)
    (ours ** exponent).sum().backward()
    (theirs ** exponent).sum().backward()
    _same_bits(ours.grad, theirs.grad)


# -- tensor ** tensor: SLEEF's powf in the vectors, glibc's powf in the leftover ----------------


def _powf_agrees(ours, theirs, allowed: float) -> None:
    """Bit for bit but for elements of torch's scalar path, where glibc's powf (not
    correctly rounded: up to 0.82 ulp) may differ from float64's pow rounded once."""
    ours_a, theirs_a = ours.numpy(), theirs.numpy()
    assert ours_a.dtype == theirs_a.dtype and ours_a.shape == theirs_a.shape
    same = (ours_a == theirs_a) | (np.isnan(ours_a) & np.isnan(theirs_a))
    assert np.sum(~same) <= allowed * same.size, f"{np.sum(~same)} of {same.size} differ"


@pytest.mark.parametrize("size", [0, 1, 31, 32, 33, 64, 1000, 100_003])
def test_pow_tensor_bits(size):
    rng = np.random.default_rng(size)
    base = rng.uniform(0.1, 3, size).astype(np.float32)
    exponent = rng.uniform(-4, 4, size).astype(np.float32)
    ours = leafgrad.tensor(base) ** leafgrad.tensor(exponent)
    theirs = torch.from_numpy(base) ** torch.from_numpy(exponent)
    # the leftover (size % 32 elements, all of them below 32) runs glibc's powf
    _powf_agrees(ours, theirs, 0.0 if size % 32 == 0 else 0.05)
    if size >= 1000:
        vector = size - size % 32
        _same_bits(ours[:vector], theirs[:vector])


@pytest.mark.parametrize("case", ["same shape", "row", "column", "0-d exponent", "negative",
                                  "transposed", "specials"])
def test_pow_tensor_broadcast_and_layout(case):
    rng = np.random.default_rng(5)
    base = rng.uniform(0.1, 3, (70, 96)).astype(np.float32)
    exponent = rng.uniform(-4, 4, (70, 96)).astype(np.float32)
    if case == "row":
        exponent = exponent[:1]
    elif case == "column":
        exponent = np.ascontiguousarray(exponent[:, :1])
    elif case == "0-d exponent":
        exponent = np.array(2.5, np.float32)
    elif case == "negative":
        base = base - np.float32(1.5)
        exponent = np.round(exponent)
    elif case == "transposed":
        base, exponent = base.T, exponent.T
    elif case == "specials":
        values = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 2, -2, 0.5], np.float32)
        base, exponent = (np.ascontiguousarray(v) for v in np.meshgrid(values, values))
    ours = leafgrad.tensor(base) ** leafgrad.tensor(exponent)
    theirs = torch.from_numpy(base) ** torch.from_numpy(exponent)
    _powf_agrees(ours, theirs, 0.002)


# -- silu: x / (1 + exp(-x)), the same two paths as sigmoid --------------------------------------


@pytest.mark.parametrize("size", [0, 1, 24, 40, 1000, 100_003])
def test_silu_bits(size):
    grid = np.linspace(-20, 20, size, dtype=np.float32)
    _same_bits(leafgrad.nn.functional.silu(leafgrad.tensor(grid)),
               torch.nn.functional.silu(torch.from_numpy(grid)))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_silu_bits_strided(layout):
    grid = np.linspace(-12, 12, 300 * 70, dtype=np.float32).reshape(300, 70)
    view = LAYOUTS[layout]
    _sigmoid_agrees(leafgrad.nn.functional.silu(view(leafgrad.tensor(grid))),
                    torch.nn.functional.silu(view(torch.from_numpy(grid))))
