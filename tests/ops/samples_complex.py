"""Samples for ops/complex.py, with the real float64 inputs the op table gives every op.

Each builds its complex tensors from real ones (``complex(a, b)``) and ends in a real output
(``view_as_real``), so that the table's real checks (values, gradients against torch,
gradcheck, gradgradcheck) run on them unchanged. The same ops with complex inputs, and every
other op marked ``complex_ok``, are checked by test_complex_table.py.
"""

from __future__ import annotations

from .samples import Sample

A, POS, AWAY0 = "any", "pos", "away0"
S23, S3, S0, S13, S31, S32 = (2, 3), (3,), (), (1, 3), (3, 1), (3, 2)


def _z(lib, a, b):
    return lib.complex(a, b)


SAMPLES = {
    "Real": [
        Sample(lambda lib, a, b: _z(lib, a, b).real, ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: _z(lib, a, b).t().real * 2, ((S23, A), (S23, A)),
               check_node=False),
        Sample(lambda lib, a, b: lib.real(_z(lib, a, b)), ((S0, A), (S0, A))),
    ],
    "Imag": [
        Sample(lambda lib, a, b: _z(lib, a, b).imag, ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.imag(_z(lib, a, b))[1:], ((S3, A), (S3, A)),
               check_node=False),
    ],
    "NegView": [  # z.conj().imag: torch's _neg_view of view_as_real(z)
        Sample(lambda lib, a, b: _z(lib, a, b).conj().imag * 1, ((S23, A), (S23, A)),
               check_node=False),
        Sample(lambda lib, a, b: lib.imag(lib.conj(_z(lib, a, b))) * 2, ((S0, A), (S0, A)),
               check_node=False),
    ],
    "ViewAsReal": [
        Sample(lambda lib, a, b: lib.view_as_real(_z(lib, a, b)), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.view_as_real(_z(lib, a, b).t()), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.view_as_real(_z(lib, a, b)), ((S0, A), (S0, A))),
    ],
    "ViewAsComplex": [
        Sample(lambda lib, a, b: lib.view_as_real(lib.view_as_complex(a) * _z(lib, b, b)),
               ((S32, A), (S3, A)), check_node=False),
        Sample(lambda lib, a: lib.view_as_complex(a).abs(), (((2, 3, 2), A),),
               check_node=False),
    ],
    "Complex": [
        Sample(lambda lib, a, b: lib.view_as_real(lib.complex(a, b)), ((S23, A), (S23, A)),
               check_node=False),
        Sample(lambda lib, a, b: lib.complex(a, b).abs(), ((S31, AWAY0), (S13, AWAY0)),
               check_node=False),
        Sample(lambda lib, a, b: lib.complex(a, b).real, ((S0, A), (S3, A)), check_node=False),
    ],
    "Polar": [
        Sample(lambda lib, a, b: lib.view_as_real(lib.polar(a, b)), ((S23, POS), (S23, A)),
               check_node=False),
        Sample(lambda lib, a, b: lib.polar(a, b).imag, ((S3, POS), (S0, A)), check_node=False),
    ],
    "Conj": [
        Sample(lambda lib, a, b: lib.view_as_real(_z(lib, a, b).conj() * _z(lib, b, a)),
               ((S23, A), (S23, A)), check_node=False),
        Sample(lambda lib, a, b: lib.conj(_z(lib, a, b)).imag * 1, ((S3, A), (S3, A)),
               check_node=False),
    ],
    "ConjPhysical": [
        Sample(lambda lib, a, b: lib.view_as_real(_z(lib, a, b).conj_physical()),
               ((S23, A), (S23, A)), check_node=False),
    ],
    "Angle": [
        Sample(lambda lib, a, b: _z(lib, a, b).angle(), ((S23, AWAY0), (S23, AWAY0))),
        Sample(lambda lib, a: lib.angle(a), ((S23, AWAY0),)),
        Sample(lambda lib, a, b: _z(lib, a, b).angle(), ((S0, AWAY0), (S0, AWAY0))),
    ],
    "Vdot": [
        Sample(lambda lib, a, b: lib.view_as_real(lib.vdot(_z(lib, a, b), _z(lib, b, a * 2))),
               ((S3, A), (S3, A)), check_node=False),
        Sample(lambda lib, a, b: lib.vdot(a, b), ((S3, A), (S3, A))),
    ],
}
