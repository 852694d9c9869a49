"""``torch.signal.windows``: SciPy's window functions as tensors.

Each window is built from the same tensor operations torch uses (a ``linspace`` of the
sample positions, then the window's formula), so the values are torch's bit for bit. ``sym``
chooses the symmetric window (filter design) or the periodic one (spectral analysis: the
symmetric window of length M + 1 without its last sample).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _lib():
    import leafgrad

    return leafgrad


def _checked_dtype(name: str, M: int, dtype, layout):
    lib = _lib()
    if dtype is None:
        dtype = lib.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not lib.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (lib.float32, lib.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype, device, requires_grad: bool, one: bool = True):
    """The empty window (M = 0) and, when ``one``, the window of one sample (1)."""
    lib = _lib()
    if M == 0:
        return lib.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return lib.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _positions(start, step, M, dtype, device, requires_grad):
    return _lib().linspace(start=start, end=start + (M - 1) * step, steps=M, dtype=dtype,
                           device=device, requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype=None, layout=None, device=None, requires_grad: bool = False):
    """``exp(-|n - center| / tau)``."""
    lib = _lib()
    dtype = _checked_dtype("exponential", M, dtype, lib.strided if layout is None else layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = lib.linspace(start=-center * scale, end=(-center + (M - 1)) * scale, steps=M,
                     dtype=dtype, device=device, requires_grad=requires_grad)
    return lib.exp(-lib.abs(k))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False):
    """The sine window: ``sin(pi (n + 0.5) / M)``."""
    lib = _lib()
    dtype = _checked_dtype("cosine", M, dtype, lib.strided if layout is None else layout)
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return lib.sin(_positions(0.5 * step, step, M, dtype, device, requires_grad))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None,
             device=None, requires_grad: bool = False):
    """``exp(-n^2 / (2 std^2))``, n measured from the centre."""
    lib = _lib()
    dtype = _checked_dtype("gaussian", M, dtype, lib.strided if layout is None else layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    step = 1 / (std * math.sqrt(2))
    k = _positions(start * step, step, M, dtype, device, requires_grad)
    return lib.exp(-k ** 2)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None,
           device=None, requires_grad: bool = False):
    """``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``."""
    lib = _lib()
    dtype = _checked_dtype("kaiser", M, dtype, lib.strided if layout is None else layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    beta = lib.tensor(beta, dtype=dtype, device=device)
    start = -beta
    step = 2.0 * beta / (M if not sym else M - 1)
    end = lib.minimum(beta, start + (M - 1) * step)
    k = lib.linspace(start=start, end=end, steps=M, dtype=dtype, device=device,
                     requires_grad=requires_grad)
    return lib.i0(lib.sqrt(beta * beta - lib.pow(k, 2))) / lib.i0(beta)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """The triangular window ``1 - |2n / (M - 1) - 1|``."""
    lib = _lib()
    dtype = _checked_dtype("bartlett", M, dtype, lib.strided if layout is None else layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    step = 2 / (M if not sym else M - 1)
    return 1 - lib.abs(_positions(-1, step, M, dtype, device, requires_grad))


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    lib = _lib()
    dtype = _checked_dtype("general_cosine", M, dtype, lib.strided if layout is None else layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = lib.linspace(start=0, end=(M - 1) * step, steps=M, dtype=dtype, device=device,
                     requires_grad=requires_grad)
    signed = lib.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                        requires_grad=requires_grad)
    i = lib.arange(signed.shape[0], dtype=signed.dtype, device=signed.device,
                   requires_grad=signed.requires_grad)
    return (signed.unsqueeze(-1) * lib.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None,
                    device=None, requires_grad: bool = False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
         requires_grad: bool = False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    lib = _lib()
    dtype = _checked_dtype("blackman", M, dtype, lib.strided if layout is None else layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
