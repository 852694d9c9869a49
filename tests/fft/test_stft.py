"""torch.stft / Tensor.stft against torch 2.13: values, shapes, strides, grad_fn names, the
warning for return_complex=False, errors, and gradients (against torch's, gradcheck)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck

from .._torch import require_torch
from .test_fft import _array, _tensor, same

torch = require_torch()


def _signal(shape=(20,), dtype="float32", requires_grad=False, seed=0):
    array = _array(shape, dtype, seed)
    return lambda lib: _tensor(lib, array, dtype, requires_grad)


CALLS = [
    lambda lib, x: lib.stft(x, 8, return_complex=True),
    lambda lib, x: lib.stft(x, 8, center=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8), return_complex=True),
    lambda lib, x: lib.stft(x, 8, 3, 6, lib.hamming_window(6), return_complex=True),
    lambda lib, x: x.stft(8, hop_length=3, win_length=5, return_complex=True),
    lambda lib, x: x.stft(5, hop_length=1, normalized=True, onesided=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, center=False, win_length=4, align_to_window=True,
                            return_complex=True),
    lambda lib, x: lib.stft(x, 8, center=False, win_length=5, window=lib.hann_window(5),
                            align_to_window=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, center=False, align_to_window=True, return_complex=True),
    lambda lib, x: lib.stft(x, 8, pad_mode="constant", return_complex=True),
    lambda lib, x: lib.stft(x, 6, pad_mode="replicate", return_complex=True),
    lambda lib, x: lib.stft(x, 4, pad_mode="circular", return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8, dtype=lib.float64),
                            return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8).to(lib.complex64)),
    lambda lib, x: lib.stft(x, 8, window=lib.hann_window(8).to(lib.complex64), onesided=True),
    lambda lib, x: lib.stft(x, 8, return_complex=False),
    lambda lib, x: lib.stft(x, 20, center=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, hop_length=100, return_complex=True),
    # errors, in torch's order
    lambda lib, x: lib.stft(x, 8),
    lambda lib, x: lib.stft(x, 8, return_complex=None, window=lib.ones(8)),
    lambda lib, x: lib.stft(x, 64, center=False, return_complex=True),
    lambda lib, x: lib.stft(x, 0, return_complex=True),
    lambda lib, x: lib.stft(x, 8, hop_length=0, return_complex=True),
    lambda lib, x: lib.stft(x, 8, hop_length=-2, return_complex=True),
    lambda lib, x: lib.stft(x, 8, win_length=9, return_complex=True),
    lambda lib, x: lib.stft(x, 8, win_length=0, return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.ones(7), return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.ones(2, 4), win_length=2, return_complex=False),
    lambda lib, x: lib.stft(x, 8, pad_mode="foo", return_complex=True),
    lambda lib, x: lib.stft(x, 8, align_to_window=True, return_complex=True),
    lambda lib, x: lib.stft(x.half(), 8, return_complex=True),
    lambda lib, x: lib.stft(x.long(), 8, center=False, return_complex=True),
    lambda lib, x: lib.stft(x.reshape(2, 2, 5), 2, center=False, return_complex=True),
    lambda lib, x: lib.stft(x[0], 8, return_complex=True),
    lambda lib, x: lib.stft(x.tolist(), 8, return_complex=True),
    lambda lib, x: lib.stft(x.tolist(), 8, center=False, return_complex=True),
]


@pytest.mark.parametrize("index", range(len(CALLS)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft(index, dtype):
    same(CALLS[index], _signal((20,), dtype))


@pytest.mark.parametrize("index", range(len(CALLS)))
def test_stft_batched_and_non_contiguous(index):
    same(CALLS[index], _signal((3, 20), "float64"))
    array = _array((20, 3), "float64", 1)
    same(lambda lib: CALLS[index](lib, lib.tensor(array)[:, 1]))


@pytest.mark.parametrize("index", [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16])
def test_stft_of_complex_signals(index):
    """Complex signals: two-sided c2c transforms, padded by reflection, replication, zeros or
    circularly as torch pads them; onesided=True refused as torch refuses it."""
    same(CALLS[index], _signal((20,), "complex128"))


def test_return_complex_false_warns_once_like_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.stft(leafgrad.ones(16), 4, return_complex=False)
        leafgrad.stft(leafgrad.ones(16), 4, return_complex=False)
    messages = [str(w.message) for w in caught if "return_complex=False" in str(w.message)]
    assert len(messages) <= 1  # once per process, as torch's TORCH_WARN_ONCE
    if messages:
        assert messages[0].startswith("stft with return_complex=False is deprecated.")


GRAD_CALLS = [
    lambda lib, x, w: lib.view_as_real(lib.stft(x, 8, window=w, return_complex=True)),
    lambda lib, x, w: lib.stft(x, 8, 3, window=w, center=False, return_complex=False),
    lambda lib, x, w: lib.view_as_real(lib.stft(x, 8, 2, 6, w[:6], normalized=True,
                                                onesided=False, return_complex=True)),
    lambda lib, x, w: lib.view_as_real(lib.stft(x, 8, 5, 5, w[:5], center=False,
                                                align_to_window=True, return_complex=True)),
]


@pytest.mark.parametrize("index", range(len(GRAD_CALLS)))
def test_stft_gradients(index):
    """Gradients for the signal and the window (every subset requiring grad) equal torch's;
    gradcheck and gradgradcheck pass."""
    call = GRAD_CALLS[index]
    signal, window = _array((2, 24), "float64", 2), _array((8,), "float64", 3)
    for mask in ((True, True), (True, False), (False, True)):
        results = []
        for lib in (torch, leafgrad):
            x = lib.tensor(signal, requires_grad=mask[0])
            w = lib.tensor(window, requires_grad=mask[1])
            out = call(lib, x, w)
            grad_out = lib.tensor(_array(tuple(out.shape), "float64", 4))
            inputs = [t for t, wanted in zip((x, w), mask) if wanted]
            results.append([g.numpy() for g in lib.autograd.grad(out, inputs, grad_out)])
            if lib is leafgrad:
                assert out.grad_fn.name() == expected_name
            else:
                expected_name = out.grad_fn.name()
        for got, want in zip(results[1], results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    x = leafgrad.tensor(signal, requires_grad=True)
    w = leafgrad.tensor(window, requires_grad=True)
    assert gradcheck(lambda a, b: call(leafgrad, a, b), (x, w), eps=1e-6, atol=1e-5)
    assert gradgradcheck(lambda a, b: call(leafgrad, a, b), (x, w), eps=1e-6, atol=1e-5)


# -- istft ----------------------------------------------------------------------------------------


def _spectrum(lib, signal, n_fft=8, **kwargs):
    window = kwargs.pop("window", lib.hann_window(n_fft, dtype=lib.float64))
    return lib.stft(lib.tensor(signal), n_fft, window=window, return_complex=True, **kwargs)


SIGNAL = _array((20,), "float64", 7)
def _hann(lib, length):
    """A float64 Hann window: float32 windows differ from torch's in the last place (its
    cosine), which the division by a small envelope near the ends magnifies."""
    return lib.hann_window(length, dtype=lib.float64)


ISTFT_CALLS = [
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=_hann(lib, 8)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8),
    lambda lib: _spectrum(lib, SIGNAL).istft(8, window=_hann(lib, 8), normalized=True),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=_hann(lib, 8), length=30),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=_hann(lib, 8), length=12),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL, onesided=False), 8,
                          window=_hann(lib, 8), return_complex=True),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL, onesided=False), 8, window=_hann(lib, 8)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL.reshape(2, 10), 4), 4,
                          window=_hann(lib, 4)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL, hop_length=2, win_length=6,
                                    window=_hann(lib, 6)), 8, 2, 6, _hann(lib, 6)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL).conj(), 8, window=_hann(lib, 8)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=lib.ones(8, dtype=lib.int64)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL, center=False), 8, window=lib.ones(8),
                          center=False),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL).to(lib.complex64), 8, window=lib.hann_window(8)),
    # errors
    lambda lib: lib.istft(lib.view_as_real(_spectrum(lib, SIGNAL)), 8),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL)[:, :0], 8),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL)[0], 8),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL)[0, 0], 8),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL)[None, None], 8),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 6),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, onesided=False),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, hop_length=9),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, hop_length=0),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, win_length=9),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=lib.ones(7)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=lib.zeros(8)),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, window=_hann(lib, 8), center=False),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL), 8, return_complex=True),
    lambda lib: lib.istft(_spectrum(lib, SIGNAL, onesided=False), 8,
                          window=lib.hann_window(8).to(lib.complex64)),
    lambda lib: lib.istft([1.0], 8),
]


@pytest.mark.parametrize("index", range(len(ISTFT_CALLS)))
def test_istft(index):
    same(ISTFT_CALLS[index])


def test_istft_round_trip_and_gradients():
    """istft(stft(x)) recovers x; gradients through both (signal and window) equal torch's;
    gradcheck and gradgradcheck pass."""
    def round_trip(lib, x, w):
        spectrum = lib.stft(x, 8, 2, window=w, return_complex=True)
        return lib.istft(spectrum * 1.5, 8, 2, window=w, length=18)

    signal, window = _array((18,), "float64", 8), _array((8,), "float64", 9) ** 2 + 0.5
    out = round_trip(leafgrad, leafgrad.tensor(signal), leafgrad.tensor(window))
    np.testing.assert_allclose(out.numpy(), 1.5 * signal, rtol=1e-12, atol=1e-12)
    results = []
    for lib in (torch, leafgrad):
        x = lib.tensor(signal, requires_grad=True)
        w = lib.tensor(window, requires_grad=True)
        y = round_trip(lib, x, w)
        results.append((y.grad_fn.name(), [g.numpy() for g in lib.autograd.grad(
            (y * lib.arange(18.0, dtype=lib.float64)).sum(), (x, w))]))
    assert results[1][0] == results[0][0]
    for got, want in zip(results[1][1], results[0][1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    x = leafgrad.tensor(signal, requires_grad=True)
    w = leafgrad.tensor(window, requires_grad=True)
    assert gradcheck(lambda a, b: round_trip(leafgrad, a, b), (x, w), eps=1e-6, atol=1e-5)
    assert gradgradcheck(lambda a, b: round_trip(leafgrad, a, b), (x, w), eps=1e-6, atol=1e-5)


def test_no_window_warns_once_like_torch():
    """torch warns once per process that a rectangular window is used (after its checks)."""
    import leafgrad._stft as module

    module._warned_window[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            leafgrad.stft(leafgrad.ones(8), 40, center=False, return_complex=True)
        leafgrad.stft(leafgrad.ones(8), 4, return_complex=True)
        leafgrad.stft(leafgrad.ones(8), 4, return_complex=True)
        leafgrad.stft(leafgrad.ones(8), 4, window=leafgrad.ones(4), return_complex=True)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.stft(torch.ones(8), 4, return_complex=True)
    if theirs:  # the first call of this process: the same text
        assert str(theirs[0].message).startswith(messages[0])


@pytest.mark.parametrize("index", range(6))
def test_autocast_casts_half_inputs_to_float(index):
    """The transforms and stft are on torch's autocast float32 list: inside autocast("cpu")
    a float16 input is cast to float32 (ToCopyBackward0 in the graph) and transformed; with
    center=True the reflection padding (on that list too) casts first, constant padding
    (not on it) leaves the cast to stft."""
    calls = [lambda lib, x: lib.fft.fft(x), lambda lib, x: lib.fft.rfftn(input=x, s=(6,)),
             lambda lib, x: lib.stft(x, 4, window=lib.ones(4), center=False,
                                     return_complex=True),
             lambda lib, x: lib.fft.fftshift(x),
             lambda lib, x: lib.stft(x, 4, window=lib.ones(4), return_complex=True),
             lambda lib, x: lib.stft(x, 4, window=lib.ones(4), pad_mode="constant",
                                     return_complex=True)]
    results = []
    for lib in (torch, leafgrad):
        x = lib.tensor(_array((8,), "float64", 5)).half().requires_grad_()
        with lib.autocast("cpu", dtype=lib.float16):
            out = calls[index](lib, x)
        chain, node = [], out.grad_fn
        while node is not None and node.next_functions:
            chain.append(node.name())
            node = node.next_functions[0][0]
        grad, = lib.autograd.grad(out.abs().sum(), x)
        results.append((str(out.dtype).split(".")[-1], chain, out.detach().numpy(),
                        grad.numpy()))
    (dtype_t, chain_t, value_t, grad_t), (dtype_l, chain_l, value_l, grad_l) = results
    assert (dtype_l, chain_l) == (dtype_t, chain_t)
    np.testing.assert_allclose(value_l, value_t, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(grad_l.astype(np.float64), grad_t.astype(np.float64), rtol=1e-2,
                               atol=1e-2)
