"""Samples for the reductions (ops/reductions*.py).

Inputs are random normals, so values never tie: the table's gradchecks see smooth functions.
Ties, zeros in prod/cumprod, NaNs and errors are compared with torch in test_reductions.py.
"""

from __future__ import annotations

from .samples import Sample

A = "any"
S23, S3, S0, S234, S35 = (2, 3), (3,), (), (2, 3, 4), (3, 5)
NONZERO = "away0"  # |x| >= 0.3: no kink of |x| (1-norm), no near-zero products


def _with_nan(lib, a):
    """``a`` with one NaN written into a copy (the NaN gets no gradient path back to ``a``)."""
    x = a * 1
    x.view(-1)[1] = float("nan")
    return x


# Empty inputs are empty slices of a drawn input: NumPy gives a freshly drawn empty array zero
# strides, which gradcheck refuses; gradgradcheck draws its empty grad_outputs the same way, so
# samples with empty outputs check first order only (as in samples_math.py).
FIRST_ORDER = {"second_order": False}


def _rows0(a):
    return a[:0]


def _cols0(a):
    return a[:, :0]


SAMPLES = {
    "Prod": [
        Sample(lambda lib, a: a.prod(), ((S23, NONZERO),)),
        Sample(lambda lib, a: lib.prod(a), ((S0, A),)),
        Sample(lambda lib, a: a.t().prod(), ((S23, NONZERO),), note="non-contiguous"),
        Sample(lambda lib, a: _rows0(a).prod(), ((S23, A),), note="empty: 1"),
        Sample(lambda lib, a: a.float().prod(dtype=lib.float64), ((S3, NONZERO),),
               check_options={"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2}),
    ],
    "ProdDim": [
        Sample(lambda lib, a: a.prod(1), ((S23, NONZERO),)),
        Sample(lambda lib, a: a.prod(-1, keepdim=True), ((S234, NONZERO),)),
        Sample(lambda lib, a: a[:, ::2].prod(0), ((S35, NONZERO),), note="non-contiguous"),
        Sample(lambda lib, a: a.prod(0), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).prod(0), ((S23, A),), note="empty dim: ones"),
    ],
    "MaxAll": [
        Sample(lambda lib, a: a.max(), ((S23, A),)),
        Sample(lambda lib, a: lib.max(a), ((S0, A),)),
        Sample(lambda lib, a: a.t().max(), ((S23, A),)),
    ],
    "MinAll": [
        Sample(lambda lib, a: a.min(), ((S234, A),)),
        Sample(lambda lib, a: a.min(), ((S0, A),)),
    ],
    "MaxDim": [
        Sample(lambda lib, a: a.max(1).values, ((S23, A),)),
        Sample(lambda lib, a: a.max(-1, keepdim=True)[0], ((S234, A),)),
        Sample(lambda lib, a: lib.max(a.t(), dim=0).values, ((S23, A),)),
        Sample(lambda lib, a: a.max(0).values, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).max(1).values, ((S23, A),), note="empty, non-empty dim",
               **FIRST_ORDER),
    ],
    "MinDim": [
        Sample(lambda lib, a: a.min(0).values, ((S23, A),)),
        Sample(lambda lib, a: lib.min(a[:, ::2], -2, True).values, ((S35, A),)),
    ],
    "Amax": [
        Sample(lambda lib, a: a.amax(), ((S23, A),)),
        Sample(lambda lib, a: a.amax((0, -1)), ((S234, A),)),
        Sample(lambda lib, a: lib.amax(a.t(), 1, keepdim=True), ((S23, A),)),
        Sample(lambda lib, a: a.amax(0), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).amax(1), ((S23, A),), **FIRST_ORDER),
    ],
    "Amin": [
        Sample(lambda lib, a: a.amin(-1), ((S23, A),)),
        Sample(lambda lib, a: a.amin(), ((S0, A),)),
    ],
    "Argmax": [
        Sample(lambda lib, a: a.argmax(), ((S23, A),)),
        Sample(lambda lib, a: a.argmax(-1, keepdim=True), ((S234, A),)),
        Sample(lambda lib, a: lib.argmax(a.t(), 0), ((S23, A),)),
        Sample(lambda lib, a: a.argmax(keepdim=True), ((S23, A),)),
        Sample(lambda lib, a: a.argmax(0), ((S0, A),)),
    ],
    "Argmin": [
        Sample(lambda lib, a: a.argmin(1), ((S23, A),)),
        Sample(lambda lib, a: a.argmin(), ((S0, A),)),
    ],
    "Logsumexp": [
        Sample(lambda lib, a: a.logsumexp(1), ((S23, A),)),
        Sample(lambda lib, a: lib.logsumexp(a, (0, -1), keepdim=True), ((S234, A),)),
        Sample(lambda lib, a: a.t().logsumexp(-1), ((S23, A),)),
        Sample(lambda lib, a: a.logsumexp(0), ((S0, A),)),
        Sample(lambda lib, a: _cols0(a).logsumexp(1).exp(), ((S23, A),),
               note="empty dim: -inf (exp: finite differences of -inf are nan)"),
        Sample(lambda lib, a: (a * 300).logsumexp(0), ((S3, A),), note="large values stay finite"),
    ],
    "Nansum": [
        Sample(lambda lib, a: a.nansum(), ((S23, A),)),
        Sample(lambda lib, a: _with_nan(lib, a).nansum(1), (((3, 2), A),)),
        Sample(lambda lib, a: lib.nansum(a.t(), (0, 1), keepdim=True), ((S23, A),)),
        Sample(lambda lib, a: _with_nan(lib, a).nanmean(), ((S3, A),), check_node=True),
        Sample(lambda lib, a: a.nansum(0), ((S0, A),)),
    ],
    "All": [
        Sample(lambda lib, a: (a > 0).all(), ((S23, A),)),
        Sample(lambda lib, a: lib.all(a > -1, dim=-1, keepdim=True), ((S234, A),)),
        Sample(lambda lib, a: _rows0(a).all((0, 1)), ((S23, A),)),
    ],
    "Any": [
        Sample(lambda lib, a: (a > 0).any(0), ((S23, A),)),
        Sample(lambda lib, a: a.any(), ((S0, A),)),
    ],
    "CountNonzero": [
        Sample(lambda lib, a: (a > 0).count_nonzero(), ((S23, A),)),
        Sample(lambda lib, a: lib.count_nonzero(a > 0, (0, -1)), ((S234, A),)),
    ],
    "Cumsum": [
        Sample(lambda lib, a: a.cumsum(1), ((S23, A),)),
        Sample(lambda lib, a: lib.cumsum(a.t(), -1), ((S23, A),)),
        Sample(lambda lib, a: a.cumsum(0), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).cumsum(0), ((S23, A),), **FIRST_ORDER),
        Sample(lambda lib, a: a.float().cumsum(0, dtype=lib.float64), ((S3, A),),
               check_options={"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2}),
    ],
    "Cumprod": [
        Sample(lambda lib, a: a.cumprod(1), ((S23, A),)),
        Sample(lambda lib, a: lib.cumprod(a[:, ::2], 0), ((S35, NONZERO),)),
        Sample(lambda lib, a: a.cumprod(-1), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).cumprod(0), ((S23, A),), **FIRST_ORDER),
    ],
    "Var": [
        Sample(lambda lib, a: a.var(), ((S23, A),)),
        Sample(lambda lib, a: a.var(1, keepdim=True), ((S23, A),)),
        Sample(lambda lib, a: lib.var(a, (0, -1), correction=0), ((S234, A),)),
        Sample(lambda lib, a: a.t().var(0, unbiased=False), ((S23, A),)),
        Sample(lambda lib, a: a.var(-1, correction=2.5), (((2, 5), A),)),
        Sample(lambda lib, a: a.var(False), ((S0, A),)),
    ],
    "Std": [
        Sample(lambda lib, a: a.std(), ((S23, A),)),
        Sample(lambda lib, a: a.std(-1, True, True), ((S234, A),)),
        Sample(lambda lib, a: lib.std(a[:, ::2], dim=0, correction=0), ((S35, A),)),
    ],
    "VarMean": [
        Sample(lambda lib, a: lib.var_mean(a, 1)[0], ((S23, A),)),
        Sample(lambda lib, a: lib.var_mean(a)[1], ((S23, A),)),
        Sample(lambda lib, a: (lambda vm: vm[0] * vm[1])(lib.var_mean(a, (0, 2), keepdim=True)),
               ((S234, A),)),
    ],
    "StdMean": [
        Sample(lambda lib, a: (lambda sm: sm[0] + 2 * sm[1])(lib.std_mean(a, 0)), ((S23, A),)),
        Sample(lambda lib, a: lib.std_mean(a.t(), correction=0)[0], ((S23, A),)),
    ],
    "LinalgVectorNorm": [
        Sample(lambda lib, a: a.norm(), ((S23, A),)),
        Sample(lambda lib, a: a.norm(1, dim=1), ((S23, NONZERO),)),
        Sample(lambda lib, a: a.norm(float("inf"), dim=(0, -1), keepdim=True), ((S234, A),)),
        Sample(lambda lib, a: lib.norm(a, p=3, dim=0), ((S23, A),)),
        Sample(lambda lib, a: a.norm(0.5), ((S23, NONZERO),)),
        Sample(lambda lib, a: a.norm(1.5, -1), ((S23, NONZERO),)),
        Sample(lambda lib, a: a.t().norm("fro", dim=1), ((S23, A),)),
        Sample(lambda lib, a: lib.linalg.vector_norm(a, float("-inf")), ((S3, A),)),
        Sample(lambda lib, a: a.norm(), ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).norm(dim=1), ((S23, A),), **FIRST_ORDER),
    ],
    "Sort": [
        Sample(lambda lib, a: a.sort().values, ((S23, A),)),
        Sample(lambda lib, a: a.sort(0, descending=True)[0], ((S23, A),)),
        Sample(lambda lib, a: lib.sort(a.t(), -1).values, ((S23, A),)),
        Sample(lambda lib, a: a.sort().values, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).sort(0).values, ((S23, A),), **FIRST_ORDER),
        Sample(lambda lib, a: lib.msort(a), ((S35, A),)),
    ],
    "SortStable": [
        Sample(lambda lib, a: a.sort(dim=1, stable=True).values, ((S23, A),)),
        Sample(lambda lib, a: lib.sort(a, stable=True, descending=True).values, ((S234, A),)),
    ],
    "Topk": [
        Sample(lambda lib, a: a.topk(2).values, ((S23, A),)),
        Sample(lambda lib, a: a.topk(2, 0, largest=False)[0], ((S35, A),)),
        Sample(lambda lib, a: lib.topk(a.t(), 1, dim=-1, sorted=False).values, ((S23, A),)),
        Sample(lambda lib, a: a.topk(1, 0).values, ((S0, A),)),
        Sample(lambda lib, a: _rows0(a).topk(2, 1).values, ((S23, A),), **FIRST_ORDER),
    ],
    "KthvalueOp": [
        Sample(lambda lib, a: a.kthvalue(2).values, ((S23, A),)),
        Sample(lambda lib, a: a.kthvalue(1, 0, keepdim=True).values, ((S23, A),)),
        Sample(lambda lib, a: lib.kthvalue(a[:, ::2], 3, -1).values, ((S35, A),)),
        Sample(lambda lib, a: a.kthvalue(1).values, ((S0, A),)),
    ],
    "MedianAll": [
        Sample(lambda lib, a: a.median(), ((S23, A),)),
        Sample(lambda lib, a: lib.median(a.t()), ((S3, A),)),
        Sample(lambda lib, a: a.median(), ((S0, A),)),
    ],
    "MedianDim": [
        Sample(lambda lib, a: a.median(1).values, ((S23, A),)),
        Sample(lambda lib, a: a.median(-2, keepdim=True).values, ((S234, A),)),
        Sample(lambda lib, a: lib.median(a.t(), 0).values, ((S23, A),)),
        Sample(lambda lib, a: a.median(0).values, ((S0, A),)),
    ],
    "NanmedianAll": [
        Sample(lambda lib, a: a.nanmedian(), ((S23, A),)),
        Sample(lambda lib, a: _with_nan(lib, a).nanmedian(), ((S3, A),)),
    ],
    "NanmedianDim": [
        Sample(lambda lib, a: a.nanmedian(0).values, ((S23, A),)),
        Sample(lambda lib, a: _with_nan(lib, a).nanmedian(1, True).values, (((3, 4), A),)),
    ],
    "Mode": [
        Sample(lambda lib, a: a.mode().values, ((S23, A),)),
        Sample(lambda lib, a: lib.mode(a.t(), 0, keepdim=True).values, ((S23, A),)),
        Sample(lambda lib, a: a.mode(0).values, ((S0, A),)),
    ],
}
