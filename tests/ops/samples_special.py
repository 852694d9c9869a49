"""Samples for ops/special_fns.py (torch.special and the top-level special functions).

zeta has no derivative in torch and igamma/igammac none for their first argument: those
samples detach the argument (their values are compared; gradcheck covers the rest).
"""

from __future__ import annotations

from .samples import Sample

A, POS, UNIT, AWAY = "any", "pos", "unit", "away0"
S23, S3, S0, S0E = (2, 3), (3,), (), (0, 2)

NO_DERIVATIVE = "torch implements no derivative: values only"


def _shapes(lib, x):
    """Constant shape parameters for the incomplete gamma samples (torch differentiates only
    the second argument)."""
    return lib.tensor([0.5, 2.0, 6.0], dtype=x.dtype)


def _unary(call, domain=A, second_order=True):
    return [
        Sample(call, ((S23, domain),), second_order=second_order),
        Sample(call, ((S0, domain),), second_order=second_order),
        Sample(lambda lib, a: call(lib, a.t()), (((3, 2), domain),), second_order=second_order),
        Sample(call, ((S0E, domain),), second_order=False),
    ]


SAMPLES = {
    "Lgamma": [*_unary(lambda lib, a: a.lgamma(), POS),
               Sample(lambda lib, a: lib.special.gammaln(a - 3), ((S3, UNIT),))],
    "Digamma": [*_unary(lambda lib, a: lib.digamma(a), POS),
                Sample(lambda lib, a: lib.special.psi(a * 4), ((S3, A),))],
    "Polygamma": [
        *_unary(lambda lib, a: lib.polygamma(1, a), POS),
        Sample(lambda lib, a: a.polygamma(2), ((S23, POS),)),
        Sample(lambda lib, a: lib.special.polygamma(3, a), ((S3, POS),)),
        Sample(lambda lib, a: lib.polygamma(1, a - 2.5), ((S3, UNIT),)),
        Sample(lambda lib, a: lib.polygamma(0, a), ((S3, POS),)),
    ],
    "Mvlgamma": [
        Sample(lambda lib, a: lib.mvlgamma(a + 2, 3), ((S23, POS),)),
        Sample(lambda lib, a: a.mvlgamma(1), ((S0, POS),)),
        Sample(lambda lib, a: lib.special.multigammaln(a + 1, 2), ((S0E, POS),),
               second_order=False),
    ],
    "I0": [*_unary(lambda lib, a: lib.i0(a * 3)), Sample(lambda lib, a: lib.special.i0(a * 40),
                                                         ((S3, AWAY),))],
    "SpecialI0e": [*_unary(lambda lib, a: lib.special.i0e(a * 3)),
                   Sample(lambda lib, a: lib.special.i0e(a * 40), ((S3, AWAY),))],
    "SpecialI1": [*_unary(lambda lib, a: lib.special.i1(a * 3)),
                  Sample(lambda lib, a: lib.special.i1(a * 40), ((S3, AWAY),))],
    "SpecialI1e": [*_unary(lambda lib, a: lib.special.i1e(a * 3)),
                   Sample(lambda lib, a: lib.special.i1e(a * 40), ((S3, AWAY),))],
    "SpecialNdtri": [*_unary(lambda lib, a: lib.special.ndtri(a / 2 + 0.5), UNIT),
                     Sample(lambda lib, a: lib.special.ndtri(a * 1e-6), ((S3, POS),))],
    "SpecialLogNdtr": [*_unary(lambda lib, a: lib.special.log_ndtr(a * 3)),
                       Sample(lambda lib, a: lib.special.log_ndtr(a * 20), ((S3, AWAY),))],
    "SpecialErfcx": [*_unary(lambda lib, a: lib.special.erfcx(a * 3)),
                     Sample(lambda lib, a: lib.special.erfcx(a * 5), ((S3, AWAY),))],
    "SpecialEntr": _unary(lambda lib, a: lib.special.entr(a), POS),
    "Sinc": [*_unary(lambda lib, a: lib.sinc(a * 2)),
             Sample(lambda lib, a: lib.special.sinc(a), ((S3, A),))],
    "Logit": [
        *_unary(lambda lib, a: lib.logit(a / 2 + 0.5), UNIT),
        Sample(lambda lib, a: a.logit(0.2), ((S23, UNIT),)),
        Sample(lambda lib, a: lib.special.logit(a * 0.4 + 0.5, eps=0.1), ((S3, UNIT),)),
    ],
    "Deg2Rad": _unary(lambda lib, a: lib.deg2rad(a)),
    "Rad2Deg": _unary(lambda lib, a: a.rad2deg()),
    "Copysign": [
        Sample(lambda lib, a, b: lib.copysign(a, b), ((S23, AWAY), (S23, AWAY))),
        Sample(lambda lib, a, b: a.copysign(b), ((S23, AWAY), (S3, AWAY))),
        Sample(lambda lib, a, b: lib.copysign(a, b), ((S0, AWAY), (S3, AWAY))),
    ],
    "CopysignScalar": [
        Sample(lambda lib, a: lib.copysign(a, -1.0), ((S23, AWAY),)),
        Sample(lambda lib, a: a.copysign(2), ((S0, AWAY),)),
    ],
    "AddScalarFormula": [
        Sample(lambda lib, a: lib.special.ndtr(a), ((S23, A),)),
        Sample(lambda lib, a: lib.special.ndtr(a * 3), ((S0, A),)),
    ],
    "SpecialXlog1py": [
        Sample(lambda lib, a, b: lib.special.xlog1py(a, b), ((S23, A), (S23, POS))),
        Sample(lambda lib, a, b: lib.special.xlog1py(a, b), ((S3, A), (S23, UNIT))),
        Sample(lambda lib, a, b: lib.special.xlog1py(a * 0, b), ((S3, A), (S3, POS))),
    ],
    "SpecialXlog1pyScalarSelf": [
        Sample(lambda lib, b: lib.special.xlog1py(2.5, b), ((S23, POS),)),
    ],
    "SpecialXlog1pyScalarOther": [
        Sample(lambda lib, a: lib.special.xlog1py(a, 1.5), ((S23, A),)),
        Sample(lambda lib, a: lib.special.xlog1py(a, -0.5), ((S3, A),)),
    ],
    "Igamma": [
        Sample(lambda lib, x: lib.igamma(lib.full_like(x, 1.5), x), ((S23, POS),)),
        Sample(lambda lib, x: lib.special.gammainc(_shapes(lib, x), x * 5), ((S23, POS),)),
        Sample(lambda lib, x: lib.tensor(0.7, dtype=x.dtype).igamma(x), ((S3, POS),)),
        Sample(lambda lib, x: lib.igamma(lib.ones(2, 1, dtype=x.dtype), x), ((S0, POS),)),
    ],
    "Igammac": [
        Sample(lambda lib, x: lib.igammac(lib.full_like(x, 1.5), x), ((S23, POS),)),
        Sample(lambda lib, x: lib.special.gammaincc(_shapes(lib, x), x * 5), ((S23, POS),)),
    ],
    "SpecialZeta": [
        Sample(lambda lib, q: lib.special.zeta(lib.full_like(q, 2.5), q), ((S23, POS),)),
        Sample(lambda lib, q: lib.special.zeta(_shapes(lib, q) + 1.5, q * 3), ((S23, POS),)),
    ],
    "SpecialZetaScalarSelf": [
        Sample(lambda lib, q: lib.special.zeta(3.0, q), ((S23, POS),)),
        Sample(lambda lib, q: lib.special.zeta(2, q + 1), ((S0, POS),)),
    ],
    "SpecialZetaScalarOther": [
        Sample(lambda lib, s: lib.special.zeta(s.detach() + 1, 2.0), ((S23, POS),),
               finite_differences=False, note=NO_DERIVATIVE),
    ],
}
