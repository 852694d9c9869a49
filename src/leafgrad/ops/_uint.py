"""uint16 / uint32 / uint64: the ops torch 2.13 computes for them, and its error for the others.

Note: wide unsigned support. torch 2.13 gives these dtypes "limited support": creation, copies
and casts, views and shape ops, ``*``, ``/``, ``&``/``|``/``^``, ``==``/``!=``, sum/prod/cumsum,
sort, unique and the floating unary functions work; most other kernels raise
``"<kernel>" not implemented for 'UInt16'`` (see the probe in tests/test_uint.py). An op
class says which applies to it:

- ``uint_ok = True``: the forward runs on the NumPy array (NumPy computes what torch does, or
  the forward raises torch's own error, e.g. "cdist only supports floating-point dtypes").
- ``uint_kernel``: torch's kernel name in its message when it is not the one the op's
  ``complex_message`` names, nor ``"<torch name>_cpu"``; or a function of the call's
  parameters and operands giving it (None: this call works, e.g. ``x ** 1``).
- ``uint_same_dtype``: the op first checks that its tensor operands' dtypes agree (mm, dot,
  scatter): a mix goes to that check in the forward instead of the uint kernel error.
- ``uint_params``: parameters that are number operands (``exponent`` of ``x ** 2.5``): they
  take part in choosing the dtype the op computes in.

The check is installed into ``Op.apply`` (and the in-place path) the first time the process
makes a tensor of one of these dtypes (see _dtype._WideUnsignedDtype), so programs without
them pay nothing for it.
"""

from __future__ import annotations

from .. import _dtype
from . import _promote
from ..tensor import Tensor
from ._batching_rules import elementwise as _ELEMENTWISE
from .registry import Op

_NOT_IMPLEMENTED = "not implemented for 'ComplexFloat'"


def uint_error(cls, dtype, params=None, operands=()):
    """The error torch raises when the op ``cls`` meets a uint16/32/64 tensor of ``dtype``
    (None: this call works after all, e.g. ``x ** 1``)."""
    kernel = cls.uint_kernel
    if callable(kernel):  # the kernel depends on the call (clamp with one or two bounds)
        kernel = kernel(params or {}, operands)
        if kernel is None:
            return None
    if kernel is None:
        message = cls.complex_message
        if message is not None and message.endswith(_NOT_IMPLEMENTED):
            return NotImplementedError(message.replace("ComplexFloat", dtype._legacy))
        if message is not None and "ComplexFloat" in message:  # a dtype check (embedding_bag)
            error_type = (RuntimeError if cls.complex_error_type == "RuntimeError"
                          else NotImplementedError)
            return error_type(message.replace("ComplexFloat", dtype._legacy))
        name = cls.torch_names[0] if cls.torch_names else cls.op_name.lower()
        kernel = name.rsplit(".", 1)[-1] + "_cpu"
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy}'")


def wide_dtype(cls, operands, params=None):
    """The uint16/32/64 dtype ``cls`` would compute ``operands`` in, or None.

    torch dispatches on the dtype an op computes in: ``uint16_tensor * 2.5`` computes in
    float32 and works, ``uint16_tensor * 2`` in uint16. For elementwise ops (broadcasting,
    or with an elementwise batching rule) and ops with number operands (``uint_params``) that
    is the promoted dtype of the tensors and numbers among the operands (or torch's promotion
    error); the others dispatch on their first tensor's dtype (a loss on its input, scatter
    on self; gather with a uint16 index on an int64 self does not use a uint16 kernel).
    """
    if params:
        requested = params.get("dtype")  # x.sum(dtype=torch.uint16) computes in uint16
        if requested in _dtype.WIDE_UNSIGNED:
            return requested
    first = None
    found = False
    for arg in operands:
        if isinstance(arg, Tensor):
            if first is None:
                first = arg
            if arg._data.dtype.kind == "u" and arg._data.itemsize > 1:
                found = True
                break
    if not found:
        return None
    if not (cls.broadcasts or cls.uint_params or getattr(cls, "vmap", None) is _ELEMENTWISE):
        # the others dispatch on their first tensor (a loss on its input, scatter on self);
        # ops that first check that their operands' dtypes agree (mm, dot, scatter) leave a
        # mix to that check in their forward
        if cls.uint_same_dtype and len({arg._data.dtype for arg in operands
                                        if isinstance(arg, Tensor)}) > 1:
            return None
        return first.dtype if first.dtype in _dtype.WIDE_UNSIGNED else None
    values = [arg for arg in operands if isinstance(arg, (Tensor, int, float, complex))]
    if getattr(cls, "uint_reversed", False):  # (rsub promotes other with self)
        values.reverse()
    if params:  # number operands passed by name (``x ** 2.5``)
        values += [params[name] for name in cls.uint_params
                   if isinstance(params.get(name), (Tensor, int, float, complex))]
    try:
        computed = _dtype.result_type(*values)
    except RuntimeError:  # torch's promotion error, after its broadcast check
        if cls.uint_kernel is not promote_first:
            shapes = [tuple(arg._data.shape) for arg in operands if isinstance(arg, Tensor)]
            for shape in shapes[1:]:
                _promote.check_broadcast(shapes[0], shape)
        raise
    return computed if computed in _dtype.WIDE_UNSIGNED else None


def check_operands(cls, operands, params=None) -> None:
    """Raise torch's error when ``cls`` cannot compute ``operands`` (Note: wide unsigned)."""
    if cls.uint_ok:
        return
    computed = wide_dtype(cls, operands, params)
    if computed is not None:
        error = uint_error(cls, computed, params, operands)
        if error is not None:
            raise error


# -- kernels that depend on the call ----------------------------------------------------------


def only_with_dtype(kernel: str):
    """Reductions (sum, prod, cumsum) accumulate uint16/32/64 in int64 and work; asked for a
    uint16/32/64 result with ``dtype=`` they refuse."""

    def choose(params, operands):
        return kernel if params.get("dtype") in _dtype.WIDE_UNSIGNED else None

    return choose


def flip_kernel(params, operands):
    """torch flips a contiguous tensor along leading dims by copying blocks (any dtype); its
    element kernel, used when the last dim is flipped or the layout is strided, refuses."""
    array = operands[0]._data
    dims = params.get("dims") or ()
    if array.ndim == 0 or array.size == 0 or not dims:
        return None
    if not array.flags.c_contiguous or any(d % array.ndim == array.ndim - 1 for d in dims):
        return "flip_cpu"
    return None


def index_select_kernel(params, operands):
    """torch's index_select copies slices of a tensor of two or more dims (any dtype); its
    0-d/1-d kernel refuses."""
    return "index_select" if operands[0]._data.ndim <= 1 else None


def unless_trivial(kernel: str, zero_d: bool = True, empty: bool = True):
    """Reductions torch answers without a kernel for 0-d (``zero_d``) or empty (``empty``)
    tensors: max(dim), mode, kthvalue both; amax only empty ones, topk only 0-d ones."""

    def choose(params, operands):
        array = operands[0]._data
        if zero_d and array.ndim == 0 or empty and array.size == 0:
            return None
        return kernel

    return choose


def div_rounding_kernel(params, operands):
    return "div_trunc_cpu" if params.get("rounding_mode") == "trunc" else "div_floor_cpu"


def clamp_tensor_kernel(params, operands):
    low, high = (tuple(operands[1:3]) + (None, None))[:2]
    if low is None:
        return "minimum_cpu"
    return "maximum_cpu" if high is None else "clamp_cpu"


def rrelu_kernel(params, operands):
    return "rrelu_with_noise_out_cpu" if params.get("training") else "leaky_relu_cpu"


def scatter_reduce_kernel(params, operands):
    if not params.get("include_self", True):
        return "scatter_reduce_exclude_input_init"
    reduce = {"max": "amax", "min": "amin"}.get(params.get("reduce"), params.get("reduce"))
    if reduce in ("mean", "amax", "amin"):
        return f"scatter_gather_tensor_cpu_reduce_{reduce}"
    return "scatter_gather_tensor_cpu"


def index_reduce_kernel(params, operands):
    """index_reduce (probed on torch 2.13): include_self=False refuses in its init kernel; a
    0-d/1-d self uses the element kernel index_func_; otherwise each index writes a slice with
    mul (works: prod), maximum/minimum (amax/amin), or counts then divides (mean: add_stub),
    and with no index nothing is computed."""
    if not params.get("include_self", True):
        return "index_reduce_func_exclude_input_init"
    index = params.get("index")
    if index is not None and getattr(index, "size", 1) == 0:
        return None
    if operands[0]._data.ndim <= 1:
        return "index_func_"
    return {"prod": None, "mean": "add_stub", "amax": "maximum_cpu",
            "amin": "minimum_cpu"}.get(params.get("reduce"))


def aminmax_kernel(params, operands):
    """aminmax over a dim of a 0-d tensor is a copy (any dtype); reducing an empty dim (or
    everything of an empty tensor) reaches aminmax's own errors first; other calls refuse."""
    array = operands[0]._data
    dim = params.get("dim")
    if array.ndim == 0:
        return None if dim is not None else "aminmax_cpu"
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    if array.size == 0 and (dim is None or any(array.shape[d] == 0 for d in dims)):
        return None
    return "aminmax_cpu"


def broadcast_then(kernel: str):
    """Elementwise ops whose operands are broadcast (torch's size error) before the kernel
    is chosen (nextafter)."""

    def choose(params, operands):
        shapes = [tuple(arg._data.shape) for arg in operands if isinstance(arg, Tensor)]
        for shape in shapes[1:]:
            _promote.check_broadcast(shapes[0], shape)
        return kernel

    return choose


def round_decimals_kernel(params, operands):
    return "round_vml_cpu" if params.get("decimals") == 0 else "round_cpu"


def count_nonzero_kernel(params, operands):
    """count_nonzero over dims works (a sum of ``!= 0``); over everything torch refuses."""
    return "nonzero_count_cpu" if params.get("dim") is None else None


def index_put_kernel(params, operands):
    """``x[mask] = value`` with one bool mask and a 0-d value is torch's masked_fill."""
    index = params.get("index")
    index = index if isinstance(index, (tuple, list)) else (index,)
    values = operands[1] if len(operands) > 1 else None
    if (len(index) == 1 and getattr(index[0], "dtype", None) == bool
            and isinstance(values, Tensor) and values._data.ndim == 0):
        return "masked_fill"
    return "index_put"


def conv_kernel(params, operands):
    """torch's CPU convolution for non-float dtypes: slow_conv2d (1-d and 2-d), slow_conv3d's
    column kernel, or the dilated kernel when any dilation is not 1."""
    if any(d != 1 for d in params.get("dilation") or ()):
        return "slow_conv_dilated<>"
    return "compute_columns3d" if params.get("spatial") == 3 else "slow_conv2d_cpu"


def conv_transpose_kernel(params, operands):
    return f"slow_conv_transpose{3 if params.get('spatial') == 3 else 2}d_out_cpu"


def index_add_kernel(params, operands):
    """index_add: alpha != 1 scales the source first (add_stub); a 0-d/1-d self uses the
    index_add_ kernel, others the scatter-gather one."""
    if params.get("alpha", 1) != 1:
        return "add_stub"
    return "index_add_" if operands[0]._data.ndim <= 1 else "scatter_gather_tensor_cpu"


def add_kernel(params, operands):
    """add/sub/rsub: a float alpha is refused for integral inputs before dispatching (the
    forward raises that); otherwise torch's add_stub refuses uint16/32/64."""
    return None if isinstance(params.get("alpha"), float) else "add_stub"


def promote_first(params, operands):
    """where: torch computes the result dtype (its promotion error) before broadcasting, and
    has a kernel for uint16/32/64."""
    return None


_installed = []


def install_uint_check() -> None:
    """Make ``Op.apply`` refuse uint16/32/64 tensors for ops torch has no kernel of them for."""
    if _installed:
        return
    plain_apply = Op.__dict__["apply"].__func__

    def apply(cls, *args, **params):
        if not cls.uint_ok:
            check_operands(cls, args, params)
        return plain_apply(cls, *args, **params)

    apply.__doc__ = plain_apply.__doc__
    Op.apply = classmethod(apply)
    _installed.append(plain_apply)
    from .inplace import UINT_SEEN

    UINT_SEEN[0] = True


_dtype.on_first_wide_unsigned(install_uint_check)
