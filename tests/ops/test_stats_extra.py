"""aminmax and renorm against torch (ops/stats_extra.py): ties and NaNs, every call form,
dtypes, out= and errors; gradients to second order."""

from __future__ import annotations

import pytest

from ._differential import NAN, check


# -- aminmax --------------------------------------------------------------------------------------

AMINMAX_TIES = [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.aminmax(x),
    lambda lib, x: lib.aminmax(x, dim=1),
    lambda lib, x: lib.aminmax(x, dim=-2, keepdim=True),
    lambda lib, x: lib.aminmax(x, dim=None, keepdim=True),
    lambda lib, x: x.aminmax(dim=0),
    lambda lib, x: lib.aminmax(x, dim=1).max,
    lambda lib, x: lib.aminmax(x).min,
    lambda lib, x: lib.aminmax(x[0, 0], dim=0, keepdim=True),
    lambda lib, x: lib.aminmax(x, 1),
    lambda lib, x: lib.aminmax(x, dim=(0, 1)),
    lambda lib, x: lib.aminmax(x, dim=2),
    lambda lib, x: lib.aminmax(x[:0]),
    lambda lib, x: lib.aminmax(x[:0], dim=0),
    lambda lib, x: lib.aminmax(x[:0], dim=1),
    lambda lib, x: lib.aminmax(x.to(lib.complex64)),
    lambda lib, x: x.aminmax(0),
    lambda lib, x: lib.aminmax(x, dim=0, keepdim=1),
    lambda lib, x: lib.aminmax(x, dim=lib.tensor(1)),
    lambda lib, x: x.aminmax(dim=-1, keepdim=True),
])
def test_aminmax_ties_call_forms_and_errors(call):
    check(call, AMINMAX_TIES)
    check(call, [[1.0, NAN, 3.0], [2.0, 2.0, 0.0]])


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16", "float32"])
def test_aminmax_dtypes(dtype):
    check(lambda lib, x: lib.aminmax(x, dim=0), [[1, 0, 1], [0, 1, 1]], dtype=dtype, grad=False)


@pytest.mark.parametrize("outs", [("float32", "float32"), ("int64", "float32"),
                                  ("float32", "float64")])
@pytest.mark.parametrize("grad", [False, True])
def test_aminmax_out(outs, grad):
    def call(lib, x):
        out = tuple(lib.empty(0, dtype=getattr(lib, d)) for d in outs)
        result = lib.aminmax(x, dim=1, out=out)
        assert result[0] is out[0] and result[1] is out[1]
        return result

    check(call, AMINMAX_TIES, dtype="float32", grad=grad)


# -- renorm ---------------------------------------------------------------------------------------

RENORM_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.renorm(x, 2, 0, 1.5),
    lambda lib, x: lib.renorm(x, 1, 1, 2),
    lambda lib, x: x.renorm(float("inf"), -1, 1.0),
    lambda lib, x: lib.renorm(x, 2.5, 0, 1.0),
    lambda lib, x: lib.renorm(x, 0.5, 0, 1.0),
    lambda lib, x: lib.renorm(x, p=2, dim=0, maxnorm=0.0),
    lambda lib, x: lib.renorm(x, 2, 0, lib.tensor(1.0)),
    lambda lib, x: lib.renorm(x, 2, 0, 100.0),
    lambda lib, x: (x * 1).renorm_(2, 0, 1.0),
    lambda lib, x: x.renorm_(2, 0, 1.0),
    lambda lib, x: x.detach().renorm_(2, 1, 1.0),
    lambda lib, x: lib.renorm(x, 0, 0, 1.0),
    lambda lib, x: lib.renorm(x, -1, 0, 1.0),
    lambda lib, x: lib.renorm(x, 2, 0, -1.0),
    lambda lib, x: lib.renorm(x, 2, 2, 1.0),
    lambda lib, x: lib.renorm(x[0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x[0, 0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x.long(), 2, 0, 1),
    lambda lib, x: lib.renorm(x.detach() > 0, 2, 0, 1),
    lambda lib, x: lib.renorm(x.detach().half(), 2, 0, 1),
    lambda lib, x: lib.renorm(x, 2, 0),
    lambda lib, x: lib.renorm(x, 2, 0.0, 1.0),
    lambda lib, x: x.renorm(2, dim="a", maxnorm=1.0),
    lambda lib, x: lib.renorm(x[:0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x[:0], 2, 1, 1.0),
    lambda lib, x: lib.renorm(x.t(), 2, 0, 1.0),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_renorm(call, dtype):
    # float32: within an ulp of torch's (p = 2.5 sums |x|^p in another order than torch)
    tolerance = 3e-7 if dtype == "float32" else 1e-15
    check(call, RENORM_INPUT, dtype=dtype, rtol=tolerance, atol=tolerance,
          grad_rtol=1e-5 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("grad", [False, True])
def test_renorm_out(out_dtype, grad):
    def call(lib, x):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = lib.renorm(x, 2, 0, 1.0, out=out)
        assert result is out
        return result

    check(call, RENORM_INPUT, dtype="float32", grad=grad)
