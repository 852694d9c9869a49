"""float32 layer_norm and group_norm with torch's bits (ops/_norm_kernels.py).

With ``leafgrad.backends.cpu.torch_bits`` on, leafgrad replays torch 2.13's CPU kernels
(RowwiseMoments' chunked, cascaded Welford over 8-lane vectors, then each kernel's output
formula): every element, and native_layer_norm's / native_group_norm's mean and rstd, must be
torch's bit for bit. Rows shorter than a vector, not a multiple of 8, one partial chunk of 16
vectors, several chunks (the cascade's uneven trees) and long rows; every affine subset; several
eps. Expected values are always torch's results on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

_AFFINE = ["none", "weight", "bias", "both"]


@pytest.fixture(autouse=True)
def _exact_kernels():
    leafgrad.backends.cpu.torch_bits = True
    yield
    leafgrad.backends.cpu.torch_bits = False


def _bits(array: np.ndarray) -> bytes:
    return np.ascontiguousarray(array).tobytes()


def _same(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """The same bits, but NaN's sign and payload (torch's come from the FMA unit)."""
    nan = np.isnan(theirs)
    return bool(np.array_equal(np.isnan(ours), nan)
                and _bits(np.where(nan, 0, ours)) == _bits(np.where(nan, 0, theirs)))


def _input(shape, seed):
    rng = np.random.default_rng(seed)
    scale, offset = rng.uniform(0.01, 30), rng.uniform(-5, 5)
    return (rng.standard_normal(shape) * scale + offset).astype(np.float32)


def _affine(kind, size, seed):
    rng = np.random.default_rng(seed + 1)
    weight = rng.standard_normal(size).astype(np.float32) if kind in ("weight", "both") else None
    bias = rng.standard_normal(size).astype(np.float32) if kind in ("bias", "both") else None
    return weight, bias


def _both(array):
    """(leafgrad tensor, torch tensor) of an array, or (None, None)."""
    if array is None:
        return None, None
    return leafgrad.tensor(array), torch.from_numpy(array.copy())


# row lengths: < 8 lanes; 8; not multiples of 8; one partial chunk (< 128); 128 (one chunk);
# 2, 3, 5, 6, 9 chunks (uneven cascades) with and without tails; long rows
_LAYER_SHAPES = [(1,), (6,), (5, 1), (4, 6), (7, 7), (3, 8), (16, 17), (32, 64), (9, 127),
                 (4, 128), (8, 16, 128), (3, 300), (2, 1000), (64, 768), (2, 1283), (3, 2049),
                 (2, 4101), (1, 33000)]


@pytest.mark.parametrize("shape", _LAYER_SHAPES)
@pytest.mark.parametrize("affine", _AFFINE)
def test_layer_norm_bits(shape, affine):
    values = _input(shape, sum(shape))
    weight, bias = _affine(affine, shape[-1], len(shape))
    (w, tw), (b, tb) = _both(weight), _both(bias)
    ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), (shape[-1],), w, b)
    theirs = torch.nn.functional.layer_norm(torch.from_numpy(values), (shape[-1],), tw, tb)
    assert ours.dtype == leafgrad.float32
    assert _bits(ours.numpy()) == _bits(theirs.numpy())


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1e-3, 0.1, 10.0])
@pytest.mark.parametrize("shape,normalized", [((5, 40), (40,)), ((2, 3, 4, 5), (4, 5)),
                                              ((3, 2, 70), (2, 70)), ((6, 11), (6, 11))])
def test_layer_norm_bits_eps_and_several_dims(eps, shape, normalized):
    values = _input(shape, len(normalized))
    weight, bias = _affine("both", normalized, 3)
    (w, tw), (b, tb) = _both(weight), _both(bias)
    ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), normalized, w, b, eps)
    theirs = torch.nn.functional.layer_norm(torch.from_numpy(values), normalized, tw, tb, eps)
    assert _bits(ours.numpy()) == _bits(theirs.numpy())


def test_layer_norm_special_rows():
    """Constant rows (variance 0), huge and tiny magnitudes (overflowing moments), a row of
    zeros, signed zeros, inf and NaN."""
    rows = np.stack([np.full(40, 3.25), np.zeros(40), np.linspace(-1e30, 1e30, 40),
                     np.linspace(-1e-30, 1e-30, 40), np.r_[np.full(20, -0.0), np.full(20, 0.0)],
                     np.r_[np.full(39, 1.0), 1e6], np.r_[np.full(39, 1.0), np.inf],
                     np.r_[np.full(39, 1.0), np.nan], np.linspace(-3e38, 3e38, 40)]
                    ).astype(np.float32)
    for affine in _AFFINE:
        weight, bias = _affine(affine, 40, 0)
        (w, tw), (b, tb) = _both(weight), _both(bias)
        ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(rows), (40,), w, b)
        theirs = torch.nn.functional.layer_norm(torch.from_numpy(rows), (40,), tw, tb)
        assert _same(ours.numpy(), theirs.numpy()), affine


def test_layer_norm_call_forms():
    """Module, functional, torch.layer_norm, native_layer_norm (with its mean and rstd),
    a non-contiguous input, an input that requires grad: all torch's bits."""
    values = _input((12, 7, 45), 1)
    weight, bias = _affine("both", (7, 45), 2)
    x, tx = leafgrad.tensor(values), torch.from_numpy(values)
    (w, tw), (b, tb) = _both(weight), _both(bias)
    expected = torch.nn.functional.layer_norm(tx, (7, 45), tw, tb)
    assert _bits(leafgrad.layer_norm(x, (7, 45), w, b).numpy()) == _bits(expected.numpy())
    ours = leafgrad.native_layer_norm(x, (7, 45), w, b, 1e-5)
    theirs = torch.native_layer_norm(tx, (7, 45), tw, tb, 1e-5)
    for mine, torchs in zip(ours, theirs):
        assert tuple(mine.shape) == tuple(torchs.shape)
        assert _bits(mine.numpy()) == _bits(torchs.numpy())
    module, tmodule = leafgrad.nn.LayerNorm(45), torch.nn.LayerNorm(45)
    with leafgrad.no_grad(), torch.no_grad():
        module.weight.copy_(leafgrad.tensor(weight[0]))
        tmodule.weight.copy_(torch.from_numpy(weight[0].copy()))
    assert _bits(module(x).detach().numpy()) == _bits(tmodule(tx).detach().numpy())
    plain, tplain = (leafgrad.nn.LayerNorm(45, elementwise_affine=False),
                     torch.nn.LayerNorm(45, elementwise_affine=False))
    assert _bits(plain(x).numpy()) == _bits(tplain(tx).numpy())
    strided = leafgrad.tensor(values).transpose(0, 2)
    tstrided = torch.from_numpy(values).transpose(0, 2)
    assert _bits(leafgrad.nn.functional.layer_norm(strided, (12,)).numpy()) == _bits(
        torch.nn.functional.layer_norm(tstrided, (12,)).numpy())
    leaf = leafgrad.tensor(values, requires_grad=True)
    out = leafgrad.nn.functional.layer_norm(leaf, (45,))
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert _bits(out.detach().numpy()) == _bits(
        torch.nn.functional.layer_norm(tx, (45,)).numpy())


@pytest.mark.parametrize("affine", _AFFINE)
def test_layer_norm_grads_still_torchs(affine):
    """The backward is unchanged (its own formulas): float32 gradients within float tolerance
    of torch's, with the exact forward on."""
    values = _input((6, 50), 5)
    weight, bias = _affine(affine, 50, 6)
    upstream = _input((6, 50), 7)
    x = leafgrad.tensor(values, requires_grad=True)
    tx = torch.from_numpy(values.copy()).requires_grad_(True)
    w = None if weight is None else leafgrad.tensor(weight, requires_grad=True)
    tw = None if weight is None else torch.from_numpy(weight.copy()).requires_grad_(True)
    b = None if bias is None else leafgrad.tensor(bias, requires_grad=True)
    tb = None if bias is None else torch.from_numpy(bias.copy()).requires_grad_(True)
    leafgrad.nn.functional.layer_norm(x, (50,), w, b).backward(leafgrad.tensor(upstream))
    torch.nn.functional.layer_norm(tx, (50,), tw, tb).backward(torch.from_numpy(upstream))
    for mine, torchs in ((x, tx), (w, tw), (b, tb)):
        if mine is not None:
            np.testing.assert_allclose(mine.grad.numpy(), torchs.grad.numpy(), rtol=1e-4,
                                       atol=1e-4)


def test_layer_norm_gradcheck_float64_unaffected():
    x = leafgrad.tensor(_input((3, 9), 8).astype(np.float64), requires_grad=True)
    w = leafgrad.tensor(_affine("weight", 9, 9)[0].astype(np.float64), requires_grad=True)
    function = lambda a, b: leafgrad.nn.functional.layer_norm(a, (9,), b)  # noqa: E731
    assert leafgrad.autograd.gradcheck(function, (x, w))
    assert leafgrad.autograd.gradgradcheck(function, (x, w))


@pytest.mark.parametrize("normalized,shape", [((), (3, 4)), ((5,), (3, 4)), ((1,), (2,)),
                                              ((2, 4), (3, 4))])
def test_layer_norm_errors_are_torchs(normalized, shape):
    values = _input(shape, 0)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.layer_norm(torch.from_numpy(values), normalized)
    with pytest.raises(RuntimeError) as ours:
        leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), normalized)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("shape,normalized", [((0, 4), (4,)), ((3, 0), (0,)), ((0,), (0,))])
def test_layer_norm_empty(shape, normalized):
    values = np.zeros(shape, np.float32)
    ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), normalized)
    theirs = torch.nn.functional.layer_norm(torch.from_numpy(values), normalized)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype == leafgrad.float32


# group norm: (shape, groups); 2-d (HxW = 1), 3-d, 4-d, 5-d; groups of 1 channel and of all
_GROUP_SHAPES = [((3, 4), 2), ((4, 6, 5), 3), ((2, 12, 100), 4), ((8, 32, 7, 7), 8),
                 ((16, 64, 3), 32), ((2, 6, 33, 5), 1), ((1, 3, 2, 2, 2), 3),
                 ((2, 8, 40, 40), 2), ((5, 4, 1), 4)]


@pytest.mark.parametrize("shape,groups", _GROUP_SHAPES)
@pytest.mark.parametrize("affine", _AFFINE)
def test_group_norm_bits(shape, groups, affine):
    values = _input(shape, sum(shape) + groups)
    weight, bias = _affine(affine, shape[1], groups)
    (w, tw), (b, tb) = _both(weight), _both(bias)
    ours = leafgrad.nn.functional.group_norm(leafgrad.tensor(values), groups, w, b)
    theirs = torch.nn.functional.group_norm(torch.from_numpy(values), groups, tw, tb)
    assert _bits(ours.numpy()) == _bits(theirs.numpy())


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 0.1, 10.0])
def test_group_norm_bits_eps_module_and_native(eps):
    values = _input((4, 6, 9, 3), 2)
    weight, bias = _affine("both", 6, 4)
    (w, tw), (b, tb) = _both(weight), _both(bias)
    x, tx = leafgrad.tensor(values), torch.from_numpy(values)
    assert _bits(leafgrad.nn.functional.group_norm(x, 3, w, b, eps).numpy()) == _bits(
        torch.nn.functional.group_norm(tx, 3, tw, tb, eps).numpy())
    ours = leafgrad.native_group_norm(x, w, b, 4, 6, 27, 3, eps)
    theirs = torch.native_group_norm(tx, tw, tb, 4, 6, 27, 3, eps)
    for mine, torchs in zip(ours, theirs):
        assert tuple(mine.shape) == tuple(torchs.shape)
        assert _bits(mine.numpy()) == _bits(torchs.numpy())
    module, tmodule = leafgrad.nn.GroupNorm(3, 6, eps=eps), torch.nn.GroupNorm(3, 6, eps=eps)
    with leafgrad.no_grad(), torch.no_grad():
        module.bias.copy_(b)
        tmodule.bias.copy_(tb)
    assert _bits(module(x).detach().numpy()) == _bits(tmodule(tx).detach().numpy())
    assert _bits(leafgrad.group_norm(x, 2).numpy()) == _bits(torch.group_norm(tx, 2).numpy())


def test_group_norm_strided():
    """A strided input is made contiguous first (torch's kernel reads it row-major)."""
    values = _input((3, 4, 6, 5), 9)
    strided, tstrided = leafgrad.tensor(values)[:, :, ::2], torch.from_numpy(values)[:, :, ::2]
    assert _bits(leafgrad.nn.functional.group_norm(strided, 2).numpy()) == _bits(
        torch.nn.functional.group_norm(tstrided, 2).numpy())


@pytest.mark.parametrize("shape,groups", [((4, 12, 5, 7), 3), ((2, 40, 3, 3), 2),
                                          ((3, 64, 4, 4), 4), ((2, 6, 31, 32), 3),
                                          ((2, 8, 1, 1), 4), ((2, 9, 2, 3), 9)])
@pytest.mark.parametrize("affine", _AFFINE)
def test_group_norm_channels_last_bits(shape, groups, affine):
    """A channels-last input runs torch's channels-last kernel (8-lane sums of x and x * x over
    the group's channels, position by position): below 1024 positions replayed bit for bit, with
    torch's output layout."""
    values = _input(shape, groups + 20)
    weight, bias = _affine(affine, shape[1], groups)
    (w, tw), (b, tb) = _both(weight), _both(bias)
    last = leafgrad.tensor(values).contiguous(memory_format=leafgrad.channels_last)
    tlast = torch.from_numpy(values).contiguous(memory_format=torch.channels_last)
    ours = leafgrad.nn.functional.group_norm(last, groups, w, b)
    theirs = torch.nn.functional.group_norm(tlast, groups, tw, tb)
    assert ours.stride() == theirs.stride()
    assert _bits(ours.numpy()) == _bits(theirs.numpy())


def test_group_norm_channels_last_large_feature_map():
    """1024 positions or more: torch sums per thread (its bits depend on the thread count);
    not replayed: float tolerance, torch's layout."""
    values = _input((2, 4, 32, 33), 9)
    last = leafgrad.tensor(values).contiguous(memory_format=leafgrad.channels_last)
    tlast = torch.from_numpy(values).contiguous(memory_format=torch.channels_last)
    ours = leafgrad.nn.functional.group_norm(last, 2)
    theirs = torch.nn.functional.group_norm(tlast, 2)
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_group_norm_grads_still_torchs():
    values = _input((4, 6, 10), 3)
    weight, bias = _affine("both", 6, 3)
    upstream = _input((4, 6, 10), 4)
    x = leafgrad.tensor(values, requires_grad=True)
    w = leafgrad.tensor(weight, requires_grad=True)
    b = leafgrad.tensor(bias, requires_grad=True)
    tx = torch.from_numpy(values.copy()).requires_grad_(True)
    tw = torch.from_numpy(weight.copy()).requires_grad_(True)
    tb = torch.from_numpy(bias.copy()).requires_grad_(True)
    leafgrad.nn.functional.group_norm(x, 3, w, b).backward(leafgrad.tensor(upstream))
    torch.nn.functional.group_norm(tx, 3, tw, tb).backward(torch.from_numpy(upstream))
    for mine, torchs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(mine.grad.numpy(), torchs.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_group_norm_empty_batch_and_errors():
    values = np.zeros((0, 4, 2), np.float32)
    ours = leafgrad.nn.functional.group_norm(leafgrad.tensor(values), 2)
    theirs = torch.nn.functional.group_norm(torch.from_numpy(values), 2)
    assert tuple(ours.shape) == tuple(theirs.shape)
    values = _input((2, 6, 3), 0)
    with pytest.raises(RuntimeError) as expected:
        torch.nn.functional.group_norm(torch.from_numpy(values), 4)
    with pytest.raises(RuntimeError) as got:
        leafgrad.nn.functional.group_norm(leafgrad.tensor(values), 4)
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def test_compiled_layer_norm_bits():
    """A captured step replays the op's forward: the same bits as eager torch."""
    values = _input((8, 96), 11)
    compiled = leafgrad.compile(lambda x: leafgrad.nn.functional.layer_norm(x * 1.0, (96,)))
    expected = torch.nn.functional.layer_norm(torch.from_numpy(values), (96,)).numpy()
    for _ in range(3):
        assert _bits(compiled(leafgrad.tensor(values)).numpy()) == _bits(expected)


def test_default_mode_is_close():
    """Without the switch: NumPy's float64 statistics, within float tolerance of torch."""
    leafgrad.backends.cpu.torch_bits = False
    values = _input((16, 200), 12)
    ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), (200,)).numpy()
    theirs = torch.nn.functional.layer_norm(torch.from_numpy(values), (200,)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


_BAD_CALLS = {
    "group_norm 0-d": lambda lib: lib.nn.functional.group_norm(lib.tensor(1.0), 1),
    "group_norm 1-d": lambda lib: lib.nn.functional.group_norm(lib.ones(4), 2),
    "group_norm weight size": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4), 2,
                                                                      lib.ones(3)),
    "group_norm weight 2-d": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4), 2,
                                                                     lib.ones(2, 2)),
    "group_norm bias size": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4), 2,
                                                                    lib.ones(4), lib.ones(3)),
    "group_norm bias, no weight": lambda lib: lib.nn.functional.group_norm(
        lib.ones(2, 4), 2, None, lib.ones(3)),
    "group_norm indivisible before weight": lambda lib: lib.nn.functional.group_norm(
        lib.ones(2, 5), 2, lib.ones(3)),
    "group_norm one value per group": lambda lib: lib.nn.functional.group_norm(
        lib.ones(1, 4, 1), 4),
    "group_norm int64": lambda lib: lib.nn.functional.group_norm(
        lib.ones(2, 4, dtype=lib.int64), 2),
    "group_norm uint8": lambda lib: lib.nn.functional.group_norm(
        lib.ones(2, 4, dtype=lib.uint8), 2),
    "layer_norm weight shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 4), (4,),
                                                                       lib.ones(1, 4)),
    "layer_norm bias shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 4), (4,),
                                                                     None, lib.ones(5)),
    "layer_norm weight before input": lambda lib: lib.nn.functional.layer_norm(
        lib.ones(2, 5), (4,), lib.ones(3)),
    "layer_norm int64": lambda lib: lib.nn.functional.layer_norm(
        lib.ones(2, 4, dtype=lib.int64), (4,)),
    "layer_norm bool": lambda lib: lib.nn.functional.layer_norm(
        lib.ones(2, 4, dtype=lib.bool), (4,)),
    "layer_norm int32 module": lambda lib: lib.nn.LayerNorm(4, elementwise_affine=False)(
        lib.ones(2, 4, dtype=lib.int32)),
}


@pytest.mark.parametrize("name", sorted(_BAD_CALLS))
def test_bad_calls_raise_torchs_error(name):
    call = _BAD_CALLS[name]
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(leafgrad)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_float64_keeps_its_path():
    """The replay is float32's and float16's: float64 inputs keep leafgrad's own computation
    under torch_bits (close to torch's, float64 kept)."""
    values = _input((8, 40), 13).astype(np.float64)
    for kind, args in (("layer_norm", ((40,),)), ("group_norm", (2,))):
        shape = (8, 40) if kind == "layer_norm" else (8, 4, 10)
        ours = getattr(leafgrad.nn.functional, kind)(leafgrad.tensor(values.reshape(shape)),
                                                     *args)
        theirs = getattr(torch.nn.functional, kind)(torch.from_numpy(values.reshape(shape)),
                                                    *args)
        assert ours.dtype == leafgrad.float64
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 6), (7, 15), (5, 16), (3, 40), (8, 300), (2, 1000),
                                   (2, 4100)])
@pytest.mark.parametrize("affine", _AFFINE)
def test_float16_layer_norm_bits(shape, affine):
    """float16 rows are read as 16-lane vectors, each converted to two float32 vectors that
    take turns in the cascade; the output is computed in float32 and rounded to float16."""
    values = _input(shape, sum(shape)).astype(np.float16)
    weight, bias = (None if a is None else a.astype(np.float16)
                    for a in _affine(affine, shape[-1], 4))
    (w, tw), (b, tb) = _both(weight), _both(bias)
    ours = leafgrad.nn.functional.layer_norm(leafgrad.tensor(values), (shape[-1],), w, b)
    theirs = torch.nn.functional.layer_norm(torch.from_numpy(values), (shape[-1],), tw, tb)
    assert ours.dtype == leafgrad.float16
    assert _bits(ours.numpy()) == _bits(theirs.numpy())
    ours = leafgrad.native_layer_norm(leafgrad.tensor(values), (shape[-1],), w, b, 1e-5)
    theirs = torch.native_layer_norm(torch.from_numpy(values), (shape[-1],), tw, tb, 1e-5)
    for mine, torchs in zip(ours, theirs):
        assert _bits(mine.numpy()) == _bits(torchs.numpy())


@pytest.mark.parametrize("shape,groups", [((4, 6, 5), 3), ((8, 32, 7, 7), 8),
                                          ((2, 12, 100), 4), ((3, 4), 2)])
@pytest.mark.parametrize("affine", _AFFINE)
def test_float16_group_norm_bits(shape, groups, affine):
    values = _input(shape, sum(shape)).astype(np.float16)
    weight, bias = (None if a is None else a.astype(np.float16)
                    for a in _affine(affine, shape[1], 4))
    (w, tw), (b, tb) = _both(weight), _both(bias)
    ours = leafgrad.nn.functional.group_norm(leafgrad.tensor(values), groups, w, b)
    theirs = torch.nn.functional.group_norm(torch.from_numpy(values), groups, tw, tb)
    assert ours.dtype == leafgrad.float16
    assert _bits(ours.numpy()) == _bits(theirs.numpy())
