"""float32 log1p, expm1, softplus, log_sigmoid, binary_cross_entropy_with_logits and the elu
family against torch's bits (ops/_sleef_unary.py: SLEEF's expf, log1pf and expm1f in torch's
vectors, glibc's log1pf on softplus's scalar path). Found by running SAC (the tanh-squash
correction's softplus), a word2vec skip-gram (logsigmoid) and a GAT (elu) with leafgrad: their
losses differed in the last digit from the first or second step.

With ``leafgrad.backends.cpu.torch_bits`` every element must be torch's, but for glibc's expf
on softplus's scalar path (float64's exp rounded once: 99.9%); by default a share is asked
for. Expected values are torch's
results on the same inputs.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import _float_kernels
from leafgrad.ops import _sleef_unary
from tests._torch import require_torch

torch = require_torch()


@pytest.fixture(autouse=True)
def _exact_mode():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    leafgrad.backends.cpu.torch_bits = True
    yield
    leafgrad.backends.cpu.torch_bits = False
    torch.set_num_threads(previous)


def _grid(size: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * 6).astype(np.float32)
    specials = np.array([0.0, -0.0, 25.0, -25.0, 88.0, -104.0, 1e-8, -1e-8, 20.0, 19.999998,
                         np.inf, -np.inf, np.nan], dtype=np.float32)
    x[:min(size, specials.size)] = specials[:size]
    return x


FUNCTIONS = {
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
    "softplus_beta": lambda lib, x: lib.nn.functional.softplus(x, beta=2.5, threshold=5.0),
    "softplus_small_beta": lambda lib, x: lib.nn.functional.softplus(x, 0.5, 3),
    "Softplus_module": lambda lib, x: lib.nn.Softplus(beta=3.0)(x),
    "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    "LogSigmoid_module": lambda lib, x: lib.nn.LogSigmoid()(x),
    "bce_with_logits": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, (x > 0.3).float(), reduction="none"),
    "bce_with_logits_pos_weight": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, (x > -0.2).float(), pos_weight=lib.tensor(2.5), reduction="none"),
    "bce_soft_target_weight": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, x.sigmoid(), weight=x.abs(), reduction="none"),
}

LAYOUTS = {
    "contiguous": lambda t: t,
    "strided": lambda t: t[::2],  # every element on softplus's scalar path
    "transposed": lambda t: t[: t.numel() // 2 * 2].reshape(-1, 2).t(),
    "row_slices": lambda t: t[: t.numel() // 40 * 40].reshape(-1, 40)[:, :35],
}


def _same(ours, theirs) -> np.ndarray:
    ours, theirs = ours.detach().numpy(), theirs.detach().numpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    return (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))


@pytest.mark.parametrize("size", [1, 5, 31, 32, 33, 64, 100, 1000, 20011])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bits_every_size(name, size):
    grid = _grid(size)
    same = _same(FUNCTIONS[name](leafgrad, leafgrad.tensor(grid)),
                 FUNCTIONS[name](torch, torch.from_numpy(grid)))
    assert same.all(), (grid[~same][:5], same.mean())


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bits_every_layout(name, layout):
    grid = _grid(4000, seed=1)
    view = LAYOUTS[layout]
    same = _same(FUNCTIONS[name](leafgrad, view(leafgrad.tensor(grid))),
                 FUNCTIONS[name](torch, view(torch.from_numpy(grid))))
    # glibc's expf on softplus's scalar path is float64's exp rounded once (99.9%)
    assert same.mean() >= (0.998 if name.startswith(("softplus", "Softplus")) else 1.0)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_zero_dim_and_empty(name):
    for values in (np.float32(-1.7), np.float32(30.0), np.zeros((0, 3), np.float32)):
        ours = FUNCTIONS[name](leafgrad, leafgrad.tensor(values))
        theirs = FUNCTIONS[name](torch, torch.tensor(values))
        assert _same(ours, theirs).all() and tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.parametrize("name", ["softplus", "logsigmoid", "bce_with_logits"])
def test_default_mode_share(name):
    leafgrad.backends.cpu.torch_bits = False
    grid = _grid(100_000, seed=2)
    theirs = FUNCTIONS[name](torch, torch.from_numpy(grid)).numpy()
    # tensors up to the replay limit (Note: the replay limit, ops/_float_kernels.py), and past
    # it (float64's log1p/expm1 and NumPy's exp: 93-99% of the bits)
    pieces = np.array_split(grid, -(-grid.size // _float_kernels.REPLAY_LIMIT))
    replayed = np.concatenate([FUNCTIONS[name](leafgrad, leafgrad.tensor(p)).numpy()
                               for p in pieces])
    whole = FUNCTIONS[name](leafgrad, leafgrad.tensor(grid)).numpy()
    for ours, share in ((replayed, 0.99), (whole, 0.93)):
        same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
        assert same.mean() >= share, same.mean()
        finite = np.isfinite(theirs)
        # one ulp of log_sigmoid; the loss (1 - t) * x - log_sigmoid(x) cancels, so its error
        # is counted in ulps of |x| there
        scale = np.abs(theirs) + (np.abs(grid) if name.startswith("bce") else 0)
        error = np.abs(ours[finite] - theirs[finite])
        assert np.all(error <= 2 * np.spacing(scale[finite]))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_reduced_bce_and_its_grad(reduction):
    # the GAN losses of a 2-D GAN script: a (16, 1) batch, mean reduction, both target values
    grid = _grid(16, seed=3).reshape(16, 1)
    grid[~np.isfinite(grid)] = 0.5
    for target in (np.ones((16, 1), np.float32), np.zeros((16, 1), np.float32)):
        results = []
        for lib in (leafgrad, torch):
            x = lib.tensor(grid, requires_grad=True)
            loss = lib.nn.functional.binary_cross_entropy_with_logits(
                x, lib.tensor(target), reduction=reduction)
            loss.backward()
            results.append((loss.item(), x.grad.numpy().tolist()))
        assert results[0] == results[1]


def test_float64_unchanged_and_gradients_check():
    x = leafgrad.tensor(_grid(40, seed=4)[13:].astype(np.float64), requires_grad=True)
    for function in (lambda t: leafgrad.nn.functional.softplus(t, beta=1.5, threshold=4.0),
                     leafgrad.nn.functional.logsigmoid):
        assert leafgrad.autograd.gradcheck(function, (x,))
        ours = function(x).detach().numpy()
        theirs = (torch.nn.functional.logsigmoid(torch.from_numpy(x.detach().numpy()))
                  if function is leafgrad.nn.functional.logsigmoid else
                  torch.nn.functional.softplus(torch.from_numpy(x.detach().numpy()), 1.5, 4.0))
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-15, atol=0)


# -- the replays against what they replay --------------------------------------------------------
def _libm():
    name = ctypes.util.find_library("m")
    try:
        library = ctypes.CDLL(name or "libm.so.6")
        function = library.log1pf
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    return function


def test_glibc_log1pf_replay_is_the_c_librarys():
    # torch's scalar path calls the C library's log1pf; the replay is glibc 2.36's algorithm
    # (the C library torch runs with here). A correctly rounded libm (glibc >= 2.41) differs.
    log1pf = _libm()
    if log1pf is None:
        pytest.skip("no C math library to compare with")
    rng = np.random.default_rng(5)
    x = np.concatenate([
        rng.standard_normal(20000) * 3, rng.uniform(-1, 0, 5000),
        np.exp(rng.uniform(-80, 80, 5000)), rng.uniform(-1e-6, 1e-6, 2000),
        [-1, -0.0, 0.0, -2, np.inf, -np.inf, np.nan, 1e38, 3e38, 1e-40, -1e-40, 2 ** -29,
         -0.2929, 0.41422, 0.4142135]]).astype(np.float32)
    expected = np.array([log1pf(float(v)) for v in x], np.float32)
    ours = _sleef_unary.glibc_log1pf(x)
    same = (ours == expected) | (np.isnan(ours) & np.isnan(expected))
    assert same.all(), x[~same][:5]
    assert np.array_equal(np.signbit(ours[x == 0]), np.signbit(expected[x == 0]))


def test_sleef_unary_special_values():
    # SLEEF's own special cases (its vector code returns them after the polynomial); the
    # finite values are checked through softplus and log_sigmoid against torch above
    values = np.array([-1, -0.0, 0.0, -2, np.inf, np.nan, 1e38, 2e38, -np.inf], np.float32)
    result = _sleef_unary.sleef_log1pf(values)
    expected = np.array([-np.inf, -0.0, 0.0, np.nan, np.inf, np.nan, np.log1p(1e38), np.inf,
                         np.nan], np.float32)
    assert np.array_equal(result, expected, equal_nan=True)
    assert np.signbit(result[1]) and not np.signbit(result[2])


# -- torch.log1p: SLEEF's log1pf on every element (a strided operand is buffered first) ----------
LOG1P_FORMS = {
    "function": lambda lib, t: lib.log1p(t),
    "method": lambda lib, t: t.log1p(),
    "special": lambda lib, t: lib.special.log1p(t),
    "in_place": lambda lib, t: t.clone().log1p_() if t.is_contiguous() else _in_place(t),
    "out": lambda lib, t: lib.log1p(t, out=lib.empty(0)),
}


def _in_place(t):
    t.log1p_()
    return t


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("form", sorted(LOG1P_FORMS))
def test_log1p_bits(form, layout):
    grid = np.concatenate([np.linspace(-0.99, 100, 3001), np.exp(np.linspace(-30, 80, 999)),
                           [-1, -0.0, 0.0, -2, np.inf, np.nan]]).astype(np.float32)
    view = LAYOUTS[layout]
    ours = LOG1P_FORMS[form](leafgrad, view(leafgrad.tensor(grid)))
    theirs = LOG1P_FORMS[form](torch, view(torch.from_numpy(grid.copy())))
    assert _same(ours, theirs).all()


def test_log1p_zero_dim_empty_and_default_share():
    for values in (np.float32(0.37), np.float32(-0.0), np.zeros((2, 0), np.float32)):
        assert _same(leafgrad.log1p(leafgrad.tensor(values)), torch.log1p(torch.tensor(values))).all()
    leafgrad.backends.cpu.torch_bits = False
    grid = np.linspace(-0.99, 100, 100_000, dtype=np.float32)
    same = _same(leafgrad.log1p(leafgrad.tensor(grid)), torch.log1p(torch.from_numpy(grid)))
    assert same.mean() >= 0.998


# -- backwards: torch's softplus_backward (z = exp(x * beta), grad * z / (z + 1)) and
# log_sigmoid_backward ((max_deriv - sign * b / (1 + b)) * grad, b = exp(-|x|)) kernels ---------
BACKWARDS = {
    "softplus": lambda lib, t: lib.nn.functional.softplus(t),
    "softplus_beta": lambda lib, t: lib.nn.functional.softplus(t, beta=1.5, threshold=6.0),
    "logsigmoid": lambda lib, t: lib.nn.functional.logsigmoid(t),
}


def _gradient(lib, name, grid, upstream, view):
    x = lib.tensor(grid, requires_grad=True)
    BACKWARDS[name](lib, view(x)).backward(view(lib.tensor(upstream)))
    return x.grad


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("size", [1, 7, 31, 33, 100, 3203])
@pytest.mark.parametrize("name", sorted(BACKWARDS))
def test_gradient_bits(name, size, layout):
    grid = _grid(size, seed=6)
    grid[~np.isfinite(grid)] = 3.0
    upstream = np.random.default_rng(7).standard_normal(size).astype(np.float32)
    view = LAYOUTS[layout]
    ours = _gradient(leafgrad, name, grid, upstream, view)
    theirs = _gradient(torch, name, grid, upstream, view)
    same = _same(ours, theirs)
    # softplus's scalar path (every element of a strided operand) uses glibc's expf: 99.9%
    assert same.all() or (name.startswith("softplus") and layout == "strided"
                          and same.mean() >= 0.998)


@pytest.mark.parametrize("name", sorted(BACKWARDS))
def test_double_backward_still_recorded(name):
    # under create_graph the Tensor formula runs (a graph to differentiate again)
    grid = _grid(40, seed=8)[13:]
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(grid, requires_grad=True)
        (g,) = lib.autograd.grad(BACKWARDS[name](lib, x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy(), g.grad_fn is not None))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=2e-5, atol=1e-7)
    assert results[0][2] and results[1][2]


def test_small_softplus_is_torchs_under_torch_bits_and_close_by_default():
    # SAC's squashing correction: softplus of a (batch, action) tensor of 16 elements, all on
    # the scalar path: glibc's log1pf is replayed under torch_bits; by default float64's log1p
    # rounded once stands in for it (the replay's ~85 us a call is kept to torch_bits)
    rng = np.random.default_rng(9)
    xs = [(rng.standard_normal((8, 2)) * 3).astype(np.float32) for _ in range(200)]
    try:
        for bits, floor in ((True, 0.998), (False, 0.95)):
            leafgrad.backends.cpu.torch_bits = bits
            same = []
            for x in xs:
                ours = leafgrad.nn.functional.softplus(leafgrad.tensor(-2 * x))
                theirs = torch.nn.functional.softplus(torch.from_numpy(-2 * x))
                same.append(_same(ours, theirs))
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
            assert np.mean(same) >= floor, (bits, np.mean(same))
    finally:
        leafgrad.backends.cpu.torch_bits = False


# -- SLEEF's expm1f: torch.expm1 on every element, elu / selu / celu in the vectors ----------------
ELU_FAMILY = {
    "elu": lambda lib, t: lib.nn.functional.elu(t),
    "elu_alpha": lambda lib, t: lib.nn.functional.elu(t, alpha=0.3),
    "selu": lambda lib, t: lib.nn.functional.selu(t),
    "celu": lambda lib, t: lib.nn.functional.celu(t, alpha=1.7),
    "ELU_module_in_place": lambda lib, t: lib.nn.ELU(alpha=2.0, inplace=True)(t.clone()),
    "SELU_module": lambda lib, t: lib.nn.SELU()(t),
    "expm1": lambda lib, t: lib.expm1(t),
    "expm1_method": lambda lib, t: t.expm1(),
    "special_expm1": lambda lib, t: lib.special.expm1(t),
    "expm1_out": lambda lib, t: lib.expm1(t, out=lib.empty(0)),
}


def _elu_grid(size: int, seed: int) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal(size) * 4).astype(np.float32)
    specials = np.array([0.0, -0.0, np.nan, -200.0, 89.0, -16.7, 1e-8, -1e-8], np.float32)
    x[:min(size, specials.size)] = specials[:size]
    return x


@pytest.mark.parametrize("size", [1, 5, 33, 64, 1000, 20011])
@pytest.mark.parametrize("name", sorted(ELU_FAMILY))
def test_elu_family_and_expm1_bits(name, size):
    grid = _elu_grid(size, seed=size)
    same = _same(ELU_FAMILY[name](leafgrad, leafgrad.tensor(grid)),
                 ELU_FAMILY[name](torch, torch.from_numpy(grid)))
    if name.startswith(("expm1", "special")):
        assert same.all(), (grid[~same][:5], same.mean())
        return
    # the elu family's leftover after the last 32-element pair of vectors is glibc's expm1f,
    # replayed
    assert same.all(), (grid[~same][:5], same.mean())


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", ["elu", "selu", "expm1", "expm1_method"])
def test_elu_family_and_expm1_layouts(name, layout):
    grid = _elu_grid(4000, seed=1)
    view = LAYOUTS[layout]
    same = _same(ELU_FAMILY[name](leafgrad, view(leafgrad.tensor(grid))),
                 ELU_FAMILY[name](torch, view(torch.from_numpy(grid.copy()))))
    # expm1 is SLEEF's on every element; elu's scalar path (the leftover, every element of a
    # strided operand) is glibc's expm1f
    assert same.all()


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "expm1"])
def test_elu_family_default_share(name):
    leafgrad.backends.cpu.torch_bits = False
    grid = _elu_grid(100_000, seed=7)
    same = _same(ELU_FAMILY[name](leafgrad, leafgrad.tensor(grid)),
                 ELU_FAMILY[name](torch, torch.from_numpy(grid)))
    assert same.mean() >= 0.998, same.mean()


def test_elu_zero_dim_empty_float64():
    for values in (np.float32(-1.3), np.float32(0.0), np.zeros((0, 2), np.float32)):
        for name in ("elu", "selu", "expm1"):
            assert _same(ELU_FAMILY[name](leafgrad, leafgrad.tensor(values)),
                         ELU_FAMILY[name](torch, torch.tensor(values))).all()
    grid = _elu_grid(50, seed=2).astype(np.float64)
    ours = leafgrad.nn.functional.selu(leafgrad.tensor(grid)).numpy()
    np.testing.assert_allclose(ours, torch.nn.functional.selu(torch.from_numpy(grid)).numpy(),
                               rtol=1e-15)


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("size", [5, 33, 1000, 3200])
@pytest.mark.parametrize("name", ["elu", "elu_alpha", "selu", "celu"])
def test_elu_family_gradient_bits(name, size, layout):
    # torch's elu_backward: grad * input_scale * (alpha * scale) * exp(x * input_scale)
    grid = _elu_grid(size, seed=size + 1)
    upstream = np.random.default_rng(size).standard_normal(size).astype(np.float32)
    view = LAYOUTS[layout]
    grads = []
    for lib in (leafgrad, torch):
        x = lib.tensor(grid, requires_grad=True)
        ELU_FAMILY[name](lib, view(x)).backward(view(lib.tensor(upstream)))
        grads.append(x.grad)
    same = _same(*grads)
    # the scalar path's exp is glibc's expf (float64's exp rounded once: 99.9%)
    assert same.all() or (layout == "strided" and same.mean() >= 0.995)


def test_glibc_expm1f_replay_is_the_c_librarys():
    if _libm() is None:
        pytest.skip("no C math library to compare with")
    expm1f = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").expm1f
    expm1f.restype, expm1f.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = np.random.default_rng(10)
    x = np.concatenate([rng.standard_normal(20000) * 3, rng.uniform(-30, 90, 5000),
                        rng.uniform(-1e-6, 1e-6, 500), np.linspace(-1.2, 1.2, 2001),
                        [0.0, -0.0, 88.7, 88.8, -100, np.inf, -np.inf, np.nan, 18.7, 19.4,
                         38.9, 39.6, -0.25, 0.34657359, 1.03972077]]).astype(np.float32)
    expected = np.array([expm1f(float(v)) for v in x], np.float32)
    ours = _sleef_unary.glibc_expm1f(x)
    same = (ours == expected) | (np.isnan(ours) & np.isnan(expected))
    assert same.all(), x[~same][:5]
    assert np.array_equal(np.signbit(ours[x == 0]), np.signbit(expected[x == 0]))


def test_small_elu_is_torchs_under_torch_bits_and_close_by_default():
    # a GAT head's elu of a (nodes, hidden) tensor under 32 elements: all scalar path
    rng = np.random.default_rng(11)
    xs = [(rng.standard_normal((3, 7)) * 2).astype(np.float32) for _ in range(100)]
    try:
        for bits in (True, False):
            leafgrad.backends.cpu.torch_bits = bits
            for x in xs:
                for name in ("elu", "selu", "celu"):
                    ours = ELU_FAMILY[name](leafgrad, leafgrad.tensor(x))
                    theirs = ELU_FAMILY[name](torch, torch.from_numpy(x))
                    if bits:
                        assert _same(ours, theirs).all()
                    else:
                        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6,
                                                   atol=1e-7)
    finally:
        leafgrad.backends.cpu.torch_bits = False


def test_default_mode_subnormal_log1p_inputs():
    # BCE-with-logits of a confident right logit: log1p of a subnormal exp(-|x|), where SLEEF's
    # pairs lose bits (28 units of 2**-149 for a logit of 100, where log1p rounds to 27)
    leafgrad.backends.cpu.torch_bits = False
    logits = np.array([100.0, -100.0, 90.0, 95.5, 101.25, 88.0], np.float32)
    target = np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0], np.float32)
    for name in ("bce", "logsigmoid"):
        results = []
        for lib in (leafgrad, torch):
            x, t = lib.tensor(logits), lib.tensor(target)
            results.append(lib.nn.functional.binary_cross_entropy_with_logits(
                x, t, reduction="none") if name == "bce" else lib.nn.functional.logsigmoid(-x))
        assert _same(*results).all()
