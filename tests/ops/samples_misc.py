"""Samples for ops/elementwise_misc.py, ops/matrix_extra.py and ops/scatter_extra.py."""

from __future__ import annotations

from .samples import Sample

A, AWAY = "any", "away0"
S23, S3, S0, S0E = (2, 3), (3,), (), (0, 2)


def _ints(lib, a):
    """Integers in [-12, 12] from float values (the integer ops' inputs)."""
    return (a.detach() * 6).round().long()


SAMPLES = {
    "Nextafter": [
        Sample(lambda lib, a, b: lib.nextafter(a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: a.nextafter(b), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.nextafter(a.t(), b), (((3, 2), A), (S0, A))),
        Sample(lambda lib, a, b: lib.nextafter(a, b), ((S0E, A), ((2,), A))),
        Sample(lambda lib, a, b: (a * 1).nextafter_(b), ((S23, A), (S3, A))),
    ],
    "Ldexp": [
        Sample(lambda lib, a, b: lib.ldexp(a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.ldexp(a, _ints(lib, b)), ((S23, A), (S3, A)),
               finite_differences=False,
               note="integer exponents: torch's gradient is 0 where the exponent is negative "
                    "(Note: ldexp's gradient with integer exponents), not the derivative"),
        Sample(lambda lib, a, b: lib.ldexp(a, _ints(lib, b).abs()), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: a.ldexp(b), ((S0, A), (S3, A))),
        Sample(lambda lib, a, b: lib.ldexp(a.t(), b), (((3, 2), A), (S0, A))),
        Sample(lambda lib, a, b: lib.ldexp(a, b), ((S0E, A), ((2,), A))),
        Sample(lambda lib, a, b: (a * 1).ldexp_(b), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.ldexp(_ints(lib, a), b), ((S3, A), (S3, A))),
    ],
    "Frexp": [
        Sample(lambda lib, a: lib.frexp(a)[0], ((S23, AWAY),)),
        Sample(lambda lib, a: a.frexp().mantissa, ((S0, AWAY),)),
        Sample(lambda lib, a: lib.frexp(a.t()).mantissa * 2, (((3, 2), AWAY),)),
        Sample(lambda lib, a: lib.frexp(a)[0], ((S0E, A),)),
    ],
    "Gcd": [
        Sample(lambda lib, a, b: lib.gcd(_ints(lib, a), _ints(lib, b)), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: _ints(lib, a).gcd_(_ints(lib, b).int()), ((S3, A), (S0, A))),
    ],
    "Lcm": [
        Sample(lambda lib, a, b: lib.lcm(_ints(lib, a), _ints(lib, b)), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: _ints(lib, a).lcm_(_ints(lib, b)), ((S3, A), (S3, A))),
    ],
}
