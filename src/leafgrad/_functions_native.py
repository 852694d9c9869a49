"""torch's namespace forms of ATen functions: ``native_layer_norm``, ``native_batch_norm``,
``native_group_norm``, ``native_dropout``, ``native_norm``, ``frobenius_norm``,
``nuclear_norm``, ``cholesky``, ``convolution`` and the recurrent cells ``rnn_tanh_cell``,
``rnn_relu_cell``, ``gru_cell``."""

from __future__ import annotations

import warnings

import numpy as np
from . import _dtype as _dtype

from . import _argparse
from .backends import cpu as _cpu
from .ops import _norm_kernels
from ._functions_math import _require_tensor
from .tensor import _wrap

__all__ = [
    "native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout",
    "native_norm", "frobenius_norm", "nuclear_norm", "cholesky", "convolution",
    "rnn_tanh_cell", "rnn_relu_cell", "gru_cell",
]


def _F():
    from .nn import functional

    return functional


def _ints(function: str, argument: str, position: int, value) -> tuple:
    from ._functions_copies import _ints as check

    return check(function, argument, position, value)


# -- normalisations -------------------------------------------------------------------------------


def _layer_norm_replays(data, count: int) -> bool:
    """Whether layer_norm's forward replays torch's float64 statistics by default (then its
    mean and rstd are those)."""
    from .ops.norm import LayerNorm

    return LayerNorm.replays_by_default(data, {"normalized_ndim": count})


def native_layer_norm(input, normalized_shape, weight, bias, eps=None):  # noqa: A002
    """``(layer_norm(input), mean, rstd)``; the statistics keep a size-1 dim for each
    normalised one and do not require grad."""
    if eps is None:  # required, in torch's parser's words
        raise TypeError('native_layer_norm() missing 1 required positional arguments: "eps"')
    _require_tensor(input, "native_layer_norm", "input", 1)
    shape = _ints("native_layer_norm", "normalized_shape", 2, normalized_shape)
    out = _F().layer_norm(input, shape, weight, bias, float(eps))
    count = len(shape)
    dims = tuple(range(input.ndim - count, input.ndim))
    data = input._data
    stats_shape = data.shape[:data.ndim - count] + (1,) * count
    if data.size and (_cpu.torch_bits and data.dtype in (np.float32, np.float16) or (
            data.dtype == np.float64 and (_cpu.torch_bits or _layer_norm_replays(data, count)))):
        mean, rstd = _norm_kernels.layer_norm_stats(data, float(eps), count)  # torch's bits
        return (out, _wrap(mean.reshape(stats_shape).astype(data.dtype)),
                _wrap(rstd.reshape(stats_shape).astype(data.dtype)))
    mean = data.mean(axis=dims, keepdims=True, dtype=np.float64)
    var = data.var(axis=dims, keepdims=True, dtype=np.float64)
    return (out, _wrap(mean.astype(data.dtype)),
            _wrap((1 / np.sqrt(var + eps)).astype(data.dtype)))


def native_batch_norm(input, weight, bias, running_mean, running_var, training,  # noqa: A002
                      momentum, eps):
    """``(batch_norm(input), save_mean, save_invstd)``: the batch's per-channel mean and
    1 / sqrt(var + eps) in training (running statistics updated), empty tensors otherwise."""
    _require_tensor(input, "native_batch_norm", "input", 1)
    if not isinstance(training, bool):
        raise TypeError("native_batch_norm(): argument 'training' (position 6) must be bool, "
                        f"not {_argparse.typename(training)}")
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    data = input._data
    if not training:
        empty = np.zeros(0, dtype=data.dtype)
        return out, _wrap(empty), _wrap(empty.copy())
    dims = (0,) + tuple(range(2, data.ndim))
    mean = data.mean(axis=dims, dtype=np.float64)
    var = data.var(axis=dims, dtype=np.float64)
    return (out, _wrap(mean.astype(data.dtype)),
            _wrap((1 / np.sqrt(var + eps)).astype(data.dtype)))


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002, N803
    """``(group_norm(input), mean, rstd)``, the statistics of shape (N, group)."""
    from .ops.native_forms import NativeGroupNorm

    _require_tensor(input, "native_group_norm", "input", 1)
    if not input._data.flags.c_contiguous:  # ATen's kernel takes contiguous input only
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if input.shape[1] % group != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={group}")
    return NativeGroupNorm.apply(input, weight, bias, num_groups=int(group), eps=float(eps))


# -- dropout --------------------------------------------------------------------------------------


def native_dropout(input, p, train):  # noqa: A002
    """``(output, mask)``: in training (train True or None) the keep mask drawn as dropout's
    and the kept values scaled by 1 / (1 - p); otherwise a copy and an all-True mask.

    Note: native_dropout with train=None. torch scales the output by 1 / (1 - p) but its
    backward by 1 (derivatives.yaml reads an absent ``train`` as eval there), so its gradient
    is not the output's derivative; as in torch (its forward-mode derivative, though, takes
    the forward's scale)."""
    from .ops.native_forms import NativeDropout
    from .ops.registry import array_kernel

    from .ops.shape_copy import check_complex_grad

    _require_tensor(input, "native_dropout", "input", 1)
    check_complex_grad(input, "native_dropout")
    if train is not None and not isinstance(train, bool):
        raise TypeError("native_dropout(): argument 'train' (position 3) must be bool, not "
                        f"{_argparse.typename(train)}")
    data = input._data
    if data.size == 0:
        return input, _wrap(np.zeros(data.shape, dtype=data.dtype))
    if train is None or train:
        if data.dtype.kind == "u" and data.itemsize > 1:  # torch's input.mul(bool mask)
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote {input.dtype._legacy} and Bool")
        keep = array_kernel(_keep_mask, p=float(p), shape=data.shape, dtype=data.dtype)
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        if data.dtype.kind not in "fc":
            from .nn._functional_nn import check_scalable

            check_scalable(data.dtype, data.size)
        result = NativeDropout.apply(input, mask=keep, scale=scale,
                                     grad_scale=1 if train is None else None)
    else:
        result = NativeDropout.apply(input, mask=np.ones(data.shape, dtype=bool), scale=1)
    from .ops.registry import keep_index

    return keep_index(result[0], result[1], "result1"), result[1]


def _keep_mask(p, shape, dtype):
    """ATen's ``bernoulli_(1 - p)`` over the input's shape, as a bool mask."""
    from . import _rng

    return _rng.bernoulli(1 - p, shape, dtype) != 0


_keep_mask.draws_random = True  # leafgrad.compile: replayed, never dropped or merged


# -- norms ---------------------------------------------------------------------------------------

_NATIVE_NORM = (
    "Could not run '{name}' with arguments from the 'CPU' backend. This could be because the "
    "operator doesn't exist for this backend, or was omitted during the selective/custom build "
    "process (if using custom build). If you are a Facebook employee using PyTorch on mobile, "
    "please visit https://fburl.com/ptmfixes for possible resolutions. '{name}' is only "
    "available for these backends: [Meta, SparseCPU, BackendSelect, Python, "
    "FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, ZeroTensor, "
    "ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, AutogradXLA, "
    "AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, AutogradMTIA, "
    "AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, AutogradMeta, "
    "AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, "
    "AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, "
    "Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, "
    "PreDispatch, PythonDispatcher].")


def native_norm(input, p=2, dim=None, keepdim=None, dtype=None):  # noqa: A002
    """A sparse-tensor kernel: torch has none for dense (strided) CPU tensors, nor has
    leafgrad."""
    _require_tensor(input, "native_norm", "input", 1)
    name = "aten::native_norm" if dim is None else "aten::native_norm.ScalarOpt_dim_dtype"
    raise NotImplementedError(_NATIVE_NORM.format(name=name))


def frobenius_norm(input, dim=None, keepdim=False):  # noqa: A002
    """The 2-norm over ``dim`` (deprecated by torch for linalg.vector_norm; NormBackward1)."""
    from .ops.native_forms import NormDims

    if dim is None:  # required, in torch's parser's words
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    from .ops.shape import _wrap_dim

    _require_tensor(input, "frobenius_norm", "input", 1)
    dims = _ints("frobenius_norm", "dim", 2, dim)
    _deprecated("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
                "will be removed in a future PyTorch release. Please use "
                "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    if _dtype.kind(input._data) not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype._legacy} instead.")
    wrapped = tuple(_wrap_dim(d, input.ndim) for d in dims)
    return NormDims.apply(input, ord=2.0, dim=wrapped, keepdim=bool(keepdim))


def nuclear_norm(input, dim=None, keepdim=False):  # noqa: A002
    """The sum of singular values over the last two dims or ``dim`` (deprecated by torch for
    linalg.matrix_norm(A, 'nuc')). ``nuclear_norm(A, True)`` is keepdim, as torch's overload."""
    from . import linalg

    _require_tensor(input, "nuclear_norm", "input", 1)
    if isinstance(dim, bool):  # the (Tensor input, bool keepdim) overload
        dim, keepdim = None, dim
    _deprecated("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
                "will be removed in a future PyTorch release. Please use "
                "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    dims = (-2, -1) if dim is None else _ints("nuclear_norm", "dim", 2, dim)
    return linalg.matrix_norm(input, "nuc", dim=dims, keepdim=keepdim)


_WARNED: set = set()  # torch's TORCH_WARN_ONCE: each deprecation once per process


def _deprecated(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def cholesky(input, upper=False):  # noqa: A002
    """``L`` with ``A = L L^T`` (``U`` with ``A = U^T U`` when ``upper``): the deprecated form
    of ``linalg.cholesky``, with torch's warning and its CholeskyBackward0 node."""
    from .ops.native_forms import Cholesky

    _require_tensor(input, "cholesky", "input", 1)
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky(): argument 'upper' must be bool, not "
                        f"{_argparse.typename(upper)}")
    _deprecated(_CHOLESKY_WARNING)
    return Cholesky.apply(input, upper=upper)


_CHOLESKY_WARNING = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs.")


# -- convolution ----------------------------------------------------------------------------------


def convolution(input, weight, bias, stride, padding, dilation, transposed,  # noqa: A002
                output_padding, groups):
    """ATen's convolution: ``conv{1,2,3}d`` or, when ``transposed``, ``conv_transpose{1,2,3}d``,
    chosen by the weight's rank."""
    _require_tensor(input, "convolution", "input", 1)
    _require_tensor(weight, "convolution", "weight", 2)
    stride = _ints("convolution", "stride", 4, stride)
    padding = _ints("convolution", "padding", 5, padding)
    dilation = _ints("convolution", "dilation", 6, dilation)
    output_padding = _ints("convolution", "output_padding", 8, output_padding)
    spatial = weight.ndim - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(input.shape)}")
    F = _F()
    if transposed:
        function = getattr(F, f"conv_transpose{spatial}d")
        return function(input, weight, bias, stride, padding, output_padding, int(groups),
                        dilation)
    function = getattr(F, f"conv{spatial}d")
    return function(input, weight, bias, stride, padding, dilation, int(groups))


# -- recurrent cells -----------------------------------------------------------------------------


def _check_cell(input, hx, w_ih, w_hh) -> None:
    """ATen's checks of a cell's operands (batched 2-d input and hidden state only)."""
    for position, (name, value) in enumerate((("input", input), ("hx", hx), ("w_ih", w_ih),
                                              ("w_hh", w_hh)), start=1):
        _require_tensor(value, "rnn_cell", name, position)
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{w_ih.size(1)}")
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden0 batch size "
                           f"{hx.size(0)}")
    if hx.size(1) != w_hh.size(1):
        raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hx.size(1)}, expected "
                           f"{w_hh.size(1)}")


def _pre_activation(input, hx, w_ih, w_hh, b_ih, b_hh):
    F = _F()
    return F.linear(hx, w_hh, b_hh) + F.linear(input, w_ih, b_ih)  # torch's SimpleCell order


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """One Elman RNN step: ``tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh)``."""
    _check_cell(input, hx, w_ih, w_hh)
    return _pre_activation(input, hx, w_ih, w_hh, b_ih, b_hh).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """One Elman RNN step with ReLU."""
    _check_cell(input, hx, w_ih, w_hh)
    return _pre_activation(input, hx, w_ih, w_hh, b_ih, b_hh).relu()


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
    """One GRU step (torch's gate order: reset, update, new)."""
    _check_cell(input, hx, w_ih, w_hh)
    return gru_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_step(input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002
    """The GRU step on batched operands, as nn.GRUCell computes it."""
    return gru_update(_F().linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def gru_update(projected, hx, w_hh, b_hh):
    """The GRU step from the input's projection, with the ops and operand order of torch's
    CPU GRUCell (RNN.cpp): unsafe_chunk both projections into (r, z, n) parts,
    ``r = h_r.add_(x_r).sigmoid_()``, ``z = h_z.add_(x_z).sigmoid_()``,
    ``n = x_n.add(h_n.mul_(r)).tanh_()``, ``h' = (h - n).mul_(z).add_(n)`` (so h' is an
    AddBackward0 of (MulBackward0, TanhBackward0)). In place on the chunks as torch: r and z
    keep the chunks' layout (rows of H inside rows of 3H), whose sigmoid takes torch's scalar
    loop on each row's leftover (a fresh contiguous sum ran it on the whole batch's; a last
    bit off on ~8% of a GRU's float32 outputs)."""
    dim = projected.dim() - 1
    igates = projected.unsafe_chunk(3, dim)
    hgates = _F().linear(hx, w_hh, b_hh).unsafe_chunk(3, dim)
    reset_gate = hgates[0].add_(igates[0]).sigmoid_()
    input_gate = hgates[1].add_(igates[1]).sigmoid_()
    new_gate = igates[2].add(hgates[2].mul_(reset_gate)).tanh_()
    return (hx - new_gate).mul_(input_gate).add_(new_gate)
