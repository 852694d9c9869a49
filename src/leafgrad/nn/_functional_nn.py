"""Activations, softmax, dropout, linear, embedding, normalisation, padding and losses
(the part of ``leafgrad.nn.functional`` beyond convolution and pooling)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import _argparse, _dtype, _profiling, _warn
from .. import ops as _ops
from ..ops import activation_inplace as _inplace_ops
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd._vmap_state import state as _vmap_state

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus",
    "hardtanh", "sigmoid", "tanh", "softmax", "log_softmax", "softmin", "dropout", "linear",
    "embedding", "one_hot", "layer_norm", "batch_norm", "group_norm", "normalize",
    "cosine_similarity", "pad", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


from ..amp._state import fp32_inputs as _fp32_inputs  # noqa: E402 - autocast
from ..amp._state import lower_inputs as _lower_inputs  # noqa: E402
from ..tensor import _wrap, Tensor
from .. import _functions, _rng as _random
from .._functions_shape import broadcast_tensors
from ..autograd._vmap_state import batched_draw, random_levels
from ..ops._layout import _preserved_strides
from ..ops.registry import array_kernel
from .._compile.state import state as _capture
from ..ops import _layout
from ..ops.elementwise import MulScalar
from ..sparse import _nn as sparse_nn
from ..ops._batching import per_example_call
from ..ops.reduce import _sum_all
from ..ops.special_fns import AddScalarFormula
from .._functions_math import xlogy


def _tensor_cls():
    return Tensor


# -- activations ------------------------------------------------------------------------------


def relu(input, inplace=False):
    try:
        return input.relu_() if inplace else input.relu()
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("relu_" if inplace else "relu", input)
        raise


def relu6(input, inplace=False):
    try:
        return hardtanh(input, 0.0, 6.0, inplace)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("relu6_" if inplace else "relu6", input)
        raise


def leaky_relu(input, negative_slope=0.01, inplace=False):
    try:
        if negative_slope.__class__ is not float and negative_slope.__class__ is not int:
            negative_slope = _argparse.number("leaky_relu_" if inplace else "leaky_relu",
                                              "negative_slope", negative_slope, 2, into=input,
                                              names=_argparse.FLOAT_OPMATH_T)
        if inplace:
            return _ops.inplace(_inplace_ops.LeakyReluInplace, input, negative_slope=negative_slope)
        return _ops.LeakyRelu.apply(input, negative_slope=negative_slope)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("leaky_relu_" if inplace else "leaky_relu", input)
        raise


def elu(input, alpha=1.0, inplace=False):
    try:
        if alpha.__class__ is not float and alpha.__class__ is not int:
            alpha = _argparse.number("elu_" if inplace else "elu", "alpha", alpha, 2, into=input,
                                     names=_argparse.FLOAT_OPMATH_T)
        params = dict(alpha=alpha, scale=1.0, input_scale=1.0)
        if inplace:
            return _ops.inplace(_inplace_ops.EluInplace, input, **params)
        return _ops.Elu.apply(input, **params)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("elu_" if inplace else "elu", input)
        raise


def selu(input, inplace=False):
    try:
        params = dict(alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)
        if inplace:
            return _ops.inplace(_inplace_ops.EluInplace, input, **params)
        return _ops.Elu.apply(input, **params)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("selu_" if inplace else "selu", input)
        raise


def celu(input, alpha=1.0, inplace=False):
    try:
        if alpha.__class__ is not float and alpha.__class__ is not int:
            alpha = _argparse.number("celu_" if inplace else "celu", "alpha", alpha, 2)
            # (torch divides 1 by alpha as a double, before dispatching on the input's dtype)
            alpha = _argparse.real_scalar(alpha, _dtype.float64, _argparse.DOUBLE_T)
        params = dict(alpha=alpha, scale=1.0, input_scale=1.0 / alpha)
        if inplace:
            return _ops.inplace(_inplace_ops.CeluInplace, input, **params)
        return _ops.Celu.apply(input, **params)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("celu_" if inplace else "celu", input)
        raise


@_argparse.parsed("gelu")  # (a C function in torch: its parser's errors)
def gelu(input, approximate="none"):
    if approximate.__class__ is not str:
        raise TypeError("gelu(): approximate")
    try:
        if approximate not in ("none", "tanh"):
            raise RuntimeError(f"approximate argument must be either none or tanh.")
        return _ops.Gelu.apply(input, approximate=approximate)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("gelu", input)
        raise


def silu(input, inplace=False):
    try:
        return _ops.inplace(_ops.Silu, input) if inplace else _ops.Silu.apply(input)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("silu_" if inplace else "silu", input)
        raise


def mish(input, inplace=False):
    try:
        return _ops.inplace(_ops.Mish, input) if inplace else _ops.Mish.apply(input)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("mish_" if inplace else "mish", input)
        raise


@_argparse.parsed("softplus")  # (a C function in torch: its parser's errors)
def softplus(input, beta=1.0, threshold=20.0):
    try:
        if beta.__class__ is not float and beta.__class__ is not int:
            beta = _argparse.number("softplus", "beta", beta, 2, into=input,
                                    names=_argparse.FLOAT_OPMATH_T)
        if threshold.__class__ is not float and threshold.__class__ is not int:
            threshold = _argparse.number("softplus", "threshold", threshold, 3, into=input,
                                         names=_argparse.FLOAT_OPMATH_T)
        return _ops.Softplus.apply(input, beta=beta, threshold=threshold)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("softplus", input)
        raise


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:  # (torch's Python check, before its parser's)
        raise ValueError("min_val cannot be greater than max_val")
    try:
        if min_val.__class__ is not float and min_val.__class__ is not int:
            min_val = _argparse.number("hardtanh_" if inplace else "hardtanh", "min_val",
                                       min_val, 2, into=input, names=_argparse.WIDE_T)
        if max_val.__class__ is not float and max_val.__class__ is not int:
            max_val = _argparse.number("hardtanh_" if inplace else "hardtanh", "max_val",
                                       max_val, 3, into=input, names=_argparse.WIDE_T)
        params = dict(min_val=min_val, max_val=max_val)
        if inplace:
            return _ops.inplace(_ops.Hardtanh, input, **params)
        return _ops.Hardtanh.apply(input, **params)
    except Exception:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor("hardtanh_" if inplace else "hardtanh", input)
        raise


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _softmax_dim(input, dim, name, stacklevel=3, method=None):
    if dim is None:
        ndim = input.dim()  # (torch asks input.dim() first: a non-Tensor fails before the warning)
        message = (f"Implicit dimension choice for {name} has been deprecated. Change the call "
                   "to include dim=X as an argument.")
        if stacklevel == 3:  # called by the user: their line, whatever leafgrad did in between
            _warn.warn(message)
        else:  # torch's modules pass 5: a line of torch's module code (here: leafgrad's)
            warnings.warn(message, UserWarning, stacklevel=2)
        dim = 0 if ndim in (0, 1, 3) else 1
    elif dim.__class__ is not int:
        # torch's Python calls the method, input.softmax(dim): dim is its argument 1
        dim = _argparse.int_arg(method or name, "dim", dim, 1)
    return _ops.wrap_dim(dim, input.ndim)


def _not_tensor(input, dim, operation) -> None:
    """Raise what torch's Python softmax functions raise for a non-Tensor input with a dim
    given: the failure of their first use of it (``input.softmax``, ``-input``), the
    AttributeError or TypeError Python itself gives."""
    if dim is not None and not isinstance(input, Tensor):
        operation(input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    try:
        dim = _softmax_dim(input, dim, "softmax", _stacklevel)
    except (AttributeError, TypeError):
        _not_tensor(input, dim, lambda value: value.softmax)
        raise
    if dtype is not None:
        input = input.to(_argparse.dtype_arg("softmax", dtype))
    return _ops.Softmax.apply(input, dim=dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    try:
        dim = _softmax_dim(input, dim, "softmin", _stacklevel, "softmax")
    except (AttributeError, TypeError):
        _not_tensor(input, dim, lambda value: (-value).softmax)
        raise
    return softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    try:
        dim = _softmax_dim(input, dim, "log_softmax", _stacklevel)
    except (AttributeError, TypeError):
        _not_tensor(input, dim, lambda value: value.log_softmax)
        raise
    if dtype is not None:
        input = input.to(_argparse.dtype_arg("log_softmax", dtype))
    return _ops.LogSoftmax.apply(input, dim=dim)


def _dropout_mask(p, shape, dtype):
    """Dropout's mask: bernoulli(1 - p) draws from the default generator, scaled by 1/(1-p)."""
    if p == 1:
        return np.zeros(shape, dtype=dtype)  # no draw, as torch
    keep = _random.bernoulli(1 - p, shape, dtype)
    check_scalable(dtype, keep.size)
    return (keep / (1 - p)).astype(dtype)


def check_scalable(dtype, size: int) -> None:
    """ATen scales dropout's drawn noise in place (``noise.div_(1 - p)``): an integer or bool
    input's noise cannot hold the float result, after the draw (the generator has moved)."""
    if dtype.kind not in "fcV" and size:  # V: bfloat16

        name = _dtype.from_numpy_dtype(dtype)._legacy
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


_dropout_mask.draws_random = True  # leafgrad.compile: replayed, never dropped or merged


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (MulBackward0)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    name = "dropout_" if inplace else "dropout"  # (torch's F calls _VF.dropout(_)(x, p, train))
    if p.__class__ is not float and p.__class__ is not int:  # (then torch's kernel: a double)
        p = _argparse.number(name, "p", p, 2, kind="float")
    if training.__class__ is not bool:
        _argparse.require_tensor(name, input)  # (torch's parser names the input first)
        _argparse.bool_arg(name, "train", training, 3)
    try:
        if not training or p == 0 or input.numel() == 0:
            return input  # the input itself, as ATen's _dropout_impl (also for an empty input)
    except AttributeError:  # a non-Tensor input: torch's parser error
        _argparse.require_tensor(name, input)
        raise

    shape = tuple(input.shape)
    levels = ()

    if _vmap_state.active and p != 1:
        levels, sizes = random_levels()  # vmap(randomness='different'): a mask per example
        shape = tuple(sizes) + shape
    if levels:
        with batched_draw():
            mask = _dropout_mask(p=p, shape=shape, dtype=input._data.dtype)
    else:
        # leafgrad.compile records the draw as one node its replay runs again, so the
        # generator advances on every call exactly as eager; under a torch.func transform
        # functorch's dropout draws a contiguous mask (Note: functorch's operator hacks)
        if _vmap_state.stack:
            mask = array_kernel(_dropout_mask, p=p, shape=shape, dtype=input._data.dtype)
        else:
            mask = in_layout_of(input._data, array_kernel, _dropout_mask, p, shape)
    mask = _wrap(mask)
    if levels:
        from ..ops._batching import wrap

        mask = wrap(mask, levels)
    if inplace:
        return input.mul_(mask)
    return input * mask


def in_layout_of(data, array_kernel, kernel, p, shape):
    """``kernel(p, shape, dtype)`` (a dropout noise: an array or a tuple of arrays) drawn in
    the memory order of torch's ``empty_like(input)`` (its bernoulli_ fills memory in order): a
    transposed input's mask is drawn transposed (generated-program seed 45574, dropout of a
    transposed expanded tensor)."""
    strides = _preserved_strides(data) if data.ndim > 1 else None
    if strides is None:
        return array_kernel(kernel, p=p, shape=shape, dtype=data.dtype)
    order = sorted(range(len(shape)), key=lambda d: -strides[d])  # memory order, outermost first
    # one kernel call, the transpose inside it: leafgrad.compile records (and replays) the
    # kernel's own result, and would break the graph at an array made from it afterwards
    return array_kernel(_noise_in_order, p=p, shape=shape, dtype=data.dtype,
                        order=tuple(order), kernel=kernel, strides=tuple(strides))


def _noise_in_order(p, shape, dtype, order, kernel, strides=None):
    """``kernel`` drawn in the memory order ``order`` (outermost dim first), returned as
    arrays of ``shape``, with the element ``strides`` of empty_like(input) (those of its
    size-1 dims too: input * noise then takes TensorIterator's fast setup, the input's
    strides)."""
    drawn = kernel(p=p, shape=tuple(shape[d] for d in order), dtype=dtype)
    back = np.argsort(order)

    def laid_out(part):
        part = part.transpose(back)
        if strides is None or len(strides) != part.ndim:
            return part
        wanted = tuple(stride * part.itemsize for stride in strides)
        if part.strides == wanted or any(size != 1 and have != want for size, have, want
                                         in zip(part.shape, part.strides, wanted)):
            return part
        return np.lib.stride_tricks.as_strided(part, strides=wanted)

    if isinstance(drawn, tuple):
        return tuple(laid_out(part) for part in drawn)
    return laid_out(drawn)


_noise_in_order.draws_random = True


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` along torch's paths (addmm for 2-d input with a bias)."""
    try:
        if _profiling.active:  # (torch's profiler shows aten::linear around its kernel)
            return _profiling.scoped("aten::linear", _linear, (input, weight, bias))
        return _linear(input, weight, bias)
    except Exception:  # a non-Tensor argument: torch's parser error
        _argparse.require_tensors("linear", ("input", input, 1, False),
                                  ("weight", weight, 2, False), ("bias", bias, 3, True))
        raise


def _linear(input, weight, bias=None):
    input, weight, bias = _lower_inputs(input, weight, bias)  # torch's CPU autocast list
    if input.ndim == 0 or weight.ndim == 0:  # at::linear's own check, before any path's
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D")
    # torch's paths: addmm for 2-d input; for other contiguous input with a bias that is one
    # row (1-d, or (1, ..., 1, out_features)), one addmm of the input flattened to 2-d, viewed
    # back; otherwise matmul and an in-place add of the bias (a non-contiguous 1-d input, an
    # expanded one: generated-program seed 37670; 4-d contiguous input, 3-d with a 0-d bias
    # took the other path here)
    fused = bias is not None and input.ndim >= 1 and (input.ndim == 2 or (
        input.is_contiguous() and (bias.ndim == 1 or (
            bias.ndim > 1 and bias.shape[-1] == weight.shape[0]
            and all(size == 1 for size in bias.shape[:-1])))))
    if fused and bias.dtype is not weight.dtype:  # addmm checks self before mat1
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {bias.dtype._legacy} and "
            f"{weight.dtype._legacy}"
        )
    if fused and input.dtype is not weight.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {input.dtype._legacy} and "
            f"{weight.dtype._legacy}"
        )
    if fused and input.ndim == 2:
        return _ops.Addmm.apply(bias, input, weight.t())
    if fused:
        rows = 1
        for size in input.shape[:-1]:
            rows *= size
        flat = input.reshape(rows, input.shape[-1])
        result = _ops.Addmm.apply(bias, flat, weight.t())
        return result.view(*input.shape[:-1], result.shape[1])
    output = input.matmul(weight.t())
    if bias is not None:
        output = output.add_(bias)  # in place, as torch does (AddBackward0)
    return output


def _index_type_error(input, argument: int, function: str) -> RuntimeError:
    # torch names a type without a legacy tensor class (bool, uint16/32/64) as CPUBoolType
    indices = input._data
    named = (f"CPU{input.dtype._legacy}Type" if indices.dtype.kind == "b" or (
        indices.dtype.kind == "u" and indices.dtype.itemsize > 1)
        else f"torch.{input.dtype._legacy}Tensor")
    return RuntimeError(
        f"Expected tensor for argument #{argument} 'indices' to have one of the following scalar "
        f"types: Long, Int; but got {named} instead (while checking arguments for {function})")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:  # torch's Python asserts, first (weight.size(0) as F reads
        # it: a weight that is not a tensor fails there as in torch)
        if padding_idx > 0 and not padding_idx < weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0 and not padding_idx >= -weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
    if not isinstance(weight, Tensor) or not isinstance(input, Tensor):
        _argparse.require_tensors("embedding", ("weight", weight, 1, False),
                                  ("indices", input, 2, False))
    indices = input._data
    renorm = None if max_norm is None else _embedding_renorm_check(weight, input, max_norm,
                                                                     norm_type)
    if padding_idx is not None and padding_idx.__class__ is not int or \
            scale_grad_by_freq.__class__ is not bool or sparse.__class__ is not bool:
        # torch's F passes them positionally to torch.embedding: its parser's errors
        if padding_idx is not None and padding_idx.__class__ is not int:
            padding_idx = _argparse.int_arg("embedding", "padding_idx", padding_idx, 3,
                                            symint=True)  # (a SymInt)
        scale_grad_by_freq, sparse = _argparse.doubles(
            "embedding", ("scale_grad_by_freq", scale_grad_by_freq, 4, "bool"),
            ("sparse", sparse, 5, "bool"))
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype.kind != "i":  # floats, bool and unsigned indices are refused
        raise _index_type_error(input, 1, "embedding")

    # the bounds check and the int64 copy the op keeps: one kernel, so that leafgrad.compile
    # checks (and copies) the indices of every replay
    checked = array_kernel(_embedding_indices, indices, rows=weight.shape[0])
    if renorm is not None:  # after every check (torch renormalises first, then checks the rest:
        # a failed call there has rescaled rows; here it changes nothing)
        _embedding_renorm(weight, *renorm)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if sparse:  # the weight's gradient is a sparse tensor (leafgrad.sparse)

        return sparse_nn.embedding(weight, checked, padding_idx, scale_grad_by_freq)
    result = _ops.Embedding.apply(weight, indices=checked, padding_idx=padding_idx,
                                  scale_grad_by_freq=scale_grad_by_freq)
    return _ops.keep_index(result, input, "indices")


def _embedding_renorm_check(weight, input, max_norm, norm_type) -> tuple:
    """torch's embedding_renorm_'s checks, in its order: ``(rows, max_norm, norm_type)`` for
    ``_embedding_renorm``, the distinct rows in increasing order."""
    if max_norm.__class__ is not float or norm_type.__class__ is not float:  # (its parser)
        max_norm, norm_type = _argparse.doubles("embedding_renorm_", ("max_norm", max_norm, 3,
                                                                      "float"),
                                                ("norm_type", norm_type, 4, "float"))
    if _capture.active:  # the renormalisation writes outside the op table
        _capture.tracer.broke("embedding with max_norm renormalises the weight in place "
                              "outside the op table")
    if weight.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    if input._data.dtype.kind != "i":
        raise _index_type_error(input, 2, "embedding_renorm_")
    rows = np.unique(input._data).tolist()
    for row in rows:
        # all checked before any row is rescaled: torch's loop leaves the rows before an index
        # out of range rescaled (and the version as it was); a failed call changes nothing here
        if not -weight.shape[0] <= row < weight.shape[0]:
            raise IndexError(f"select(): index {row} out of range for tensor of size "
                             f"{list(weight.shape)} at dimension 0")
    return rows, max_norm, norm_type


def _embedding_renorm(weight, rows: list, max_norm: float, norm_type: float) -> None:
    """torch's embedding_renorm_'s writes: each of ``rows`` whose norm (the row's own norm, as
    a double) exceeds max_norm is scaled in place by max_norm / (norm + 1e-7)."""
    with no_grad():
        for row in rows:
            line = weight[row]
            norm = line.norm(norm_type).item()
            if norm > max_norm:
                # the row times the scale in the weight's dtype (torch's half and bfloat16
                # rows take it rounded so), written without a version bump
                scale = np.asarray(max_norm / (norm + 1e-7), dtype=weight._data.dtype)
                weight._data[row] = (line * _wrap(scale))._data
    weight._bump_version()  # (one in-place op in torch: one bump, whatever it rescaled)


def _embedding_indices(indices, rows):
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise IndexError("index out of range in self")  # no wrap-around (Note: index bounds)
    return indices.astype(np.int64)


@_argparse.parsed("one_hot")  # (a C function in torch: its parser's errors)
def one_hot(tensor, num_classes=-1):
    if num_classes.__class__ is not int:
        num_classes = _argparse.int_arg("one_hot", "num_classes", num_classes)

    if _vmap_state.active:  # torch's composite runs per example (its max needs a value)

        if num_classes <= 0 and type(tensor).__name__ == "BatchedTensor":
            raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an "
                               "explicit positive num_classes argument.")
        result = per_example_call(one_hot, "one_hot", (tensor,), {"num_classes": num_classes},
                                  warn=False)
        if result is not NotImplemented:
            return result
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    if data.size and (data.min() < 0):
        raise RuntimeError("Class values must be non-negative.")
    if data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _wrap(np.eye(num_classes, dtype=np.int64)[data])


# -- normalisation ------------------------------------------------------------------------------


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    try:
        return _layer_norm(input, normalized_shape, weight, bias, eps)
    except Exception:  # a non-Tensor argument: torch's parser error
        _argparse.require_tensors("layer_norm", ("input", input, 1, False),
                                  ("weight", weight, 3, True), ("bias", bias, 4, True))
        raise


def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if eps.__class__ is not float:  # (torch.layer_norm's double, checked by its parser first)
        eps, = _argparse.doubles("layer_norm", ("eps", eps, 5, "float"))
    if _argparse.plain_ints(normalized_shape):
        normalized_shape = tuple(normalized_shape)
    else:  # (torch's F passes it positionally to torch.layer_norm: its parser's error; an
        # int[] without a size, so a lone int too)
        normalized_shape = _argparse.int_list("layer_norm", "normalized_shape",
                                              normalized_shape, 2, sized=False)
    count = len(normalized_shape)
    # ATen's _check_layer_norm_inputs, in its order; then the kernel's dtype check
    if not count:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
            "element, but got normalized_shape = []")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(param.shape)} and normalized_shape = {list(normalized_shape)}")
    if tuple(input.shape[input.ndim - count:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}"
        )
    _norm_dtype_check(input, "LayerNormKernelImpl")
    return _ops.LayerNorm.apply(input, weight, bias, normalized_ndim=count, eps=eps)


def _norm_dtype_check(input, kernel: str) -> None:
    """Integer and bool inputs: the kernel's dispatch error (floating types only)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._legacy}\'')


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    from ._functional_batchnorm import batch_norm_impl

    return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:  # torch's F.group_norm, then _verify_batch_size, then ATen's checks
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    shape = list(input.shape)
    channels = shape[1]
    # (Python's arithmetic, as torch's _verify_batch_size: 0 groups is ZeroDivisionError, a
    # tensor num_groups computes with tensors before the parser refuses it)
    verified = [shape[0] * channels // num_groups, num_groups] + shape[2:]
    product = verified[0]
    for size in verified[2:]:
        product = product * size
    if product == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {verified}")
    if num_groups.__class__ is not int:  # torch.group_norm's parser, after F's own checks
        num_groups = _argparse.int_arg("group_norm", "num_groups", num_groups, 2)
    if eps.__class__ is not float:
        eps, = _argparse.doubles("group_norm", ("eps", eps, 5, "float"))
    if channels % num_groups != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {shape} and num_groups={num_groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.ndim != 1 or param.numel() != channels):
            # torch's bias message shows the weight's shape ([0] without a weight)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(param.shape) if name == 'weight' else shown}"
                f" and input of shape {shape}")
    _norm_dtype_check(input, "GroupNormKernelImpl")
    # torch's group_norm runs its kernel on input.contiguous(input.suggest_memory_format()):
    # a CloneBackward0 for a strided input (it was missing: generated-program seed 30662)
    from .. import channels_last, channels_last_3d, contiguous_format

    if input.ndim in (4, 5) and _layout.is_channels_last(input._data, input.ndim):
        input = input.contiguous(memory_format=channels_last if input.ndim == 4
                                 else channels_last_3d)
    else:
        input = input.contiguous(memory_format=contiguous_format)
    return _ops.GroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    # torch's steps: input.norm(p, dim, keepdim=True).clamp_min(eps): the norm's own backward
    # gives a zero vector the gradient 0 (a sqrt of a sum of squares gave NaN there)
    norm = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / norm

    return _functions.div(input, norm, out=out)  # torch's composite: div with out=


@_argparse.parsed("cosine_similarity")  # (a C function in torch: its parser's errors)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """As ATen: broadcast, divide each side by its norm first (stabler), the norms clamped to
    eps without recording the clamp (so its gradient passes through)."""
    from .. import broadcast_tensors, linalg

    if dim.__class__ is not int:
        dim = _argparse.int_arg("cosine_similarity", "dim", dim)
    if eps.__class__ is not float:
        eps, = _argparse.doubles("cosine_similarity", ("eps", eps, 4, "float"))

    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    norm1 = linalg.vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    norm2 = linalg.vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pad(input, pad, mode="constant", value=None):
    try:
        return _pad(input, pad, mode, value)
    except Exception:  # a non-Tensor argument: torch's parser error
        _argparse.require_tensors("pad", ("input", input, 1, False))
        raise


def _pad(input, pad, mode="constant", value=None):
    if value is not None and value.__class__ is not float and value.__class__ is not int:
        value, = _argparse.doubles("pad", ("value", value, 4, "float"))  # (torch's float?)
    if _argparse.plain_ints(pad):
        pad = tuple(pad)
    else:  # (torch's F passes it positionally to torch._C._nn.pad: its parser's error)
        pad = _argparse.int_list("pad", "pad", pad, 2, sized=False)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length " + str(len(pad)) + " and input of "
                           "dimension " + str(input.ndim))
    if mode == "constant":
        return _ops.ConstantPadNd.apply(input, pad=pad, value=0 if value is None else value)
    dims = len(pad) // 2
    if mode in ("reflect", "replicate", "circular"):
        if value is not None and value != 0:  # (ATen's _pad_enum: before the rank check)
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if dims > 3 or input.ndim not in (dims + 1, dims + 2):  # (1 to 3 padded dims)
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor."
            )
        first = 1 if input.ndim == dims + 2 else 0  # (an empty batch is allowed)
        if mode != "circular" and not all(input.shape[first:]):
            raise RuntimeError(
                f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch "
                "size and other non-zero dimensions for input, but got: "
                f"{list(input.shape)}")
        if mode == "reflect":
            for i in range(dims):
                size = input.shape[input.ndim - 1 - i]
                if pad[2 * i] >= size or pad[2 * i + 1] >= size:
                    raise RuntimeError(
                        f"Argument #4: Padding size should be less than the corresponding input "
                        f"dimension, but got: padding ({pad[2 * i]}, {pad[2 * i + 1]}) at "
                        f"dimension {input.ndim - 1 - i} of input {list(input.shape)}"
                    )
        if mode == "circular":
            return _circular_pad(input, pad)
        return _ops.PAD_OPS[(mode, dims)][0].apply(input, pad=pad)
    raise NotImplementedError(f"Unrecognised padding mode {mode}")


def _circular_pad(input, pad):
    """torch's _pad_circular: the input, sliced once per padded dim (negative pads crop), is
    copied into a new tensor, then each dim's wrapped-around parts are copied from the result
    itself (CopySlices; the centre's source is the input's SliceBackward0 chain, which was
    missing: generated-program seed 314)."""
    dims = len(pad) // 2
    shape = list(input.shape)
    for i in range(dims):
        d = input.ndim - 1 - i
        if pad[2 * i] > input.shape[d] or pad[2 * i + 1] > input.shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] += pad[2 * i] + pad[2 * i + 1]
        if shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_zeros(tuple(shape))
    centre, source = out, input
    for i in range(dims):
        d = input.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        centre = centre.narrow(d, max(before, 0), shape[d] - max(before, 0) - max(after, 0))
        start = max(-before, 0)
        source = source.narrow(d, start, input.shape[d] - start - max(-after, 0))
    centre.copy_(source)
    for i in range(dims):
        d = input.ndim - 1 - i
        before, after, size = pad[2 * i], pad[2 * i + 1], shape[d]

        def region(start, stop):
            return (slice(None),) * d + (slice(start, stop),)

        if before > 0:
            out[region(0, before)] = out[region(size - before - max(after, 0),
                                                size - max(after, 0))]
        if after > 0:
            out[region(size - after, size)] = out[region(max(before, 0),
                                                         max(before, 0) + after)]
    return out


# -- losses ---------------------------------------------------------------------------------------


def _not_differentiable(function: str, argument: str, tensor) -> None:
    if tensor is not None and tensor._may_require_grad() and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _legacy_reduction(size_average, reduce, reduction):
    """The reduction the legacy ``size_average``/``reduce`` arguments ask for, with torch's
    warning (_Reduction.legacy_get_string: attributed to torch's own loss code, here the
    leafgrad function that called this one)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{result}' instead.", UserWarning, stacklevel=2)
    return result


def _torch_size(shape) -> str:
    """A shape as torch's messages print it (leafgrad.Size's repr names leafgrad)."""
    return f"torch.Size({list(shape)})"


def _check_broadcast(weight, shape, form: str) -> None:
    """torch's error when a loss weight does not broadcast to the input's shape: its kernel's
    (``kernel``), or that of the product it takes part in, as its ``first`` or ``second``
    operand."""
    for i in range(1, min(weight.ndim, len(shape)) + 1):
        have, want = weight.shape[-i], shape[-i]
        if have != want and have != 1 and want != 1:
            if form == "kernel":
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {have} at -{i}! Mismatching "
                    f"argument at index 1 had {_torch_size(weight.shape)}; but expected shape "
                    f"should be broadcastable to {list(shape)}")
            a, b = (have, want) if form == "first" else (want, have)
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {max(weight.ndim, len(shape)) - i}")
    if weight.ndim > len(shape):
        broadcast = list(weight.shape[:weight.ndim - len(shape)]) + [
            max(a, b) for a, b in zip(weight.shape[weight.ndim - len(shape):], shape)]
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{broadcast}")


def _warn_shape(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({_torch_size(target.shape)}) that is different to the input "
            f"size ({_torch_size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", UserWarning, stacklevel=3,
        )


def _expanded(input, target):
    """torch's losses broadcast input and target to one shape first (broadcast_tensors:
    ExpandBackward0 for the one that grows; a 0-d target then promotes as a dimensioned
    tensor: mse_loss of float32 and a 0-d float64 is float64, generated-program seed 222)."""
    return broadcast_tensors(input, target)


def _weighted(losses, weight, shape, reduction, mean_over_weights=True):
    """The Python branch torch's mse_loss/l1_loss/huber_loss take for a ``weight`` (checked
    against the input's own ``shape``, before broadcasting)."""
    if tuple(weight.shape) != tuple(shape):
        raise ValueError("Weights and input must have the same size.")
    losses = losses * weight
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return losses.sum() / weight.sum() if mean_over_weights else losses.mean()
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
    )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_shape(input, target, "mse_loss")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    shape = input.shape
    input, target = _expanded(input, target)
    if weight is not None:
        from .. import pow as _pow

        return _weighted(_pow(input - target, 2), weight, shape, reduction)
    _ops.check_reduction(reduction)
    return _ops.MseLoss.apply(input, target, reduction=reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_shape(input, target, "l1_loss")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    shape = input.shape
    input, target = _expanded(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, shape, reduction)
    _ops.check_reduction(reduction)
    input, target = _fp32_inputs(input, target)  # on torch's CPU autocast fp32 list
    losses = (input - target).abs()
    return _reduce(losses, reduction)


def _reduce(losses, reduction):
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    # torch's order: the size warning, broadcast_tensors, then the reduction, then ATen's beta
    _warn_shape(input, target, "smooth_l1_loss")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _expanded(input, target)
    _ops.check_reduction(reduction)
    if beta.__class__ is not float and beta.__class__ is not int:  # its C function's parser
        beta, = _argparse.doubles("smooth_l1_loss", ("beta", beta, 4, "float"))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)  # torch's own shortcut
    return _ops.SmoothL1Loss.apply(input, target, reduction=reduction, beta=beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_shape(input, target, "huber_loss")
    if delta.__class__ is not float and delta.__class__ is not int:  # its C function's parser
        delta, = _argparse.doubles("huber_loss", ("delta", delta, 4, "float"))
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    shape = input.shape
    input, target = _expanded(input, target)
    if weight is not None:
        losses = _ops.HuberLoss.apply(input, target, reduction="none", delta=delta)
        return _weighted(losses, weight, shape, reduction, mean_over_weights=False)
    _ops.check_reduction(reduction)
    return _ops.HuberLoss.apply(input, target, reduction=reduction, delta=delta)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _ops.check_reduction(reduction)
    if ignore_index.__class__ is not int:  # torch's nll_loss_nd's parser (a SymInt)
        ignore_index, = _argparse.doubles("nll_loss_nd", ("ignore_index", ignore_index, 5,
                                                           "SymInt"))
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")
    if input.ndim > 1 and input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]})."
        )
    if (input.ndim == 3 or input.ndim > 4) and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0], *input.shape[2:]]}, got "
                           f"{list(target.shape)}")
    _not_differentiable("nll_loss_forward", "weight", weight)
    target_data = target._data
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 4 and target.ndim != 3:  # (nll_loss2d's checks, for a 4-d input only)
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    classes = input.shape[-1] if input.ndim <= 2 else input.shape[1]
    if weight is not None and input.ndim <= 2 and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")
    if weight is not None and input.ndim > 2 and weight.numel() != classes:
        # (nll_loss2d's check: the count only; a weight of any shape is read flat)
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if input.ndim == 4 and (input.shape[0], *input.shape[2:]) != tuple(target.shape):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                           f"{list(target.shape)}")
    if target_data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype._legacy}"
        )
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    if input.ndim > 2 and target_data.dtype == np.uint8:
        raise RuntimeError("expected scalar type Long but found Byte")
    # copy=False: an int64 target's own array, so leafgrad.compile sees it is the input's
    target_data = target_data.astype(np.int64, copy=False)
    if input.ndim <= 2:
        result = _ops.NllLoss.apply(input, weight, target=target_data, reduction=reduction,
                                    ignore_index=ignore_index)
        _ops.keep_index(result, weight, "weight")
        return _ops.keep_index(result, target, "target")
    # torch runs every spatial rank through the 4-d kernel, viewing in and out
    n, c = input.shape[:2]
    # (torch's views are (n, c, 1, -1) and (n, 1, -1): the node's gradient has that shape,
    # which its hooks see; leafgrad's (n, c, -1, 1) differed: generated-program seed 33082;
    # the size given: -1 is ambiguous for an empty batch)
    spatial = int(np.prod(input.shape[2:]))
    flat_input = input if input.ndim == 4 else input.contiguous().view(n, c, 1, spatial)
    flat_target = target_data if input.ndim == 4 else target_data.reshape(n, 1, spatial)
    flat_weight = weight if weight is None or weight.ndim == 1 else weight.reshape(-1)
    out = _ops.NllLoss2d.apply(flat_input, flat_weight, target=flat_target, reduction=reduction,
                               ignore_index=ignore_index)
    # torch's node keeps the target made contiguous and viewed as (n, 1, -1) for other ranks
    # than 4 (a copy, which no later change reaches, if it was not contiguous)
    kept = target if input.ndim == 4 else target.contiguous().view(n, 1, spatial)
    _ops.keep_index(out, kept, "target")
    _ops.keep_index(out, weight, "weight")
    if reduction == "none" and input.ndim != 4:
        out = out.view(*target.shape)
    return out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    if _profiling.active:  # (torch's profiler shows aten::cross_entropy_loss around it)
        return _profiling.scoped("aten::cross_entropy_loss", _cross_entropy, (
            input, target, weight, size_average, ignore_index, reduce, reduction,
            label_smoothing), (input, target, weight, reduction, ignore_index, label_smoothing))
    return _cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction,
                          label_smoothing)


def _cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction,
                   label_smoothing):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _ops.check_reduction(reduction)
    if ignore_index.__class__ is not int or label_smoothing.__class__ is not float:
        # torch's cross_entropy_loss's parser (ignore_index a SymInt)
        ignore_index, label_smoothing = _argparse.doubles(
            "cross_entropy_loss", ("ignore_index", ignore_index, 5, "SymInt"),
            ("label_smoothing", label_smoothing, 6, "float"))
    if label_smoothing > 1.0:  # (torch's only check: a negative or NaN smoothing is none)
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")  # (C++'s default formatting of a double)
    input, target = _fp32_inputs(input, target)  # on torch's CPU autocast fp32 list
    class_dim = 0 if input.ndim == 1 else 1
    log_p = log_softmax(input, class_dim)
    classes = input.shape[class_dim]
    if tuple(input.shape) == tuple(target.shape):
        # same shapes: torch reads the target as class probabilities, whatever its dtype
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype._legacy}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(log_p, target, weight, reduction, label_smoothing,
                                            class_dim, classes)
    nll = nll_loss(log_p, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing > 0:
        return nll

    # the ignored mask and the mean's divisor are kernels computed from the target (no branch
    # on its values here), so leafgrad.compile replays them (Note: masks as kernels in
    # ops/activation.py)
    ignored = array_kernel(_ignored_targets, target._data, ignore_index=ignore_index)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = classes
        smooth = -(log_p * weight.view(*shape)).sum(class_dim)
    else:
        smooth = -log_p.sum(class_dim)
    smooth = smooth._masked_zero(ignored)
    if reduction == "mean":
        # the kept targets' count (at least 1), or their total weight: with none ignored,
        # sum / count is the mean, bit for bit
        total = array_kernel(_smoothing_divisor, target._data,
                             *(() if weight is None else (weight._data,)),
                             ignore_index=ignore_index, dtype=smooth._data.dtype)
        smooth = smooth.sum() / _wrap(total)
    elif reduction == "sum":
        smooth = smooth.sum()
    # torch's C++: (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes), products
    # with Scalars (MulBackward1; Tensor products recorded MulBackward0: generated-program seed
    # 31018)

    return (MulScalar.apply(nll, other=1 - label_smoothing)
            + MulScalar.apply(smooth, other=label_smoothing / classes))


def _ignored_targets(target, ignore_index):
    return target == ignore_index


def _smoothing_divisor(target, *weight, ignore_index, dtype):
    """cross_entropy's label-smoothing mean divides by the kept targets' count (at least 1),
    or with ``weight`` by their total weight, as a 0-d array of the loss's dtype."""
    ignored = target == ignore_index
    if weight:
        safe = np.where(ignored, 0, target)

        # torch: weight.gather(0, kept targets).sum(), a sum in its order of additions
        kept = np.ascontiguousarray(weight[0][safe][~ignored])
        return np.asarray(_sum_all(kept, None), dtype=dtype)
    return np.asarray(max(int((~ignored).sum()), 1), dtype=dtype)


def _cross_entropy_probabilities(log_p, target, weight, reduction, label_smoothing, class_dim,
                                 classes):
    if label_smoothing > 0:  # Scalar product and sum, as torch's C++ (MulBackward1, AddBackward1)

        target = AddScalarFormula.apply(MulScalar.apply(target, other=1 - label_smoothing),
                                        other=label_smoothing / classes)
    product = log_p * target
    if weight is not None:
        shape = [1] * log_p.ndim
        shape[class_dim] = classes
        product = product * weight.view(*shape)
    # torch negates after summing: -(sum over classes) per item, or -(sum of everything)
    if reduction == "mean":
        count = log_p.numel() // classes
        return _ops.DivScalar.apply(-product.sum(), other=count)
    if reduction == "sum":
        return -product.sum()
    return -product.sum(class_dim)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _ops.check_reduction(reduction)
    input, target = _fp32_inputs(input, target)  # on torch's CPU autocast fp32 list
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({_torch_size(target.shape)}) that is different to the input "
            f"size ({_torch_size(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    _not_differentiable("binary_cross_entropy", "weight", weight)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        _check_broadcast(weight, input.shape, "kernel")
        weight = weight.expand(*input.shape)
    if target.dtype is not input.dtype:  # the kernel's TensorIterator: one dtype
        raise RuntimeError(f"Found dtype {target.dtype._legacy} but expected "
                           f"{input.dtype._legacy}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(
            f'"binary_cross_entropy" not implemented for \'{input.dtype._legacy}\'')
    return _ops.BinaryCrossEntropy.apply(input, target, weight, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _ops.check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({_torch_size(target.shape)}) must be the same as input size "
            f"({_torch_size(input.shape)})"
        )
    if _vmap_state.stack:  # (Note: functorch's operator hacks)
        return _bce_with_logits_under_transforms(input, target, weight, pos_weight, reduction)
    _not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    _not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        _check_broadcast(weight, input.shape, "second")
        weight = weight.expand(*input.shape)
    if pos_weight is not None and tuple(pos_weight.shape) != tuple(input.shape):
        _check_broadcast(pos_weight, input.shape, "first")
        pos_weight = pos_weight.expand(*input.shape)
    # torch computes (1 - target).mul_(input).sub_(log_sigmoid(input)): a bool target cannot
    # be subtracted, an integer one cannot take the float product in place, and the loss has
    # a floating target's dtype; log_sigmoid(input) comes first, which refuses integers
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(
            f'"log_sigmoid_cpu" not implemented for \'{input.dtype._legacy}\'')
    if target.dtype is _dtype.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if not (target.dtype.is_floating_point or target.dtype.is_complex):
        raise RuntimeError(f"result type {input.dtype._legacy} can't be cast to the desired "
                           f"output type {target.dtype._legacy}")
    params = {"reduction": reduction}
    if target.dtype is not input.dtype or target.dtype is _dtype.bfloat16:
        params["result_dtype"] = target.dtype.name
    return _ops.BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, **params)


def _bce_with_logits_under_transforms(input, target, weight, pos_weight, reduction):
    """binary_cross_entropy_with_logits while a torch.func transform is open.

    Note: functorch's operator hacks
    While any torch.func transform (grad, vjp, jacrev, jvp, jacfwd, hessian, vmap) is open,
    torch runs binary_cross_entropy_with_logits as functorch's decomposition
    (aten/src/ATen/functorch/PyTorchOperatorHacks.cpp): the older softplus formula
    ``(1 - t) x + m + log(exp(-m) + exp(-x - m))`` with ``m = max(-x, 0)``, in these primitive
    ops and in-place steps, differentiated through them. Its values and gradients have other
    last bits than the fused kernel's on about half of the elements (an influence-function
    tutorial's ``torch.func.hessian`` of a logistic loss)."""
    max_val = (-input).clamp_min(0)
    if pos_weight is not None:
        log_weight = (pos_weight - 1).mul(target).add_(1)
        softplus = (-max_val).exp_().add((-input - max_val).exp_()).log_().add_(max_val)
        loss = (1 - target).mul(input).add(log_weight.mul(softplus))
    else:
        loss = (1 - target).mul(input).add_(max_val).add_(
            (-max_val).exp_().add((-input - max_val).exp_()).log_())
    if weight is not None:
        loss = loss * weight
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", UserWarning, stacklevel=2,
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):  # before ATen's kl_div looks
        raise ValueError(f"{reduction} is not a valid value for reduction")  # at the inputs
    if log_target.__class__ is not bool:  # torch.kl_div's parser (a keyword-only bool)
        log_target, = _argparse.doubles("kl_div", ("log_target", log_target, None, "bool"))
    if input.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    # Note: ATen's kl_div is `exp(t) * (t - input)` and `xlogy(t, t) - t * input`, and torch's
    # build (GCC) evaluates the right operand of each first: its node comes first, so the engine
    # runs it last and gradients meeting at the target add up in that order (seen under
    # create_graph as AddBackward0's operands: generated-program seed 34198).
    if log_target:
        difference = target - input
        losses = target.exp() * difference
    else:
        # (0 * log(0) is 0; its target gradient at a 0 target is NaN, from xlogy's y / x term,
        # as torch's)

        product = target * input
        losses = xlogy(target, target) - product
    if reduction == "batchmean":
        return losses.sum() / input.shape[0] if input.ndim else losses.sum()
    return _reduce(losses, reduction)

