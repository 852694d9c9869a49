"""The op table with complex inputs.

Every op marked ``complex_ok`` (Note: complex support, ops/registry.py) runs its samples (the
table's own, or ``COMPLEX_SAMPLES`` below) with complex128 inputs built from two real draws:
values, dtype and grad_fn name equal torch's, gradients of a random complex vector-Jacobian
product equal torch's (its convention: the conjugate Wirtinger derivative), and leafgrad's
gradcheck/gradgradcheck (which check complex functions through their real and imaginary parts)
pass. Where torch itself raises on the complex sample, leafgrad raises the same exception type
with the same first line. Every op not marked raises torch's error on its samples.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck
from leafgrad.ops import OPS

from .._torch import require_torch
from .samples import SAMPLES, Sample, values

torch = require_torch()

A, POS, AWAY0 = "any", "pos", "away0"
S23, S3, S0 = (2, 3), (3,), ()

# Samples for complex inputs where the table's real samples do not exercise the op with them
# (they use ops torch refuses for complex numbers, or real-only arguments).
COMPLEX_SAMPLES: dict[str, list[Sample]] = {
    "Where": [
        Sample(lambda lib, a, b: lib.where(a.real > 0, a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a: lib.where(a.imag > 0, a, 0.0), ((S3, A),)),
    ],
    "Index": [Sample(lambda lib, a: a[a.real > 0], ((S23, A),), second_order=True)],
    "IsInf": [Sample(lambda lib, a: lib.isinf(a), ((S23, A),))],
    "MulScalar": [Sample(lambda lib, a: lib.autograd.grad((a * (2 - 1j)).abs().sum(), a,
                                                          create_graph=True)[0], ((S3, A),),
                         check_node=False)],
    "DivScalar": [Sample(lambda lib, a: a.mean(), ((S23, A),), check_node=False)],
    "SubScalar": [Sample(lambda lib, a, b: lib.autograd.grad((a ** b).abs().sum(), a,
                                                             create_graph=True)[0],
                         ((S3, A), (S3, A)), check_node=False)],
    "TanhBackward": [Sample(lambda lib, a: lib.autograd.grad(a.tanh().abs().sum(), a,
                                                             create_graph=True)[0],
                            ((S3, A),), check_node=False)],
    "SigmoidBackward": [Sample(lambda lib, a: lib.autograd.grad(a.sigmoid().abs().sum(), a,
                                                                create_graph=True)[0],
                               ((S3, A),), check_node=False)],
    "Abs": [Sample(lambda lib, a: a.abs(), ((S23, AWAY0),)),
            Sample(lambda lib, a: abs(a), ((S0, AWAY0),))],
    "Sgn": [Sample(lambda lib, a: a.sgn(), ((S23, AWAY0),))],
    "Angle": [Sample(lambda lib, a: a.angle(), ((S23, AWAY0),))],
    "Real": [Sample(lambda lib, a: a.real, ((S23, A),))],
    "Imag": [Sample(lambda lib, a: a.imag, ((S23, A),))],
    "Conj": [Sample(lambda lib, a, b: a.conj() * b, ((S23, A), (S23, A)), check_node=False)],
    "ConjPhysical": [Sample(lambda lib, a: a.conj_physical(), ((S23, A),))],
    "ViewAsReal": [Sample(lambda lib, a: lib.view_as_real(a), ((S23, A),))],
    "Vdot": [Sample(lambda lib, a, b: lib.vdot(a, b), ((S3, A), (S3, A)))],
    "Prod": [Sample(lambda lib, a: a.prod(), ((S23, AWAY0),))],
    "ProdDim": [Sample(lambda lib, a: a.prod(1), ((S23, AWAY0),))],
    "PowTensor": [Sample(lambda lib, a, b: a ** b, ((S23, POS), (S23, A)))],
    "PowScalarBase": [Sample(lambda lib, a: 2 ** a, ((S3, A),)),
                      Sample(lambda lib, a: (1 + 2j) ** a, ((S3, A),))],
    "PowScalar": [Sample(lambda lib, a: a ** 2, ((S3, A),)),
                  Sample(lambda lib, a: a ** (0.5 - 1j), ((S3, POS),)),
                  Sample(lambda lib, a: a ** -1.5, ((S3, POS),))],
    "SqueezeLast": [Sample(lambda lib, a: (a * 1).squeeze_(0), (((1, 3), A),), check_node=False),
                    Sample(lambda lib, a: (a * 1).squeeze_(1) * 2, ((S23, A),), check_node=False)],
    "FftC2C": [Sample(lambda lib, a: lib.fft.fft(a), ((S23, A),)),
               Sample(lambda lib, a: lib.fft.ifftn(a, s=(3, 2), norm="ortho"), ((S23, A),))],
    "FftR2C": [Sample(lambda lib, a: lib.fft.rfft(a.real * a.imag), ((S23, A),)),
               Sample(lambda lib, a: lib.fft.ihfft2(a.imag, norm="forward"), ((S23, A),))],
    "FftC2R": [Sample(lambda lib, a: lib.fft.irfft(a), ((S23, A),)),
               Sample(lambda lib, a: lib.fft.hfftn(a, s=(2, 4)), ((S23, A),))],
}


def _hermitian_pd(lib, a):
    """A Hermitian positive-definite matrix (the table's real samples use a @ a.mT)."""
    return a @ a.mH + 3 * lib.eye(a.shape[-1], dtype=lib.float64)


def _hermitian(lib, a):
    return a + a.mH


def _usv_product(lib, a, full_matrices=False):
    """U diag(S) Vh: independent of the singular vectors' phases."""
    u, s, vh = lib.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    return (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :]


# Complex samples of the linalg ops whose table samples read a symmetric input (complex ones
# need a Hermitian one) or depend on the phases of singular vectors / eigenvectors (complex
# ones are defined up to e^{i phi} per column; torch's backward refuses such losses, tested in
# tests/ops/test_complex_last.py).
COMPLEX_SAMPLES.update({
    "Cholesky": [Sample(lambda lib, a: lib.cholesky(_hermitian_pd(lib, a)), (((3, 3), A),)),
                 Sample(lambda lib, a: _hermitian_pd(lib, a).cholesky(upper=True),
                        (((2, 3, 3), A),))],
    "LinalgCholeskyEx": [
        Sample(lambda lib, a: lib.linalg.cholesky(_hermitian_pd(lib, a)), (((3, 3), A),)),
        Sample(lambda lib, a: lib.linalg.cholesky(_hermitian_pd(lib, a), upper=True),
               (((2, 3, 3), A),)),
        Sample(lambda lib, a: lib.linalg.cholesky(_hermitian_pd(lib, a)), (((1, 1), A),)),
    ],
    "LinalgEigh": [
        Sample(lambda lib, a: lib.linalg.eigh(_hermitian(lib, a)).eigenvalues, (((3, 3), A),)),
        Sample(lambda lib, a: lib.linalg.eigvalsh(_hermitian(lib, a), UPLO="U"),
               (((2, 3, 3), A),)),
        Sample(lambda lib, a: lib.linalg.eigh(_hermitian(lib, a)).eigenvectors.abs(),
               (((3, 3), A),), check_node=False),
        Sample(lambda lib, a: (lambda pair: (pair[1] * pair[0].unsqueeze(-2)) @ pair[1].mH)(
            lib.linalg.eigh(_hermitian(lib, a))), (((2, 3, 3), A),), check_node=False),
    ],
    "LinalgSvd": [
        Sample(lambda lib, a: _usv_product(lib, a), (((4, 3), A),), check_node=False),
        Sample(lambda lib, a: _usv_product(lib, a), (((2, 3, 4), A),), check_node=False),
        Sample(lambda lib, a: _usv_product(lib, a, full_matrices=True), (((4, 2), A),),
               check_node=False),
        Sample(lambda lib, a: lib.linalg.svdvals(a), (((3, 4), A),)),
        Sample(lambda lib, a: lib.linalg.svd(a, False).U.abs(), (((3, 3), A),),
               check_node=False),
        Sample(lambda lib, a: lib.linalg.svd(a, False).Vh.abs(), (((2, 4), A),),
               check_node=False),
    ],
    "LinalgPinv": [
        Sample(lambda lib, a: lib.linalg.pinv(a), (((4, 3), A),)),
        Sample(lambda lib, a: lib.linalg.pinv(a), (((2, 2, 3), A),)),
        Sample(lambda lib, a: lib.pinverse(a), (((3, 3), A),)),
        Sample(lambda lib, a: lib.linalg.pinv(_hermitian_pd(lib, a), hermitian=True),
               (((3, 3), A),)),
    ],
})
# Ops whose table samples are made of real inputs only (complex() and polar() take real
# parts) or whose own sample covers complex inputs already.
REAL_INPUT_ONLY = {"Complex", "Polar", "ViewAsComplex"}


def _complex_cases():
    cases = []
    for name in sorted(OPS):
        if not OPS[name].complex_ok or name in REAL_INPUT_ONLY:
            continue
        samples = COMPLEX_SAMPLES.get(name, SAMPLES.get(name, []))
        cases += [pytest.param(name, i, id=f"{name}-{i}") for i in range(len(samples))]
    return cases


CASES = _complex_cases()


def _sample(name: str, index: int) -> Sample:
    return COMPLEX_SAMPLES.get(name, SAMPLES.get(name))[index]


def _inputs(sample: Sample, seed: str):
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    arrays = [values(shape, domain, rng) + 1j * values(shape, domain, rng)
              for shape, domain in sample.shapes]
    ours = [leafgrad.tensor(a, dtype=leafgrad.complex128, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.complex128, requires_grad=True) for a in arrays]
    return ours, theirs


def _array(tensor) -> np.ndarray:
    return tensor.detach().resolve_conj().resolve_neg().numpy()


def _first_line(error: BaseException) -> str:
    text = str(error).replace("leafgrad.", "torch.")  # dtypes print as leafgrad.complex128
    return text.splitlines()[0] if text else ""


def test_every_complex_op_has_complex_samples():
    assert CASES, "no op is marked complex_ok"
    missing = [name for name in OPS if OPS[name].complex_ok and name not in REAL_INPUT_ONLY
               and not COMPLEX_SAMPLES.get(name, SAMPLES.get(name))]
    assert missing == []
    stale = [name for name in COMPLEX_SAMPLES if name not in OPS or not OPS[name].complex_ok]
    assert stale == []


@pytest.mark.parametrize("name,index", CASES)
def test_complex_matches_torch(name, index):
    sample = _sample(name, index)
    ours, theirs = _inputs(sample, f"{name}-{index}")
    try:
        expected = sample.call(torch, *theirs)
    except Exception as error:  # torch refuses this sample for complex inputs: so must we
        with pytest.raises(type(error)) as ours_error:
            sample.call(leafgrad, *ours)
        assert _first_line(ours_error.value) == _first_line(error)
        return
    out = sample.call(leafgrad, *ours)
    assert tuple(out.shape) == tuple(expected.shape)
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(_array(out), _array(expected), rtol=1e-10, atol=1e-12)
    assert out.requires_grad == expected.requires_grad
    if expected.grad_fn is not None and sample.check_node:
        assert out.grad_fn.name() == expected.grad_fn.name()
    if not expected.requires_grad:
        return
    rng = np.random.default_rng(index + 7)
    grad_out = rng.normal(size=tuple(expected.shape))
    if expected.is_complex():
        grad_out = grad_out + 1j * rng.normal(size=tuple(expected.shape))
    grads = leafgrad.autograd.grad(out, ours, leafgrad.tensor(grad_out, dtype=out.dtype),
                                   allow_unused=True)
    expected_grads = torch.autograd.grad(expected, theirs,
                                         torch.tensor(grad_out, dtype=expected.dtype),
                                         allow_unused=True)
    for got, want in zip(grads, expected_grads):
        if want is None:
            assert got is None or not np.any(got.numpy())
            continue
        assert got.dtype == leafgrad.complex128
        np.testing.assert_allclose(_array(got), _array(want), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,index", CASES)
def test_complex_gradcheck(name, index):
    sample = _sample(name, index)
    ours, theirs = _inputs(sample, f"{name}-{index}")
    try:
        expected = sample.call(torch, *theirs)
    except Exception:
        return  # torch refuses it: test_complex_matches_torch checks we refuse it too
    if not expected.requires_grad or not OPS[name].differentiable:
        return
    if not sample.finite_differences:
        assert sample.note
        return
    options = {"eps": 1e-6, "atol": 1e-5, **sample.check_options}
    assert gradcheck(lambda *xs: sample.call(leafgrad, *xs), ours, **options)
    if sample.second_order:
        assert gradgradcheck(lambda *xs: sample.call(leafgrad, *xs), ours, **options)


UNSUPPORTED = [
    pytest.param(name, id=name)
    for name in sorted(OPS)
    if not OPS[name].complex_ok and SAMPLES.get(name)
]


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_unsupported_ops_refuse_complex(name):
    """An op without complex support never computes silently: on the op's first sample with
    complex inputs leafgrad raises where torch raises (a RuntimeError where torch's is one),
    and where torch computes, leafgrad either computes the same values (through a composite
    that is complex-aware) or refuses with NotImplementedError (a gap, not a wrong answer)."""
    sample = SAMPLES[name][0]
    ours, theirs = _inputs(sample, f"{name}-0")
    try:
        expected = sample.call(torch, *theirs)
    except Exception as error:
        with pytest.raises(Exception) as ours_error:
            sample.call(leafgrad, *ours)
        assert isinstance(ours_error.value, RuntimeError) == isinstance(error, RuntimeError)
        return
    try:
        out = sample.call(leafgrad, *ours)
    except NotImplementedError:
        return
    np.testing.assert_allclose(_array(out), _array(expected), rtol=1e-10, atol=1e-12)
