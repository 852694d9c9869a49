"""Samples for the math ops (ops/math_unary.py, ops/math_binary.py, ops/math_logic.py).

Every op gets: a method call on a (2, 3) tensor, the module-level function on a 0-d tensor, a
non-contiguous input (a transpose), an empty tensor, and for binary ops broadcasting shapes.
Domains keep inputs where the function is smooth: "pos" in [0.5, 2], "unit" in [-0.9, 0.9],
"away0" with |x| in [0.3, 1.5]. Ties, bounds, nan and the other edge cases that gradcheck cannot
probe are compared with torch in test_math.py.
"""

from __future__ import annotations

from .samples import Sample

A, POS, UNIT, AWAY = "any", "pos", "unit", "away0"
S23, S32, S3, S0, S13, S31 = (2, 3), (3, 2), (3,), (), (1, 3), (3, 1)


def _method(name: str, *args, **kwargs):
    return lambda lib, a: getattr(a, name)(*args, **kwargs)


def _function(name: str, *args, **kwargs):
    return lambda lib, a: getattr(lib, name)(a, *args, **kwargs)


def _unary(name: str, domain: str, shift: float = 0.0) -> list:
    """The four standard samples of a unary op; ``shift`` moves the domain (acosh needs > 1)."""

    def method(lib, a):
        return getattr(a + shift if shift else a, name)()

    def function(lib, a):
        return getattr(lib, name)(a + shift if shift else a)

    def strided(lib, a):
        x = a.t()
        return getattr(x + shift if shift else x, name)()

    def empty(lib, a):
        x = _empty(a)
        return getattr(x + shift if shift else x, name)()

    return [
        Sample(method, ((S23, domain),)),
        Sample(function, ((S0, domain),)),
        Sample(strided, ((S32, domain),), note="non-contiguous input"),
        Sample(empty, ((S23, domain),), note="empty tensor", **EMPTY),
    ]


# gradgradcheck draws its grad_outputs with NumPy, which gives an empty array zero strides, and
# then refuses them as overlapping (a leafgrad core issue, reported); first order is checked.
EMPTY = {"second_order": False}


def _empty(a):
    """An empty slice of a sample input: gradcheck perturbs ``a`` itself (NumPy hands out
    zero strides for a freshly drawn empty array, which gradcheck rightly refuses)."""
    return a[:0]


def _binary(name: str, domain_a: str = A, domain_b: str = A, method: bool = True) -> list:
    def call(lib, a, b):
        return getattr(a, name)(b) if method else getattr(lib, name)(a, b)

    def function(lib, a, b):
        return getattr(lib, name)(a, b)

    return [
        Sample(call, ((S23, domain_a), (S23, domain_b))),
        Sample(function, ((S31, domain_a), (S13, domain_b)), note="broadcasting"),
        Sample(function, ((S0, domain_a), (S3, domain_b)), note="0-d with 1-d"),
        Sample(lambda lib, a, b: function(lib, a.t(), b[:, ::2]), ((S32, domain_a),
               ((2, 6), domain_b)), note="non-contiguous inputs"),
        Sample(lambda lib, a, b: function(lib, _empty(a), b), ((S23, domain_a), (S3, domain_b)),
               note="empty tensor", **EMPTY),
    ]


def _where_log(lib, a):
    # The classic: where(x > 0, x, log(x)) with some x <= 0; the log branch's nan/inf stays out.
    return lib.where(a > 0, a, (a + 2).log())


SAMPLES = {
    # -- unary math ------------------------------------------------------------------------------
    "Exp2": _unary("exp2", A),
    "Expm1": _unary("expm1", A),
    "Log2": _unary("log2", POS),
    "Log10": _unary("log10", POS),
    "Log1p": _unary("log1p", UNIT),
    "Rsqrt": _unary("rsqrt", POS),
    "Tan": _unary("tan", UNIT),
    "Asin": _unary("asin", UNIT) + [Sample(_function("arcsin"), ((S3, UNIT),))],
    "Acos": _unary("acos", UNIT) + [Sample(_method("arccos"), ((S3, UNIT),))],
    "Atan": _unary("atan", A) + [Sample(_function("arctan"), ((S3, A),))],
    "Sinh": _unary("sinh", A),
    "Cosh": _unary("cosh", A),
    "Asinh": _unary("asinh", A),
    "Acosh": _unary("acosh", POS, shift=1.0),
    "Atanh": _unary("atanh", UNIT),
    "Erf": _unary("erf", A),
    "Erfc": _unary("erfc", A),
    "Erfinv": _unary("erfinv", UNIT),
    "Floor": _unary("floor", A),
    "Ceil": _unary("ceil", A),
    "Trunc": _unary("trunc", A) + [Sample(_function("fix"), ((S3, A),))],
    "Round": _unary("round", A),
    "RoundDecimals": [
        Sample(_method("round", decimals=2), ((S23, A),)),
        Sample(_function("round", decimals=-1), ((S0, A),)),
        Sample(lambda lib, a: a.t().round(decimals=0), ((S32, A),), note="non-contiguous"),
        Sample(lambda lib, a: _empty(a).round(decimals=1), ((S23, A),), note="empty tensor",
               **EMPTY),
    ],
    "Frac": _unary("frac", A),
    # sgn's gradient is torch's ZeroTensor, which has no .numpy(): the samples add a term.
    "Sgn": [Sample(lambda lib, a, call=s.call: call(lib, a) + a.sum(), s.shapes, note=s.note,
                   second_order=s.second_order)
            for s in _unary("sgn", AWAY)],
    "NanToNum": [
        Sample(_method("nan_to_num"), ((S23, A),)),
        Sample(_function("nan_to_num", nan=1.0, posinf=2.0), ((S0, A),)),
        Sample(lambda lib, a: a.t().nan_to_num(neginf=-1.0), ((S32, A),), note="non-contiguous"),
        Sample(lambda lib, a: _empty(a).nan_to_num(), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    # -- clamp family ----------------------------------------------------------------------------
    "ClampTensor": [
        Sample(lambda lib, a, lo, hi: a.clamp(lo, hi), ((S23, A), (S23, A), (S23, A))),
        Sample(lambda lib, a, lo, hi: lib.clamp(a, lo, hi), ((S23, A), (S3, A), (S31[1:], A)),
               note="broadcast bounds"),
        Sample(lambda lib, a, lo: a.clamp(min=lo), ((S23, A), (S0, A)), note="min only, 0-d"),
        Sample(lambda lib, a, hi: lib.clip(a, max=hi), ((S3, A), (S23, A)),
               note="max only; the bound broadcasts the result"),
        Sample(lambda lib, a, lo, hi: a.t().clamp(lo.t(), hi[:, ::2]),
               ((S23, A), (S23, A), ((3, 4), A)), note="non-contiguous"),
        Sample(lambda lib, a, lo, hi: _empty(a).clamp(lo, hi), ((S23, A), (S3, A), (S3, A)),
               note="empty tensor", **EMPTY),
        Sample(lambda lib, a, lo, hi: a.clamp(hi + 3, lo), ((S23, A), (S23, A), (S23, A)),
               note="min > max everywhere: the result is max and max gets the gradient"),
    ],
    "ClampMin": [
        Sample(_method("clamp_min", 0.1), ((S23, A),)),
        Sample(_function("clamp_min", -0.2), ((S0, A),)),
        Sample(lambda lib, a: a.t().clamp_min(0.0), ((S23, A),), note="non-contiguous"),
        Sample(lambda lib, a: _empty(a).clamp_min(0.5), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    "ClampMinTensor": _binary("clamp_min"),
    "ClampMax": [
        Sample(_method("clamp_max", 0.1), ((S23, A),)),
        Sample(_function("clamp_max", -0.2), ((S0, A),)),
        Sample(lambda lib, a: a.t().clamp_max(0.0), ((S23, A),), note="non-contiguous"),
        Sample(lambda lib, a: _empty(a).clamp_max(0.5), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    "ClampMaxTensor": _binary("clamp_max"),
    # -- binary math -----------------------------------------------------------------------------
    "Maximum": _binary("maximum"),
    "Minimum": _binary("minimum"),
    "Fmax": _binary("fmax"),
    "Fmin": _binary("fmin"),
    "Fmod": [
        Sample(_method("fmod", 0.7), ((S23, A),)),
        Sample(_function("fmod", -1.3), ((S0, A),)),
        Sample(lambda lib, a: a.t().fmod(2), ((S23, A),), note="non-contiguous"),
        Sample(lambda lib, a: _empty(a).fmod(0.5), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    "FmodTensor": _binary("fmod", A, AWAY),
    "Remainder": [
        Sample(_method("remainder", 0.7), ((S23, A),)),
        Sample(_function("remainder", -1.3), ((S0, A),)),
        Sample(lambda lib, a: a.t() % 2, ((S23, A),), note="non-contiguous, % operator"),
        Sample(lambda lib, a: _empty(a).remainder(0.5), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    "RemainderTensor": _binary("remainder", A, AWAY)
    + [Sample(lambda lib, a, b: a % b, ((S23, A), (S3, AWAY)), note="% operator")],
    "DivMode": [
        Sample(lambda lib, a, b: lib.div(a, b, rounding_mode=None), ((S23, A), (S23, AWAY))),
        Sample(lambda lib, a, b: a.divide(b, rounding_mode=None), ((S31, A), (S13, AWAY)),
               note="broadcasting"),
        Sample(lambda lib, a: lib.div(a, 0.3, rounding_mode=None), ((S0, A),)),
        Sample(lambda lib, a, b: a.t().div(b[:, ::2], rounding_mode=None),
               ((S23, A), ((3, 4), AWAY)), note="non-contiguous"),
    ],
    "DivRounding": [
        Sample(lambda lib, a, b: a.div(b, rounding_mode="floor"), ((S23, A), (S23, AWAY))),
        Sample(lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), ((S31, A), (S13, AWAY)),
               note="broadcasting"),
        Sample(lambda lib, a: lib.divide(a, 0.3, rounding_mode="floor"), ((S0, A),)),
        Sample(lambda lib, a, b: a.t().div(b[:, ::2], rounding_mode="trunc"),
               ((S23, A), ((3, 4), AWAY)), note="non-contiguous"),
        Sample(lambda lib, a, b: _empty(a).div(b, rounding_mode="floor"),
               ((S23, A), (S3, AWAY)), note="empty tensor", **EMPTY),
    ],
    "Atan2": _binary("atan2") + [Sample(_binary("arctan2")[0].call, ((S3, A), (S3, A)))],
    "Hypot": _binary("hypot", AWAY, AWAY),
    "Logaddexp": _binary("logaddexp"),
    "Logaddexp2": _binary("logaddexp2"),
    "Xlogy": _binary("xlogy", A, POS),
    "XlogyScalarSelf": [
        Sample(lambda lib, b: lib.xlogy(2.5, b), ((S23, POS),)),
        Sample(lambda lib, b: lib.xlogy(-1, b), ((S0, POS),)),
        Sample(lambda lib, b: lib.xlogy(0.5, b.t()), ((S23, POS),), note="non-contiguous"),
    ],
    "XlogyScalarOther": [
        Sample(_method("xlogy", 2.5), ((S23, A),)),
        Sample(_function("xlogy", 0.5), ((S0, A),)),
        Sample(lambda lib, a: a.t().xlogy(3), ((S23, A),), note="non-contiguous, int other"),
        Sample(lambda lib, a: _empty(a).xlogy(2.0), ((S23, A),), note="empty tensor", **EMPTY),
    ],
    "Lerp": [
        Sample(lambda lib, a, b: a.lerp(b, 0.3), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.lerp(a, b, 0.8), ((S31, A), (S13, A)),
               note="broadcasting, weight >= 0.5"),
        Sample(lambda lib, a, b: lib.lerp(a, b, -1.5), ((S0, A), (S0, A))),
        Sample(lambda lib, a, b: a.t().lerp(b[:, ::2], 2), ((S23, A), ((3, 4), A)),
               note="non-contiguous, int weight"),
    ],
    "LerpTensor": [
        Sample(lambda lib, a, b, w: a.lerp(b, w), ((S23, A), (S23, A), (S23, UNIT))),
        Sample(lambda lib, a, b, w: lib.lerp(a, b, w), ((S31, A), (S3, A), (S13, A)),
               note="broadcasting"),
        Sample(lambda lib, a, b, w: lib.lerp(a, b, w), ((S3, A), (S3, A), (S0, A)),
               note="0-d weight"),
        Sample(lambda lib, a, b, w: a.t().lerp(b.t(), w[:, ::2]),
               ((S23, A), (S23, A), ((3, 4), A)), note="non-contiguous"),
    ],
    "Addcmul": [
        Sample(lambda lib, a, b, c: a.addcmul(b, c), ((S23, A), (S23, A), (S23, A))),
        Sample(lambda lib, a, b, c: lib.addcmul(a, b, c, value=-0.5),
               ((S3, A), (S31, A), (S0, A)), note="broadcasting, 0-d"),
        Sample(lambda lib, a, b, c: a.t().addcmul(b.t(), c[:, ::2], value=2),
               ((S23, A), (S23, A), ((3, 4), A)), note="non-contiguous"),
        Sample(lambda lib, a, b, c: _empty(a).addcmul(b, c), ((S23, A), (S3, A), (S3, A)),
               note="empty tensor", **EMPTY),
    ],
    "Addcdiv": [
        Sample(lambda lib, a, b, c: a.addcdiv(b, c), ((S23, A), (S23, A), (S23, AWAY))),
        Sample(lambda lib, a, b, c: lib.addcdiv(a, b, c, value=-0.5),
               ((S3, A), (S31, A), (S0, AWAY)), note="broadcasting, 0-d"),
        Sample(lambda lib, a, b, c: a.t().addcdiv(b.t(), c[:, ::2], value=2),
               ((S23, A), (S23, A), ((3, 4), AWAY)), note="non-contiguous"),
        Sample(lambda lib, a, b, c: _empty(a).addcdiv(b, c), ((S23, A), (S3, A), (S3, AWAY)),
               note="empty tensor", **EMPTY),
    ],
    # -- where, logical ops and tests -----------------------------------------------------------
    "Where": [
        Sample(lambda lib, a, b: lib.where(a > 0, a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.where(b > 0, a, b), ((S31, A), (S13, A)),
               note="broadcasting; the condition broadcasts too"),
        Sample(lambda lib, a: lib.where(a > 0, a.exp(), 0.0), ((S23, AWAY),),
               note="number branch"),
        Sample(lambda lib, a: lib.where(a < 0, 1.0, a), ((S0, A),), note="0-d"),
        Sample(_where_log, ((S23, AWAY),), note="the classic where(x > 0, x, log(...))"),
        Sample(lambda lib, a, b: a.t().where(b[:, ::2] > 0, -a.t()), ((S23, A), ((3, 4), A)),
               note="Tensor.where, non-contiguous"),
        Sample(lambda lib, a, b: lib.where(_empty(a) > 0, _empty(a), b), ((S23, A), (S3, A)),
               note="empty", **EMPTY),
    ],
    "LogicalAnd": [Sample(lambda lib, a, b: a.logical_and(b > 0), ((S23, A), (S3, A)))],
    "LogicalOr": [Sample(lambda lib, a, b: lib.logical_or(a, b.t()), ((S23, A), (S32, A)))],
    "LogicalXor": [Sample(lambda lib, a, b: lib.logical_xor(a > 0, b), ((S0, A), (S3, A)))],
    "LogicalNot": [Sample(lambda lib, a: lib.logical_not(a > 0), ((S23, A),))],
    "IsNan": [Sample(lambda lib, a: (a.log()).isnan(), ((S23, A),))],
    "IsInf": [Sample(lambda lib, a: lib.isinf(a / (a > 0)), ((S23, A),))],
    "IsPosInf": [Sample(lambda lib, a: lib.isposinf(a / (a > 0)), ((S23, A),))],
    "IsNegInf": [Sample(lambda lib, a: lib.isneginf(a / (a > 0)), ((S23, A),))],
    "IsFinite": [Sample(lambda lib, a: lib.isfinite(a.log()), ((S3, A),))],
    "Signbit": [Sample(lambda lib, a: lib.signbit(a.t()), ((S23, A),))],
    "IsClose": [
        Sample(lambda lib, a, b: lib.isclose(a, a + b * 1e-6), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: a.isclose(b, rtol=0.5, atol=0.1), ((S3, A), (S3, A))),
    ],
}
