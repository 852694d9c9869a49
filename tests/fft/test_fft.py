"""leafgrad.fft against torch.fft 2.13: values, dtypes, shapes, strides, grad_fn names, errors,
out=, and gradients (against torch's and by finite differences, first and second order).

Each case is a program ``call(lib, *tensors)`` run once with torch and once with leafgrad on
the same input values; both must return the same thing or raise the same exception type with
the same first line of message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck

from .._torch import require_torch

torch = require_torch()

REAL = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
OTHER = ("float16", "int64", "int32", "int16", "int8", "uint8", "bool", "uint16")


def _array(shape, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype in COMPLEX:
        return rng.normal(size=shape) + 1j * rng.normal(size=shape)
    if dtype == "bool":
        return rng.normal(size=shape) > 0
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 5, size=shape)
    return rng.normal(size=shape)


def _tensor(lib, array: np.ndarray, dtype: str, requires_grad=False, layout=None):
    """``array`` as a ``lib`` tensor of ``dtype``; layout "t": a transposed (non-contiguous)
    view, "s": a strided slice."""
    if layout == "t":
        array = np.ascontiguousarray(array.T)
    if layout == "s":
        array = np.repeat(array, 2, axis=-1)
    base = lib.tensor(array).to(getattr(lib, dtype))
    if layout == "t":
        base = base.t() if base.ndim == 2 else base.permute(*reversed(range(base.ndim)))
    if layout == "s":
        base = base[..., ::2]
    if requires_grad:
        base = base.detach().requires_grad_()
    return base


def _first_line(error: BaseException) -> str:
    text = str(error).replace("leafgrad.", "torch.")
    return text.splitlines()[0] if text else ""


def _tolerance(dtype) -> dict:
    name = str(dtype).split(".")[-1]
    if name in ("float32", "complex64"):
        return {"rtol": 2e-5, "atol": 2e-5}
    if name == "float16":
        return {"rtol": 1e-3, "atol": 1e-3}
    return {"rtol": 1e-10, "atol": 1e-10}


def _values(tensor) -> np.ndarray:
    return tensor.detach().resolve_conj().numpy()


def _compare(ours, theirs, layout: bool = True) -> None:
    """Values, dtype, shape, grad_fn name; with ``layout`` strides and the conj bit too (not
    for gradients: leafgrad's padding and conj ops lay their gradients out their own way)."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    if layout and theirs.numel():  # an empty tensor's strides say nothing
        assert ours.stride() == theirs.stride()
    assert ours.requires_grad == theirs.requires_grad
    if layout:
        assert ours.is_conj() == theirs.is_conj()
    if theirs.grad_fn is None:
        assert ours.grad_fn is None
    else:
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(_values(ours), _values(theirs), **_tolerance(theirs.dtype))


def same(call, *inputs):
    """Run ``call`` with torch and with leafgrad on ``inputs`` (each a function of the library
    making a tensor); compare results or errors; return both results."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = call(torch, *(make(torch) for make in inputs))
    except Exception as error:  # noqa: BLE001 - any torch error must be ours too
        with pytest.raises(type(error)) as ours:
            call(leafgrad, *(make(leafgrad) for make in inputs))
        assert _first_line(ours.value) == _first_line(error)
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(leafgrad, *(make(leafgrad) for make in inputs))
    _compare(out, expected)
    return out, expected


def _input(shape, dtype, seed=0, requires_grad=False, layout=None):
    array = _array(shape, dtype, seed)
    return lambda lib: _tensor(lib, array, dtype, requires_grad, layout)


# -- forward: every transform, dtype, size argument and norm ---------------------------------

ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_DIM = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
TWO_DIM = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
NORMS = (None, "backward", "forward", "ortho")
DTYPES = REAL + COMPLEX + OTHER


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("args", [{}, {"n": 3}, {"n": 8}, {"dim": 0}, {"n": 5, "dim": -2},
                                  {"n": 1}, {"dim": 1, "n": 4}])
def test_one_dim(name, dtype, args):
    for norm in NORMS:
        same(lambda lib, x: getattr(lib.fft, name)(x, norm=norm, **args), _input((3, 6), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", N_DIM + TWO_DIM)
@pytest.mark.parametrize("args", [{}, {"s": (3, 5)}, {"dim": (0,)}, {"dim": (2, 0)},
                                  {"s": (4, -1), "dim": (1, 2)}, {"s": (2, 2, 2)},
                                  {"dim": (-1, 0, 1)}, {"s": 3}, {"dim": 1}, {"s": (7,)}])
def test_n_dim(name, dtype, args):
    for norm in NORMS:
        same(lambda lib, x: getattr(lib.fft, name)(x, norm=norm, **args),
             _input((2, 3, 4), dtype))


@pytest.mark.parametrize("layout", ["t", "s"])
@pytest.mark.parametrize("name", ONE_DIM + N_DIM + TWO_DIM)
@pytest.mark.parametrize("dtype", ("float32", "complex128"))
def test_non_contiguous_inputs(name, dtype, layout):
    """Values and torch's result strides (which follow the input's strides) for transposed
    and strided inputs."""
    for args in ({}, {"dim": 0} if name in ONE_DIM else {"dim": (0, 2)}):
        same(lambda lib, x: getattr(lib.fft, name)(x, **args), _input((4, 3, 6), dtype,
                                                                          layout=layout))


@pytest.mark.parametrize("name", ONE_DIM + N_DIM + TWO_DIM)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 0), (0, 4), (1, 1)])
def test_zero_dim_and_empty(name, shape):
    for dtype in ("float64", "complex64"):
        if 0 in shape[:-1] and name not in ("fftn", "ifftn", "fft2", "ifft2"):
            continue  # see test_empty_batches
        same(lambda lib, x: getattr(lib.fft, name)(x), _input(shape, dtype))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "fft2", "rfft2"])
def test_empty_batches(name):
    """Note: fft of empty batches (leafgrad/fft.py): torch's MKL backend refuses a zero-size
    dim that is not transformed; leafgrad returns the empty result NumPy gives, of torch's
    result shape and dtype (that of the same call with one batch entry)."""
    x = leafgrad.zeros(0, 3, 4)
    out = getattr(leafgrad.fft, name)(x)
    one = getattr(torch.fft, name)(torch.zeros(1, 3, 4))
    assert tuple(out.shape) == (0,) + tuple(one.shape[1:])
    assert str(out.dtype).split(".")[-1] == str(one.dtype).split(".")[-1]
    with pytest.raises(RuntimeError, match="MKL FFT error"):
        getattr(torch.fft, name)(torch.zeros(0, 3, 4))


# -- gradients ------------------------------------------------------------------------------

GRAD_CASES = [
    ("fft", {}), ("fft", {"n": 4, "norm": "ortho"}), ("fft", {"n": 9, "dim": 0}),
    ("ifft", {}), ("ifft", {"n": 3, "norm": "forward"}),
    ("rfft", {}), ("rfft", {"n": 9, "dim": 0, "norm": "ortho"}), ("rfft", {"n": 4}),
    ("irfft", {}), ("irfft", {"n": 5}), ("irfft", {"n": 8, "dim": 0, "norm": "forward"}),
    ("hfft", {}), ("hfft", {"n": 7, "norm": "ortho"}),
    ("ihfft", {}), ("ihfft", {"n": 4, "dim": 0}),
    ("fftn", {}), ("fftn", {"s": (3, 5), "norm": "ortho"}), ("ifftn", {"dim": (1,)}),
    ("fft2", {"s": (6, 2)}), ("ifft2", {"norm": "forward"}),
    ("rfftn", {}), ("rfftn", {"s": (2, 7)}), ("rfft2", {"dim": (1, 0), "norm": "ortho"}),
    ("irfftn", {}), ("irfftn", {"s": (3, 5)}), ("irfft2", {"s": (-1, 4), "norm": "forward"}),
    ("hfftn", {}), ("hfft2", {"s": (2, 5), "norm": "ortho"}),
    ("ihfftn", {}), ("ihfft2", {"s": (5, 3)}), ("ihfftn", {"dim": (1,), "norm": "forward"}),
]


def _grad_inputs(name: str, dtype: str):
    if name.startswith(("rfft", "ihfft")) and dtype in COMPLEX:
        return None
    return _array((4, 6), dtype, seed=len(name))


@pytest.mark.parametrize("dtype", ("float64", "complex128", "float32", "complex64"))
@pytest.mark.parametrize("name,args", GRAD_CASES)
def test_gradients_match_torch(name, args, dtype):
    array = _grad_inputs(name, dtype)
    if array is None:
        return
    x_ours = _tensor(leafgrad, array, dtype, requires_grad=True)
    x_theirs = _tensor(torch, array, dtype, requires_grad=True)
    out = getattr(leafgrad.fft, name)(x_ours, **args)
    expected = getattr(torch.fft, name)(x_theirs, **args)
    _compare(out, expected)
    grad = _array(tuple(expected.shape), str(expected.dtype).split(".")[-1], seed=3)
    g_ours, = leafgrad.autograd.grad(out, x_ours, leafgrad.tensor(grad).to(out.dtype),
                                     retain_graph=True)
    g_theirs, = torch.autograd.grad(expected, x_theirs, torch.tensor(grad).to(expected.dtype),
                                    retain_graph=True)
    _compare(g_ours, g_theirs, layout=False)
    # second order: the backward is linear in the incoming gradient; differentiate through it
    v_ours = leafgrad.tensor(grad).to(out.dtype).requires_grad_()
    v_theirs = torch.tensor(grad).to(expected.dtype).requires_grad_()
    g_ours, = leafgrad.autograd.grad(out, x_ours, v_ours, create_graph=True)
    g_theirs, = torch.autograd.grad(expected, x_theirs, v_theirs, create_graph=True)
    _compare(g_ours, g_theirs, layout=False)
    gg_ours, = leafgrad.autograd.grad((g_ours.abs() ** 2).sum(), v_ours)
    gg_theirs, = torch.autograd.grad((g_theirs.abs() ** 2).sum(), v_theirs)
    _compare(gg_ours, gg_theirs, layout=False)


@pytest.mark.parametrize("dtype", ("float64", "complex128"))
@pytest.mark.parametrize("name,args", GRAD_CASES)
def test_gradcheck(name, args, dtype):
    array = _grad_inputs(name, dtype)
    if array is None:
        return
    x = _tensor(leafgrad, array, dtype, requires_grad=True)
    function = getattr(leafgrad.fft, name)
    assert gradcheck(lambda t: function(t, **args), (x,), eps=1e-6, atol=1e-5)
    assert gradgradcheck(lambda t: function(t, **args), (x,), eps=1e-6, atol=1e-5)


def test_c2r_ignores_imaginary_parts_of_the_self_conjugate_bins():
    """irfft reads only the real parts of the zero and (even n) Nyquist bins: their imaginary
    parts get a zero gradient, in torch and in leafgrad, and gradcheck agrees for both."""
    array = _array((5,), "complex128", 1)
    x_theirs = torch.tensor(array, requires_grad=True)
    x_ours = leafgrad.tensor(array, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.fft.irfft(t), (x_theirs,))
    assert gradcheck(lambda t: leafgrad.fft.irfft(t), (x_ours,))
    g_theirs, = torch.autograd.grad((torch.fft.irfft(x_theirs) ** 2).sum(), x_theirs)
    g_ours, = leafgrad.autograd.grad((leafgrad.fft.irfft(x_ours) ** 2).sum(), x_ours)
    assert g_ours.numpy().imag[0] == 0 and g_ours.numpy().imag[-1] == 0
    np.testing.assert_allclose(g_ours.numpy(), g_theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_forward_mode_matches_torch():
    array = _array((4, 6), "complex128", 5)
    tangent = _array((4, 6), "complex128", 6)
    results = []
    for lib in (torch, leafgrad):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            x = forward_ad.make_dual(lib.tensor(array), lib.tensor(tangent))
            out = lib.fft.hfft2(lib.fft.ifft(x, n=5) * 2, s=(3, 4))
            results.append(forward_ad.unpack_dual(out).tangent.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-10, atol=1e-12)


def test_inputs_requiring_grad_in_a_graph():
    """Slicing, padding and promotion are recorded as torch records them (the grad_fn chain)."""
    def chain(tensor):
        names, node = [], tensor.grad_fn
        while node is not None and hasattr(node, "next_functions"):
            names.append(node.name())
            nodes = [n for n, _ in node.next_functions if n is not None]
            node = nodes[0] if nodes else None
        return names

    calls = [lambda lib, x: lib.fft.fft(x, n=9), lambda lib, x: lib.fft.fft(x, n=2),
             lambda lib, x: lib.fft.irfft(x), lambda lib, x: lib.fft.hfft(x, n=11),
             lambda lib, x: lib.fft.ihfft2(x), lambda lib, x: lib.fft.hfftn(x, s=(5, 2)),
             lambda lib, x: lib.fft.ifft(x), lambda lib, x: lib.fft.fftshift(x),
             lambda lib, x: lib.fft.fftn(x * 1)]
    for call in calls:
        ours = call(leafgrad, leafgrad.ones(3, 4, requires_grad=True))
        theirs = call(torch, torch.ones(3, 4, requires_grad=True))
        assert chain(ours)[:-1] == chain(theirs)[:-1]


# -- errors and argument forms ------------------------------------------------------------------

X = _input((4,), "float32")
Z = _input((4,), "complex64")
M = _input((2, 3), "float32")
ZM = _input((2, 3), "complex64")
ERRORS = [
    (lambda lib, x: lib.fft.fft(x), _input((), "float32")),
    (lambda lib, x: lib.fft.fft(x, dim=1), X), (lambda lib, x: lib.fft.fft(x, dim=-2), X),
    (lambda lib, x: lib.fft.fft(x, n=0), X), (lambda lib, x: lib.fft.fft(x, n=-1), Z),
    (lambda lib, x: lib.fft.irfft(x, n=0), Z), (lambda lib, x: lib.fft.irfft(x[:1]), Z),
    (lambda lib, x: lib.fft.fft(x, norm="bad"), X), (lambda lib, x: lib.fft.ifft(x, norm=""), Z),
    (lambda lib, x: lib.fft.fft(x, n=0, norm="x"), X),
    (lambda lib, x: lib.fft.fft(x, dim=3, norm="x"), X),
    (lambda lib, x: lib.fft.fft(x.half(), dim=3), X),
    (lambda lib, x: lib.fft.rfft(x), Z), (lambda lib, x: lib.fft.ihfft(x), Z),
    (lambda lib, x: lib.fft.rfft2(x), ZM), (lambda lib, x: lib.fft.rfftn(x, dim=(3,)), ZM),
    (lambda lib, x: lib.fft.ihfft2(x), ZM), (lambda lib, x: lib.fft.ihfftn(x, norm="x"), Z),
    (lambda lib, x: lib.fft.ihfftn(x, dim=(4,)), Z), (lambda lib, x: lib.fft.ihfftn(x), Z),
    (lambda lib, x: lib.fft.fftn(x, dim=(0, 0)), M),
    (lambda lib, x: lib.fft.fftn(x, s=(2,), dim=(0, 1)), M),
    (lambda lib, x: lib.fft.fftn(x, s=(2, 2, 2)), M),
    (lambda lib, x: lib.fft.fftn(x, s=(0, 5)), M), (lambda lib, x: lib.fft.fftn(x, s=(-2, 5)), M),
    (lambda lib, x: lib.fft.rfftn(x, dim=()), M), (lambda lib, x: lib.fft.irfftn(x, dim=()), M),
    (lambda lib, x: lib.fft.hfftn(x, dim=()), M), (lambda lib, x: lib.fft.ihfftn(x, dim=()), M),
    (lambda lib, x: lib.fft.fftn(x, dim=()), M),
    (lambda lib, x: lib.fft.rfftn(x), _input((), "float32")),
    (lambda lib, x: lib.fft.fft2(x), X), (lambda lib, x: lib.fft.fftn(x, dim=(5,)), M),
    (lambda lib, x: lib.fft.fftn(x.half(), dim=(5,)), M),
    (lambda lib, x: lib.fft.irfftn(x, s=(1,)), Z),
    (lambda lib, x: lib.fft.irfftn(x[:1], dim=(0,)), Z),
    (lambda lib, x: lib.fft.hfft2(x[:, :1]), ZM),
    (lambda lib, x: lib.fft.fftn(x, dim=(0,)), _input((), "float32")),
    # argument types (torch's parser)
    (lambda lib, x: lib.fft.fft(x, dim=(0,)), X), (lambda lib, x: lib.fft.fft(x, n=2.0), X),
    (lambda lib, x: lib.fft.fft(x, 2.0), X), (lambda lib, x: lib.fft.fft([1.0, 2.0]), X),
    (lambda lib, x: lib.fft.fftn(x, s=2.5), M), (lambda lib, x: lib.fft.fftn(x, dim=(0.5,)), M),
    (lambda lib, x: lib.fft.fft2(x, dim=None), M), (lambda lib, x: lib.fft.fft2(x, s=None), M),
    (lambda lib, x: lib.fft.fft(x, norm=1), X), (lambda lib, x: lib.fft.fft(input=x), X),
    (lambda lib, x: lib.fft.fft(x, m=2), X), (lambda lib, x: lib.fft.fft(x, n=lib.tensor(3)), X),
    (lambda lib, x: lib.fft.fft(x, 3, 0, "ortho"), X),
    (lambda lib, x: lib.fft.fft(x, 3, 0, "ortho", 1), X),
    (lambda lib, x: lib.fft.rfft2(x, (2, 2), (0, 1), "forward"), M),
    (lambda lib, x: lib.fft.fftshift(x, dim=0.5), X), (lambda lib, x: lib.fft.fftshift(x, 0), X),
    (lambda lib, x: lib.fft.fftshift(x), _input((), "float32")),
    (lambda lib, x: lib.fft.fftshift(x, dim=2), M),
    (lambda lib, x: lib.fft.ifftshift(x, (1, -2)), M),
    (lambda lib, x: lib.fft.fftn(x, s=lib.tensor([3, 2])), M),
    (lambda lib, x: lib.fft.rfftn(x, dim=lib.tensor([1])), M),
    (lambda lib, x: lib.fft.fftshift(x, lib.tensor([0, 1])), M),
    (lambda lib, x: lib.fft.fftn(x, s=(3, None)), M),
    (lambda lib, x: lib.fft.fftn(x, s=(None, 3)), M),
    (lambda lib, x: lib.fft.fftn(x, dim=(0, 1.5)), M),
    (lambda lib, x: lib.fft.fftshift(x, lib.tensor([1])), M),
    (lambda lib, x: lib.fft.fftn(x, s=lib.tensor(3)), M),
    (lambda lib, x: lib.fft.fftn(x, dim=(lib.tensor(1),)), M),
    (lambda lib, x: lib.fft.fftn(x, s=lib.tensor([3])), X),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_and_call_forms(index):
    call, make = ERRORS[index]
    same(call, make)


# -- out= ---------------------------------------------------------------------------------------

OUT_CASES = [
    ("fft", X, "complex64", (4,)), ("fft", X, "complex128", (0,)), ("fft", X, "float32", (4,)),
    ("fft", X, "complex64", (3,)), ("fft", Z, "complex128", (4,)), ("fft", Z, "float32", (4,)),
    ("ifft", X, "complex64", (4,)), ("ifft", X, "float64", (4,)), ("ifft", Z, "complex64", (2,)),
    ("rfft", X, "complex64", (3,)), ("rfft", X, "float32", (0,)), ("rfft", Z, "complex64", (3,)),
    ("irfft", Z, "float32", (6,)), ("irfft", Z, "float64", (0,)), ("irfft", Z, "float16", (0,)),
    ("irfft", Z, "complex64", (6,)), ("irfft", Z, "int64", (6,)), ("irfft", X, "float32", (0,)),
    ("hfft", Z, "float32", (0,)), ("hfft", Z, "complex64", (0,)),
    ("ihfft", X, "complex64", (0,)), ("ihfft", X, "float32", (0,)),
    ("fftn", ZM, "complex128", (0,)), ("fftn", M, "float32", (0,)), ("fftn", Z, "float32", (0,)),
    ("fft2", M, "complex64", (2, 3)), ("ifft2", ZM, "complex64", (6,)),
    ("rfftn", M, "complex64", (0,)), ("rfftn", M, "float32", (0,)),
    ("rfft2", M, "complex128", (0,)),
    ("irfftn", ZM, "float32", (0,)), ("irfftn", ZM, "complex64", (0,)),
    ("irfft2", ZM, "float64", (1,)),
    ("hfftn", ZM, "float32", (0,)), ("hfft2", ZM, "complex64", (0,)),
    ("ihfftn", M, "complex64", (0,)), ("ihfft2", M, "complex64", (0,)),
    ("ihfft2", M, "float32", (0,)),
    ("ihfftn", M, "float32", (0,)),
]


@pytest.mark.parametrize("name,make,dtype,shape", OUT_CASES)
def test_out(name, make, dtype, shape):
    """out= in every transform: values cast into out (resized, with torch's warning when it
    had elements), torch's dtype checks in torch's order, out itself returned."""
    results = {}
    for lib in (torch, leafgrad):
        out = lib.zeros(shape, dtype=getattr(lib, dtype))
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                returned = getattr(lib.fft, name)(make(lib), out=out)
            assert returned is out
            results[lib] = (_values(out), out.dtype, tuple(out.shape),
                            [str(w.message).split(" (Triggered")[0] for w in caught])
        except Exception as error:  # noqa: BLE001
            results[lib] = (type(error), _first_line(error), tuple(out.shape))
    ours, theirs = results[leafgrad], results[torch]
    assert len(ours) == len(theirs)
    if len(theirs) == 3:
        assert ours == theirs
        return
    np.testing.assert_allclose(ours[0], theirs[0], rtol=2e-3, atol=2e-3)
    assert str(ours[1]).split(".")[-1] == str(theirs[1]).split(".")[-1]
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("name,make", [("fft", X), ("fft", Z), ("rfft", X), ("irfft", Z),
                                       ("hfft", X), ("fftn", M), ("rfft2", M), ("irfftn", ZM),
                                       ("hfft2", ZM), ("ihfft2", M), ("ifft2", ZM)])
def test_out_refuses_autograd(name, make):
    """With an input or out requiring grad, torch's primitives refuse out= (naming the aten
    primitive), and out is left as it was; under no_grad they write."""
    for lib in (torch, leafgrad):
        x = make(lib).requires_grad_()
        out = lib.zeros(0, dtype=lib.float32 if "hfft" in name[:4] or "irfft" in name
                        else lib.complex64)
        with pytest.raises(RuntimeError) as error:
            getattr(lib.fft, name)(x, out=out)
        assert tuple(out.shape) == (0,) and out._version == 0
        if lib is torch:
            expected = _first_line(error.value)
        else:
            assert _first_line(error.value) == expected
        with lib.no_grad():
            getattr(lib.fft, name)(x, out=out)
        assert not out.requires_grad and out.numel() > 0


def test_out_of_inverse_real_transforms_refuses_autograd():
    """ifft and ihfft of a real input requiring grad with out=: torch computes and leaves out
    with a grad_fn that cannot run; leafgrad refuses as for every out= call needing autograd."""
    x = leafgrad.ones(4, requires_grad=True)
    out = leafgrad.zeros(0, dtype=leafgrad.complex64)
    for name in ("ifft", "ihfft"):
        with pytest.raises(RuntimeError, match=r"^conj_physical\(\): functions with out="):
            getattr(leafgrad.fft, name)(x, out=out)
    assert out.shape == (0,)
    theirs = torch.fft.ifft(torch.ones(4, requires_grad=True),
                            out=torch.zeros(0, dtype=torch.complex64))
    assert type(theirs.grad_fn).__name__ == "NotImplemented"


def test_out_of_one_dim_ihfftn():
    """torch's ihfftn over one dim with out= passes its arguments to conj_physical_out the
    wrong way round: it writes into its own temporary and leaves out untouched. leafgrad
    writes the result into out, as every other transform does."""
    array = _array((4,), "float32", 0).astype(np.float32)
    theirs = torch.zeros(0, dtype=torch.complex64)
    torch.fft.ihfftn(torch.tensor(array), out=theirs)
    assert tuple(theirs.shape) == (0,)
    ours = leafgrad.zeros(0, dtype=leafgrad.complex64)
    assert leafgrad.fft.ihfftn(leafgrad.tensor(array), out=ours) is ours
    expected = torch.fft.ihfftn(torch.tensor(array)).resolve_conj().numpy()
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-6, atol=1e-6)


# -- shifts and frequencies ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_shifts(name, dtype):
    for shape, dim in (((5,), None), ((4, 5), None), ((4, 5), 0), ((4, 5), (1,)),
                       ((3, 4, 5), (-1, 0)), ((3, 4, 5), [0, 0]), ((0, 3), None)):
        same(lambda lib, x: getattr(lib.fft, name)(x, dim=dim), _input(shape, dtype))
    same(lambda lib, x: getattr(lib.fft, name)(x, (0, 1)), _input((3, 4), dtype, layout="t"))


def test_shift_gradients():
    for name in ("fftshift", "ifftshift"):
        same(lambda lib, x: lib.autograd.grad((getattr(lib.fft, name)(x, dim=0) *
                                               lib.arange(5.)[:, None]).sum(), x)[0],
             _input((5, 2), "float64", requires_grad=True))
        x = leafgrad.tensor(_array((3, 4), "complex128", 1), requires_grad=True)
        assert gradcheck(lambda t: getattr(leafgrad.fft, name)(t), (x,))


FREQ_CALLS = [
    lambda lib, f: f(5), lambda lib, f: f(6), lambda lib, f: f(1), lambda lib, f: f(0),
    lambda lib, f: f(-1), lambda lib, f: f(-5), lambda lib, f: f(7, 0.3),
    lambda lib, f: f(4, d=0), lambda lib, f: f(0, d=0), lambda lib, f: f(9, 2),
    lambda lib, f: f(4, -0.5),
    lambda lib, f: f(7, 0.1, dtype=lib.float64), lambda lib, f: f(9, 0.7, dtype=lib.float16),
    lambda lib, f: f(5, dtype=lib.int64), lambda lib, f: f(5, dtype=lib.bool),
    lambda lib, f: f(5, dtype=lib.complex64), lambda lib, f: f(5, requires_grad=True),
    lambda lib, f: f(5, dtype=lib.int64, requires_grad=True),
    lambda lib, f: f(2.5), lambda lib, f: f(5, "a"), lambda lib, f: f(5, d=lib.tensor(2.0)),
    lambda lib, f: f(lib.tensor(5)), lambda lib, f: f(5, requires_grad=1),
    lambda lib, f: f(5, dtype="float32"),
    lambda lib, f: f(5, out=lib.zeros(5)), lambda lib, f: f(5, out=lib.zeros(2)),
    lambda lib, f: f(5, out=lib.zeros(0, dtype=lib.float64)),
    lambda lib, f: f(5, out=lib.zeros(5, dtype=lib.int64)),
    lambda lib, f: f(5, out=lib.zeros(5, requires_grad=True)),
    lambda lib, f: f(5, out=lib.zeros(5), requires_grad=True),
    lambda lib, f: f(5, dtype=lib.float64, out=lib.zeros(5)),
    lambda lib, f: f(5, foo=1), lambda lib, f: f(n=4, d=0.5),
]


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("index", range(len(FREQ_CALLS)))
def test_frequencies(name, index):
    """Values exactly torch's (the same products in the same precision), dtypes,
    requires_grad, out= and errors."""
    call = FREQ_CALLS[index]
    ours, theirs = same(lambda lib: call(lib, getattr(lib.fft, name)))
    if theirs is not None:
        np.testing.assert_array_equal(_values(ours), _values(theirs))
        assert ours.is_leaf


FUNC_CALLS = [
    lambda lib, x: lib.vmap(lambda t: lib.fft.rfft2(t, norm="ortho"))(x),
    lambda lib, x: lib.vmap(lambda t: lib.fft.fft(t, n=5, dim=0), in_dims=2)(x),
    lambda lib, x: lib.vmap(lambda t: lib.fft.ihfftn(t, s=(3, 4)), in_dims=1)(x),
    lambda lib, x: lib.func.jacrev(lambda t: lib.view_as_real(lib.fft.rfft(t)))(x[0, 0]),
    lambda lib, x: lib.func.jacfwd(lambda t: lib.fft.irfft(lib.fft.rfft(t) * 2, n=6))(x[0, 0]),
    lambda lib, x: lib.func.jacrev(lambda t: lib.fft.hfft(t.to(lib.complex128), n=7))(x[0, 0]),
]


@pytest.mark.parametrize("index", range(len(FUNC_CALLS)))
def test_function_transforms(index):
    """vmap (any batch dim), jacrev and jacfwd over the transforms give torch's results."""
    array = _array((3, 4, 6), "float64", 11)
    ours = FUNC_CALLS[index](leafgrad, leafgrad.tensor(array))
    theirs = FUNC_CALLS[index](torch, torch.tensor(array))
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(_values(ours), _values(theirs), rtol=1e-10, atol=1e-12)
