"""Which elements of an elementwise kernel torch runs in its vectorised loop.

ATen's ``cpu_kernel_vec`` hands a TensorIterator's inner dimension to ``vectorized_loop``,
which takes two ``Vectorized`` at a time and leaves the last ``n % pair`` elements of each run
to the scalar op, and it does so only when every operand steps by one element along that
dimension (one input may stay, a scalar). Where the scalar and vector ops disagree (a NaN
input meets a comparison that blends: hardtanh's and the shrinks' gradients, elu's), torch's
value depends on the element's position. TensorIterator first orders the dimensions by the
operands' strides (the first operand that tells two dimensions apart decides; equal strides
put the shorter one first) and merges neighbours that step evenly in every operand, so the
runs follow memory order, not the last axis. This is that computation, for one output
TensorIterator allocates (it follows the inputs' order, so it never prevents a merge).
"""

from __future__ import annotations

import numpy as np

from ._isa import pair as _pair

__all__ = ["vectorised_mask"]

def _order(shape: tuple, strides: list) -> list:
    """TensorIterator's ``reorder_dimensions``: dimensions from fastest to slowest."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0, dim1):
        for stride in strides:
            stride0, stride1 = stride[dim0], stride[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def vectorised_mask(*operands: np.ndarray) -> np.ndarray | None:
    """A boolean array of the operands' broadcast shape, True where torch's binary (or unary)
    ``cpu_kernel_vec`` over these inputs, in this order, takes the vectorised op; None where
    no element does. Operands of one floating dtype (its item size sets the vector length)."""
    shape = np.broadcast_shapes(*(op.shape for op in operands))
    size = int(np.prod(shape))
    item = operands[0].itemsize
    pair = _pair(item)
    # (above at::internal::GRAIN_SIZE, 32768 elements, the loop is split between threads, each
    # range with its own leftover: not followed)
    if size < pair:
        return None
    views = [np.broadcast_to(op, shape) for op in operands]
    if any(s % item for v in views for s in v.strides):
        return None
    strides = [[s // item for s in v.strides] for v in views]
    perm = _order(shape, strides)
    # coalesce in perm order (fastest first); size-1 dimensions merge with anything
    dims = [(shape[d], [s[d] for s in strides], d) for d in perm]
    merged = [[dims[0][0], dims[0][1], [dims[0][2]]]] if dims else []
    for length, step, dim in dims[1:]:
        last = merged[-1]
        if last[0] == 1 or length == 1 or all(last[0] * a == b for a, b in zip(last[1], step)):
            if last[0] == 1:
                last[1] = step
            last[0] *= length
            last[2].append(dim)
        else:
            merged.append([length, step, [dim]])
    if not merged:
        return None
    inner, steps, inner_dims = merged[0]
    staying = sum(1 for s in steps if s == 0)
    if any(s not in (0, 1) for s in steps) or staying > 1:
        return None
    vectorised = inner - inner % pair
    if not vectorised:
        return None
    # position along the merged inner run: the dims in inner_dims, fastest first
    position = np.zeros(shape, dtype=np.int64)
    scale = 1
    for dim in inner_dims:
        index_shape = [1] * len(shape)
        index_shape[dim] = shape[dim]
        position = position + np.arange(shape[dim]).reshape(index_shape) * scale
        scale *= shape[dim]
    return position < vectorised
