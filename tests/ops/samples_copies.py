"""Samples for the ``*_copy`` forms of the views (ops/shape_copy.py)."""

from __future__ import annotations

from .samples import Sample

A = "any"
S234, S23 = (2, 3, 4), (2, 3)


def _grid(lib, like):
    """A constant of ``like``'s shape and dtype (not perturbed by gradcheck)."""
    return lib.arange(like.numel()).to(like.dtype).reshape(like.shape)

SAMPLES = {
    "AliasCopy": [Sample(lambda lib, a: lib.alias_copy(a), ((S23, A),))],
    "ExpandCopy": [
        Sample(lambda lib, a: lib.expand_copy(a, (2, 3, 3)), (((3, 1), A),)),
        Sample(lambda lib, a: lib.expand_copy(a, (2, 3)), (((), A),), note="0-d"),
    ],
    "PermuteCopy": [
        Sample(lambda lib, a: lib.permute_copy(a, (2, 0, 1)), ((S234, A),)),
        Sample(lambda lib, a: lib.permute_copy(a.transpose(0, 2), (1, 0, 2)), ((S234, A),),
               note="non-contiguous input"),
    ],
    "SelectCopy": [Sample(lambda lib, a: lib.select_copy(a, 1, -1), ((S234, A),))],
    "SliceCopy": [
        Sample(lambda lib, a: lib.slice_copy(a, 2, 1, None, 2), ((S234, A),)),
        Sample(lambda lib, a: lib.slice_copy(a), ((S23, A),)),
    ],
    "SplitCopy": [
        Sample(lambda lib, a: lib.split_copy(a, 2, -1)[1], ((S234, A),)),
        Sample(lambda lib, a: lib.stack(lib.split_copy(a, 1)).sum(0), ((S23, A),)),
    ],
    "SplitWithSizesCopy": [
        Sample(lambda lib, a: lib.split_with_sizes_copy(a, [1, 3], 2)[1], ((S234, A),)),
    ],
    "SqueezeAllCopy": [Sample(lambda lib, a: lib.squeeze_copy(a), (((2, 1, 3), A),))],
    "SqueezeDimCopy": [Sample(lambda lib, a: lib.squeeze_copy(a, 1), (((2, 1, 3), A),))],
    "SqueezeDimsCopy": [Sample(lambda lib, a: lib.squeeze_copy(a, (0, 1)), (((2, 1, 3), A),))],
    "TCopy": [
        Sample(lambda lib, a: lib.t_copy(a), ((S23, A),)),
        Sample(lambda lib, a: lib.t_copy(a), (((), A),), note="0-d"),
    ],
    "TransposeCopy": [Sample(lambda lib, a: lib.transpose_copy(a, 0, -1), ((S234, A),))],
    "UnbindCopy": [
        Sample(lambda lib, a: lib.unbind_copy(a, 1)[2], ((S234, A),)),
        Sample(lambda lib, a: lib.stack(lib.unbind_copy(a)[::-1]), ((S23, A),)),
    ],
    "UnfoldCopy": [Sample(lambda lib, a: lib.unfold_copy(a, 1, 2, 1), ((S23, A),))],
    "UnsqueezeCopy": [Sample(lambda lib, a: lib.unsqueeze_copy(a, -1), ((S23, A),))],
    "ViewCopy": [
        Sample(lambda lib, a: lib.view_copy(a, (4, -1)), ((S234, A),)),
        # (non-contiguous inputs are in test_view_copies.py: torch's forward AD of them
        # fails, its jvp being a view)
        Sample(lambda lib, a: lib.view_copy(a, (3, 2)), ((S23, A),)),
    ],
    "ViewAsRealCopy": [
        Sample(lambda lib, a, b: lib.view_as_real_copy(lib.complex(a, b)), ((S23, A), (S23, A))),
    ],
    "AsStridedPublicCopy": [
        Sample(lambda lib, a: lib.as_strided_copy(a, (2, 2), (1, 2), 1), ((S23, A),)),
    ],
}

SAMPLES.update({
    # torch 2.13's gradient for self is wrong (grad inside the region instead of outside it:
    # see Note: as_strided_scatter's gradient), so in these samples self is a constant and a
    # joins the graph after the scatter; src's gradient is compared with torch. self's gradient
    # is gradchecked in tests/ops/test_missing_torch_names.py.
    "AsStridedScatter": [
        Sample(lambda lib, a, b: lib.as_strided_scatter(_grid(lib, a), b, (2, 2), (1, 2), 1) * a,
               ((S23, A), ((2, 2), A))),
        Sample(lambda lib, a, b: _grid(lib, a).as_strided_scatter(b, (2,), (3,)) + a,
               ((S23, A), ((2,), A))),
        Sample(lambda lib, a, b: lib.as_strided_scatter(_grid(lib, a), b, (), ()) * a,
               ((S23, A), ((), A)), note="0-d region"),
    ],
    "FillScalar": [Sample(lambda lib, a: lib.fill(a, 2.5) * a, ((S23, A),))],
    "FillValue": [
        Sample(lambda lib, a, v: lib.fill(a, v) * a, ((S23, A), ((), A))),
    ],
    "ConjPhysicalInplace": [
        Sample(lambda lib, a: lib.conj_physical_(a * 1), ((S23, A),)),
        Sample(lambda lib, a, b: lib.view_as_real(lib.complex(a, b).conj_physical_()),
               ((S23, A), (S23, A))),
    ],
})


def _spd(lib, a):
    """A symmetric positive-definite matrix from ``a`` (as the linalg samples make them)."""
    return a @ a.mT + lib.eye(a.shape[-1], dtype=a.dtype) * a.shape[-1]


def _warnless(function):
    """The deprecated functions warn once per process; the samples do not look at it."""
    import warnings

    def call(lib, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(lib, *args)

    return call


# ops/native_forms.py: torch's ATen-level functions under their own nodes
SAMPLES.update({
    "Cholesky": [
        Sample(_warnless(lambda lib, a: lib.cholesky(_spd(lib, a))), (((3, 3), A),)),
        Sample(_warnless(lambda lib, a: _spd(lib, a).cholesky(upper=True)), (((2, 3, 3), A),)),
    ],
    "NormAll": [  # (0-d: torch's forward AD fails on other shapes, tests/test_sym_and_...)
        Sample(lambda lib, a: lib.norm_except_dim(a, 2, -1), (((), A),)),
        Sample(lambda lib, a: lib.norm_except_dim(a, 3, -1), (((), A),)),
    ],
    "NormDims": [
        Sample(lambda lib, a: lib.norm_except_dim(a, 2, 0), ((S234, A),)),
        Sample(lambda lib, a: lib.norm_except_dim(a, 1, 1), ((S234, A),)),
        Sample(_warnless(lambda lib, a: lib.frobenius_norm(a, [1])), ((S234, A),)),
        Sample(_warnless(lambda lib, a: lib.frobenius_norm(a, [0, -1], True)), ((S234, A),)),
    ],
    "NativeDropout": [
        Sample(lambda lib, a: lib.native_dropout(a, 0.5, False)[0], ((S234, A),)),
        Sample(lambda lib, a: lib.native_dropout(a, 0.0, True)[0], ((S23, A),),
               note="p = 0: every element kept, the draw still made"),
    ],
    "NativeGroupNorm": [
        Sample(lambda lib, a, w, b: lib.native_group_norm(a, w, b, 2, 4, 3, 2, 1e-5)[0],
               (((2, 4, 3), A), ((4,), A), ((4,), A))),
        Sample(lambda lib, a: lib.native_group_norm(a, None, None, 2, 3, 4, 3, 1e-5)[0],
               ((S234, A),)),
    ],
})
