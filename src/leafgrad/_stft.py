"""``torch.stft`` (and ``Tensor.stft``): the short-time Fourier transform, built as torch builds
it: optional centre padding, frames as an ``as_strided`` view, the window product, one r2c or
c2c transform over the frames and an in-place transpose, so its graph has torch's nodes.

>>> import leafgrad as torch
>>> torch.stft(torch.arange(8.), 4, center=False, return_complex=True).shape
leafgrad.Size([3, 3])
"""

from __future__ import annotations

import warnings

from . import _argparse
from .nn import functional as _F
from .ops.fft import FftC2C, FftR2C
from .tensor import Tensor

__all__ = ["stft"]

_RETURN_COMPLEX = ("stft requires the return_complex parameter be given for real inputs, and "
                   "will further require that return_complex=True in a future PyTorch release.")
_DEPRECATED = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
               "will return complex tensors for all inputs, and return_complex=False will raise "
               "an error.\nNote: you can still call torch.view_as_real on the complex output to "
               "recover the old return format.")
_warned = [False]  # torch's TORCH_WARN_ONCE


def _flag(value) -> str:
    return "None" if value is None else str(int(bool(value)))


def _describe(tensor: Tensor) -> str:
    return f"torch.{tensor.dtype._legacy}Tensor"


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of a 1-d signal or a batch of them (2-d): frames of
    ``n_fft`` samples every ``hop_length``, each multiplied by ``window`` and transformed."""
    if not isinstance(input, Tensor):
        if center:  # torch's Python wrapper reads input.dim() first
            raise AttributeError(f"'{_argparse.typename(input)}' object has no attribute 'dim'")
        raise _argparse.invalid_combination("stft", (  # torch's _VF.stft call, positional
            input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
            align_to_window), {})
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.ndim
        extended = [1] * (3 - signal_dim) + list(input.shape)
        pad = int(n_fft // 2)
        input = _F.pad(input.view(extended), [pad, pad], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    n_fft = int(n_fft)
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    window_complex = window is not None and window.dtype.is_complex
    wants_complex = return_complex
    if wants_complex is None:
        wants_complex = input.dtype.is_complex or window_complex
    if not wants_complex:
        if return_complex is None:
            raise RuntimeError(_RETURN_COMPLEX)
        if not _warned[0]:
            _warned[0] = True
            warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)

    def fail(problem: str):
        described = ("None" if window is None else
                     f"{_describe(window)}{{{list(window.shape)}}}")
        raise RuntimeError(
            f"stft({_describe(input)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={described}, normalized={_flag(normalized)}, "
            f"onesided={_flag(onesided)}, return_complex={_flag(wants_complex)}, "
            f"align_to_window={_flag(align_to_window)}) : {problem}")

    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        fail("expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        fail("expected a 1D or 2D tensor")
    frames = input.unsqueeze(0) if input.ndim == 1 else input
    length = frames.shape[1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window "
             f"with size {list(window.shape)}")
    padded_window = window
    if win < n_fft:
        left = (n_fft - win) // 2
        if align_to_window:  # frames start where the window starts: pad the signal instead
            frames = _F.pad(frames, [left, n_fft - win - left])
            length = frames.shape[1]
        base = window if window is not None else frames
        padded_window = base.new_zeros(n_fft)
        if window is not None:
            padded_window[left:left + win] = window
        else:
            padded_window[left:left + win] = 1
    count = 1 + (length - n_fft) // hop
    strides = frames.stride()
    frames = frames.as_strided((frames.shape[0], count, n_fft),
                               (strides[0], hop * strides[1], strides[1]))
    if padded_window is not None:
        frames = frames * padded_window
    if frames.dtype.name == "float16":  # torch's CPU transforms have no half kernel
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
    complex_fft = frames.dtype.is_complex
    one_sided = (not complex_fft) if onesided is None else bool(onesided)
    normalization = 1 if normalized else 0
    if complex_fft:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = FftC2C.apply(frames, dim=(2,), normalization=normalization, forward=True)
    else:
        out = FftR2C.apply(frames, dim=(2,), normalization=normalization, onesided=one_sided)
    out.transpose_(1, 2)
    if input.ndim == 1:
        out.squeeze_(0)
    if wants_complex:
        return out
    from ._functions_complex import view_as_real

    return view_as_real(out)
