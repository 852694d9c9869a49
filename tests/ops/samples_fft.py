"""Samples for ops/fft.py with the real float64 inputs the op table gives every op.

Complex spectra are built from two real inputs (``complex(a, b)``) and complex results end in
``view_as_real``, so the table's checks (values, gradients against torch, gradcheck and
gradgradcheck, forward mode, vmap, compile) run on them unchanged. tests/fft/ checks the
transforms with complex inputs, every dtype and call form.
"""

from __future__ import annotations

from .samples import Sample

A = "any"
S4, S5, S34, S235 = (4,), (5,), (3, 4), (2, 3, 5)


def _z(lib, a, b):
    return lib.complex(a, b)


def _r(lib, z):
    return lib.view_as_real(z)


SAMPLES = {
    "FftC2C": [
        Sample(lambda lib, a, b: _r(lib, lib.fft.fft(_z(lib, a, b))), ((S5, A), (S5, A)),
               check_node=False),
        Sample(lambda lib, a, b: _r(lib, lib.fft.ifft(_z(lib, a, b), n=6, norm="ortho")),
               ((S34, A), (S34, A)), check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.fftn(a, dim=(0, 2), norm="forward")),
               ((S235, A),), check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.ifft2(a, s=(2, 3))), ((S34, A),),
               check_node=False),
    ],
    "FftR2C": [
        Sample(lambda lib, a: _r(lib, lib.fft.rfft(a)), ((S5, A),), check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.fft(a, dim=0, norm="ortho")), ((S34, A),),
               check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.rfftn(a, s=(4, 6), norm="forward")),
               ((S235, A),), check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.ihfft(a, n=3).resolve_conj()), ((S34, A),),
               check_node=False),
        Sample(lambda lib, a: _r(lib, lib.fft.ihfft2(a)), ((S34, A),), check_node=False),
    ],
    "FftC2R": [
        Sample(lambda lib, a, b: lib.fft.irfft(_z(lib, a, b)), ((S4, A), (S4, A))),
        Sample(lambda lib, a, b: lib.fft.irfft(_z(lib, a, b), n=7, dim=0, norm="ortho"),
               ((S34, A), (S34, A))),
        Sample(lambda lib, a, b: lib.fft.hfft(_z(lib, a, b), n=5, norm="forward"),
               ((S34, A), (S34, A))),
        Sample(lambda lib, a, b: lib.fft.irfftn(_z(lib, a, b), s=(3, 5)),
               ((S235, A), (S235, A))),
        Sample(lambda lib, a: lib.fft.hfft2(a), ((S34, A),)),
    ],
}
