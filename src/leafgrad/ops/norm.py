"""Normalisation (layer, batch, group), embedding and padding ops.

The three normalisations share one formula: x_hat = (x - mean) / sqrt(var + eps) over some
dims, then an affine per-channel weight and bias. Their backward is written with Tensor ops
that recompute the statistics from the saved input, so second derivatives are exact.
"""

from __future__ import annotations

import numpy as np

from .._compile.state import state as _capture
from .._info import get_num_threads
from ..autograd.grad_mode import state as _grad_state
from ..backends import cpu as _cpu
from ..tensor import _wrap
from . import _batch_norm_kernels, _float_kernels, _layout, _norm_kernels
from .._construct import checked_operand, unsigned_fill
from ._forward import auto_linear, jvp_sum
from . import _batching_rules as batch
from .reduce import stat_mean, stat_sum
from ._double_backward import RecordedFormula, records_double_backward, self_args, self_edge
from .registry import Op, array_kernel, plain_backward, register
from ..autograd._vmap_state import state as vmap_state
from ..autograd.forward_ad import state as dual_state
from .registry import _save_plan
from .activation import kernel_tensor
from ._bfloat16 import to_bfloat16


def _normalise_array(x: np.ndarray, dims: tuple, eps: float):
    mean = x.mean(axis=dims, keepdims=True)
    var = x.var(axis=dims, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def _normalise_tensor(x, dims: tuple, eps: float):
    # statistics in NumPy's order (Note: statistics in NumPy's order, reduce.py)
    centred = x - stat_mean(x, dims, True)
    rstd = (stat_mean(centred * centred, dims, True) + eps) ** -0.5
    return centred * rstd, rstd


def _norm_input_grad(x, g, dims: tuple, eps: float):
    """d(x_hat)^T g for x_hat normalised over ``dims`` (the classic three-term formula). The
    Jacobian is symmetric, so this is also d(x_hat) g, the forward-mode tangent."""
    x_hat, rstd = _normalise_tensor(x, dims, eps)
    return rstd * (g - stat_mean(g, dims, True) - x_hat * stat_mean(g * x_hat, dims, True))


class _Normalisation(Op):
    """Subclasses give the dims reduced over and how weight/bias broadcast against the input."""

    __slots__ = ()
    inputs = ("input", "weight", "bias")
    # the weight also for its own gradient: a create_graph backward's node has its edge
    saves = {"input": ("input", "weight"), "weight": ("input", "weight")}

    adds_zero_bias = False  # (LayerNorm: see forward)

    @staticmethod
    def dims(shape, params) -> tuple:
        raise NotImplementedError

    @staticmethod
    def affine_shape(shape, params) -> tuple:
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, x, weight, bias, **params):
        if not x.size:  # nothing to normalise (NumPy's empty mean would warn)
            return cls.result_layout(np.zeros_like(x), x)
        if x.dtype in (np.float32, np.float16, np.float64) and (
                _cpu.torch_bits or cls.replays_by_default(x, params)):
            exact = cls.torch_kernel(x, weight, bias, params)
            if exact is not None:
                return cls.result_layout(exact, x)
        shape = x.shape
        grouped = cls.grouped(x, params)
        out = _normalise_array(grouped, cls.dims(grouped.shape, params), params["eps"])
        out = out.reshape(shape)
        affine = cls.affine_shape(shape, params)
        if weight is not None:
            out = out * weight.reshape(affine)
        if bias is not None:
            out = out + bias.reshape(affine)
        elif cls.adds_zero_bias:  # torch's kernel adds beta = 0: an x equal to its mean is +0.
            out = out + 0.0
        return cls.result_layout(out.astype(x.dtype), x)

    @staticmethod
    def result_layout(out: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The result's memory format, as torch allocates it for the input ``x``."""
        return _layout.suggested(out, x)

    @staticmethod
    def grouped(x, params):
        return x

    @staticmethod
    def torch_kernel(x, weight, bias, params):
        """torch's float32 / float16 result bit for bit (ops/_norm_kernels.py), or None where
        it is not replayed."""
        return None

    @staticmethod
    def replays_by_default(x, params) -> bool:
        """Whether torch_kernel runs without backends.cpu.torch_bits."""
        return False

    @classmethod
    def grouped_tensor(cls, x, params):
        return x

    def backward(self, grad):
        p = self._params
        weight = self.saved("weight") if (self._saved or {}).get("weight") is not None else None
        mask = (self.needs_grad(0), self.needs_grad(1), self.needs_grad(2))
        node = self.double_backward
        if node is not None and (records_double_backward() or node in (
                BatchNormBackward, LayerNormBackward) and _recorded_in_capture()):
            # torch's node (3 outputs); under leafgrad.compile too where its values are a
            # kernel's, so that the capture replays them as the eager run computes them
            x = self.saved("input") if (self._saved or {}).get("input") is not None else None
            outputs = node.record(self, grad, x, weight, mask)
            return tuple(out if needed else None for out, needed in zip(outputs, mask))
        x = self.saved("input") if mask[0] or mask[1] else None
        if mask[0] or mask[1] or mask[2]:
            exact = type(self).torch_backward(grad._data, None if x is None else x._data,
                                              weight, p, mask)
            if exact is not None:
                return tuple(None if out is None else _wrap(out) for out in exact)
        return type(self).grads(grad, x, weight, p, mask, self.input_shape(0),
                                self.input_shape(1) if mask[1] else None,
                                self.input_shape(2) if mask[2] else None)

    @staticmethod
    def torch_backward(grad, x, weight, params, mask):
        """torch's backward kernel's ``(grad_input, grad_weight, grad_bias)`` arrays bit for
        bit (ops/_norm_kernels.py; None where not in ``mask``), or None where not replayed."""
        return None

    double_backward = None  # the op recording this backward under create_graph, if any

    @classmethod
    def grads(cls, grad, x, weight, p, mask, shape, weight_shape, bias_shape):
        """(grad_input, grad_weight, grad_bias) for those in ``mask`` (Tensor formulas)."""
        affine = cls.affine_shape(shape, p)
        keep = tuple(i for i, size in enumerate(affine) if size != 1)
        summed = tuple(i for i in range(len(shape)) if i not in keep)
        grad_x = grad_w = grad_b = None
        if mask[0]:
            g = grad
            if weight is not None:
                g = grad * weight.reshape(affine)
            gx = cls.grouped_tensor(x, p)
            dims = cls.dims(tuple(gx.shape), p)
            grad_x = _norm_input_grad(gx, g.reshape(tuple(gx.shape)), dims, p["eps"]).reshape(shape)
        if mask[1]:
            gx = cls.grouped_tensor(x, p)
            x_hat, _ = _normalise_tensor(gx, cls.dims(tuple(gx.shape), p), p["eps"])
            grad_w = stat_sum(grad * x_hat.reshape(shape), summed).reshape(weight_shape)
        if mask[2]:
            grad_b = stat_sum(grad, summed).reshape(bias_shape)
        return grad_x, grad_w, grad_b

    def jvp(self, tangents, primals, result):
        # torch's layer_norm_jvp / batch_norm_jvp / group_norm_jvp: the tangent of x_hat (the
        # three-term formula: the normalisation's Jacobian is symmetric), then the affine map
        p = self._params
        x, weight, _ = primals
        shape = tuple(x.shape)
        affine = self.affine_shape(shape, p)
        grouped = self.grouped_tensor(x, p)
        dims = self.dims(tuple(grouped.shape), p)

        def through_input(t):
            t_hat = _norm_input_grad(grouped, t.reshape(tuple(grouped.shape)), dims, p["eps"])
            t_hat = t_hat.reshape(shape)
            return t_hat if weight is None else t_hat * weight.reshape(affine)

        def through_weight(t):
            x_hat, _ = _normalise_tensor(grouped, dims, p["eps"])
            return x_hat.reshape(shape) * t.reshape(affine)

        return jvp_sum(tangents, through_input, through_weight, lambda t: t.reshape(affine))


_EXACT_BACKWARD = 1 << 16  # elements (as reduce.py's ordered sums)
_GROUP_NORM_REPLAY = _EXACT_BACKWARD  # elements: group_norm's forward replays torch's kernel
# up to here, as its backward does (both read the replayed statistics)
_LAYER_NORM_REPLAY = 4096  # elements: layer_norm's forward replays torch's kernel up to here


def _layer_norm_backward_kernel(grad, *arrays, has_x, has_weight, eps, count, mask, threads,
                                torch_bits):
    """LayerNorm.torch_backward's arrays (an empty one where not in ``mask``)."""
    x = arrays[0] if has_x else None
    gamma = arrays[-1] if has_weight else None
    outputs = _norm_kernels.layer_norm_backward(grad, x, gamma, eps, count, mask, threads,
                                                torch_bits)
    return tuple(np.zeros(0, np.float32) if out is None else out for out in outputs)


def _group_norm_backward_kernel(grad, *arrays, has_x, groups, eps, mask, threads):
    """GroupNorm.torch_backward's arrays (an empty one where not in ``mask``)."""
    x = arrays[0] if has_x else None
    gamma = arrays[-1] if len(arrays) > has_x else None
    outputs = _norm_kernels.group_norm_backward(grad, x, gamma, groups, eps, mask, threads)
    return tuple(np.zeros(0, np.float32) if out is None else out for out in outputs)


def _layer_norm_backward_reduced(grad, x, weight, params, mask):
    """A float16/bfloat16 layer norm's gradients as torch's frame computes them
    (_norm_kernels.layer_norm_backward_reduced): leafgrad's Tensor formula rounded every step
    to the reduced type (44% of the input gradients differed, and a zero gradient times a
    negative weight kept -0.: generated-program seed 10033018). None where the operands are
    not all of grad's dtype."""
    dtype = grad.dtype
    if x is None or x.dtype != dtype or not x.size or weight is not None and \
            weight._data.dtype != dtype or x.size > _LAYER_NORM_REPLAY and not _cpu.torch_bits:
        return None
    rounding = (lambda a: a.astype(np.float16)) if dtype == np.float16 else to_bfloat16
    arrays = (grad, x) + (() if weight is None else (weight._data,))
    outputs = array_kernel(_layer_norm_backward_reduced_kernel, *arrays,
                           has_weight=weight is not None, eps=params["eps"],
                           count=params["normalized_ndim"], mask=tuple(mask),
                           threads=get_num_threads(), rounding=rounding)
    return tuple(out if needed else None for out, needed in zip(outputs, mask))


def _layer_norm_backward_reduced_kernel(grad, x, *weight, has_weight, eps, count, mask, threads,
                                        rounding):
    outputs = _norm_kernels.layer_norm_backward_reduced(
        grad, x, weight[0] if has_weight else None, eps, count, mask, threads, rounding)
    return tuple(np.zeros(0, grad.dtype) if out is None else out for out in outputs)


@register
class LayerNorm(_Normalisation):
    node = "NativeLayerNormBackward0"
    # the bias too: torch's NativeLayerNormBackwardBackward0 has an edge to it
    saves = {"input": ("input", "weight"), "weight": ("input", "weight"), "bias": ("bias",)}
    complex_message = '"LayerNormKernelImpl" not implemented for \'ComplexFloat\''
    # (LayerNormKernelImplInternal: ``(x - mean) * rstd * gamma + beta`` with beta = 0 when
    # absent, float64 as float32: a -0. input equal to its mean gave -0. where torch prints
    # 0.0000: generated-program seed 168774)
    adds_zero_bias = True
    vmap = batch.affine(batch.leading_first)
    torch_names = ("nn.functional.layer_norm",)

    @staticmethod
    def torch_kernel(x, weight, bias, params):
        return _norm_kernels.layer_norm(x, weight, bias, params["eps"], params["normalized_ndim"])

    @staticmethod
    def replays_by_default(x, params) -> bool:
        # rows of fewer than 8 elements: RowwiseMoments is a scalar Welford loop there, whose
        # replay costs about what NumPy's statistics do ((2, 3, 4): 47 -> 59 us; generated-
        # program seed 53666: a -0. of torch's printed 0.); longer rows' vector chunks cost
        # more, so they replay up to _LAYER_NORM_REPLAY elements (a tutorial's layer: half the
        # values printed a last digit off otherwise; (32, 64) forward 25 -> 100 us)
        count = params["normalized_ndim"]
        return x.size <= _LAYER_NORM_REPLAY or int(np.prod(
            x.shape[x.ndim - count:], dtype=np.int64)) < 8 and x.size <= _EXACT_BACKWARD

    def backward(self, grad):
        _unpack_running(self)
        return super().backward(grad)

    @staticmethod
    def torch_backward(grad, x, weight, params, mask, recorded=False):
        # (not under forward AD or vmap: their gradients are the formula's Tensor ops; while
        # create_graph records, only as the values of LayerNormBackward's node)
        if not (_arrays_recorded() if recorded else plain_backward()):
            return None
        # float32 up to _EXACT_BACKWARD elements, float64 up to _LAYER_NORM_REPLAY (its
        # statistics' and buffers' fused multiply-adds are double-double steps: (8, 16, 128)
        # would take 0.5 -> 2.3 ms), more under backends.cpu.torch_bits: the replay's
        # statistics (RowwiseMoments) cost a few times NumPy's
        limit = _EXACT_BACKWARD if grad.dtype == np.float32 else _LAYER_NORM_REPLAY
        if grad.dtype.itemsize == 2 and grad.dtype.kind in "fV" and grad.__class__ is np.ndarray:
            return _layer_norm_backward_reduced(grad, x, weight, params, mask)
        if grad.dtype not in (np.float32, np.float64) or grad.__class__ is not np.ndarray or \
                x is not None and x.__class__ is not np.ndarray or \
                grad.size > limit and not _cpu.torch_bits:
            return None

        gamma = None if weight is None else weight._data
        if gamma is not None and gamma.dtype != grad.dtype or x is not None and (
                x.dtype != grad.dtype or not x.size) or not grad.size or x is None and (
                mask[0] or mask[1]):
            return None
        arrays = (grad,) + ((x,) if x is not None else ()) + ((gamma,) if gamma is not None
                                                              else ())
        # one kernel: leafgrad.compile records and replays the same call (registry.py)
        outputs = array_kernel(_layer_norm_backward_kernel, *arrays, has_x=x is not None,
                               has_weight=gamma is not None, eps=params["eps"],
                               count=params["normalized_ndim"], mask=tuple(mask),
                               threads=get_num_threads(), torch_bits=_cpu.torch_bits)
        return tuple(out if needed else None for out, needed in zip(outputs, mask))

    @staticmethod
    def dims(shape, params):
        count = params["normalized_ndim"]
        return tuple(range(len(shape) - count, len(shape)))

    @staticmethod
    def affine_shape(shape, params):
        count = params["normalized_ndim"]
        return (1,) * (len(shape) - count) + tuple(shape[len(shape) - count:])


@register
class BatchNorm(_Normalisation):
    """Training-mode batch norm (batch statistics); eval mode is a fixed affine map."""

    node = "NativeBatchNormBackward0"
    complex_message = '"batch_norm" not implemented for \'ComplexFloat\''
    torch_names = ("nn.functional.batch_norm",)
    bfloat16_follows_self = True  # a bfloat16 input with float32 parameters: a bfloat16 result

    @classmethod
    def forward(cls, ctx, x, weight, bias, **params):
        # float32 and float64: torch's kernels' steps (ops/_batch_norm_kernels.py): a zero
        # weight gives +0. (fma(x, 0, beta)) where the formula kept (x - mean)'s sign
        # (generated-program seed 140822)
        if _batch_norm_kernels.supported(x) and _same_dtype(x, weight, bias):
            out = _batch_norm_kernels.forward(x, weight, bias, params["eps"],
                                              get_num_threads(), _cpu.torch_bits)
            return cls.result_layout(out, x)
        return super().forward(ctx, x, weight, bias, **params)

    def backward(self, grad):
        _unpack_running(self)
        return super().backward(grad)

    @staticmethod
    def torch_backward(grad, x, weight, params, mask, recorded=False):
        # (not under forward AD or vmap: their gradients are the formula's Tensor ops; while
        # create_graph records, only as the values of BatchNormBackward's node)
        gamma = None if weight is None else weight._data
        if x is None or not _batch_norm_kernels.supported(x) or \
                not (_arrays_recorded() if recorded else plain_backward()) or \
                not _same_dtype(x, gamma, grad) or type(grad) is not np.ndarray:
            return None

        arrays = (grad, x) + (() if gamma is None else (gamma,))
        # one kernel: leafgrad.compile records and replays the same call (registry.py)
        outputs = array_kernel(_batch_norm_backward_kernel, *arrays, eps=params["eps"],
                               mask=tuple(mask), threads=get_num_threads(),
                               torch_bits=_cpu.torch_bits)
        return tuple(out if needed else None for out, needed in zip(outputs, mask))

    @staticmethod
    def dims(shape, params):
        return (0,) + tuple(range(2, len(shape)))

    @staticmethod
    def affine_shape(shape, params):
        return (1, shape[1]) + (1,) * (len(shape) - 2)

    @staticmethod
    def result_layout(out: np.ndarray, x: np.ndarray) -> np.ndarray:
        return _batch_norm_layout(out, x)


def _unpack_running(node) -> None:
    """Unpack the running statistics batch_norm saved on its node (nn/_functional_batchnorm.py
    _save_running), after the input and weight, in torch's order: one written in place since
    the forward is torch's version error."""
    saved = node._saved
    if saved and saved.get("running_mean", saved.get("running_var")) is not None:
        for name in ("input", "weight", "running_mean", "running_var"):
            if saved.get(name) is not None:
                node.saved(name)


def _recorded_in_capture() -> bool:
    """A create_graph backward under leafgrad.compile: batch_norm's records its node there too,
    whose values are the kernel's (a capture replays the op's forward), as the eager one."""
    return _capture.active and _grad_state.grad_enabled and _arrays_recorded()


def _arrays_recorded() -> bool:
    """Whether a recorded backward op's forward may compute its arrays by a kernel: not under
    forward AD or vmap (whose values are the formula's Tensor ops)."""
    return not (dual_state.active or vmap_state.active)


def _batch_norm_backward_kernel(grad, x, *gamma, eps, mask, threads, torch_bits):
    """BatchNorm.torch_backward's arrays (an empty one where not in ``mask``)."""
    outputs = _batch_norm_kernels.backward(grad, x, gamma[0] if gamma else None, eps, mask,
                                           threads, torch_bits)
    if outputs[0] is not None:
        outputs = (_batch_norm_layout(outputs[0], x),) + outputs[1:]
    return tuple(np.zeros(0, x.dtype) if out is None else out for out in outputs)


def _same_dtype(x: np.ndarray, *arrays) -> bool:
    return all(a is None or type(a) is np.ndarray and a.dtype == x.dtype for a in arrays)


def _batch_norm_layout(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """batch_norm's ``empty_like(input, input.suggest_memory_format())``: channels-last for a
    5-d channels-last input too (``_layout.suggested`` knows the 4-d format only)."""
    if x.ndim == 5 and not x.flags.c_contiguous and _layout.is_channels_last(x, 5):
        return out if _layout.is_channels_last(out, 5) else _layout.to_channels_last(out)
    return _layout.suggested(out, x)


@register
class GroupNorm(_Normalisation):
    node = "NativeGroupNormBackward0"
    # torch's node has three differentiable outputs (out, mean, rstd; F.group_norm returns the
    # first): its pre-hooks see three gradients, None for the other two (generated-program
    # seed 52362)
    _num_outputs = 3
    complex_message = '"GroupNormKernelImpl" not implemented for \'ComplexFloat\''
    vmap = batch.affine(batch.fold(None))
    torch_names = ("nn.functional.group_norm",)

    @staticmethod
    def grouped(x, params):
        return x.reshape(GroupNorm._grouped_shape(tuple(x.shape), params))

    @staticmethod
    def _grouped_shape(shape, params):
        # explicit sizes: ``-1`` cannot be resolved for an empty batch
        groups = params["num_groups"]
        per_sample = int(np.prod(shape[1:], dtype=np.int64))
        return (shape[0], groups, per_sample // groups)

    @staticmethod
    def torch_kernel(x, weight, bias, params):
        # a channels-last input runs torch's other kernel (sums of x and x * x)
        if x.ndim in (4, 5) and not x.flags.c_contiguous and _layout.is_channels_last(x, x.ndim):
            if x.dtype == np.float64:  # (its float32 replay only)
                return None
            return _norm_kernels.group_norm_channels_last(x, weight, bias, params["num_groups"],
                                                          params["eps"])
        return _norm_kernels.group_norm(x, weight, bias, params["num_groups"], params["eps"])

    @staticmethod
    def torch_backward(grad, x, weight, params, mask):
        # float32, row-major, up to _EXACT_BACKWARD elements unless backends.cpu.torch_bits:
        # GroupNormBackwardKernelImplInternal replayed (ops/_norm_kernels.py), with the
        # forward's statistics replayed too (what torch saved)
        if grad.dtype not in (np.float32, np.float64) or grad.__class__ is not np.ndarray or \
                not grad.size or x is None and (mask[0] or mask[1]) or x is not None and (
                    x.__class__ is not np.ndarray or x.dtype != grad.dtype) or \
                grad.size > _EXACT_BACKWARD and not _cpu.torch_bits or not plain_backward():
            return None
        gamma = None if weight is None else weight._data
        if gamma is not None and (gamma.dtype != grad.dtype or gamma.__class__ is not np.ndarray) \
                or x is not None and x.ndim in (4, 5) and not x.flags.c_contiguous and \
                _layout.is_channels_last(x, x.ndim):  # (torch's channels-last kernel: not replayed)
            return None
        arrays = (grad,) + (() if x is None else (x,)) + (() if gamma is None else (gamma,))
        # one kernel: leafgrad.compile records and replays the same call (registry.py)

        outputs = array_kernel(_group_norm_backward_kernel, *arrays, has_x=x is not None,
                               groups=params["num_groups"], eps=params["eps"], mask=tuple(mask),
                               threads=get_num_threads())
        return tuple(out if needed else None for out, needed in zip(outputs, mask))

    @staticmethod
    def replays_by_default(x, params) -> bool:
        # up to 65,536 elements: a value near zero after the cancellation printed other digits
        # than torch's (generated-program seeds 161770, 180246), and ~60% of the values of a
        # (4, 32, 8, 8) input were a last bit off; the replay costs (2, 3, 4): 76 against 200
        # us, (4, 32, 8, 8): 186 against 49 us (forward and backward 483 against 382)
        return x.size <= _GROUP_NORM_REPLAY

    @classmethod
    def grouped_tensor(cls, x, params):
        return x.reshape(cls._grouped_shape(tuple(x.shape), params))

    @staticmethod
    def dims(shape, params):
        return (2,)

    @staticmethod
    def affine_shape(shape, params):
        return (1, shape[1]) + (1,) * (len(shape) - 2)


@register
class BatchNormBackward(RecordedFormula, Op):
    """torch's native_batch_norm_backward(grad_out, input, weight, running_mean, running_var,
    save_mean, save_invstd) recorded by a create_graph backward: one node, outputs (grad_input,
    grad_weight, grad_bias), edges (grad_out, input, weight, save_mean, save_invstd); the
    statistics are no graph values here (edges None). See Note: recorded formulas."""

    node = "NativeBatchNormBackwardBackward0"
    inputs = ("grad_out", "input", "weight", "save_mean", "save_invstd")
    saves = {name: ("grad_out", "input", "weight") for name in ("grad_out", "input", "weight")}
    torch_names = ()
    norm = BatchNorm

    @classmethod
    def record(cls, node, grad, x, weight, mask):
        return _mark_unweighted(node, cls.apply(
            grad, x, weight, None, None, mask=mask, shape=node.input_shape(0),
            bias_shape=node.input_shape(2) if mask[2] else None, **node._params))

    def backward(self, grads):
        return super().backward(_affine_only(self, grads))

    @classmethod
    def formula(cls, grad, x, weight, save_mean, save_invstd, mask, shape, bias_shape, **p):
        weight_shape = tuple(weight.shape) if mask[1] else None
        return cls.norm.grads(grad, x, weight, p, mask, shape, weight_shape, bias_shape)

    @classmethod
    def forward(cls, ctx, *arrays, **params):
        # torch's node runs the same kernel as a plain backward: its values where replayed
        # (the node's own backward differentiates the formula: Note: recorded formulas)
        mask = params["mask"]
        if cls is BatchNormBackward and (mask[0] or mask[1] or mask[2]):
            from ..tensor import _wrap

            grad, x, weight = arrays[:3]
            exact = BatchNorm.torch_backward(grad, x, None if weight is None else _wrap(weight),
                                             {"eps": params["eps"]}, mask, recorded=True)
            if exact is not None:
                empty = np.zeros(0, dtype=grad.dtype)
                return tuple(empty if out is None else out for out in exact)
        return super().forward(ctx, *arrays, **params)


def _affine_only(node, grads):
    """torch's batchnorm_double_backward and layer_norm_double_backward read the gradients of
    the weight's and the bias's gradients only when the norm is affine (a weight given): with
    a bias alone, the bias gradient's own backward reaches nothing (generated-program seed
    20006051: x.grad and bias.grad stayed None in torch after grad(bias).sum().backward())."""
    if len(grads) == 3 and (grads[1] is not None or grads[2] is not None) and getattr(
            node, "_unweighted", False):
        if grads[0] is not None and grads[2] is not None and not isinstance(
                node, LayerNormBackward):
            # batchnorm_double_backward adds the bias term, undefined without a weight, to
            # the input term's gradient: C++'s error for the missing operand
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor "
                               "in C++) for argument #1 'other'")
        return (grads[0], None, None)
    return grads


def _mark_unweighted(forward_node, outputs):
    """Tell the node that made ``outputs`` whether its norm had no weight (see _affine_only;
    its own weight operand is None also where the weight was given but is not needed)."""
    if forward_node._input_meta[1] is None:
        for out in outputs:
            if out is not None and out._node is not None:
                out._node._unweighted = True
                break
    return outputs


@register
class LayerNormBackward(BatchNormBackward):
    """torch's native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
    weight, bias): edges (grad_out, input, mean, rstd, weight, bias) (the statistics: None)."""

    node = "NativeLayerNormBackwardBackward0"
    inputs = ("grad_out", "input", "mean", "rstd", "weight", "bias")
    saves = {name: ("grad_out", "input", "weight", "bias")
             for name in ("grad_out", "input", "weight", "bias")}
    norm = LayerNorm

    @classmethod
    def record(cls, node, grad, x, weight, mask):
        bias = node.saved("bias") if (node._saved or {}).get("bias") is not None else None
        return _mark_unweighted(node, cls.apply(
            grad, x, None, None, weight, bias, mask=mask, shape=node.input_shape(0),
            bias_shape=node.input_shape(2) if mask[2] else None, **node._params))

    @classmethod
    def formula(cls, grad, x, mean, rstd, weight, bias, mask, shape, bias_shape, **p):
        weight_shape = tuple(weight.shape) if mask[1] else None
        return cls.norm.grads(grad, x, weight, p, mask, shape, weight_shape, bias_shape)

    @classmethod
    def forward(cls, ctx, grad, x, mean, rstd, weight, bias, **params):
        # the values of torch's kernel where replayed (the node's own backward differentiates
        # the formula: Note: recorded formulas)
        p = {k: v for k, v in params.items() if k not in ("mask", "shape", "bias_shape")}
        mask = params["mask"]
        if mask[0] or mask[1] or mask[2]:
            from ..tensor import _wrap

            exact = LayerNorm.torch_backward(grad, x, None if weight is None else _wrap(weight),
                                             p, mask, recorded=True)
            if exact is not None:
                empty = np.zeros(0, dtype=grad.dtype)
                return tuple(empty if out is None else out for out in exact)
        return super().forward(ctx, grad, x, mean, rstd, weight, bias, **params)


def _grouped_sizes(shape: tuple, groups: int) -> tuple:
    """(N, G, C // G * HxW), without -1 (an empty batch leaves it ambiguous)."""
    return (shape[0], groups, int(np.prod(shape[1:], dtype=np.int64)) // groups)


def group_norm_statistics_grad(x, dmean, drstd, num_groups: int, eps: float):
    """The input's gradient through native_group_norm's mean and rstd outputs (torch's
    var_mean_backward over each (sample, group)); ``dmean``/``drstd`` may be None."""
    flat = x.reshape(_grouped_sizes(tuple(x.shape), num_groups))
    count = flat.shape[2]
    grad = None
    if dmean is not None:
        grad = dmean.reshape(tuple(flat.shape[:2])).unsqueeze(-1).expand(tuple(flat.shape)) / count
    if drstd is not None:
        mean = stat_mean(flat, (2,), True)
        centred = flat - mean
        rstd = (stat_mean(centred * centred, (2,), True) + eps).rsqrt()
        dvar = -0.5 * rstd * rstd * rstd * drstd.reshape(tuple(flat.shape[:2])).unsqueeze(-1)
        term = dvar * 2 * centred / count
        grad = term if grad is None else grad + term
    return grad.reshape(tuple(x.shape))


def _make_group_norm_statistics():
    class GroupNormStatistics(Op):
        """native_group_norm's mean and rstd outputs, (N, G), as the create_graph composite
        reads them: a node with edges (input, weight, bias), named as the forward's, whose
        gradient reaches the input only (torch's var_mean_backward) and is recorded again.
        Not in the op table (only GroupNormComposite makes it)."""

        node = "NativeGroupNormBackward0"
        inputs = ("input", "weight", "bias")
        saves = {"input": ("input",)}
        multi_output = True
        torch_names = ()

        @staticmethod
        def forward(ctx, x, weight, bias, num_groups, eps):
            flat = x.reshape(_grouped_sizes(x.shape, num_groups))
            if not flat.size:
                shape = flat.shape[:2]
                return np.zeros(shape, x.dtype), np.zeros(shape, x.dtype)
            mean = flat.mean(axis=2)
            rstd = 1 / np.sqrt(flat.var(axis=2) + eps)
            return mean.astype(x.dtype), rstd.astype(x.dtype)

        def backward(self, grads):
            dmean, drstd = grads
            if not self.needs_grad(0) or (dmean is None and drstd is None):
                return None, None, None
            return group_norm_statistics_grad(self.saved("input"), dmean, drstd,
                                              self._params["num_groups"],
                                              self._params["eps"]), None, None

    GroupNormStatistics._save_plan = _save_plan(GroupNormStatistics)
    GroupNormStatistics.__name__ = GroupNormStatistics.__qualname__ = GroupNormStatistics.node
    return GroupNormStatistics


_GroupNormStatistics = _make_group_norm_statistics()


class GroupNormComposite:
    """What a create_graph backward of group_norm records: torch's
    ``infinitely_differentiable_native_group_norm_backward`` (derivatives.yaml takes it
    whenever grad mode is on), a composite of ordinary ops over the input viewed as (N, G, D,
    HxW), with the statistics recomputed from the input here (torch reads the forward's
    mean and rstd outputs, whose gradients reach the input through the forward's node: the
    same derivative). Its nodes are torch's: ViewBackward0 over AddBackward0 for the input,
    ViewBackward0 over SumBackward1 for weight and bias."""

    @staticmethod
    def record(node, grad, x, weight, mask):
        p = node._params
        shape = node.input_shape(0)
        n, channels = shape[0], shape[1]
        groups = p["num_groups"]
        per_group = channels // groups
        spatial = int(np.prod(shape[2:], dtype=np.int64))
        scale = 1.0 / (per_group * spatial) if per_group * spatial else float("inf")
        grad_4d = grad.reshape(n, groups, per_group, spatial)
        grad_x = grad_w = grad_b = None
        db = grad_4d.sum(3).unsqueeze_(-1)
        if mask[0] or mask[1]:
            x_4d = x.reshape(n, groups, per_group, spatial)
            bias = node.saved("bias") if (node._saved or {}).get("bias") is not None else None
            mean, rstd = _GroupNormStatistics.apply(x, weight, bias, num_groups=groups,
                                                    eps=p["eps"])
            mean, rstd = mean.reshape(n, groups, 1, 1), rstd.reshape(n, groups, 1, 1)
            ds = (grad_4d * x_4d).sum(3).unsqueeze_(-1)
        if mask[0]:
            gamma = weight.reshape(1, groups, per_group, 1) if weight is not None else None
            rstd_cube = rstd * rstd * rstd
            a = rstd * gamma if gamma is not None else rstd
            b = ((ds * gamma).sum(2) if gamma is not None else ds.sum(2)).unsqueeze_(-2)
            c = ((db * gamma).sum(2) if gamma is not None else db.sum(2)).unsqueeze_(-2)
            b = (c * mean - b) * rstd_cube * scale
            c = -b * mean - c * rstd * scale
            grad_x = (a * grad_4d + b * x_4d + c).reshape(shape)
        if mask[1]:
            grad_w = ((ds - db * mean) * rstd).sum(0).reshape(node.input_shape(1))
        if mask[2]:
            grad_b = db.sum(0).reshape(node.input_shape(2))
        return grad_x, grad_w, grad_b


BatchNorm.double_backward = BatchNormBackward
LayerNorm.double_backward = LayerNormBackward
GroupNorm.double_backward = GroupNormComposite


def _eval_scale(var: np.ndarray, eps: float, shape: tuple, dtype) -> np.ndarray:
    # torch's backward kernels: ``1 / std::sqrt(running_var[c] + eps)``, eps a double
    return (1 / np.sqrt(var.astype(np.float64) + eps)).reshape(shape).astype(dtype)


def _eval_kernel_applies(dy, x, mean, var) -> bool:
    """Whether eval-mode batch norm's weight and bias grads take torch's kernel sums
    (_batch_norm_kernels.backward): float32/float64 arrays of one dtype, statistics too."""
    return (type(dy) is np.ndarray and type(x) is np.ndarray and x.ndim >= 2
            and x.dtype in (np.float32, np.float64) and dy.dtype == x.dtype
            and dy.shape == x.shape and x.size > 0
            and all(type(a) is np.ndarray and a.dtype == x.dtype for a in (mean, var)))


def _eval_parameter_grads(dy, x, mean, var, eps: float, mask: tuple, threads: int) -> tuple:
    """(grad_weight, grad_bias) of eval-mode batch norm, as torch's kernel (an empty array
    where not in ``mask``): ``invstd = 1 / std::sqrt(running_var + eps)`` in the dtype's
    arithmetic (eps a double)."""
    dtype = x.dtype.type
    invstd = (1 / np.sqrt(var.astype(np.float64) + eps)).astype(dtype)
    outputs = _batch_norm_kernels.backward(dy, x, None, eps, mask, threads, _cpu.torch_bits,
                                           stats=(mean.astype(dtype), invstd))
    return tuple(np.zeros(0, x.dtype) if out is None else out for out in outputs[1:])


def _eval_mean(mean: np.ndarray, shape: tuple, dtype) -> np.ndarray:
    return mean.reshape(shape).astype(dtype)


@register
class BatchNormEval(Op):
    """Batch norm with given statistics: ``(x - mean) / sqrt(var + eps) * w + b``."""

    node = "NativeBatchNormBackward0"
    complex_message = '"batch_norm" not implemented for \'ComplexFloat\''
    vmap = batch.fold(None)
    inputs = ("input", "weight", "bias")
    # both for either gradient: a create_graph backward's node has edges to both
    saves = {"input": ("input", "weight"), "weight": ("input", "weight")}
    torch_names = ("nn.functional.batch_norm",)
    bfloat16_native = "always"  # (its forward computes bfloat16 as torch's kernels do)

    @staticmethod
    def forward(ctx, x, weight, bias, mean, var, eps):
        # torch's two kernels (batch_norm_kernel.cpp, Normalization.cpp). Every operand
        # contiguous (the input row-major or channels-last): fma(x, alpha, beta) (the compiler
        # contracts ``x * alpha + beta``), with per-channel alpha = invstd * w and
        # beta = fma(-mean, alpha, b) in opmath (float32 for float16 and bfloat16); otherwise
        # ((x - mean) * invstd) * w + b with w = 1 and b = 0 when absent, uncontracted, in the
        # input's dtype (float16, bfloat16: c10::Half / c10::BFloat16 arithmetic, rounding
        # every step; in float32 with float32 statistics). Either way the bias is added:
        # x == mean gives +0. where (x - mean) / std * w kept a negative weight's -0.
        # (generated-program seeds 69634, 72566).
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        dense = x.flags.c_contiguous or x.ndim in (4, 5) and _layout.is_channels_last(x, x.ndim)
        dense = dense and all(p is None or p.flags.c_contiguous for p in (weight, bias))
        rounding = not dense and x.dtype.itemsize == 2 and mean.dtype == x.dtype
        if rounding:
            work = x.dtype.type
        else:
            work = np.float64 if x.dtype == np.float64 else np.float32
        one, zero = work(1), work(0)
        mean = mean.astype(work, copy=False)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            shifted = var.astype(work) + work(eps)
            # (std::sqrt per channel, or at::sqrt of the tensor: MKL's for float32 and float64,
            # not always rounded correctly)
            if dense:
                root = np.sqrt(shifted)
            elif rounding:
                root = np.sqrt(shifted.astype(np.float32)).astype(work)
            else:
                root = _float_kernels.sqrt(shifted)
            invstd = one / root
            w = one if weight is None else weight.astype(work, copy=False)
            b = zero if bias is None else bias.astype(work, copy=False)
            if dense:
                alpha = invstd * w
                beta = _float_kernels.fma(-mean, alpha, b)  # (contracted as well)
                out = _float_kernels.fma(x.astype(work, copy=False), alpha.reshape(shape),
                                         beta.reshape(shape))
            else:
                w = np.reshape(w, (1,) * x.ndim if weight is None else shape)
                b = np.reshape(b, (1,) * x.ndim if bias is None else shape)
                out = (x.astype(work, copy=False) - mean.reshape(shape)) * invstd.reshape(shape)
                out = out * w + b
        return _batch_norm_layout(out.astype(x.dtype, copy=False), x)

    def backward(self, grad):
        _unpack_running(self)
        saved = self._saved or {}
        weight = self.saved("weight") if saved.get("weight") is not None else None
        mask = (self.needs_grad(0), self.needs_grad(1), self.needs_grad(2))
        x = self.saved("input") if saved.get("input") is not None else None
        # torch's node (one, 3 outputs); recorded in a capture too, whose values are then the
        # kernel's (BatchNormEvalBackward.forward), as eagerly
        if records_double_backward() or _recorded_in_capture():
            outputs = _mark_unweighted(self, BatchNormEvalBackward.apply(
                grad, x, weight, None, None, mask=mask, shape=self.input_shape(0),
                **self._params))
            return tuple(out if needed else None for out, needed in zip(outputs, mask))
        return BatchNormEval.grads(grad, x, weight, self._params, mask, self.input_shape(0),
                                   kernel=plain_backward())

    @staticmethod
    def grads(grad, x, weight, p, mask, x_shape, kernel: bool = False):
        """(grad_input, grad_weight, grad_bias) for those in ``mask`` (Tensor formulas;
        ``kernel``: a backward that records nothing, whose parameter grads may be arrays)."""
        shape = (1, x_shape[1]) + (1,) * (len(x_shape) - 2)
        dtype = grad._data.dtype
        # kernels (Note: masks as kernels in activation.py): a capture recomputes them
        scale = kernel_tensor(_eval_scale, p["var"], eps=p["eps"], shape=shape, dtype=dtype)
        summed = (0,) + tuple(range(2, len(x_shape)))
        grad_x = grad_w = grad_b = None
        if mask[0]:
            grad_x = grad * scale if weight is None else grad * scale * weight.reshape(shape)

        if (mask[1] or mask[2]) and kernel and x is not None and _eval_kernel_applies(grad._data, x._data, p["mean"], p["var"]):
            # torch's backward kernel with the running statistics: per-channel sums of dy and
            # of (x - mean) * dy in its order, dw = dotp * invstd (the sum of products with
            # invstd inside, before, was another last bit on most channels)
            from ..tensor import _wrap

            weights, biases = array_kernel(_eval_parameter_grads, grad._data, x._data,
                                           p["mean"], p["var"], eps=p["eps"],
                                           mask=(False, mask[1], mask[2]),
                                           threads=get_num_threads())
            grad_w = _wrap(weights) if mask[1] else None
            grad_b = _wrap(biases) if mask[2] else None
            return grad_x, grad_w, grad_b
        if mask[1]:
            centred = x - kernel_tensor(_eval_mean, p["mean"], shape=shape, dtype=dtype)
            grad_w = stat_sum(grad * centred * scale, summed)
        if mask[2]:
            grad_b = stat_sum(grad, summed)
        return grad_x, grad_w, grad_b

    def jvp(self, tangents, primals, result):
        # torch's batch_norm_jvp with the running statistics (constants)
        from ..tensor import _wrap

        p = self._params
        x, weight, _ = primals
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        dtype = result._data.dtype
        scale = _wrap((1 / np.sqrt(p["var"] + p["eps"])).reshape(shape).astype(dtype))
        mean = _wrap(p["mean"].reshape(shape).astype(dtype))
        return jvp_sum(tangents,
                       lambda t: t * scale if weight is None else t * scale * weight.reshape(shape),
                       lambda t: (x - mean) * scale * t.reshape(shape), lambda t: t.reshape(shape))


@register
class BatchNormEvalBackward(RecordedFormula, Op):
    """native_batch_norm_backward with running statistics (eval mode), recorded by a
    create_graph backward: NativeBatchNormBackwardBackward0 as in training mode."""

    node = "NativeBatchNormBackwardBackward0"
    inputs = BatchNormBackward.inputs
    saves = BatchNormBackward.saves
    torch_names = ()

    @staticmethod
    def formula(grad, x, weight, save_mean, save_invstd, mask, shape, **p):
        return BatchNormEval.grads(grad, x, weight, p, mask, shape)

    def backward(self, grads):
        return super().backward(_affine_only(self, grads))

    @classmethod
    def forward(cls, ctx, grad, x, weight, save_mean, save_invstd, mask, shape, **p):
        # the node's values are the kernel's, as without create_graph (torch runs one kernel
        # either way); differentiated (and under forward AD or vmap), the Tensor formula
        if _arrays_recorded() and x is not None and tuple(x.shape) == tuple(shape) \
                and _eval_kernel_applies(grad, x, p["mean"], p["var"]):
            outputs = list(super().forward(ctx, grad, x, weight, save_mean, save_invstd,
                                           mask=mask, shape=shape, **p))
            if mask[1] or mask[2]:
                sums = _eval_parameter_grads(grad, x, p["mean"], p["var"], eps=p["eps"],
                                             mask=(False, mask[1], mask[2]),
                                             threads=get_num_threads())
                outputs[1:] = [sum_ if needed else out
                               for sum_, out, needed in zip(sums, outputs[1:], mask[1:])]
            return tuple(outputs)
        return super().forward(ctx, grad, x, weight, save_mean, save_invstd, mask=mask,
                               shape=shape, **p)


@register
class Embedding(Op):
    node = "EmbeddingBackward0"
    index_saves = {"indices": ()}  # Note: saved index tensors (registry.py)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.embedding
    inputs = ("weight",)
    torch_names = ("nn.functional.embedding",)

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq=False):
        return weight[indices]

    def backward(self, grad):
        p = self._params
        return EmbeddingBackward.apply(grad, num_weights=self.input_shape(0)[0],
                                       indices=p["indices"], padding_idx=p["padding_idx"],
                                       scale_grad_by_freq=p.get("scale_grad_by_freq", False))

    jvp = auto_linear


@register
class EmbeddingBackward(Op):
    """Rows of ``grad`` summed into their embedding rows; the padding row gets nothing."""

    node = "EmbeddingDenseBackwardBackward0"
    index_saves = {"indices": ()}  # under create_graph (Note: saved index tensors)
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, num_weights, indices, padding_idx, scale_grad_by_freq=False):
        out = np.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)
        flat = indices.reshape(-1)
        # (the count of rows from the indices: -1 cannot be resolved for 0-wide embeddings:
        # generated-program seeds 155030, 172318)
        rows = grad.reshape(flat.size, grad.shape[-1])
        if scale_grad_by_freq:  # each row over its index's count in the whole batch (ATen)
            counts = np.bincount(flat, minlength=num_weights)
            rows = rows * (1.0 / counts[flat]).astype(grad.dtype)[:, None]
        if padding_idx is not None:
            keep = flat != padding_idx
            flat, rows = flat[keep], rows[keep]
        np.add.at(out, flat, rows)
        return out

    def backward(self, grad):
        # torch's embedding_dense_double_backward: grad.index_select(0, indices.reshape(-1)),
        # masked_fill_(indices == padding_idx, 0) in place, viewed as indices' shape + (-1,)
        # (IndexSelectBackward0, MaskedFillBackward0, ViewBackward0 under create_graph)
        from .gather import IndexSelect

        p = self._params
        indices = p["indices"]
        flat = array_kernel(np.ravel, indices)
        picked = self.pass_index(IndexSelect.apply(grad, dim=0, index=flat), "indices", "index")
        if p["padding_idx"] is not None:
            padding = array_kernel(_padding_rows, flat, padding_idx=p["padding_idx"])
            picked.masked_fill_(_wrap(padding), 0)
        return picked.view(*indices.shape, -1)

    jvp = auto_linear


def _padding_rows(flat: np.ndarray, padding_idx: int) -> np.ndarray:
    return (flat == padding_idx)[:, None]


# -- padding ------------------------------------------------------------------------------------


@register
class ConstantPadNd(Op):
    """Pad (or, with negative amounts, crop) the last dims; ``pad`` is torch's flat list."""

    node = "ConstantPadNdBackward0"
    inference_writes = 2  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.leading
    torch_names = ("nn.functional.pad",)

    @staticmethod
    def forward(ctx, a, pad, value):
        widths = [(0, 0)] * a.ndim
        for i in range(len(pad) // 2):
            widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
        crop = tuple(slice(max(0, -lo), size - max(0, -hi)) for (lo, hi), size in
                     zip(widths, a.shape))
        cropped = a[crop]
        grow = [(max(0, lo), max(0, hi)) for lo, hi in widths]
        if a.dtype.kind == "u" and a.dtype.itemsize > 1:  # uint16/32/64: torch's checked
            value = unsigned_fill(value, a.dtype, wrap=False)  # conversion of the value
        elif a.dtype.kind in "iu" or a.dtype == np.float16:  # (the value is a double in torch)
            value = checked_operand(float(value), a.dtype, floats=True)
        return _layout.contiguous(np.pad(cropped, grow, constant_values=value))

    def backward(self, grad):
        return ConstantPadNd.apply(grad, pad=tuple(-p for p in self._params["pad"]), value=0)

    def jvp(self, tangents, primals, result):
        # torch: constant_pad_nd(self_t, pad, 0)
        return ConstantPadNd.apply(tangents[0], pad=self._params["pad"], value=0)


def _source_index(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each output position along one padded dim, the input position it copies."""
    positions = np.arange(-before, size + after)
    if mode == "reflect":
        period = 2 * (size - 1)
        positions = np.abs(positions) % period if period else np.zeros_like(positions)
        return np.where(positions >= size, period - positions, positions)
    return np.clip(positions, 0, size - 1)  # replicate


class _ModePad(Op):
    __slots__ = ()
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    vmap = batch.leading  # the padding indexes the last dims after an Ellipsis
    complex_ok = True  # an index gather: any dtype
    mode = ""

    @classmethod
    def forward(cls, ctx, a, pad):
        index = cls.index(a.shape, pad)
        # (fresh: the gather's size-1 dims have NumPy's strides, torch's at::empty row-major
        # ones, and matmul folds a 3-d operand only on those: generated-program seed 152286)
        return _layout.suggested(a[(Ellipsis,) + np.ix_(*index)], a, fresh=True)

    @classmethod
    def index(cls, shape, pad):
        count = len(pad) // 2
        axes = []
        for i in range(count - 1, -1, -1):  # pad lists the last dim first
            size = shape[len(shape) - 1 - i]
            axes.append(_source_index(size, pad[2 * i], pad[2 * i + 1], cls.mode))
        return axes

    def backward(self, grad):
        return self.backward_op.apply(grad, *self_args(self), input_sizes=self.input_shape(),
                                      pad=self._params["pad"])

    jvp = auto_linear


@self_edge
class _ModePadBackward(Op):
    __slots__ = ()
    vmap = batch.dims(sizes="input_sizes")  # grad and input_sizes get the batch dims in front
    complex_ok = True  # a scatter-add: any dtype
    pad_op = None

    @classmethod
    def forward(cls, ctx, grad, input_sizes, pad):
        index = cls.pad_op.index(input_sizes, pad)
        out = np.zeros(input_sizes, dtype=grad.dtype)
        np.add.at(out, (Ellipsis,) + np.ix_(*index), grad)
        return _layout.suggested(out, grad, fresh=True)

    def backward(self, grad):
        return self.pad_op.apply(grad, pad=self._params["pad"])

    jvp = auto_linear


def _make_pad_ops():
    made = {}
    for mode, title in (("reflect", "Reflection"), ("replicate", "Replication")):
        for dims in (1, 2, 3):
            forward_cls = type(f"{title}Pad{dims}d", (_ModePad,), {
                "__slots__": (), "node": f"{title}Pad{dims}DBackward0", "mode": mode,
                "torch_names": ("nn.functional.pad",), "uint_kernel": f"{title.lower()}_pad{dims}d",
                # torch's CPU autocast float32 list has these, reflection_pad3d excepted
                "autocast": None if (mode, dims) == ("reflect", 3) else "fp32",
            })
            backward_cls = type(f"{title}Pad{dims}dBackward", (_ModePadBackward,), {
                "__slots__": (), "node": f"{title}Pad{dims}DBackwardBackward0",
                "torch_names": (), "uint_kernel": f"{title.lower()}_pad{dims}d",
            })
            backward_cls.pad_op = forward_cls
            forward_cls.backward_op = backward_cls
            made[(mode, dims)] = (register(forward_cls), register(backward_cls))
    return made


PAD_OPS = _make_pad_ops()
