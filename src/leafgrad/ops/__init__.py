"""Every differentiable op, one class each, and the functions that choose between overloads.

``OPS`` is the read-only table of op classes; tests, docs and the visualiser read it.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _argparse, _dtype
from .._device import device as _device_class
from .registry import OPS, Op, keep_index, register
from ..tensor import Tensor, _wrap_dim
from .elementwise import (
    Abs, Add, Clamp, Clone, Copy, Cos, Div, Eq, Exp, Fill, FillTensor, Ge, Gt, Le, Log,
    BitwiseAnd, BitwiseNot, BitwiseOr, BitwiseXor, LeftShift, RightShift, Lt, MaskedZero, Mul, Ne, Neg, PowScalar, PowScalarBase, PowTensor, Reciprocal,
    Relu, Rsub, RsubTensor, Sigmoid, Sign, Sin, Sqrt, Sub, Tanh, ToCopy, Zero,
)
from .reduce import mean, sum  # noqa: A004 - torch's names
from .shape import (
    Alias, AsStrided, Cat, Expand, ReshapeAlias, Unbind, ViewScatter, Permute, Select, Slice, SqueezeAll, SqueezeDim, SqueezeDims, Stack, T,
    Transpose, UnsafeView, Unsqueeze, View, _try_view, infer_shape, parse_shape,
)
from .linalg import Bmm, Dot, Mm, Mv, matmul
from .inplace import clamp_, inplace
from .indexing import Index, IndexBackward, IndexPut, getitem, setitem
from .cross import LinalgCross, cross, linalg_cross
from .distance import cdist, dist, pdist
from .scatter_reduce import ScatterReduce, scatter_reduce
from . import special_fns  # noqa: F401 - registers its ops
from .rnn import LSTMLayer, lstm, lstm_cell, lstm_update
from . import activation_extra, activation_inplace, loss_ctc, loss_extra, pool3d  # noqa: F401 - register their ops
from . import compare_inplace  # noqa: F401,E402 - registers its ops
from . import elementwise_misc, matrix_extra, scatter_extra, shape_misc  # noqa: F401 - register their ops
from .._construct import check_scalar_write
from .._memory_format import channels_last, channels_last_3d, preserve_format
from .. import _meta
from .._memory_format import contiguous_format
from ..autograd.graph import _LEGACY_TYPE_NAMES

__all__ = ["OPS", "Op", "keep_index", "register"]


def _tensor_type():
    return Tensor


def pow(base, exponent):  # noqa: A001 - torch's name
    Tensor = _tensor_type()
    if isinstance(base, Tensor):
        if isinstance(exponent, Tensor):
            return PowTensor.apply(base, exponent)
        if exponent.__class__ is int and base._data.dtype.kind in "iu":
            check_int_exponent(base, exponent)
        return PowScalar.apply(base, exponent=exponent)
    result = PowScalarBase.apply(exponent, base=base)
    if isinstance(exponent, Tensor) and exponent.is_inference() and not result.is_inference():
        # torch's pow(Scalar, Tensor) kernel writes its result through pow_out (fill_ for a
        # base of 1); an inference exponent outside inference_mode skips the autograd layer
        # that would hide that write, so the new tensor's version counter reads 1
        # (generated-program seed 45610)
        result._bump_version()
    return result


def check_int_exponent(base, exponent: int) -> None:
    """torch's pow(integer tensor, int): a negative exponent is refused (by the kernel),
    else it converts (checked) to the tensor's dtype, after the Python int became an int64."""
    if exponent < 0:
        return  # (PowScalar's "Integers to negative integer powers" comes first)
    if not -2**63 <= exponent < 2**63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    check_scalar_write(exponent, base.dtype)


def div(a, b, rounding_mode=None):
    if rounding_mode is None:  # (Tensor.div sends an explicit None to div_rounding)
        return Div.apply(a, b)
    from .math_binary import div_rounding

    return div_rounding(a, b, rounding_mode)


def clamp(tensor, min=None, max=None):  # noqa: A002
    return Clamp.apply(tensor, min=min, max=max)


_TO_FIRST = (_dtype.dtype, str, _device_class)  # (and Tensor)
_TO_NUMBERS = frozenset((builtins.int, builtins.float, builtins.bool, builtins.complex))


def _plain_to(args: tuple, kwargs: dict) -> bool:
    """A common call of Tensor.to that torch's parser accepts: to(dtype), to(other),
    to("device"), to("device", dtype), with bool non_blocking/copy keywords."""
    for key, value in kwargs.items():
        if value.__class__ is not bool or key != "non_blocking" and key != "copy":
            return False
    if len(args) == 1:
        return isinstance(args[0], _TO_FIRST) or isinstance(args[0], _tensor_type())
    return len(args) == 2 and args[1].__class__ is _dtype.dtype and (
        args[0].__class__ is str or args[0].__class__ is _device_class)


def to(tensor, /, *args, **kwargs):
    """Tensor.to(dtype) / to(device) / to(other) / to(device, dtype); copy=False returns self."""
    if (kwargs or len(args) != 1 or not isinstance(args[0], _TO_FIRST)) and not _plain_to(
            args, kwargs):
        # torch's parser checks the call (non_blocking and copy Python bools, memory_format
        # a memory format...)
        _argparse.check("Tensor.to", args, kwargs)
        if "tensor" in kwargs:  # (the keyword of to(Tensor tensor, ...))
            args = (kwargs.pop("tensor"),) + args
            if not isinstance(args[0], _tensor_type()):
                args = _number_as_tensor(args, kwargs, keyword=True)
    if args and (args[0].__class__ in _TO_NUMBERS or isinstance(args[0], np.generic)):
        args = _number_as_tensor(args, kwargs)
    dtype = _dtype.as_dtype(kwargs.pop("dtype", None))  # Note: Python types as dtypes
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    memory_format = kwargs.pop("memory_format", None)
    target = None
    if kwargs.get("device", 0) is None:  # (torch's ``Device device=None``)
        del kwargs["device"]
    if "device" in kwargs:
        from .._device import use

        target = use(kwargs.pop("device"))
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    Tensor = _tensor_type()
    flags = 0
    for arg in args:
        if arg is None:  # (to(None): the device not given)
            continue
        if arg.__class__ is type:
            arg = _dtype.as_dtype(arg)  # Note: Python types as dtypes
        if isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype = arg.dtype
            target = arg.device
        elif isinstance(arg, bool):  # positionally non_blocking, then copy
            flags += 1
            if flags == 2:
                copy = arg
        else:
            from .._device import use

            target = use(arg)
    if target is not None and (target.type == "meta") != tensor.is_meta:
        return _to_device(tensor, target, dtype)

    if memory_format is not None and memory_format is not preserve_format:
        # torch's to(memory_format=...) returns self only when the tensor already has that
        # layout (and nothing else changes); else _to_copy lays the copy out in that format
        for kind, rank, name in ((channels_last, 4, "channels_last"),
                                 (channels_last_3d, 5, "channels_last_3d")):
            if memory_format is kind and tensor.dim() != rank:
                raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        from . import _layout

        data = tensor._data
        suggested = contiguous_format  # torch's suggest_memory_format() (approximated by density)
        if _layout._channels_last(data):
            suggested = channels_last
        elif data.ndim == 5 and not data.flags.c_contiguous and _layout.is_channels_last(data, 5):
            suggested = channels_last_3d
        same_dtype = dtype is None or dtype.np == data.dtype
        if same_dtype and not copy and suggested is memory_format:
            return tensor
        return ToCopy.apply(tensor, dtype=tensor._data.dtype if same_dtype else dtype.np,
                            memory_format=memory_format)
    if dtype is None or dtype.np == tensor._data.dtype:
        # (a copy asked for is torch's _to_copy too: ToCopyBackward0, not a clone)
        return ToCopy.apply(tensor, dtype=tensor._data.dtype) if copy else tensor
    return ToCopy.apply(tensor, dtype=dtype.np)


def parse_to(*args, **kwargs) -> tuple:
    """torch._C._nn._parse_to: what Tensor.to's parser reads from a call, as (device, dtype,
    non_blocking, memory_format); nn.Module.to reads its call with it. A tensor (or a number,
    the 0-d tensor it stands for) gives its device and dtype, a Python type its dtype."""
    _argparse.check("Tensor.to", args, kwargs)
    if "tensor" in kwargs:
        args = (kwargs.pop("tensor"),) + args
        if not isinstance(args[0], _tensor_type()):
            args = _number_as_tensor(args, kwargs, keyword=True)
    number = bool(args) and (args[0].__class__ in _TO_NUMBERS or isinstance(args[0], np.generic))
    if number:
        args = _number_as_tensor(args, kwargs)
    dtype = _dtype.as_dtype(kwargs.get("dtype"))
    non_blocking = kwargs.get("non_blocking", False)
    target = kwargs.get("device")
    if target is not None:
        from .._device import use

        target = use(target)
    Tensor = _tensor_type()
    flags = 0
    for arg in args:
        if arg is None:
            continue
        if arg.__class__ is type:
            arg = _dtype.as_dtype(arg)
        if isinstance(arg, _dtype.dtype):
            dtype = arg
            if number and arg is args[0]:  # (the wrapped number's tensor: on the CPU)
                from .._device import use

                target = use("cpu")
        elif isinstance(arg, Tensor):
            dtype, target = arg.dtype, arg.device
        elif isinstance(arg, bool):  # positionally non_blocking, then copy
            flags += 1
            if flags == 1:
                non_blocking = arg
        else:
            from .._device import use

            target = use(arg)
    if flags == 2 or "copy" in kwargs:  # (given at all, even False)
        raise RuntimeError(".to() does not accept copy argument")
    return target, dtype, non_blocking, kwargs.get("memory_format")


def _number_as_tensor(args: tuple, kwargs: dict, keyword: bool = False) -> tuple:
    """torch's ``to`` takes a number for its ``Tensor tensor`` (numbers as tensors), unless
    an int fits the overload with a device index first: the number stands for the 0-d
    tensor it wraps, so ``x.to(1.5)`` is ``x.to(float64)``, ``x.to(True)`` ``x.to(bool)``
    (NumPy numbers read as torch's Scalars: integers int64, the others float64)."""
    import builtins

    first = args[0]
    if not keyword and _argparse._is_int(first) and not _argparse._is_tensor(first) and \
            _argparse.SIGNATURES["Tensor.to"][0].bind((0,) + args[1:], kwargs) is None:
        return args  # (a device index)
    value = _argparse.scalar(first)
    kind = {builtins.bool: _dtype.bool, builtins.int: _dtype.int64,
            builtins.float: _dtype.float64, builtins.complex: _dtype.complex128}
    return (kind[value.__class__],) + args[1:]


def _to_device(tensor, target, dtype):
    """``to()`` between the CPU and the meta device (Note: meta tensors, _meta.py): to meta, a
    recorded copy (ToCopyBackward0) without data; out of meta, torch's error."""
    if target.type != "meta":
        raise NotImplementedError(_meta.NO_DATA)
    result = ToCopy.apply(tensor, dtype=(dtype.np if dtype is not None else tensor._data.dtype))
    result._data = _meta.like(result._data)
    return result


def view(tensor, shape):
    shape = infer_shape(parse_shape(shape, "view"), tensor._data.size)
    return View.apply(tensor, shape=shape)


def reshape(tensor, shape):
    """A view when the strides allow, else a copy (torch: clone then _unsafe_view)."""
    shape = infer_shape(parse_shape(shape, "reshape", "shape"), tensor._data.size)
    if _try_view(tensor._data, shape) is not None:
        if tensor._data.flags.c_contiguous:
            return View.apply(tensor, shape=shape)
        return ReshapeAlias.apply(tensor, shape=shape)
    return UnsafeView.apply(Clone.apply(tensor), shape=shape)


def flatten(tensor, start_dim=0, end_dim=-1):
    ndim = tensor.ndim
    if ndim == 0:
        _wrap_dim(start_dim, 0), _wrap_dim(end_dim, 0)  # (torch checks them: 0 or -1)
        return reshape(tensor, (1,))
    start, end = _wrap_dim(start_dim, ndim), _wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return tensor
    shape = tensor.shape
    size = 1  # (the product itself: -1 is ambiguous for an empty tensor, torch's flatten is not)
    for n in shape[start:end + 1]:
        size *= n
    return reshape(tensor, shape[:start] + (size,) + shape[end + 1:])


def t(tensor):
    if tensor.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {tensor.ndim}D")
    return T.apply(tensor)


def transpose(tensor, dim0, dim1):
    ndim = tensor.ndim
    return Transpose.apply(tensor, dim0=_wrap_dim(dim0, ndim), dim1=_wrap_dim(dim1, ndim))


def permute(tensor, dims):
    dims = parse_shape(dims, "permute", "dims")
    ndim = tensor.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(tensor, dims=wrapped)


def unsqueeze(tensor, dim):
    return Unsqueeze.apply(tensor, dim=_wrap_dim(dim, tensor.ndim + 1))


def squeeze(tensor, dim=None):
    if dim is None:
        return SqueezeAll.apply(tensor)
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrap_dim(d, tensor.ndim) for d in dim)
        for index, wrapped in enumerate(dims):
            if wrapped in dims[:index]:
                raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        return SqueezeDims.apply(tensor, dims=dims)
    return SqueezeDim.apply(tensor, dim=_wrap_dim(dim, tensor.ndim))


def expand(tensor, sizes):
    sizes = parse_shape(sizes, "expand")
    shape = tensor.shape
    if len(sizes) < len(shape):
        legacy = tensor.dtype._legacy  # (at::Tensor::toString, as torch's Python layer shows it)
        kind = f"torch.{legacy}Tensor" if legacy in _LEGACY_TYPE_NAMES else f"CPU{legacy}Type"
        raise RuntimeError(
            f"expand({kind}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
            "provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # (torch's inferExpandGeometry: last dim first)
        size = sizes[i]
        if i < lead:
            if size < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target[i] = size
            continue
        have = shape[i - lead]
        if size == -1:
            size = have
        elif have != size and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the existing size ({have}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}"
            )
        target[i] = size
    return Expand.apply(tensor, shape=tuple(target))


def narrow(tensor, dim, start, length, *, parsed: tuple | None = None):
    """``narrow``: torch's checks in its order (``parsed``: the call as the user made it, for
    the parser's message)."""
    if isinstance(start, Tensor):  # the overload taking a 0-d integral tensor start
        if start.ndim != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    elif not all(_argparse._is_int(v) for v in (dim, start, length)):
        args, kwargs = parsed or ((dim, start, length), {})
        raise _argparse.invalid_combination("narrow", args, kwargs)
    dim, start, length = int(dim), int(start), int(length)
    if tensor.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size})."
        )
    return Slice.apply(tensor, dim=dim, start=start, end=start + length, step=1)


def select(tensor, dim, index):
    if tensor.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, tensor.ndim)
    size = tensor.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(tensor.shape)} at "
            f"dimension {dim}"
        )
    return Select.apply(tensor, dim=dim, index=index % size)


def unbind(tensor, dim=0):
    if tensor.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return Unbind.apply(tensor, dim=_wrap_dim(dim, tensor.ndim))


def _check_join(tensors, name: str, dim=0):
    Tensor = _tensor_type()
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    tensors = list(tensors)
    if not tensors:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError("stack expects a non-empty TensorList")
    for position, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got "
                            f"{type(tensor).__name__}")
    if dim is None:  # (the argument parser reads tensors first)
        raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")
    return tensors


def cat(tensors, dim=0):
    tensors = _check_join(tensors, "cat", dim)
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return Cat.apply(*tensors, dim=0)
    ref = kept[0]
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = _wrap_dim(dim, ref.ndim)
    for position, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {position}) cannot be concatenated"
            )
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
            )
        for d in range(ref.ndim):
            if d != dim and t.shape[d] != ref.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{ref.shape[d]} but got size {t.shape[d]} for tensor number {position} in "
                    "the list."
                )
    return Cat.apply(*tensors, dim=dim)


def stack(tensors, dim=0):
    tensors = _check_join(tensors, "stack", dim)
    ref = tensors[0]
    dim = _wrap_dim(dim, ref.ndim + 1)
    for position, t in enumerate(tensors):
        if t.shape != ref.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref.shape)} at entry "
                f"0 and {list(t.shape)} at entry {position}"
            )
    return Stack.apply(*tensors, dim=dim)


def mm(a, b):
    return Mm.apply(a, b)


def mv(a, b):
    return Mv.apply(a, b)


def dot(a, b):
    return Dot.apply(a, b)


def bmm(a, b):
    return Bmm.apply(a, b)
from . import shape_inplace  # noqa: E402 - Tensor.unsqueeze_ and the other in-place shapes
from .shape_ext import (  # noqa: E402
    AsStridedPublic, AsStridedScatterAdd, Diagonal, DiagonalBackward, Flip, Repeat, Roll, Rot90,
    Split, SplitWithSizes, as_strided, as_strided_public, atleast_1d, atleast_2d,
    broadcast_tensors, broadcast_to, chunk, diagonal, flip, hstack, meshgrid, movedim, repeat, repeat_interleave, roll, rot90,
    split, tile, unflatten, vstack,
)
from .gather import (  # noqa: E402
    Gather, IndexAdd, IndexSelect, MaskedFill, MaskedFillTensor, MaskedSelect, Scatter,
    ScatterAdd, ScatterValue, Take, argwhere, gather, index_add, index_select, masked_fill,
    masked_select, nonzero, scatter, scatter_add, take,
)
from .gather import _index_array as gather_index, _mask_array as mask_array  # noqa: E402
from .gather import (  # noqa: E402
    _ScatterReduceLegacyNode as ScatterReduceLegacy, check_index_add_bounds, flat_index,
    check_index_add_source, check_scatter_shapes, check_scatter_src_dtype,
    check_scatter_gather_bounds, take_along_index,
)
from .gather_fill import (  # noqa: E402
    IndexCopy, IndexFill, IndexFillTensor, Put, index_copy_args, index_fill_args, put_args,
)
from .indexing import _as_index_array as as_index_array, check_index_put  # noqa: E402
from .indexing import check_index_put_  # noqa: E402
from .._out import check_partial_overlap  # noqa: E402
from ._promote import check_broadcast  # noqa: E402
from .shape import _wrap_dim as wrap_dim  # noqa: E402
from .conv import (  # noqa: E402
    ConvInputGrad, ConvTranspose, Convolution, ConvWeightGrad, conv_transpose2d, convolution,
)
from .pool import (  # noqa: E402
    AdaptiveAvgPool2d, AdaptiveAvgPoolBackward, AvgPool2d, AvgPoolBackward, MaxPool2d,
    MaxPoolBackward, adaptive_avg_pool2d, avg_pool2d, max_pool2d,
)
from .linalg import Addmm  # noqa: E402
from .activation import (  # noqa: E402
    Celu, Elu, Gelu, GeluBackward, Hardtanh, LeakyRelu, LogSoftmax, Mish, Silu, Softmax, Softplus,
)
from .loss import (  # noqa: E402
    BinaryCrossEntropy, BinaryCrossEntropyWithLogits, DivScalar, HuberLoss, MseLoss, NllLoss,
    NllLoss2d,
    NllLossBackward, SmoothL1Loss, check_reduction,
)
from .norm import (  # noqa: E402
    PAD_OPS, BatchNorm, BatchNormEval, ConstantPadNd, Embedding, EmbeddingBackward, GroupNorm,
    LayerNorm,
)
from . import math_unary, math_binary, math_clamp, math_logic  # noqa: E402,F401 - issue #3 math
from .math_clamp import clamp, clamp_  # noqa: E402,F811 - clamp with number or tensor bounds
from .linalg_ext import *  # noqa: E402,F403 - linalg topic (issue #3): see linalg_ext.__all__
from .reductions import *  # noqa: E402,F403 - reductions topic (issue #3): see reductions.__all__
from .scans_extra import *  # noqa: E402,F403 - cummax, cummin, logcumsumexp
from .stats_extra import *  # noqa: E402,F403 - aminmax, renorm
from .stats_composite import *  # noqa: E402,F403 - quantile, cov, histogram, gradient, ...
from .histogram import *  # noqa: E402,F403 - histogram
from . import _uint  # noqa: E402,F401 - installs the uint16/32/64 check on first use
from . import _bfloat16  # noqa: E402,F401 - installs bfloat16's float32 compute on first use
from . import fft as _fft  # noqa: E402,F401 - registers the fft primitives
from . import shape_copy  # noqa: E402,F401 - registers the view copies (permute_copy, ...)
from . import trilinear as _trilinear  # noqa: E402,F401 - registers _trilinear (bilinear)
from . import extra_forms  # noqa: E402,F401 - torch.fill and conj_physical_ nodes
from . import native_forms  # noqa: E402,F401 - torch.cholesky, native_dropout, ... nodes
from . import attention  # noqa: E402,F401 - scaled_dot_product_attention's fused CPU node
from ._aten import aten  # noqa: E402,F401 - torch.ops.aten
from .conv_tbc import conv_tbc  # noqa: E402,F401 - torch.conv_tbc (ConvTbcBackward0)


def __getattr__(name: str):
    """``torch.ops.<namespace>``: the namespaces of operators made with library.custom_op."""
    from ..library import _namespaces

    found = _namespaces.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return found
