"""Distances between rows: ``cdist`` (and its matmul path ``_euclidean_dist``), ``pdist``,
``dist``; ATen's Distance.cpp, formula by formula.

Note: p-distance gradients
For one pair of rows with ``diff = x1_i - x2_j`` and ``dist`` their p-distance, torch's
``_cdist_backward`` gives x1_i the sum over j of ``grad_ij`` times (per column):

- p = 0: 0 (a count of non-zero differences is piecewise constant);
- p = 1: ``sign(diff)``;
- p = 2: ``diff / dist``, 0 where ``dist == 0``;
- p = inf: ``sign(diff)`` where ``|diff| == dist`` (every tied column), else 0;
- p < 2: ``sign(diff) |diff|^(p-1) / dist^(p-1)``, 0 where ``dist == 0`` or (p < 1 and diff == 0);
- otherwise: ``diff |diff|^(p-2) / dist^(p-1)``, 0 where ``dist == 0``.

x2_j gets minus the same sum over i (every term is odd in diff). Torch implements no derivative
of ``_cdist_backward`` / ``_pdist_backward``: under create_graph the gradient's node is theirs
(``CdistBackwardBackward0``, ``PdistBackwardBackward0``) and its backward raises torch's
NotImplementedError. Torch has no forward-mode formula either; leafgrad's jvp applies the same
per-pair derivative to the tangents (checked against reverse mode).

The matmul path (``compute_mode``, or p = 2 with more than 25 rows on either side) is ATen's
``_euclidean_dist``: ``sqrt(clamp_min(|x1|^2 - 2 x1.x2 + |x2|^2, 1e-30))`` from one matrix
product, with a backward written in Tensor ops (twice differentiable, as torch's).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _argparse
from .. import _dtype as _dtype

from . import _batching_rules as batch
from . import _libm
from .registry import Op, plain_backward, register
from ._masks import zero_mask
from ._float_kernels import fma
from ._batching_rules import _logical_rank
from .._dtype import from_numpy_dtype
from ._promote import check_broadcast
from .elementwise import Clone
from .shape import Expand, View
from .._memory_format import contiguous_format
from . import _promote

_NOT_IMPLEMENTED_FORWARD_AD = (
    "Trying to use forward AD with {} that does not support it because it has not been "
    "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/"
    "issues/new?template=feature-request.yml so that we can prioritize its implementation or "
    "submit a PR adding the implementation to derivatives.yaml")


def _pair_distance(diff: np.ndarray, p: float) -> np.ndarray:
    """The p-distance over the last axis of ``diff`` (the pairs' column differences)."""
    magnitude = np.abs(diff)
    if p == 0:
        return np.sum(magnitude != 0, axis=-1).astype(diff.dtype)
    if p == 1:
        return np.sum(magnitude, axis=-1)
    if p == 2:
        return np.sqrt(np.sum(magnitude * magnitude, axis=-1))
    if math.isinf(p):
        if diff.shape[-1] == 0:
            return np.zeros(diff.shape[:-1], diff.dtype)
        return np.amax(magnitude, axis=-1)
    return np.sum(magnitude ** p, axis=-1) ** (1.0 / p)


def _pair_derivative(diff: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """d dist / d diff per column (see Note: p-distance gradients); ``dist`` has a trailing 1."""
    with np.errstate(all="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return np.sign(diff)
        if p == 2:
            return np.where(dist == 0, 0, diff / dist).astype(diff.dtype, copy=False)
        if math.isinf(p):
            return np.sign(diff) * (np.abs(diff) == dist)
        if p < 2:
            zero = (dist == 0) | ((diff == 0) & (p < 1))
            value = np.sign(diff) * np.abs(diff) ** (p - 1) / dist ** (p - 1)
        else:
            zero = dist == 0
            value = diff * np.abs(diff) ** (p - 2) / dist ** (p - 1)
        return np.where(zero, 0, value).astype(diff.dtype, copy=False)


def _cdist_pairs(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Every row difference: (..., r1, r2, c)."""
    return x1[..., :, None, :] - x2[..., None, :, :]


def _cdist_distance(diff: np.ndarray, p: float) -> np.ndarray:
    """cdist's own kernel (DistanceOpsKernel's run_parallel_cdist): per pair, one scalar sum
    over the columns in order, rounded to the dtype at each step (``agg = agg + map(|a - b|)``
    with map ``d * d`` for p = 2, ``d`` for 1, ``pow(d, p)`` of the C library otherwise),
    then ``sqrt`` or ``pow(agg, 1.0 / p)`` in double. For p = 2 the compiled loop runs 16
    bytes of columns at a time (four float32, two float64) with each product rounded, and the
    columns left over as one fused multiply-add each (measured on torch 2.13's AVX-512 build
    for 1 to 13 columns). NumPy's pairwise sums gave other last bits (a third to three
    quarters of float32 2-distances of 3 to 70 columns)."""
    if p == 0 or math.isinf(p) or diff.shape[-1] == 0:
        return _pair_distance(diff, p)  # (exact sums of 0/1, or a maximum: no rounding)

    magnitude = np.abs(diff)
    columns = diff.shape[-1]
    block = 16 // diff.dtype.itemsize
    unrolled = columns - columns % block if p == 2 else columns
    with np.errstate(all="ignore"):
        if p in (1, 2):
            # columns first, each a contiguous block: one add per column over all the pairs
            # (twice as fast as np.add.accumulate along the last axis)
            terms = np.ascontiguousarray(np.moveaxis(magnitude[..., :unrolled], -1, 0))
            if p == 2:
                np.multiply(terms, terms, out=terms)
            total = np.zeros(diff.shape[:-1], diff.dtype)
            for value in terms:
                total += value
        else:  # std::pow(float, float), powf for float32, column by column (_libm's sizes)
            total = np.zeros(diff.shape[:-1], diff.dtype)
            for column in range(columns):
                total = total + _libm.power(magnitude[..., column], diff.dtype.type(p))
        for column in range(unrolled, columns):
            value = magnitude[..., column]
            total = fma(value, value, total)
        if p == 1:
            return total
        if p == 2:
            return np.sqrt(total)
        # std::pow(agg, 1.0 / p): a double exponent, so the C library's pow in double
        return _libm.power(total.astype(np.float64), 1.0 / p).astype(diff.dtype)


def cdist_gradients(grad, x1, x2, p, result) -> tuple:
    """(grad of x1, grad of x2) as arrays, on the broadcast batch shape."""
    if p == 0:  # (torch's _cdist_backward: zeros, before any arithmetic)
        return np.zeros_like(x1, shape=grad.shape[:-1] + x1.shape[-1:]), \
            np.zeros_like(x2, shape=grad.shape[:-2] + x2.shape[-2:])
    local = _pair_derivative(_cdist_pairs(x1, x2), result[..., None], p) * grad[..., None]
    # x2's gradient is torch's _cdist_backward with the operands swapped: sums of the negated
    # terms (a sum that cancels is +0 there, where negating the sum gave -0)
    return local.sum(axis=-2), np.negative(local).sum(axis=-3)


def _batched_rows(cls, args, params):
    """vmap rule of cdist and _euclidean_dist: ``leading`` with both operands' logical ranks
    padded to the same (their batch dims broadcast as torch's do)."""
    from ._batching import align, all_levels, level_sizes, wrap_result

    levels = all_levels(args, params)
    sizes = level_sizes(args, params, levels)
    rank = max(_logical_rank(value) for value in args)
    physical = [align(value, levels, sizes, rank) for value in args]
    return wrap_result(cls.apply(*physical, **params), levels)


def _not_implemented_node(node_name: str, kernel: str):
    """The node torch records for a gradient it cannot differentiate again."""

    class Gradient(Op):
        node = node_name
        inputs = ("grad", "x1", "x2", "result")
        _save_plan = ()

        @staticmethod
        def forward(ctx, grad, x1, x2, result, gradient):
            return gradient

        def backward(self, grad):
            raise NotImplementedError(f"the derivative for '{kernel}' is not implemented.")

        def jvp(self, tangents, primals, result):
            raise NotImplementedError(_NOT_IMPLEMENTED_FORWARD_AD.format(kernel))

    Gradient.__name__ = Gradient.__qualname__ = node_name
    return Gradient


# Not in the op table: their backward only raises (nothing to test by gradcheck).
CdistBackwardBackward = _not_implemented_node("CdistBackwardBackward0", "_cdist_backward")
PdistBackwardBackward = _not_implemented_node("PdistBackwardBackward0", "_pdist_backward")


def _gradient_tensors(node, gradients, kind, grad, x1, x2, result):
    """The computed gradient arrays as Tensors: plain, or as torch's not-differentiable node."""
    from ..tensor import _wrap

    if plain_backward():
        return tuple(None if g is None else _wrap(g) for g in gradients)
    return tuple(None if g is None else kind.apply(grad, x1, x2, result, gradient=g)
                 for g in gradients)


@register
class Cdist(Op):
    """p-distance between every row of x1 and every row of x2 (batch dims broadcast)."""

    node = "CdistBackward0"
    vmap = _batched_rows
    inputs = ("x1", "x2")
    saves = {"x1": ("x1", "x2"), "x2": ("x1", "x2"), "result": ("x1", "x2")}
    broadcasts = True
    torch_names = ("cdist",)

    @staticmethod
    def forward(ctx, x1, x2, p=2.0):
        return np.ascontiguousarray(_cdist_distance(_cdist_pairs(x1, x2), p))

    def backward(self, grad):
        x1, x2, result = self.saved("x1"), self.saved("x2"), self.saved("result")
        grad_x1, grad_x2 = cdist_gradients(grad._data, x1._data, x2._data, self._params["p"],
                                           result._data)
        gradients = (grad_x1 if self.needs_grad(0) else None,
                     grad_x2 if self.needs_grad(1) else None)
        return _gradient_tensors(self, gradients, CdistBackwardBackward, grad, x1, x2, result)

    def jvp(self, tangents, primals, result):
        # torch: not implemented for _cdist_forward; the per-pair derivative on the tangents
        from .reductions import constant

        x1, x2 = primals
        t1, t2 = tangents
        local = constant(_pair_derivative(_cdist_pairs(x1._data, x2._data),
                                          result._data[..., None], self._params["p"]), result)
        if t1 is None:
            moved = -t2.unsqueeze(-3)
        elif t2 is None:
            moved = t1.unsqueeze(-2)
        else:
            moved = t1.unsqueeze(-2) - t2.unsqueeze(-3)
        return (local * moved).sum(-1)


@register
class EuclideanDist(Op):
    """ATen's ``_euclidean_dist``: 2-distances of every row pair from one matrix product."""

    node = "EuclideanDistBackward0"
    vmap = _batched_rows
    inputs = ("x1", "x2")
    saves = {"x1": ("x1", "x2"), "x2": ("x1", "x2"), "result": ("x1", "x2")}
    torch_names = ("cdist",)

    @staticmethod
    def forward(ctx, x1, x2):
        x1_norm = np.sum(x1 * x1, axis=-1, keepdims=True)
        x2_norm = np.sum(x2 * x2, axis=-1, keepdims=True)
        x1_pad = np.ones_like(x1_norm)
        x2_pad = np.ones_like(x2_norm)
        left = np.concatenate([x1 * x1.dtype.type(-2), x1_norm, x1_pad], axis=-1)
        right = np.concatenate([x2, x2_pad, x2_norm], axis=-1)
        product = np.matmul(left, np.swapaxes(right, -1, -2))
        return np.ascontiguousarray(np.sqrt(np.maximum(product, product.dtype.type(1e-30))))

    def backward(self, grad):
        # torch's _euclidean_dist_backward, in Tensor ops
        x1, x2, result = self.saved("x1"), self.saved("x2"), self.saved("result")
        ratio = (grad / result)._masked_zero(zero_mask(result))
        grad_x1 = grad_x2 = None
        if self.needs_grad(0):
            grad_x1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
        if self.needs_grad(1):
            grad_x2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)
        return grad_x1, grad_x2

    def jvp(self, tangents, primals, result):
        # torch: not implemented for _euclidean_dist; d dist = (diff . (t1 - t2)) / dist
        x1, x2 = primals
        t1, t2 = tangents
        terms = []
        if t1 is not None:
            terms.append((x1 * t1).sum(-1, keepdim=True) - t1.matmul(x2.mT))
        if t2 is not None:
            terms.append((x2 * t2).sum(-1).unsqueeze(-2) - x1.matmul(t2.mT))
        total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        return (total / result)._masked_zero(zero_mask(result))


def _pdist_pairs(a: np.ndarray) -> np.ndarray:
    """Differences of the row pairs i < j in row-major order: (..., n(n-1)/2, c)."""
    rows, cols = np.triu_indices(a.shape[-2], k=1)
    return a[..., rows, :] - a[..., cols, :], rows, cols


@register
class Pdist(Op):
    """p-distances of the row pairs i < j of a matrix, in row-major order (leading dims are
    batch dims for vmap only: ``torch.pdist`` takes a matrix)."""

    node = "PdistBackward0"
    vmap = batch.leading
    saves = {"self": ("self",), "result": ("self",)}
    torch_names = ("pdist", "nn.functional.pdist")

    @staticmethod
    def forward(ctx, a, p=2.0):
        diff, _, _ = _pdist_pairs(a)
        return np.ascontiguousarray(_pair_distance(diff, p))

    def _local(self, a: np.ndarray, result: np.ndarray):
        diff, rows, cols = _pdist_pairs(a)
        return _pair_derivative(diff, result[..., None], self._params["p"]), rows, cols

    def backward(self, grad):
        a, result = self.saved("self"), self.saved("result")
        if a._data.dtype.kind == "V":  # torch's pdist_backward has no bfloat16 kernel
            raise NotImplementedError("\"pdist_backward\" not implemented for 'BFloat16'")
        local, rows, cols = self._local(a._data, result._data)
        local = local * grad._data[..., None]
        gradient = np.zeros_like(a._data)
        for index, sign in ((rows, 1), (cols, -1)):
            moved = np.moveaxis(gradient, -2, 0)
            np.add.at(moved, index, sign * np.moveaxis(local, -2, 0))
        return _gradient_tensors(self, (gradient,), PdistBackwardBackward, grad, a, a, result)[0]

    def jvp(self, tangents, primals, result):
        # torch: not implemented for _pdist_forward; the per-pair derivative on the tangent
        from .reductions import constant

        local, rows, cols = self._local(primals[0]._data, result._data)
        tangent = tangents[0]
        moved = tangent[..., rows, :] - tangent[..., cols, :]
        return (constant(local, result) * moved).sum(-1)


@register
class Dist(Op):
    """``torch.dist``: the p-norm of ``self - other`` (broadcast) over every element."""

    node = "DistBackward0"
    complex_ok = True  # the norm of the moduli, a real result (torch's norm_backward)
    vmap = batch.decompose(lambda a, b, p=2.0: _dist_decomposed(a, b, p))
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other"),
             "result": ("self", "other")}
    broadcasts = True
    torch_names = ("dist", "Tensor.dist")

    @staticmethod
    def forward(ctx, a, b, p=2.0):
        from ._promote import binary
        from .reductions_stats import LinalgVectorNorm

        a, b = binary(a, b)
        return LinalgVectorNorm.forward(None, a - b, ord=p)

    def backward(self, grad):
        from .reductions_stats import _norm_backward

        # torch's two formulas, each its own norm_backward of self - other, the other's first
        # (Note: the order of an op's input gradients)
        def gradient():
            diff = self.saved("self") - self.saved("other")
            return _norm_backward(grad, diff, self._params["p"], self.saved("result"), None,
                                  False)

        grad_self = grad_other = None
        if self.needs_grad(1):
            grad_other = gradient()
            grad_other = None if grad_other is None else -grad_other
        if self.needs_grad(0):
            grad_self = gradient()
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        # torch: norm_jvp(self_p - other_p, self_t - other_t, p, result)
        from .reductions_stats import _norm_jvp

        t1, t2 = tangents
        tangent = t1 if t2 is None else (-t2 if t1 is None else t1 - t2)
        a, b = primals
        return _norm_jvp(a - b, tangent, self._params["p"], result, None, False)


def _dist_decomposed(a, b, p):
    """dist under vmap: the vector norm of the difference over each example."""
    from .reductions_stats import vector_norm

    return vector_norm(a - b, p)


# -- the public functions --------------------------------------------------------------------

_COMPUTE_MODES = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0,
                  "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def _legacy(array: np.ndarray) -> str:
    return from_numpy_dtype(array.dtype)._legacy


def _check_p(name: str, p, position: int = 3) -> float:
    if p.__class__ is not float and p.__class__ is not int:
        p = _argparse.number(name, "p", p, position, kind="float")  # (a 0-d tensor not
    return float(p)  # requiring grad too)


def _check_tensor(name: str, value, arg: str, position: int):
    from ..tensor import Tensor

    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """``torch.cdist``: the p-distance between each row of ``x1`` and each row of ``x2``.

    >>> import leafgrad as torch
    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.], [1., 0.]]))
    tensor([[5., 1.]])
    """
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    _check_tensor("cdist", x1, "x1", 1)
    _check_tensor("cdist", x2, "x2", 2)
    p = _check_p("cdist", p)
    mode = _COMPUTE_MODES[compute_mode]
    for name, value in (("X1", x1), ("X2", x2)):
        if value.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{value.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, value in (("X1", x1), ("X2", x2)):
        if _dtype.kind(value._data) != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_legacy(value._data)}")
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    check_broadcast(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    batch_shape = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    r1, r2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    for value in (x1, x2):
        # float16 has no kernel at all; bfloat16 only the matrix-product one (empty inputs
        # return before any kernel)
        if value._data.dtype == np.float16 or (value._data.dtype.kind == "V" and not use_mm
                                                and x1.numel() and x2.numel()):
            raise NotImplementedError(f"\"cdist\" not implemented for '{_legacy(value._data)}'")
    if x1.numel() == 0 or x2.numel() == 0 or not use_mm:
        if x1._data.dtype != x2._data.dtype:
            raise RuntimeError(f"expected scalar type {_legacy(x1._data)} but found "
                               f"{_legacy(x2._data)}")
        return Cdist.apply(x1, x2, p=p)
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{x1._data.dtype.name.replace('float32', 'float').replace('float64', 'double')} "
            f"!= {x2._data.dtype.name.replace('float32', 'float').replace('float64', 'double')}")
    return _euclidean_cdist(x1, x2, batch_shape)


def _euclidean_cdist(x1, x2, batch_shape: tuple):
    """ATen's cdist_impl on the matmul path: batch dims expanded and flattened (a copy where
    the expansion cannot be viewed), then ``_euclidean_dist`` viewed as the output shape."""
    r1, r2, cols = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    output_shape = batch_shape + (r1, r2)
    if math.prod(batch_shape) == 1:
        return View.apply(EuclideanDist.apply(x1, x2), shape=output_shape)
    count = math.prod(batch_shape)

    def flat(value, rows):
        # ATen: x.expand(...).contiguous().view(...)
        expanded = Expand.apply(value, shape=batch_shape + (rows, cols))
        if not expanded.is_contiguous():
            expanded = Clone.apply(expanded, memory_format=contiguous_format)
        return View.apply(expanded, shape=(count, rows, cols))

    return View.apply(EuclideanDist.apply(flat(x1, r1), flat(x2, r2)), shape=output_shape)


@_argparse.parsed("pdist")  # (the error for the call as given: p by keyword has no position)
def pdist(input, p=2.0):  # noqa: A002 - torch's name
    """``torch.pdist``: the p-distances of the row pairs i < j of a matrix.

    >>> import leafgrad as torch
    >>> torch.pdist(torch.tensor([[0., 0.], [3., 4.], [0., 1.]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    _check_tensor("pdist", input, "input", 1)
    p = _check_p("pdist", p, 2)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if _dtype.kind(input._data) != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input._data.dtype == np.float16 or (input._data.dtype.kind == "V" and input.shape[0] > 1
                                           and input.shape[1]):  # bf16: empty ones return
        raise NotImplementedError(f"\"pdist\" not implemented for '{_legacy(input._data)}'")
    return Pdist.apply(input.contiguous(), p=p)


def dist(input, other, p=2, *, _position=None):  # noqa: A002 - torch's name
    """``torch.dist``: the p-norm of ``input - other``.

    >>> import leafgrad as torch
    >>> torch.dist(torch.tensor([1., 2.]), torch.tensor([4., 6.]))
    tensor(5.)
    """
    from ..tensor import Tensor

    _check_tensor("dist", input, "input", 1)
    _check_tensor("dist", other, "other", 2)
    if p.__class__ is not float and p.__class__ is not int:
        p = _argparse.number("dist", "p", p, _position)
        if isinstance(p, complex):
            raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order "
                               "of norm.")
    _promote.check_broadcast(tuple(input.shape), tuple(other.shape))
    shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    dtype = _promote.result_np_dtype(input._data, other._data)
    if dtype.kind not in "fcV":  # V: bfloat16 (Note: bfloat16 in _dtype.py)

        if dtype.kind == "u" and dtype.itemsize > 1:  # torch's uint16/32/64 subtraction
            raise NotImplementedError(
                f"\"add_stub\" not implemented for '{from_numpy_dtype(dtype)._legacy}'")
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {from_numpy_dtype(dtype)._legacy} instead.")
    p = float(p)
    if (p < 0 or math.isinf(p)) and math.prod(shape) == 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
            "operation does not have an identity")
    return Dist.apply(input, other, p=p)
