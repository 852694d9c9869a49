"""Intel MKL's vector math functions where torch calls them (ops/_mkl.py, the ``mkl`` extra).

With the ``mkl`` package installed (the test extra installs it), every float32 and float64
function leafgrad hands to MKL must give torch's exact bits on a grid of inputs plus the
special values, whatever the call form (in place, ``out=``, strided, 0-d, empty, compiled),
and from two threads at once. Without it the fallbacks (float64 rounded once, NumPy) stay
within an ulp of torch. Expected values are torch's results on the same inputs. Locally a
missing ``mkl`` package skips the MKL tests with a message; under ``CI=1`` it fails them.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _float_kernels, _mkl
from tests._torch import require_torch
from tests.ops._mkl_support import one_thread_and_defaults, require_mkl

torch = require_torch()

# the functions and a range that exercises each one's branches
RANGES = {"exp": (-110, 90), "log": (1e-6, 1e6), "sin": (-100, 100), "cos": (-100, 100),
          "tan": (-1.6, 1.6), "tanh": (-12, 12),
          "sqrt": (0, 1e4), "asin": (-1, 1), "acos": (-1, 1), "atan": (-50, 50),
          "erf": (-5, 5), "erfc": (-5, 12), "erfinv": (-1, 1), "log2": (1e-6, 1e6),
          "log10": (1e-6, 1e6)}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-45, 1e30, -1e30, 1.0, -1.0,
            2.0, -2.0, 0.5]
CASES = [(name, dtype) for dtype, table in ((np.float32, _mkl.FLOAT32), (np.float64, _mkl.FLOAT64))
         for name in table]


_require_mkl = require_mkl


@pytest.fixture(autouse=True)
def _one_thread():
    yield from one_thread_and_defaults(torch)


def _grid(name, dtype, n=20_001):
    low, high = RANGES[name]
    values = np.concatenate([np.linspace(low, high, n), SPECIALS]).astype(dtype)
    with np.errstate(over="ignore", under="ignore"):
        return values


def _bits(array):
    """The bytes of ``array`` with every NaN made one value (a NaN's sign and payload are not
    compared: torch prints them alike)."""
    array = np.array(array)
    array[np.isnan(array)] = np.nan
    return array.tobytes()


def _torch(name, values):
    return getattr(torch, name)(torch.from_numpy(np.ascontiguousarray(values))).numpy()


@pytest.mark.parametrize("name,dtype", CASES)
def test_every_bit_is_torchs(name, dtype):
    _require_mkl()
    grid = _grid(name, dtype)
    ours = getattr(leafgrad, name)(leafgrad.tensor(grid)).numpy()
    theirs = _torch(name, grid)
    assert ours.dtype == theirs.dtype == dtype
    same = np.mean((ours == theirs) | (np.isnan(ours) & np.isnan(theirs)))
    assert same == 1.0
    assert _bits(ours) == _bits(theirs)


@pytest.mark.parametrize("name,dtype", CASES)
def test_every_call_form_gives_the_plain_calls_bits(name, dtype):
    """In place, out=, method, strided and transposed operands, 0-d and empty tensors, and a
    compiled function all run the same MKL code as the plain call (as torch's buffered loops
    do)."""
    _require_mkl()
    grid = _grid(name, dtype, n=4_095)[: 4_096 + 10].reshape(-1, 2)  # 8,220 values, 2 columns
    plain = getattr(leafgrad, name)(leafgrad.tensor(grid)).numpy()
    theirs = _torch(name, grid)
    assert plain.shape == theirs.shape
    method = getattr(leafgrad.tensor(grid), name)().numpy()
    assert _bits(method) == _bits(plain)
    inplace = leafgrad.tensor(grid)
    version = inplace._version
    returned = getattr(inplace, name + "_")()
    assert returned is inplace and inplace._version == version + 1
    assert _bits(inplace.numpy()) == _bits(plain)
    out = leafgrad.empty(grid.shape, dtype=inplace.dtype)
    assert getattr(leafgrad, name)(leafgrad.tensor(grid), out=out) is out
    assert _bits(out.numpy()) == _bits(plain)
    transposed = getattr(leafgrad, name)(leafgrad.tensor(np.ascontiguousarray(grid.T)).t())
    assert _bits(transposed.numpy()) == _bits(plain)
    column = getattr(leafgrad, name)(leafgrad.tensor(grid)[:, 1]).numpy()
    assert _bits(column) == _bits(plain[:, 1]) and _bits(column) == _bits(theirs[:, 1])
    scalar = getattr(leafgrad, name)(leafgrad.tensor(grid[7, 1]))
    assert scalar.shape == () and _bits(scalar.numpy()) == _bits(plain[7, 1])
    empty = getattr(leafgrad, name)(leafgrad.tensor(grid[:0]))
    assert empty.shape == (0, 2) and empty.dtype == inplace.dtype
    compiled = leafgrad.compile(lambda x: getattr(leafgrad, name)(x * 1.0))
    for _ in range(3):  # the trace, then replays
        assert _bits(compiled(leafgrad.tensor(grid)).numpy()) == _bits(plain)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["sin", "cos", "tanh", "sqrt"])
def test_gradients_are_torchs_bits(name, dtype):
    """sin's backward is grad * cos(x), sqrt's grad / (2 * result) and tanh's
    grad * (1 - y * y) with the bracket fused (torch's tanh_backward kernel; the unfused form
    agreed on 18% of these float32 inputs): with MKL the gradients, and tanh's second
    derivative, are torch's bits, whether or not the step is compiled."""
    _require_mkl()
    grid = np.linspace(-7, 7, 3_001).astype(dtype)
    values = np.abs(grid) + dtype(0.1) if name == "sqrt" else grid
    weights = np.random.default_rng(0).standard_normal(values.size).astype(dtype)

    def first_and_second(lib, x, w):
        y = getattr(lib, name)(x)
        (g,) = lib.autograd.grad(y, x, w, create_graph=True)
        (gg,) = lib.autograd.grad(g, x, w)
        return g.detach(), gg

    theirs = first_and_second(torch, torch.tensor(values, requires_grad=True),
                              torch.tensor(weights))
    ours = first_and_second(leafgrad, leafgrad.tensor(values, requires_grad=True),
                            leafgrad.tensor(weights))
    for mine, reference in zip(ours, theirs):
        assert _bits(mine.numpy()) == _bits(reference.numpy())

    def step(x, w):
        getattr(leafgrad, name)(x).backward(w)
        return x.grad

    compiled = leafgrad.compile(step)
    for _ in range(3):
        x = leafgrad.tensor(values, requires_grad=True)
        assert _bits(compiled(x, leafgrad.tensor(weights)).numpy()) == _bits(theirs[0].numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_backward_fuses_its_bracket(dtype):
    """torch's tanh_backward kernel computes 1 - y * y with one fused multiply-add; given
    torch's own tanh results every gradient bit is torch's (no MKL needed), and so is the
    second-order term gg * ((-2 * y) * grad_output)."""
    values = np.linspace(-7, 7, 5_001).astype(dtype)
    weights = np.random.default_rng(2).standard_normal(values.size).astype(dtype)
    y = torch.tanh(torch.from_numpy(values))
    theirs = torch.ops.aten.tanh_backward(torch.from_numpy(weights), y)
    ours = leafgrad.ops.elementwise.TanhBackward.apply(leafgrad.tensor(weights),
                                                       leafgrad.tensor(y.numpy()))
    assert _bits(ours.numpy()) == _bits(theirs.numpy())
    y_ours = leafgrad.tensor(y.numpy(), requires_grad=True)
    y_theirs = y.clone().requires_grad_(True)
    for lib, out in ((leafgrad, y_ours), (torch, y_theirs)):
        grad = lib.tensor(weights) if lib is leafgrad else torch.from_numpy(weights)
        lib.autograd.grad(
            (leafgrad.ops.elementwise.TanhBackward.apply(grad, out) if lib is leafgrad
             else torch.ops.aten.tanh_backward(grad, out)), out, grad)
    (g_ours,) = leafgrad.autograd.grad(leafgrad.ops.elementwise.TanhBackward.apply(
        leafgrad.tensor(weights), y_ours), y_ours, leafgrad.tensor(weights))
    (g_theirs,) = torch.autograd.grad(torch.ops.aten.tanh_backward(
        torch.from_numpy(weights), y_theirs), y_theirs, torch.from_numpy(weights))
    assert _bits(g_ours.numpy()) == _bits(g_theirs.numpy())


@pytest.mark.parametrize("size", [1, 7, 31, 32, 33, 1000, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_add_and_sub_with_alpha_fuse_the_product(size, dtype):
    """torch's add kernel computes a + alpha * b as fmadd(b, alpha, a) (sub: -alpha): every
    call form (function, method, in place, out=, an SGD step, compiled)
    gives torch's float32 bits with MKL's axpy. (With a number operand torch's kernel mixes
    the fused and unfused forms, a pattern not followed: 99.5% of the bits.)"""
    _require_mkl()
    rng = np.random.default_rng(size)
    a = rng.standard_normal(size).astype(dtype)
    b = (rng.standard_normal(size) * 0.01).astype(dtype)

    def forms(lib):
        x, y = lib.tensor(a), lib.tensor(b)
        inplace = lib.tensor(a)
        inplace.sub_(y, alpha=0.3)
        out = lib.empty(size, dtype=x.dtype)
        lib.add(x, y, alpha=-0.1, out=out)
        param = lib.tensor(a, requires_grad=True)
        param.grad = lib.tensor(b)
        lib.optim.SGD([param], lr=0.01).step()
        return [lib.add(x, y, alpha=-0.1), x.sub(y, alpha=2.5), inplace, out, param.detach()]

    for ours, theirs in zip(forms(leafgrad), forms(torch)):
        assert _bits(ours.numpy()) == _bits(theirs.numpy())

    def step(x, y):
        return leafgrad.add(x, y, alpha=-0.1)

    compiled = leafgrad.compile(step)
    expected = torch.add(torch.from_numpy(a), torch.from_numpy(b), alpha=-0.1)
    for _ in range(3):
        assert _bits(compiled(leafgrad.tensor(a), leafgrad.tensor(b)).numpy()) == _bits(
            expected.numpy())


def test_sigmoid_backward_multiplies_in_torchs_order():
    """torch's sigmoid_backward kernel is (grad * (1 - y)) * y; given torch's own sigmoid
    results every gradient bit is torch's (grad * (y * (1 - y)) agreed on 66%)."""
    values = np.linspace(-9, 9, 5_001, dtype=np.float32)
    weights = np.random.default_rng(1).standard_normal(values.size).astype(np.float32)
    y = torch.sigmoid(torch.from_numpy(values))
    theirs = torch.ops.aten.sigmoid_backward(torch.from_numpy(weights), y)
    ours = leafgrad.ops.elementwise.SigmoidBackward.apply(leafgrad.tensor(weights),
                                                          leafgrad.tensor(y.numpy()))
    assert _bits(ours.numpy()) == _bits(theirs.numpy())


def test_two_threads_get_the_sequential_results():
    """The mode travels with every call, MKL runs sequentially: concurrent calls are
    independent."""
    _require_mkl()
    grid = np.linspace(-50, 50, 200_003, dtype=np.float32)
    expected = {name: leafgrad.tensor(grid).__getattribute__(name)().numpy()
                for name in ("sin", "cos", "tanh", "atan")}
    failures = []

    def work(names):
        for _ in range(20):
            for name in names:
                result = getattr(leafgrad.tensor(grid), name)().numpy()
                if _bits(result) != _bits(expected[name]):
                    failures.append(name)

    threads = [threading.Thread(target=work, args=(("sin", "tanh"),)),
               threading.Thread(target=work, args=(("cos", "atan"),))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


@pytest.mark.parametrize("name,dtype", CASES)
def test_without_mkl_results_stay_within_an_ulp(name, dtype):
    """``backends.cpu.mkl_vml = False`` (or no mkl package): the NumPy fallbacks, within an
    ulp of torch's MKL results (float64 erf/erfc/erfinv: leafgrad's own series, below)."""
    leafgrad.backends.cpu.mkl_vml = False
    grid = _grid(name, dtype)
    with np.errstate(all="ignore"):
        ours = getattr(leafgrad, name)(leafgrad.tensor(grid)).numpy()
    theirs = _torch(name, grid)
    finite = np.isfinite(theirs)
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.array_equal(ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)])
    gap = np.abs(ours[finite].astype(np.float64) - theirs[finite])
    ulp = np.spacing(np.abs(theirs[finite])).astype(np.float64)
    # float64 erf family without MKL: leafgrad's own series and continued fraction
    # (ops/_special.py), measured 12, 163 (erfc's far tail, x near 12) and 21 ulps at most
    limit = {"erf": 16, "erfc": 200, "erfinv": 32}.get(name, 1) if dtype == np.float64 else 1
    assert np.all(gap <= limit * ulp + np.finfo(dtype).tiny), float(np.max(gap / (ulp + 1e-300)))


def test_the_switch_and_torchs_flag():
    leafgrad.backends.cpu.mkl_vml = False
    assert _mkl.kernel("sin", np.ones(3, np.float32)) is None
    assert leafgrad.backends.mkl.is_available() is False
    leafgrad.backends.cpu.mkl_vml = True
    assert leafgrad.backends.mkl.is_available() is bool(_mkl._library)
    assert _mkl.kernel("expm1", np.ones(3, np.float32)) is None  # torch's expm1 is not MKL's
    assert _mkl.kernel("sin", np.ones(3, np.float16)) is None  # float16: NumPy's loops


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window"])
def test_cosine_windows_are_torchs_bits(name):
    """The cosine windows take their cos step from MKL as torch does: every bit is torch's
    in float32 and float64 (float16 rounds the float computation, also exact)."""
    _require_mkl()
    for dtype in ("float32", "float64", "float16"):
        for length in (2, 8, 101, 1000, 4097):
            for periodic in (True, False):
                ours = getattr(leafgrad, name)(length, periodic,
                                               dtype=getattr(leafgrad, dtype)).numpy()
                theirs = getattr(torch, name)(length, periodic,
                                              dtype=getattr(torch, dtype)).numpy()
                assert ours.dtype == theirs.dtype and _bits(ours) == _bits(theirs), (
                    dtype, length, periodic)


@pytest.mark.parametrize("shape", [(1,), (3,), (4, 3), (32, 10), (16, 16), (16, 17), (3, 33),
                                   (64, 100), (8, 1000), (2, 3, 5), (7, 1)])
def test_softmax_over_the_last_dim_is_torchs_kernel(shape):
    """With torch_bits, torch's float32 softmax over the last dim: SLEEF's expf of x - max, the
    16-lane sum, the product with its reciprocal: every bit (no MKL needed); log_softmax's
    log is SLEEF's logf, taken as float64's log rounded, so a few rows may differ in the last
    place. (The fixture turns torch_bits off again.)"""
    rng = np.random.default_rng(sum(shape))
    values = (rng.standard_normal(shape) * 3).astype(np.float32)
    leafgrad.backends.cpu.torch_bits = True  # the replay is opt-in (its cost)
    ours = leafgrad.softmax(leafgrad.tensor(values), -1)
    theirs = torch.softmax(torch.from_numpy(values), -1)
    assert _bits(ours.numpy()) == _bits(theirs.numpy())
    ours = leafgrad.nn.functional.log_softmax(leafgrad.tensor(values), dim=-1).numpy()
    theirs = torch.nn.functional.log_softmax(torch.from_numpy(values), dim=-1).numpy()
    # a row whose logf rounds differently is one ulp (of the row's log-sum) apart throughout
    assert np.mean(ours == theirs) >= 0.9
    gap = np.abs(ours.astype(np.float64) - theirs)
    assert np.all(gap <= 2 * np.spacing(np.abs(theirs).astype(np.float32)) + 1e-30)
    compiled = leafgrad.compile(lambda x: leafgrad.softmax(x * 1.0, -1))
    for _ in range(3):
        assert _bits(compiled(leafgrad.tensor(values)).numpy()) == _bits(
            torch.softmax(torch.from_numpy(values), -1).numpy())


@pytest.mark.parametrize("shape", [(1,), (3,), (4, 3), (32, 27), (16, 16), (16, 17), (3, 33),
                                   (64, 100), (8, 1000), (2, 3, 5), (7, 1)])
def test_softmax_backwards_over_the_last_dim_are_torchs_kernels(shape):
    """With torch_bits, the float32 backwards over the last dim are torch's
    _vec_host_softmax_backward_lastdim: softmax ``(g - sum(g * y)) * y``, log_softmax
    ``g - exp(y) * sum(g)`` (SLEEF's expf, one fused multiply-subtract), sums in lane order."""
    rng = np.random.default_rng(sum(shape) + 1)
    values = (rng.standard_normal(shape) * 3).astype(np.float32)
    grad = rng.standard_normal(shape).astype(np.float32)
    leafgrad.backends.cpu.torch_bits = True
    for name in ("softmax", "log_softmax"):
        x = torch.from_numpy(values).requires_grad_()
        y = getattr(torch, name)(x, -1)
        y.backward(torch.from_numpy(grad))
        # the kernel on torch's own forward result (log_softmax's forward log may differ in
        # an ulp: test above)
        kernel = getattr(_float_kernels, f"{name}_backward_lastdim")
        assert _bits(kernel(grad, y.detach().numpy())) == _bits(x.grad.numpy()), name
    ours = leafgrad.tensor(values, requires_grad=True)
    leafgrad.softmax(ours, -1).backward(leafgrad.tensor(grad))
    x = torch.from_numpy(values).requires_grad_()
    torch.softmax(x, -1).backward(torch.from_numpy(grad))
    assert _bits(ours.grad.numpy()) == _bits(x.grad.numpy())
