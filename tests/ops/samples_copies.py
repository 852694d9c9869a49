"""Samples for the ``*_copy`` forms of the views (ops/shape_copy.py)."""

from __future__ import annotations

from .samples import Sample

A = "any"
S234, S23 = (2, 3, 4), (2, 3)

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
        Sample(lambda lib, a: lib.view_copy(a.t(), (6,)), ((S23, A),),
               note="strides a view could not follow"),
    ],
    "ViewAsRealCopy": [
        Sample(lambda lib, a, b: lib.view_as_real_copy(lib.complex(a, b)), ((S23, A), (S23, A))),
    ],
    "AsStridedCopy": [
        Sample(lambda lib, a: lib.as_strided_copy(a, (2, 2), (1, 2), 1), ((S23, A),)),
    ],
}
