"""Samples for ops/elementwise_misc.py, ops/matrix_extra.py and ops/scatter_extra.py."""

from __future__ import annotations

from .samples import Sample

A, AWAY = "any", "away0"
S23, S3, S0, S0E = (2, 3), (3,), (), (0, 2)


def _ints(lib, a):
    """Integers in [-12, 12] from float values (the integer ops' inputs)."""
    return (a.detach() * 6).round().long()


def _addr_ints(lib, m, a, b):
    return lib.addr(m, _ints(lib, a), _ints(lib, b), alpha=2)


def _unfold_grad(lib, a, w):
    return lib.autograd.grad((a.unfold(1, 3, 2) * w).sum(), a, create_graph=True)[0] * a


def _mask(lib):
    return lib.tensor([[True, False, True], [False, True, True]])


def _source_grad(rows, size, transpose=False):
    """masked_scatter's source gradient for the grad_output ``grad`` (the sample's input)."""

    def _source_grad(lib, grad):
        mask = _mask(lib)[rows]
        if transpose:
            grad, mask = grad.t(), mask.t()
        source = grad.new_ones(size).requires_grad_()
        out = grad.new_zeros(grad.shape).masked_scatter(mask, source)
        return lib.autograd.grad(out, source, grad, create_graph=True)[0]

    return _source_grad


def _index_reduce(reduce, include_self=True, inplace=False):
    def call(lib, a, b):
        index = lib.tensor([0, 2, 0, 1])
        if inplace:
            return (a * 1).index_reduce_(1, index, b, reduce, include_self=include_self)
        return lib.index_reduce(a, 1, index, b, reduce, include_self=include_self)

    return call


def _prod_with_zero(lib, a, b):
    zeroed = b * lib.tensor([1.0, 0.0, 1.0, 1.0])  # one zero factor in column 2's product
    return a.index_reduce(1, lib.tensor([0, 2, 0, 1]), zeroed, "prod")


SAMPLES = {
    "SelectScatter": [
        Sample(lambda lib, a, b: lib.select_scatter(a, b, 0, 1), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: a.select_scatter(b, -1, -1), ((S23, A), ((2,), A))),
        Sample(lambda lib, a, b: lib.select_scatter(a.t(), b, 1, 0), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.select_scatter(a, b, 0, 0), (((1,), A), (S0, A))),
        Sample(lambda lib, a, b: lib.select_scatter(a, b, 1, 1), (((0, 2), A), ((0,), A))),
    ],
    "SliceScatter": [
        Sample(lambda lib, a, b: lib.slice_scatter(a, b, 1, 0, 2), ((S23, A), ((2, 2), A))),
        Sample(lambda lib, a, b: a.slice_scatter(b, dim=1, start=0, step=2),
               (((2, 4), A), ((2, 2), A))),
        Sample(lambda lib, a, b: lib.slice_scatter(a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.slice_scatter(a.t(), b, 0, -1), ((S23, A), ((1, 2), A))),
        Sample(lambda lib, a, b: lib.slice_scatter(a, b, 1, 5, 9), ((S23, A), ((2, 0), A))),
    ],
    "DiagonalScatter": [
        Sample(lambda lib, a, b: lib.diagonal_scatter(a, b), (((3, 4), A), (S3, A))),
        Sample(lambda lib, a, b: a.diagonal_scatter(b, 1), (((3, 4), A), (S3, A))),
        Sample(lambda lib, a, b: lib.diagonal_scatter(a, b, -1, 2, 0),
               (((3, 2, 4), A), ((2, 3), A))),
        Sample(lambda lib, a, b: lib.diagonal_scatter(a.t(), b, 0, 1, 0), ((S23, A), ((2,), A))),
        Sample(lambda lib, a, b: lib.diagonal_scatter(a, b, 5), ((S23, A), ((0,), A))),
    ],
    "MaskedScatter": [
        Sample(lambda lib, a, b: lib.masked_scatter(a, _mask(lib), b), ((S23, A), ((7,), A))),
        Sample(lambda lib, a, b: a.masked_scatter(_mask(lib)[0], b), ((S23, A), ((2, 3), A))),
        Sample(lambda lib, a, b: a.masked_scatter(_mask(lib), b), ((S3, A), ((4,), A))),
        Sample(lambda lib, a, b: a.t().masked_scatter(_mask(lib).t(), b), ((S23, A), ((5,), A))),
        Sample(lambda lib, a, b: a.masked_scatter(lib.tensor(True), b), ((S0, A), (S3, A))),
        Sample(lambda lib, a, b: (a * 1).masked_scatter_(_mask(lib)[:, :1], b),
               ((S23, A), ((3, 2), A))),
        Sample(lambda lib, a, b: a.masked_scatter(_mask(lib) & False, b), ((S23, A), ((0,), A))),
    ],
    # masked_scatter's source gradient, as its own node; a source of grad's shape (torch's
    # forward-mode formula fails on any other: tests/test_left10_findings.py)
    "MaskedScatterBackward": [
        Sample(_source_grad(slice(None), (2, 3)), ((S23, A),)),
        Sample(_source_grad(0, (2, 3)), ((S23, A),)),
        Sample(_source_grad(slice(None), (3, 2), transpose=True), ((S23, A),)),
    ],
    "IndexReduce": [
        Sample(_index_reduce("prod"), ((S23, AWAY), ((2, 4), AWAY))),
        Sample(_index_reduce("prod", False), ((S23, AWAY), ((2, 4), AWAY))),
        Sample(_index_reduce("mean"), ((S23, A), ((2, 4), A))),
        Sample(_index_reduce("mean", False), ((S23, A), ((2, 4), A))),
        Sample(_index_reduce("amax"), ((S23, A), ((2, 4), A))),
        Sample(_index_reduce("amin", False), ((S23, A), ((2, 4), A))),
        Sample(_prod_with_zero, ((S23, AWAY), ((2, 4), AWAY))),
        Sample(lambda lib, a, b: a.index_reduce(0, lib.tensor(0), b, "amax"), ((S0, A), (S0, A))),
        Sample(lambda lib, a, b: a.t().index_reduce(0, lib.tensor([1, 1]), b, "mean"),
               ((S23, A), ((2, 2), A))),
    ],
    "Unfold": [
        Sample(lambda lib, a: a.unfold(1, 2, 1), (((2, 5), A),)),
        Sample(lambda lib, a: a.unfold(0, 2, 2), (((5, 2), A),)),
        Sample(lambda lib, a: a.t().unfold(-1, 3, 1), (((4, 3), A),)),
        Sample(lambda lib, a: a.unfold(0, 1, 1), ((S0, A),)),
        Sample(lambda lib, a: a.unfold(1, 0, 1), ((S23, A),)),
        Sample(lambda lib, a: a.unfold(0, 3, 3), (((7,), A),)),
    ],
    "UnfoldBackward": [
        Sample(_unfold_grad, (((2, 7), A), ((2, 3, 3), A)), node=None,
               note="double backward of unfold"),
    ],
    "NarrowCopy": [
        Sample(lambda lib, a: lib.narrow_copy(a, 1, 1, 2), ((S23, A),)),
        Sample(lambda lib, a: a.narrow_copy(-1, -2, 1), ((S23, A),)),
        Sample(lambda lib, a: a.t().narrow_copy(0, 0, 0), ((S23, A),)),
    ],
    "UnsafeSplit": [
        Sample(lambda lib, a: lib.unsafe_split(a, 2, 1)[1], (((2, 5), A),)),
        Sample(lambda lib, a: lib.stack(a.unsafe_chunk(3, 0)).sum(0), (((3, 2), A),)),
        Sample(lambda lib, a: a.t().unsafe_chunk(2)[0], ((S23, A),)),
    ],
    "UnsafeSplitWithSizes": [
        Sample(lambda lib, a: lib.unsafe_split_with_sizes(a, [1, 3], 1)[1], (((2, 4), A),)),
        Sample(lambda lib, a: a.unsafe_split_with_sizes([0, 2])[1] * 2, (((2, 3), A),)),
    ],
    "Addr": [
        Sample(lambda lib, m, a, b: lib.addr(m, a, b), (((3, 4), A), (S3, A), ((4,), A))),
        Sample(lambda lib, m, a, b: lib.addr(m, a, b, beta=0.5, alpha=-2),
               (((4,), A), (S3, A), ((4,), A))),
        Sample(lambda lib, m, a, b: m.addr(a, b, beta=0), ((S0, A), ((2,), A), (S3, A))),
        Sample(lambda lib, m, a, b: lib.addr(m.t(), a[::2], b), (((4, 3), A), ((6,), A), ((4,), A))),
        Sample(lambda lib, m, a, b: lib.addr(m, a, b), (((0, 3), A), ((0,), A), (S3, A))),
        Sample(lambda lib, m, a, b: (m * 1).addr_(a, b, alpha=3), (((3, 4), A), (S3, A), ((4,), A))),
        Sample(_addr_ints, (((3, 4), A), (S3, A), ((4,), A))),
    ],
    "Addbmm": [
        Sample(lambda lib, m, a, b: lib.addbmm(m, a, b),
               (((3, 4), A), ((2, 3, 5), A), ((2, 5, 4), A))),
        Sample(lambda lib, m, a, b: lib.addbmm(m, a, b, beta=-1.5, alpha=0.5),
               (((4,), A), ((3, 2, 2), A), ((3, 2, 4), A))),
        Sample(lambda lib, m, a, b: m.addbmm(a.transpose(1, 2), b, beta=0),
               ((S0, A), ((2, 3, 2), A), ((2, 3, 3), A))),
        Sample(lambda lib, m, a, b: lib.addbmm(m, a, b), ((S23, A), ((0, 2, 4), A), ((0, 4, 3), A))),
        Sample(lambda lib, m, a, b: (m * 1).addbmm_(a, b, alpha=2),
               ((S23, A), ((2, 2, 1), A), ((2, 1, 3), A))),
    ],
    "BlockDiag": [
        Sample(lambda lib, a, b, c: lib.block_diag(a, b, c), ((S23, A), (S3, A), (S0, A))),
        Sample(lambda lib, a, b: lib.block_diag(a.t(), b), (((3, 2), A), ((0, 2), A))),
        Sample(lambda lib, a, b: lib.block_diag(a, _ints(lib, b)), ((S23, A), (S3, A))),
        Sample(lambda lib, a: lib.block_diag(a), (((2, 2), A),)),
    ],
    "Nextafter": [
        Sample(lambda lib, a, b: lib.nextafter(a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: a.nextafter(b), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.nextafter(a.t(), b), (((3, 2), A), (S0, A))),
        Sample(lambda lib, a, b: lib.nextafter(a, b), ((S0E, A), ((2,), A))),
        Sample(lambda lib, a, b: (a * 1).nextafter_(b), ((S23, A), (S3, A))),
    ],
    "Ldexp": [
        Sample(lambda lib, a, b: lib.ldexp(a, b), ((S23, A), (S23, A))),
        Sample(lambda lib, a, b: lib.ldexp(a, _ints(lib, b)), ((S23, A), (S3, A)),
               finite_differences=False,
               note="integer exponents: torch's gradient is 0 where the exponent is negative "
                    "(Note: ldexp's gradient with integer exponents), not the derivative"),
        Sample(lambda lib, a, b: lib.ldexp(a, _ints(lib, b).abs()), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: a.ldexp(b), ((S0, A), (S3, A))),
        Sample(lambda lib, a, b: lib.ldexp(a.t(), b), (((3, 2), A), (S0, A))),
        Sample(lambda lib, a, b: lib.ldexp(a, b), ((S0E, A), ((2,), A))),
        Sample(lambda lib, a, b: (a * 1).ldexp_(b), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: lib.ldexp(_ints(lib, a), b), ((S3, A), (S3, A))),
    ],
    "Frexp": [
        Sample(lambda lib, a: lib.frexp(a)[0], ((S23, AWAY),)),
        Sample(lambda lib, a: a.frexp().mantissa, ((S0, AWAY),)),
        Sample(lambda lib, a: lib.frexp(a.t()).mantissa * 2, (((3, 2), AWAY),)),
        Sample(lambda lib, a: lib.frexp(a)[0], ((S0E, A),)),
    ],
    "Gcd": [
        Sample(lambda lib, a, b: lib.gcd(_ints(lib, a), _ints(lib, b)), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: _ints(lib, a).gcd_(_ints(lib, b).int()), ((S3, A), (S0, A))),
    ],
    "Lcm": [
        Sample(lambda lib, a, b: lib.lcm(_ints(lib, a), _ints(lib, b)), ((S23, A), (S3, A))),
        Sample(lambda lib, a, b: _ints(lib, a).lcm_(_ints(lib, b)), ((S3, A), (S3, A))),
    ],
}
