"""The rest of torch's top-level namespace that tutorials reach for: nn.functional functions
torch also exposes at top level (with torch's signatures where they differ), in-place
functions (``torch.sin_(x)``), bitwise functions, ``unique``, ``cross``, default device."""

from __future__ import annotations

import numpy as np


from . import _argparse, _dtype
from ._out import CAST, EXPECT, FOUND, Out, Resize, Rule, takes_out
from .nn import functional as _F
from . import ops as _ops
from .ops import cross as _cross, lstm, lstm_cell  # noqa: F401 - re-exported
from .tensor import Tensor, _wrap
from .autograd._vmap_state import state as _vmap_state
from .ops._batching import per_example_call

__all__ = [
    "softmax", "log_softmax", "relu_", "selu", "selu_", "celu", "celu_", "conv1d", "conv2d",
    "conv_transpose2d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "avg_pool1d",
    "adaptive_avg_pool1d", "cosine_similarity", "dropout", "layer_norm", "group_norm",
    "batch_norm", "embedding", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift",
    "unique", "unique_consecutive", "cross", "set_default_device", "get_default_device",
    "is_nonzero", "is_same_size", "lstm_cell", "lstm", "multinomial",
]

# identical signatures in torch's top level and torch.nn.functional
_NO_DIM = object()


def _softmax_function(name: str, functional):
    """torch.softmax/log_softmax: ``(input, dim, dtype=None, *, out=None)``, whose third
    positional argument is the dtype (nn.functional's is _stacklevel) and whose dim is
    required (nn.functional's None picks one, with a warning)."""

    @takes_out(Out(None, EXPECT, out_name=f"aten::{name}"))
    @_argparse.declared(name)
    def function(input, dim=_NO_DIM, dtype=None):  # noqa: A002 - torch's name
        if dim.__class__ is not int:
            if dim is _NO_DIM:
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            dim = _argparse.int_arg(name, "dim", dim, 2)
        return functional(input, dim, dtype=_argparse.dtype_arg(name, dtype))

    function.__name__ = function.__qualname__ = name
    return function


# torch.softmax and torch.log_softmax take out= (nn.functional's do not)
softmax = _softmax_function("softmax", _F.softmax)
log_softmax = _softmax_function("log_softmax", _F.log_softmax)
cross = takes_out(Out("linalg_cross", EXPECT, overlap="full"))(_cross)
selu = _F.selu
celu = _F.celu
conv1d = _F.conv1d
conv2d = _F.conv2d
conv_transpose2d = _F.conv_transpose2d
max_pool1d = _F.max_pool1d
max_pool1d_with_indices = _F.max_pool1d_with_indices
max_pool2d = _F.max_pool2d
avg_pool1d = _F.avg_pool1d
adaptive_avg_pool1d = _F.adaptive_avg_pool1d
cosine_similarity = _F.cosine_similarity


def relu_(input: Tensor) -> Tensor:
    return _F.relu(input, inplace=True)


def selu_(input: Tensor) -> Tensor:
    return _F.selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _F.celu(input, alpha, inplace=True)


# torch's top-level forms whose arguments differ from nn.functional's
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    from ._functions_nn_aliases import _aten_p

    _aten_p(p)  # ATen's RuntimeError, before nn.functional's ValueError could be raised
    return _F.dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enable: bool = True):
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5,
               cudnn_enabled: bool = True):
    return _F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool = True):
    from .nn._functional_batchnorm import batch_norm_impl

    return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum,
                           eps, python_checks=False)


def embedding(weight, indices, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False):
    return _F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# -- bitwise (the operators' ops, under torch's function names) --------------------------------
@takes_out(Out(None, CAST, overlap=True, out_name="aten::bitwise_and"))
def bitwise_and(input, other):
    if other.__class__ not in _argparse.NUMBERS and not isinstance(other, Tensor):
        other = _argparse.operand("bitwise_and", other, (input, other))
    return input & other


@takes_out(Out(None, CAST, overlap=True, out_name="aten::bitwise_or"))
def bitwise_or(input, other):
    if other.__class__ not in _argparse.NUMBERS and not isinstance(other, Tensor):
        other = _argparse.operand("bitwise_or", other, (input, other))
    return input | other


@takes_out(Out(None, CAST, overlap=True, out_name="aten::bitwise_xor"))
def bitwise_xor(input, other):
    if other.__class__ not in _argparse.NUMBERS and not isinstance(other, Tensor):
        other = _argparse.operand("bitwise_xor", other, (input, other))
    return input ^ other


@takes_out(Out(None, CAST, overlap=True, out_name="aten::bitwise_left_shift"))
def bitwise_left_shift(input, other):
    if other.__class__ not in _argparse.NUMBERS and not isinstance(other, Tensor):
        other = _argparse.operand("bitwise_left_shift", other, (input, other))
    return _ops.LeftShift.apply(input, other)


@takes_out(Out(None, CAST, overlap=True, out_name="aten::bitwise_right_shift"))
def bitwise_right_shift(input, other):
    if other.__class__ not in _argparse.NUMBERS and not isinstance(other, Tensor):
        other = _argparse.operand("bitwise_right_shift", other, (input, other))
    return _ops.RightShift.apply(input, other)


@takes_out(Out(None, FOUND, overlap=True, out_name="aten::bitwise_not"))
def bitwise_not(input):
    return input.bitwise_not()


# -- set-like operations (no gradient, as in torch where their backward is not implemented) -----
def _underived(kernel: str, node: str):
    """A custom Function recording a value under torch's node ``node`` for ``kernel``, whose
    backward raises torch's 'the derivative for ... is not implemented.'"""
    from .autograd import Function

    class Underived(Function):
        @staticmethod
        def forward(ctx, input, values):  # noqa: A002 - torch's name
            return _wrap(values)

        @staticmethod
        def backward(ctx, grad):
            raise NotImplementedError(f"the derivative for '{kernel}' is not implemented.")

    backward_cls = Underived._backward_cls
    backward_cls.__name__ = backward_cls.__qualname__ = node
    backward_cls.__module__ = "builtins"  # a C++ class in torch: <Unique2Backward0 object>
    return Underived


_UNDERIVED: dict = {}


def _record_underived(kernel: str, node: str, input, values: np.ndarray):  # noqa: A002
    """``values`` as a tensor: with a node that refuses backward when ``input`` requires grad
    (torch records unique's values so; the indices and counts are integers)."""
    from .autograd.grad_mode import is_grad_enabled

    if not (input._may_require_grad() and is_grad_enabled()):
        return _wrap(values)
    function = _UNDERIVED.get(node)
    if function is None:
        function = _UNDERIVED[node] = _underived(kernel, node)
    return function.apply(input, values)


def _unique_flags(function: str, **flags) -> None:
    """unique/unique_consecutive's flags: Python bools, as torch's parser takes them (None, 1,
    a NumPy or tensor bool were read by truth). torch's Python dispatches on the truth of
    return_counts and return_inverse first (a tensor of several elements is its error)."""
    bool(flags["return_counts"]), bool(flags["return_inverse"])
    for name, value in flags.items():
        if value.__class__ is not bool:
            _argparse.bool_arg(function, name, value)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None):
    """Distinct values (sorted), optionally the inverse indices and counts, like torch.unique."""
    from .ops.gather import _refuse_meta

    # torch's Python unique calls _unique2 or unique_dim(input, dim, ...), the flags by keyword
    kernel = "_unique2" if dim is None else "unique_dim"
    if dim is not None and dim.__class__ is not int:
        dim = _argparse.int_arg("unique_dim", "dim", dim, 2)
    _unique_flags(kernel, sorted=sorted, return_inverse=return_inverse,
                  return_counts=return_counts)
    if _vmap_state.active:  # a result size per example: torch refuses it
        per_example_call(unique, "_unique2" if dim is None else "unique_dim", (input,), {},
                         dynamic=True)
    _refuse_meta("_unique2" if dim is None else "unique_dim", input)
    data = input._data
    if dim is None:
        # every NaN is its own value, as torch's sort-and-compare finds (NumPy would merge them)
        values, inverse, counts = np.unique(data.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        inverse = inverse.reshape(data.shape)
    else:
        from .tensor import _wrap_dim

        if data.ndim == 0:  # (maybe_wrap_dim refuses any dim of a 0-d tensor here)
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        dim = _wrap_dim(dim, data.ndim)
        if data.shape[dim] == 0:
            values, inverse, counts = _unique_dim_empty(data, dim)
        else:
            _unique_dim_empty(data, dim)
    if dim is not None and data.shape[dim]:
        moved = np.moveaxis(data, dim, 0).reshape(data.shape[dim], -1)
        rows, inverse, counts = np.unique(moved, axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        shape = (rows.shape[0],) + tuple(np.delete(data.shape, dim))
        values = np.moveaxis(rows.reshape(shape), 0, dim)
    kernel, node = (("_unique2", "Unique2Backward0") if dim is None
                    else ("unique_dim", "UniqueDimBackward0"))
    # (unique_dim's values are the unique rows moved back to ``dim``: that layout, as torch's)
    result = [_record_underived(kernel, node, input,
                                values if dim is not None else np.ascontiguousarray(values))]
    if return_inverse:
        result.append(_wrap(inverse.astype(np.int64)))
    if return_counts:
        result.append(_wrap(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


def _unique_dim_empty(data: np.ndarray, dim: int):
    """unique_dim's (unique_consecutive's with a dim) checks of zero-sized dims, as torch's
    kernels make them: the empty results when ``dim`` is the one zero-sized dim."""
    empties = data.shape.count(0)
    if data.shape[dim] == 0:
        if empties != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        empty = np.zeros(0, np.int64)
        return np.empty(data.shape, data.dtype), empty, empty
    if empties:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                           "unique cannot be applied")
    return None


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """Collapse runs of equal consecutive values (elements, or slices along ``dim``)."""
    from .ops.gather import _refuse_meta

    _unique_flags("unique_consecutive", return_inverse=return_inverse,
                  return_counts=return_counts)
    if dim is not None and dim.__class__ is not int:
        dim = _argparse.int_arg("unique_consecutive", "dim", dim)
    if _vmap_state.active:  # a result size per example: torch refuses it
        per_example_call(unique_consecutive, "unique_consecutive", (input,), {}, dynamic=True)
    _refuse_meta("unique_consecutive", input)
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        starts = np.ones(flat.shape[0], dtype=bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        group = np.cumsum(starts) - 1
        inverse = group.reshape(data.shape)
    else:
        dim = dim + data.ndim if dim < 0 else dim
        empty = _unique_dim_empty(data, dim)
        moved = np.moveaxis(data, dim, 0)
        rows = moved.reshape(moved.shape[0], -1) if empty is None else \
            np.empty((moved.shape[0], 0), data.dtype)
        starts = np.ones(rows.shape[0], dtype=bool)
        starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
        # (the kept slices, contiguous with ``dim`` first, moved back: torch's layout)
        values = np.moveaxis(moved[starts].copy(order="C"), 0, dim)
        group = np.cumsum(starts) - 1
        inverse = group
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    # (with ``dim``, the kept slices are moved back to ``dim``: that layout, as torch's)
    result = [_record_underived("unique_consecutive", "UniqueConsecutiveBackward0", input,
                                values if dim is not None else np.ascontiguousarray(values))]
    if return_inverse:
        result.append(_wrap(inverse.astype(np.int64)))
    if return_counts:
        result.append(_wrap(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


@takes_out(Out(None, Rule("multinomial expects Long tensor out, got: {O}",
                          lambda result, out: out is _dtype.int64),
               resize=Resize(shapes=lambda args, kwargs, old, new: None)))  # resized silently
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator=None) -> Tensor:
    """Indices drawn from the categorical distributions in the rows of ``input`` (torch's
    stream with replacement; see _random.multinomial)."""
    from . import _rng as _random

    data = input._data
    if data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{input.dtype._legacy}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = data.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.isfinite(data).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (data < 0).any():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if (np.atleast_2d(data).sum(-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return _wrap(_random.multinomial(data, num_samples, replacement, generator=generator))


def is_nonzero(input: Tensor) -> bool:
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()))


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input.shape == other.shape


# -- default device (the CPU is the only one leafgrad has) --------------------------------------
def set_default_device(device) -> None:
    from ._device import use

    if device is not None:
        use(device)


def get_default_device():
    from ._device import CPU

    return CPU

