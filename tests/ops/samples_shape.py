"""Samples for views, shape builders and index-driven ops (ops/shape_ext.py, ops/gather.py)."""

from __future__ import annotations

from .samples import Sample

A = "any"
S23, S3, S0, S13 = (2, 3), (3,), (), (1, 3)


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


SAMPLES = {
    "Split": [
        Sample(lambda lib, a: a.split(2)[1], (((5, 2), A),)),
        Sample(lambda lib, a: lib.stack(a.split(1, dim=-1)[::-1]).sum(0), ((S23, A),)),
        Sample(lambda lib, a: a.chunk(2, 1)[0], (((2, 5), A),)),
        Sample(lambda lib, a: a.t().split(2)[0], ((S23, A),), note="non-contiguous input"),
    ],
    "SplitWithSizes": [Sample(lambda lib, a: a.split([1, 3], dim=1)[1], (((2, 4), A),))],
    "Diagonal": [
        Sample(lambda lib, a: a.diagonal(), (((3, 3), A),)),
        Sample(lambda lib, a: a.diagonal(1, -2, -1), (((2, 3, 4), A),)),
    ],
    "DiagonalBackward": [
        Sample(lambda lib, a: lib.autograd.grad((a.diagonal() ** 2).sum(), a, create_graph=True)[0],
               (((3, 3), A),)),
    ],
    "AsStridedPublic": [
        Sample(lambda lib, a: a.as_strided((2, 2), (1, 2)), (((2, 3), A),)),
        # (on a clone: torch counts an explicit offset from the start of the storage, and the
        # vmap table's per-example inputs are views into a stack)
        Sample(lambda lib, a: a.clone().as_strided((3, 2), (1, 1), 1), (((6,), A),),
               note="overlapping"),
    ],
    "AsStridedScatterAdd": [
        Sample(lambda lib, a: lib.autograd.grad((a.as_strided((3, 2), (1, 1)) ** 2).sum(), a,
                                                create_graph=True)[0],
               (((6,), A),), check_node=False,
               note="torch names this double-backward node AsStridedScatterBackward0"),
    ],
    "Repeat": [
        Sample(lambda lib, a: a.repeat(2, 1), ((S23, A),)),
        Sample(lambda lib, a: a.repeat(2, 1, 3), ((S3, A),)),
        Sample(lambda lib, a: lib.tile(a, (2,)), ((S0, A),)),
    ],
    "Flip": [Sample(lambda lib, a: a.flip(0), ((S23, A),)), Sample(lambda lib, a: a.flip(-1, 0), ((S23, A),))],
    "Roll": [
        Sample(lambda lib, a: a.roll(1, 0), ((S23, A),)),
        Sample(lambda lib, a: a.roll(2), ((S23, A),)),
        Sample(lambda lib, a: a.roll((1, -1), (0, 1)), ((S23, A),)),
    ],
    "Rot90": [Sample(lambda lib, a: a.rot90(), ((S23, A),)), Sample(lambda lib, a: a.rot90(3, (1, 0)), ((S23, A),))],
    "IndexSelect": [
        Sample(lambda lib, a: a.index_select(1, _long(lib, [2, 0, 2])), ((S23, A),)),
        Sample(lambda lib, a: lib.index_select(a, -2, _long(lib, [1])), ((S23, A),)),
        Sample(lambda lib, a: a.index_select(0, _long(lib, [0])), ((S0, A),), note="0-d"),
        Sample(lambda lib, a: a.repeat_interleave(_long(lib, [1, 0, 2])), ((S3, A),)),
    ],
    "IndexAdd": [
        Sample(lambda lib, a, s: a.index_add(0, _long(lib, [0, 0, 1]), s), ((S23, A), ((3, 3), A))),
        Sample(lambda lib, a, s: a.index_add(1, _long(lib, [2, 0]), s, alpha=2), ((S23, A), ((2, 2), A))),
    ],
    "Gather": [
        Sample(lambda lib, a: a.gather(1, _long(lib, [[0, 0], [2, 1]])), ((S23, A),)),
        Sample(lambda lib, a: lib.gather(a, 0, _long(lib, [[1, 0, 1]])), ((S23, A),)),
        Sample(lambda lib, a: a.gather(0, _long(lib, 0)), ((S0, A),), note="0-d"),
    ],
    "ScatterAdd": [
        Sample(lambda lib, a, s: a.scatter_add(1, _long(lib, [[0, 0], [2, 1]]), s), ((S23, A), ((2, 2), A))),
        Sample(lambda lib, a, s: a.scatter_add(0, _long(lib, [[1, 0, 1]]), s), ((S23, A), (S13, A))),
        Sample(lambda lib, a, s: a.scatter_add(0, _long(lib, 0), s), ((S0, A), (S0, A)), note="0-d"),
    ],
    "Scatter": [
        Sample(lambda lib, a, s: a.scatter(1, _long(lib, [[0], [2]]), s), ((S23, A), ((2, 1), A))),
        Sample(lambda lib, a, s: a.scatter(0, _long(lib, [[1, 0, 1]]), s), ((S23, A), (S13, A))),
    ],
    "ScatterValue": [Sample(lambda lib, a: a.scatter(1, _long(lib, [[0], [2]]), 2.5), ((S23, A),))],
    "MaskedFill": [
        Sample(lambda lib, a, b: a.masked_fill(b > 0, 0.5), ((S23, A), (S3, A))),
        Sample(lambda lib, a: a.masked_fill(a > 0, -1.0), ((S0, A),)),
    ],
    "MaskedFillTensor": [Sample(lambda lib, a, v: a.masked_fill(a > 0, v), ((S23, A), (S0, A)))],
    "MaskedSelect": [
        Sample(lambda lib, a: a.masked_select(a > 0), ((S23, A),)),
        Sample(lambda lib, a, b: a.masked_select(b > 0), ((S3, A), (S23, A)), note="broadcast mask"),
    ],
    "Take": [Sample(lambda lib, a: a.take(_long(lib, [[0, 5], [-1, 2]])), ((S23, A),))],
    "IndexFill": [
        Sample(lambda lib, a: a.index_fill(1, _long(lib, [2, 0, 2]), -1.5), ((S23, A),)),
        Sample(lambda lib, a: lib.index_fill(a, -2, _long(lib, 1), 2), ((S23, A),),
               note="0-d index, negative dim"),
        Sample(lambda lib, a: a.index_fill(0, _long(lib, [-1]), 0.5), ((S0, A),), note="0-d"),
        Sample(lambda lib, a: a.t().index_fill(0, _long(lib, [1]), 3.0), ((S23, A),),
               note="non-contiguous input"),
        Sample(lambda lib, a: a.clone().index_fill_(0, _long(lib, [0]), 1.0), ((S23, A),),
               note="in place"),
    ],
    "IndexFillTensor": [
        Sample(lambda lib, a, v: a.index_fill(1, _long(lib, [2, 0]), v), ((S23, A), (S0, A))),
        Sample(lambda lib, a, v: a.clone().index_fill_(0, _long(lib, [0, 0]), v),
               ((S3, A), (S0, A)), note="in place, repeated index"),
        Sample(lambda lib, a, v: a.index_fill(0, _long(lib, [0]), v), ((S0, A), (S0, A)),
               note="0-d"),
    ],
    "IndexCopy": [
        Sample(lambda lib, a, s: a.index_copy(1, _long(lib, [2, 0]), s), ((S23, A), ((2, 2), A))),
        Sample(lambda lib, a, s: lib.index_copy(a, 0, _long(lib, [1]), s), ((S23, A), (S13, A))),
        Sample(lambda lib, a, s: a.clone().index_copy_(-1, _long(lib, [0, 2]), s.t()),
               ((S23, A), ((2, 2), A)), note="in place, non-contiguous source"),
        Sample(lambda lib, a, s: a.index_copy(0, _long(lib, [0]), s), ((S0, A), (S0, A)),
               note="0-d"),
    ],
    "Put": [
        Sample(lambda lib, a, s: a.put(_long(lib, [[5, 0], [-2, 2]]), s), ((S23, A), ((2, 2), A))),
        Sample(lambda lib, a, s: lib.put(a, _long(lib, [1, 1, 4]), s, accumulate=True),
               ((S23, A), (S3, A)), note="accumulate with a repeated index"),
        Sample(lambda lib, a, s: a.t().clone().put_(_long(lib, [3]), s), ((S23, A), ((1,), A)),
               note="in place"),
        Sample(lambda lib, a, s: a.put(_long(lib, [0]), s), ((S0, A), (S0, A)), note="0-d"),
    ],
}
