"""``scatter_reduce(dim, index, src, reduce, include_self=True)``: every ``src[i]`` is folded
into ``out[index[i]]`` along ``dim`` with ``sum``, ``prod``, ``mean``, ``amax`` or ``amin``;
with ``include_self=False`` the positions written to start from the reduction's identity
instead of their own value (untouched positions keep it either way).

The gradient is torch's (derivatives.yaml's scatter_reduce_backward), written with Tensor ops
so that it can be differentiated again: ``sum`` passes the gradient through and gathers it for
``src``; ``mean`` divides by the number of values averaged; ``prod`` divides the result by the
factor (replacing a single zero factor by the product of the others); ``amax``/``amin`` share
the gradient evenly among the values equal to the result."""

from __future__ import annotations

import numpy as np

from . import _batching_rules as batch
from .gather import Gather, ScatterAdd, ScatterValue, _along, _nonempty, _pad_to, _src_block
from . import _uint
from .registry import Op, keep_index, register
from ..autograd.grad_mode import state as _grad_state
from .inplace import inplace as _inplace
from .shape import _wrap_dim
from ._forward import auto_linear, filled
from .._out import check_no_overlap

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin", "max", "min")
# torch's scatter_reduce also takes "max" and "min" (get_operator_enum reads them as amax and
# amin): the same forward and kernels, kept as spelled in the node (_saved_reduce), whose
# backward refuses them and whose forward-mode tangent is undefined
ALIASES = {"max": "amax", "min": "amin"}
_FOLD = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
         "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def scatter_reduce_array(a, src, dim, index, reduce, include_self):
    """The forward on arrays (also used by the backward of ``prod``)."""
    reduce = ALIASES.get(reduce, reduce)
    out = np.array(a, copy=True, order="C")
    if not index.size:
        return out
    flat, index = _nonempty(out), _nonempty(index)  # Note: 0-d tensors in scatter and gather
    src = _src_block(src, index)
    where = _along(dim, index, flat.ndim)
    if not include_self:
        flat[where] = _identity(reduce, flat.dtype)
    _FOLD[reduce].at(flat, where, src)
    if reduce == "mean":
        count = np.zeros(flat.shape, np.int64)
        np.add.at(count, where, 1)
        if include_self:
            count += 1
        np.maximum(count, 1, out=count)  # nothing averaged: the value stays
        if flat.dtype.kind in "fc":
            flat /= count.astype(flat.dtype)
        else:
            np.floor_divide(flat, count.astype(flat.dtype), out=flat)  # torch: floor
    return out


def _read_block(src, index: np.ndarray):
    """The part of the src tensor that index reads: its leading block (src may be larger), or a
    0-d src as a size-1 block (Note: 0-d tensors in scatter and gather)."""
    if src.ndim == 0:
        return src.reshape((1,) * index.ndim) if index.ndim else src
    if tuple(src.shape) == tuple(index.shape):
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


@register
class ScatterReduce(Op):
    node = "ScatterReduceBackward0"
    index_saves = {"index": ()}  # Note: saved index tensors (registry.py)
    uint_kernel = staticmethod(_uint.scatter_reduce_kernel)
    vmap = batch.dims("dim", arrays=("index",))
    inputs = ("self", "src")
    saves = {"self": ("self", "src"), "src": ("self", "src"), "result": ("self", "src")}
    torch_names = ("scatter_reduce", "Tensor.scatter_reduce")
    prod_double_backward_error = (
        "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
        "scattered to the same position in self")
    # torch computes complex sum/prod/mean (amax/amin: refused in scatter_reduce()) without a
    # derivative; index_reduce refuses complex in index_reduce()
    complex_ok = True
    complex_autograd = False

    @staticmethod
    def forward(ctx, a, src, dim, index, reduce, include_self):
        return scatter_reduce_array(a, src, dim, index, reduce, include_self)

    def backward(self, grad):
        p = self._params
        dim, index, reduce, include_self = p["dim"], p["index"], p["reduce"], p["include_self"]
        if reduce in ALIASES:  # (see ALIASES)
            raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                               f"'amin' but got {reduce}.")
        self_, src = self.saved("self"), self.saved("src")
        src_used = _read_block(src, index)

        def gather(t):
            return Gather.apply(t, dim=dim, index=index)

        if reduce == "sum":
            grad_self, grad_src = grad, gather(grad)
        elif reduce == "mean":
            start = grad.new_ones(grad.shape) if include_self else grad.new_zeros(grad.shape)
            n = ScatterAdd.apply(start, src_used.new_ones(src_used.shape).to(grad.dtype), dim=dim,
                                 index=index)
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = gather(grad) / gather(n)
        elif reduce == "prod":
            result = self.saved("result")
            masked_self = self_.masked_fill(self_ == 0, 1)
            masked_self_result = ScatterReduce.apply(masked_self, src, **p)
            grad_self = grad * masked_self_result / masked_self
            src_zero = src_used == 0
            zeros_per_slot = ScatterAdd.apply(self_.new_zeros(self_.shape), src_zero.to(grad.dtype),
                                              dim=dim, index=index)
            src_zero_count = gather(zeros_per_slot)
            single_zero = src_zero & (src_zero_count == 1)
            masked_src = src_used.masked_fill(single_zero, 1)
            masked_src_result = ScatterReduce.apply(self_, masked_src, **p)
            grad_src = _where(single_zero, gather(grad * masked_src_result),
                              gather(grad * result) / src_used.masked_fill(src_zero, 1))
            if _grad_state.grad_enabled and bool((src_zero_count > 1).any()):
                # the formula is wrong for a slot with two zero factors: torch records it
                # behind an Error node, so only a double backward through it fails
                from ..autograd._function_outputs import delayed_error_of

                grad_src = delayed_error_of(grad_src, self.prod_double_backward_error)
        else:  # amax, amin: the gradient is shared among the values equal to the result
            result = self.saved("result")
            value = gather(result)
            self_is_result = (self_ == result).to(grad.dtype)
            src_is_result = (src_used == value).to(grad.dtype)
            count = ScatterAdd.apply(self_is_result, src_is_result, dim=dim, index=index)
            share = grad / count
            grad_self = self_is_result * share
            grad_src = src_is_result * gather(share)
        if not include_self:
            grad_self = ScatterValue.apply(grad_self, dim=dim, index=index, value=0)
        grad_src = _pad_to(grad_src, self.input_shape(1))
        return (grad_self if self.needs_grad(0) else None,
                grad_src if self.needs_grad(1) else None)

    def jvp(self, tangents, primals, result):
        p = self._params
        reduce = p["reduce"]
        if reduce in ("sum", "mean"):  # linear in (self, src) together
            return auto_linear(self, tangents, primals, result)
        if reduce in ALIASES:  # undefined in torch (see ALIASES)
            return None
        self_t, src_t = filled(tangents, primals)
        self_p, src_p = primals
        dim, index = p["dim"], p["index"]
        src_p, src_t = _read_block(src_p, index), _read_block(src_t, index)
        if reduce == "prod":  # torch 2.13 leaves this tangent undefined; leafgrad computes it
            return _prod_jvp(self_p, self_t, src_p, src_t, p)
        value = Gather.apply(result, dim=dim, index=index)
        self_is_result = (self_p == result).to(self_t.dtype)
        if not p["include_self"]:
            self_is_result = ScatterValue.apply(self_is_result, dim=dim, index=index, value=0)
        src_is_result = (src_p == value).to(self_t.dtype)
        count = ScatterAdd.apply(self_is_result, src_is_result, dim=dim, index=index)
        total = ScatterAdd.apply(self_is_result * self_t, src_is_result * src_t, dim=dim,
                                 index=index)
        return total / count


def _prod_jvp(self_p, self_t, src_p, src_t, p):
    """d(product of a slot's factors): sum of t_k * (product of the others), zero-safe. A slot
    with no zero factor: product * sum(t_k / x_k); one zero factor: that factor's tangent
    times the product of the others; more: 0. Untouched slots keep self's tangent."""
    dim, index, include_self = p["dim"], p["index"], p["include_self"]

    def scatter_sum(start, values):
        return ScatterAdd.apply(start, values, dim=dim, index=index)

    self_zero, src_zero = self_p == 0, src_p == 0
    own = self_t.new_ones(self_t.shape) if include_self else self_t.new_zeros(self_t.shape)
    masked_self, masked_src = self_p.masked_fill(self_zero, 1), src_p.masked_fill(src_zero, 1)
    params = dict(p)
    params["include_self"] = True
    others = ScatterReduce.apply(masked_self if include_self else masked_self * 0 + 1,
                                 masked_src, **params)  # product of the non-zero factors
    zeros = scatter_sum(own * self_zero.to(own.dtype), src_zero.to(own.dtype))
    zero_tangent = scatter_sum(own * self_zero.to(own.dtype) * self_t,
                               src_zero.to(own.dtype) * src_t)
    ratio = scatter_sum(own * (~self_zero).to(own.dtype) * self_t / masked_self,
                        (~src_zero).to(own.dtype) * src_t / masked_src)
    out = _where(zeros == 0, others * ratio,
                 _where(zeros == 1, others * zero_tangent, others * 0))
    if not include_self:  # slots no src reaches keep self's value, so its tangent
        touched = scatter_sum(self_t.new_zeros(self_t.shape), src_t.new_ones(src_t.shape)) > 0
        out = _where(touched, out, self_t)
    return out


def _where(condition, a, b):
    from .. import where

    return where(condition, a, b)


def check_reduce_kernel(tensor, reduce) -> None:
    """torch's scatter_reduce kernels: no amax/amin for complex, no mean for bool (after the
    shape checks, before the bounds)."""
    kind = tensor._data.dtype.kind
    reduce = ALIASES.get(reduce, reduce)
    if (kind == "c" and reduce in ("amax", "amin")) or (kind == "b" and reduce == "mean"):
        raise NotImplementedError(f'"scatter_gather_tensor_cpu_reduce_{reduce}" not implemented '
                                  f"for '{tensor.dtype._legacy}'")


def scatter_reduce(tensor, dim, index, src, reduce, include_self=True, inplace=False):
    """Checks in torch's order, then the op (``inplace``: ``scatter_reduce_``)."""
    from ..tensor import Tensor
    from .gather import _index_array, check_scatter_gather_bounds, check_scatter_shapes

    if reduce not in REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError("scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    array = _index_array(index, "scatter")
    dim = _wrap_dim(dim, tensor.ndim)
    if tensor.dtype is not src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    check_scatter_shapes(tensor, dim, array, src)
    if inplace:
        check_no_overlap(tensor, index, src)
    if array.size:  # an empty index returns before the kernel
        check_reduce_kernel(tensor, reduce)
    check_scatter_gather_bounds(array, tensor.shape[dim] if tensor.ndim else 1, dim)
    params = {"dim": dim, "index": array, "reduce": reduce, "include_self": bool(include_self)}
    if inplace:
        return keep_index(_inplace(ScatterReduce, tensor, src, **params), index)
    return keep_index(ScatterReduce.apply(tensor, src, **params), index)

