"""``torch.stft`` (and ``Tensor.stft``): the short-time Fourier transform, built as torch builds
it: optional centre padding, frames as an ``as_strided`` view, the window product, one r2c or
c2c transform over the frames and an in-place transpose, so its graph has torch's nodes.

>>> import leafgrad as torch
>>> torch.stft(torch.arange(8.), 4, window=torch.hann_window(4), center=False,
...            return_complex=True).shape
leafgrad.Size([3, 5])

``torch.istft`` inverts it by overlap-add (UnfoldBackwardBackward0) divided by the window's
squared envelope, again with torch's steps and nodes.
"""

from __future__ import annotations

import warnings

from . import _argparse
from .amp._state import state as _autocast_state
from .nn import functional as _F
from .ops.fft import FftC2C, FftR2C
from .tensor import Tensor

__all__ = ["stft", "istft"]

_RETURN_COMPLEX = ("stft requires the return_complex parameter be given for real inputs, and "
                   "will further require that return_complex=True in a future PyTorch release.")
_DEPRECATED = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
               "will return complex tensors for all inputs, and return_complex=False will raise "
               "an error.\nNote: you can still call torch.view_as_real on the complex output to "
               "recover the old return format.")
_warned = [False]  # torch's TORCH_WARN_ONCE
_warned_window = [False]
_warned_istft_window = [False]
_warned_complex_half = [False]
_COMPLEX_HALF = "ComplexHalf support is experimental and many operators don't support it yet."


def _warn_once(warned: list) -> bool:
    """Whether a TORCH_WARN_ONCE warning is due: the first time, or every time under
    set_warn_always."""
    from ._info import is_warn_always_enabled

    if is_warn_always_enabled():  # (torch's warn-always path leaves the once-flag alone)
        return True
    if warned[0]:
        return False
    warned[0] = True
    return True


_NO_WINDOW_ISTFT = ("A window was not provided. A rectangular window will be applied.Please "
                    "provide the same window used by stft to make the inversion lossless.To "
                    "suppress this warning and use a rectangular window, explicitly set "
                    "`window=torch.ones(n_fft, device=<device>)`.")
_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to "
              "cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")


def _flag(value) -> str:
    return "None" if value is None else str(int(bool(value)))


def _describe(tensor: Tensor) -> str:
    """torch's Tensor::toString: a legacy type name, or the dispatch type for complex ones."""
    if tensor.dtype.is_complex:
        return f"CPU{tensor.dtype._legacy}Type"
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
    if _autocast_state.active:  # aten::stft is on torch's autocast float32 list
        input, = _autocast_state.cast_args("fp32", (input,))
    if window is None and _warn_once(_warned_window):  # torch's TORCH_WARN_ONCE, before
        # any check of at::stft's (torch warns from C++ under torch/functional.py's stft:
        # attributed to torch's file)
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=1)
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
        if _warn_once(_warned):  # (TORCH_WARN_ONCE: each time under set_warn_always)
            warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)  # torch/functional.py's

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
        if _warn_once(_warned_complex_half):  # (torch allocates the ComplexHalf output first)
            warnings.warn(_COMPLEX_HALF, UserWarning, stacklevel=1)
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


_LENGTH_WARNING = ("The length of signal is shorter than the length parameter. Result is being "
                   "padded with zeros in the tail. Please check your center and hop_length "
                   "settings.")
_warned_length = [False]


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: overlap-add of the frames' inverse transforms, divided by the
    sum of the squared (shifted) windows."""
    from ._functions_complex import view_as_complex, view_as_real
    from .ops.fft import FftC2R
    from .ops.shape_misc import UnfoldBackward

    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argparse.typename(input)}")
    if window is None and _warn_once(_warned_istft_window):  # (TORCH_WARN_ONCE, first thing)
        warnings.warn(_NO_WINDOW_ISTFT, UserWarning, stacklevel=2)
    n_fft = int(n_fft)
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    spectrum = input.resolve_conj()
    real_dims = input.ndim + 1
    for wanted in (-2, -3):
        if real_dims < -wanted:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-real_dims}, {real_dims - 1}], but got {wanted})")
    frame_count = input.shape[-1]
    fft_size = input.shape[-2]
    expected_length = n_fft + hop * (frame_count - 1)

    def fail(problem: str, separator: str = " : "):
        described = ("None" if window is None else
                     f"{_describe(window)}{{{list(window.shape)}}}")
        raise RuntimeError(
            f"istft({_describe(input)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={described}, center={int(bool(center))}, "
            f"normalized={int(bool(normalized))}, onesided={_flag(onesided)}, "
            f"length={'None' if length is None else int(length)}, "
            f"return_complex={int(bool(return_complex))}){separator}{problem}")

    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if real_dims not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {real_dims}")
    one_sided = (fft_size != n_fft) if onesided is None else bool(onesided)
    if one_sided and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one_sided and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = input.real.dtype
    window_full = window if window is not None else spectrum.new_ones(win, dtype=real_dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        window_full = _F.pad(window_full, [left, n_fft - win - left])
    frames = view_as_real(spectrum)
    if real_dims == 3:
        frames = frames.unsqueeze(0)
    frames = view_as_complex(frames.transpose(1, 2))  # (channel, frames, fft_size)
    normalization = 1 if normalized else 2
    last = frames.ndim - 1
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = FftC2C.apply(frames, dim=(last,), normalization=normalization, forward=False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = FftC2R.apply(frames, dim=(last,), normalization=normalization,
                              last_dim_size=n_fft)
    weighted = frames * window_full.view(1, 1, n_fft)
    signal = UnfoldBackward.apply(weighted, input_sizes=(weighted.shape[0], expected_length),
                                  dimension=1, size=n_fft, step=hop)
    squared = (window_full ** 2).expand(1, frame_count, n_fft)
    envelope = UnfoldBackward.apply(squared, input_sizes=(1, expected_length), dimension=1,
                                    size=n_fft, step=hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = -(n_fft // 2)
    else:
        end = expected_length
    signal = signal[:, start:end]
    envelope = envelope[:, start:end]
    if bool(envelope.abs().min() < 1e-11):
        fail("window overlap add min: 1", separator=" ")
    signal = signal / envelope
    if real_dims == 3:
        signal = signal.squeeze(0)
    if end > expected_length:
        if not _warned_length[0]:
            _warned_length[0] = True
            warnings.warn(_LENGTH_WARNING, UserWarning, stacklevel=2)
        signal = _F.pad(signal, [0, end - expected_length])
    return signal
