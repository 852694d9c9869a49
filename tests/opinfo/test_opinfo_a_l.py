"""torch's OpInfo samples (op_db) for ops a..l, linalg.* and fft.* replayed on leafgrad: the
first samples of every OpInfo in the share, float64 and float32, through the function, method
and in-place variants (values bitwise, dtypes, shapes, strides, requires_grad, errors' type and
first line), and for float64 samples that require grad the graph's grad_fn names and every
input's gradient bitwise after a backward with a torch-RNG grad_output
(tests/opinfo/sweep_a_l.py runs the whole sweep over every dtype and sample).

Every difference must be in KNOWN, and every KNOWN entry must still differ: when a fix makes one
agree, this test fails until the entry is removed."""

from __future__ import annotations

import pytest

from tests._torch import require_torch
from tests.opinfo import _harness
from tests.opinfo.sweep_a_l import label, share, sweep_op

torch = require_torch()

SAMPLES = 6  # per OpInfo, dtype and variant (about 10 s for the share)

# OpInfos whose callable leafgrad does not have (jiterator: CUDA only; grid_sampler_*d: the
# ATen entry points under nn.functional.grid_sample; linalg.ldl_*: LAPACK's sytrf, not built)
MISSING = {
    ("grid_sampler_2d", "op"), ("grid_sampler_3d", "op"), ("jiterator_2inputs_2outputs", "op"),
    ("jiterator_4inputs_with_extra_args", "op"), ("jiterator_binary", "op"),
    ("jiterator_binary_return_by_ref", "op"), ("jiterator_unary", "op"),
    ("linalg.ldl_factor", "op"), ("linalg.ldl_factor_ex", "op"), ("linalg.ldl_solve", "op"),
}

# Known differences, by class (each a real unfixed difference; see the report of this sweep)
LIBM = "last bits of torch's vectorised libm/SLEEF kernels (docs/float32-bits.md), float64 pow"
FFT = "FFT last bits: torch's pocketfft/MKL plans against NumPy's pocketfft"
LAPACK = "LAPACK last bits: torch calls MKL's routines (geqrf, syevd, gesdd, getrf...), leafgrad NumPy's"
ADDBMM = ("in-place into a self of the wrong shape: torch 'Trying to resize storage that is not "
          "resizable', leafgrad the broadcast-shape error")
ADDCDIV = "gradient of tensor1/tensor2 last bits (the order of grad * value / tensor2)"
AS_STRIDED_SCATTER = ("torch's as_strided_scatter_backward gives self the gradient inside the "
                      "scattered region (its Note: only the contiguous case is meant to work); "
                      "leafgrad gives the true gradient, outside it")
CARTESIAN_PROD = "gradient last bits: the sum over the repeated rows in another order"
COMPLEX = "gradient last bits: the un-broadcasting sum of a (5, 1) operand in another order"
GRADIENT = "edge_order=2 gradient last bits (the order of the one-sided formula's terms)"
CHALF = "complex32 (ComplexHalf): NumPy has no such type, leafgrad raises"
LINALG_HOUSEHOLDER_PRODUCT = ("column-major result strides in torch; LAPACK bits (orgqr against "
                              "leafgrad's product of reflectors)")
LINALG_LSTSQ = ("the solution's strides (torch: column-major) and last bits (torch's gelsy against "
                "leafgrad's pinv product)")
LINALG_LSTSQ_GRAD_ORIENTED = LINALG_LSTSQ
LINALG_LU = ("gradient last bits: torch's linalg_lu_backward formula against the derivative of "
             "leafgrad's composite (same node, LinalgLuBackward0)")
KNOWN = {
    'addbmm': (ADDBMM, "float32/inplace float64/inplace"),
    'addcdiv': (ADDCDIV, "float64/method float64/op"),
    'as_strided_scatter': (AS_STRIDED_SCATTER, "float64/method float64/op"),
    'atan2': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'atanh': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'cartesian_prod': (CARTESIAN_PROD, "float64/op"),
    'chalf': (CHALF, "float32/method float32/op float64/method float64/op"),
    'cosh': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'exp2': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'expm1': (LIBM, "float32/inplace float32/method float32/op"),
    'fft.fft': (FFT, "float32/op float64/op"),
    'fft.fft2': (FFT, "float32/op float64/op"),
    'fft.fftn': (FFT, "float32/op float64/op"),
    'fft.hfft': (FFT, "float32/op float64/op"),
    'fft.hfft2': (FFT, "float32/op float64/op"),
    'fft.hfftn': (FFT, "float32/op float64/op"),
    'fft.ifft': (FFT, "float32/op float64/op"),
    'fft.ifft2': (FFT, "float32/op float64/op"),
    'fft.ifftn': (FFT, "float32/op float64/op"),
    'fft.ihfft': (FFT, "float32/op float64/op"),
    'fft.ihfft2': (FFT, "float32/op float64/op"),
    'fft.ihfftn': (FFT, "float32/op float64/op"),
    'fft.irfft': (FFT, "float32/op float64/op"),
    'fft.irfft2': (FFT, "float32/op float64/op"),
    'fft.irfftn': (FFT, "float32/op float64/op"),
    'fft.rfft': (FFT, "float32/op float64/op"),
    'fft.rfft2': (FFT, "float32/op float64/op"),
    'fft.rfftn': (FFT, "float32/op float64/op"),
    'float_power': (LIBM, "float32/method float32/op float64/inplace float64/method float64/op"),
    'geqrf': (LAPACK, "float32/method float32/op float64/method float64/op"),
    'gradient': (GRADIENT, "float64/op"),
    'hypot': (LIBM, "float64/inplace float64/method float64/op"),
    'igamma': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'igammac': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'ldexp': (LIBM, "float64/inplace float64/method float64/op"),
    'lgamma': (LIBM, "float64/inplace float64/method float64/op"),
    'linalg.eig': (LAPACK, "float32/op float64/op"),
    'linalg.eigvals': (LAPACK, "float32/op float64/op"),
    'linalg.householder_product': (LINALG_HOUSEHOLDER_PRODUCT, "float32/op float64/op"),
    'linalg.lstsq': (LINALG_LSTSQ, "float32/op float64/op"),
    'linalg.lstsq[grad_oriented]': (LINALG_LSTSQ_GRAD_ORIENTED, "float32/op float64/op"),
    'linalg.pinv[hermitian]': (LAPACK, "float32/op float64/op"),
    'log1p': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
    'logaddexp': (LIBM, "float32/method float32/op float64/method float64/op"),
    'logaddexp2': (LIBM, "float32/method float32/op float64/method float64/op"),
    'logit': (LIBM, "float32/inplace float32/method float32/op float64/inplace float64/method float64/op"),
}


@pytest.fixture(scope="module")
def ops():
    return share(_harness.op_db())


@pytest.mark.filterwarnings("ignore")
def test_opinfo_samples_a_l(ops):
    found, missing = {}, set()
    for op in ops:
        for dtype, variant, index, diffs in sweep_op(torch, op, ("float64", "float32"),
                                                     samples=SAMPLES, grad_dtypes=("float64",)):
            if diffs == ["missing"]:
                missing.add((label(op), variant))
                continue
            found.setdefault((label(op), f"{dtype}/{variant}"), (index, diffs[:2]))
    assert missing == MISSING
    known = {(name, case) for name, (_, cases) in KNOWN.items() for case in cases.split()}
    unexpected = {key: found[key] for key in sorted(found.keys() - known)}
    assert not unexpected, unexpected
    agreeing = sorted(known - found.keys())
    assert not agreeing, f"KNOWN entries that now agree with torch (remove them): {agreeing}"
