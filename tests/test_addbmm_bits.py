"""baddbmm, addbmm and addr bit for bit with torch 2.13 in float32, float64, float16 and
bfloat16 (Note: the add*bmm kernels, ops/linalg.py; Note: torch's addr kernel,
ops/matrix_extra.py): both sides of baddbmm's 400 multiply-add switch, empty inner dims and
batches, bias shapes that broadcast, beta/alpha (0 included), transposed batches, addr's
vector blocks and scalar tails, the function, method, in-place and out= forms."""

import numpy as np

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

_DTYPES = ("float32", "float64", "float16", "bfloat16")
_SIZES = [(3, 9, 70, 6), (2, 3, 4, 5), (4, 16, 16, 16), (2, 9, 70, 1), (2, 1, 70, 9),
          (0, 3, 4, 5), (2, 5, 0, 3), (3, 6, 10, 6)]
_SCALARS = [(1, 1), (0.5, 2.0), (0, 1), (1, -1.5), (-2, 0.25)]


def _values(rng, shape):
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-6, 6, shape)).astype(np.float32)


def _bits(tensor):
    return tensor.detach().to(getattr(type(tensor).__module__ == "torch" and torch or lg,
                                      "float64")).numpy().view(np.uint64)


def _convert(lib, dtype, array, transposed=False):
    if transposed:  # the same values, each matrix column-major (a fresh copy: torch.tensor
        # keeps a NumPy view's size-1 strides, leafgrad.tensor makes them canonical)
        return lib.tensor(np.array(np.swapaxes(array, -1, -2), order="C")).to(
            getattr(lib, dtype)).transpose(-1, -2)
    return lib.tensor(array).to(getattr(lib, dtype))


def _outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 - type and first line compared with torch's
        return type(error).__name__, str(error).splitlines()[0]
    return tuple(result.shape), _bits(result).tolist()


def test_baddbmm_and_addbmm_bits():
    rng = np.random.default_rng(0)
    failures = []
    for dtype in _DTYPES:
        for batch, m, k, n in _SIZES:
            a, b = _values(rng, (batch, m, k)), _values(rng, (batch, k, n))
            biases = {"full3": _values(rng, (batch, m, n)), "row": _values(rng, (n,)),
                      "column": _values(rng, (m, 1)), "scalar": _values(rng, ())}
            for layout in (False, True):
                for beta, alpha in _SCALARS:
                    for bias_name, bias in biases.items():
                        for op in ("baddbmm", "addbmm"):
                            if op == "addbmm" and bias_name == "full3":
                                bias = bias[0] if batch else _values(rng, (m, n))

                            def run(lib, op=op, bias=bias):
                                return getattr(lib, op)(
                                    _convert(lib, dtype, bias), _convert(lib, dtype, a, layout),
                                    _convert(lib, dtype, b, layout), beta=beta, alpha=alpha)

                            if _outcome(lambda: run(lg)) != _outcome(lambda: run(torch)):
                                failures.append((dtype, (batch, m, k, n), layout, beta, alpha,
                                                 bias_name, op))
    assert not failures, (len(failures), failures[:8])


def test_method_inplace_and_out_forms():
    rng = np.random.default_rng(1)
    failures = []
    for dtype in _DTYPES:
        for batch, m, k, n in [(3, 9, 70, 6), (2, 3, 4, 5)]:
            a, b = _values(rng, (batch, m, k)), _values(rng, (batch, k, n))
            c3, c2 = _values(rng, (batch, m, n)), _values(rng, (m, n))
            for form in ("method", "inplace", "out"):
                results = []
                for lib in (lg, torch):
                    ta, tb = _convert(lib, dtype, a), _convert(lib, dtype, b)
                    b3, b2 = _convert(lib, dtype, c3), _convert(lib, dtype, c2)
                    if form == "method":
                        got = [b3.baddbmm(ta, tb, beta=0.5, alpha=2.0),
                               b2.addbmm(ta, tb, beta=0.5, alpha=2.0)]
                    elif form == "inplace":
                        b3.baddbmm_(ta, tb, beta=0.5, alpha=2.0)
                        b2.addbmm_(ta, tb, beta=0.5, alpha=2.0)
                        got = [b3, b2]
                    else:
                        o3, o2 = lib.empty_like(b3), lib.empty_like(b2)
                        lib.baddbmm(b3, ta, tb, beta=0.5, alpha=2.0, out=o3)
                        lib.addbmm(b2, ta, tb, beta=0.5, alpha=2.0, out=o2)
                        got = [o3, o2]
                    results.append([_bits(t).tolist() for t in got])
                if results[0] != results[1]:
                    failures.append((dtype, (batch, m, k, n), form))
    assert not failures, failures


def test_addr_bits():
    rng = np.random.default_rng(2)
    failures = []
    for dtype in _DTYPES:
        for m, n in [(9, 6), (16, 16), (5, 33), (1, 70), (4, 40), (3, 7), (0, 4)]:
            vec1, vec2 = _values(rng, (m,)), _values(rng, (n,))
            biases = {"full": _values(rng, (m, n)), "row": _values(rng, (n,)),
                      "column": _values(rng, (m, 1)), "scalar": _values(rng, ())}
            for beta, alpha in [(0.7, 0.3), (1, 1), (2, 1), (0, 1.7), (1e-9, 1), (-1.5, 0.5)]:
                for bias_name, bias in biases.items():
                    for transposed in ((False, True) if bias_name == "full" else (False,)):
                        def run(lib, bias=bias, transposed=transposed):
                            stored = np.array(bias.T, order="C") if transposed else bias
                            self = _convert(lib, dtype, stored)
                            self = self.T if transposed else self
                            return lib.addr(self, _convert(lib, dtype, vec1),
                                            _convert(lib, dtype, vec2), beta=beta, alpha=alpha)

                        ours, theirs = run(lg), run(torch)
                        # (strides of empty results aside: torch's addr gives (1, 0) there)
                        if (_bits(ours).tolist() != _bits(theirs).tolist()
                                or (ours.numel() and ours.stride() != theirs.stride())):
                            failures.append((dtype, (m, n), beta, alpha, bias_name, transposed))
            # the method, in-place and out= forms
            for lib_results in [[]]:
                for lib in (lg, torch):
                    self = _convert(lib, dtype, biases["full"])
                    a, b = _convert(lib, dtype, vec1), _convert(lib, dtype, vec2)
                    method = self.addr(a, b, beta=0.7, alpha=0.3)
                    out = lib.empty_like(self)
                    lib.addr(self, a, b, beta=0.7, alpha=0.3, out=out)
                    self.addr_(a, b, beta=0.7, alpha=0.3)
                    lib_results.append([_bits(t).tolist() for t in (method, out, self)])
                if lib_results[0] != lib_results[1]:
                    failures.append((dtype, (m, n), "forms"))
    assert not failures, (len(failures), failures[:8])
