"""Tensor: a NumPy array plus the autograd metadata torch keeps next to it.

Every arithmetic method calls an op from ``leafgrad.ops``; this file holds no derivative.
"""

from __future__ import annotations

import copy
import re
import sys
import threading
import types
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from . import _argparse, _dtype, _memory_format
from ._device import device as _device_cls, CPU as _CPU, META as _META
from . import _meta
from ._meta import MetaArray as _MetaArray
from ._compile.state import state as _capture
from .autograd import _record, backward as _autograd_backward
from .autograd.anomaly_mode import note_write as _anomaly_note_write, state as _anomaly_state
from .autograd.forward_ad import state as _dual_state
from .autograd._vmap_state import state as _vmap_state
from .autograd._vmap_state import INPLACE_REQUIRES_GRAD as _INPLACE_REQUIRES_GRAD
from .autograd._vmap_state import RETAIN_GRAD as _RETAIN_GRAD
from .autograd._vmap_state import EQUAL_UNDER_VMAP as _EQUAL_UNDER_VMAP
from .autograd._transform_levels import is_input as _transform_input
from ._alloc import share_with_numpy
from ._construct import check_scalar_write, unsigned_fill
from .autograd.grad_mode import inference_blocks as _INFERENCE_BLOCKS, state as _grad_state
from .autograd import graph as _graph
from .autograd.graph import INFERENCE_DETACHED, INFERENCE_VC, AccumulateGrad, RemovableHandle, SavedTensor, _add_hook
from .methods.complex import ComplexMethods
from .methods.extra import ExtraMethods
from .methods.inplace_forms import InplaceFormMethods, TensorQueryMethods
from .methods.legacy import LegacyMethods
from .methods.random import RandomMethods
from .methods.linalg_more import LinalgMoreMethods
from .methods.linalg import LinalgMethods
from .methods.math import MathMethods
from .methods.math_extra import MathExtraMethods
from .methods.misc import MiscMethods
from .methods.nn import NNMethods
from .methods.reductions import ReductionMethods
from .methods.stats import StatsMethods
from .methods.shape import ShapeMethods
from ._layouts import strided

__all__ = ["Tensor", "Size"]

_BY_NP = _dtype._BY_NP  # (not rebuilt from .np: see _dtype._ComplexDtype)


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as ``leafgrad.Size([2, 3])``."""

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.Size'>

    __slots__ = ()

    def __repr__(self) -> str:
        return f"leafgrad.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        count = 1
        for size in self:
            count *= size
        return count

    def __getitem__(self, index):
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
# (Note: inference tensors, in autograd/graph.py: they share the counter INFERENCE_VC.)


_SCALAR_OF_GRAD = [False]  # torch warns once per process (TORCH_WARN_ONCE)


def _warn_scalar_of_grad() -> None:
    """torch's warning for ``float(t)`` and ``complex(t)`` of a tensor that requires grad while
    grad mode is on (and for ``tensor([t])``, which converts its leaves with them)."""
    if not _SCALAR_OF_GRAD[0]:
        _SCALAR_OF_GRAD[0] = True
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first.",
                      UserWarning, stacklevel=3)


def check_inplace_allowed(tensor: "Tensor", leaf_first: bool = False) -> None:
    """torch's error for an in-place update of an inference tensor outside inference mode.
    ``leaf_first``: the op (add_, sub_, mul_, div_, copy_) checks a leaf requiring grad before
    that, as torch's autograd kernels for them do."""
    if tensor._vc is INFERENCE_VC and not _grad_state.inference:
        if leaf_first and tensor._requires_grad and tensor._node is None \
                and _grad_state.grad_enabled:
            raise RuntimeError(LEAF_INPLACE)
        raise RuntimeError(INFERENCE_INPLACE)


# Note: fast basic indexing
# ``t[i] = 1.5`` and ``t[i, j]`` in a Python loop are what tutorials do, and the general index
# machinery (ops/indexing.py: canonical_index, _split, views, inplace) costs 60-100 us a write.
# When the index is only in-range ints and positive-step slices (at most one per dim) and the
# write records nothing, ``_fast_setitem`` checks the value as setitem does (check_scalar_write)
# and stores it straight into the array, bumping the shared version counter; reads of a tuple
# of ints or a lone slice call the same Select/Slice ops as getitem. Anything else (an index
# that raises, a graph to record, vmap, forward AD, capture, meta, read-only memory, complex or
# bfloat16 data, a 0-d tensor value of another dtype) takes the general path, which owns every
# error and message. benchmarks/bench_core.py ("setitem") has the figures.
_FAST_KINDS = frozenset("biuf")


def _basic_index(shape: tuple, index, writing: bool):
    """``index`` if it is an int, a slice or a tuple of ints (reads) or of ints and slices
    (writes) that torch applies as plain views without an error, else None."""
    items = index if index.__class__ is tuple else (index,)
    if not items or len(items) > len(shape):
        return None
    for dim, item in enumerate(items):
        kind = item.__class__
        if kind is int:
            size = shape[dim]
            if not -size <= item < size:
                return None
        elif kind is slice and (writing or len(items) == 1 and index.__class__ is slice):
            start, stop, step = item.start, item.stop, item.step
            if not ((start is None or start.__class__ is int)
                    and (stop is None or stop.__class__ is int)
                    and (step is None or step.__class__ is int and step > 0)):
                return None
        else:
            return None
    return index


def _fast_setitem(tensor, index, value):
    """``tensor[index] = value`` without the general machinery when nothing is recorded and
    the index and value are plain (Note: fast basic indexing); None to take the general path."""
    data = tensor._data
    if data.__class__ is not np.ndarray or data.dtype.kind not in _FAST_KINDS or \
            _capture.active or _dual_state.active or _vmap_state.active or \
            tensor._vc is INFERENCE_VC:
        return None
    if _grad_state.grad_enabled and (tensor._requires_grad or (
            tensor._base is not None and tensor._base._requires_grad)):
        return None
    kind = value.__class__
    if kind is float or kind is int or kind is bool:
        if _basic_index(data.shape, index, True) is None:
            return None
        dtype = data.dtype
        value = check_scalar_write(value, _BY_NP[dtype], setitem=True)
        if dtype.kind == "u":
            value = unsigned_fill(value, dtype)
        if dtype.char == "e":
            with np.errstate(over="ignore"):  # (a float16 gets inf, as torch's)
                value = np.asarray(value, dtype=dtype)
        else:
            value = np.asarray(value, dtype=dtype)
    elif isinstance(value, Tensor):
        source = value._data
        if source.__class__ is not np.ndarray or source.ndim or source.dtype != data.dtype or \
                _grad_state.grad_enabled and value._requires_grad or \
                _basic_index(data.shape, index, True) is None:
            return None
        value = source
    else:
        return None
    try:
        data[index] = value
    except ValueError:  # read-only memory (an expanded tensor): nothing was written
        return None
    tensor._bump_version()
    return tensor


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


def _wrap(data, requires_grad: bool = False, grad_fn=None) -> "Tensor":
    """Make a Tensor around an array the caller owns (the fast path of every op)."""
    if type(data) is not np.ndarray:
        if type(data) is _MetaArray:  # Note: meta tensors (_meta.py): computed from one
            if data.flags.writeable:
                data = _meta.like(data)
        else:
            data = np.asarray(data)
    if not data.size and data.ndim and type(data) is np.ndarray:  # Note: strides of empty
        data = _empty_strides(data)  # tensors
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._node = grad_fn
    t._output_nr = 0
    t._grad_value = None
    t._vc = INFERENCE_VC if _INFERENCE_BLOCKS[0] and _grad_state.inference else None
    t._base = None
    t._hooks = None
    t._acc = None
    t._retains_grad = False
    t._view_steps = ()
    t._view_version = None
    if _capture.active:  # leafgrad.compile: a tensor made outside the op table
        _capture.tracer.wrapped(t)
    return t


# Set once a tensor gets torch's conjugate or negative bit (ops/complex.py): until then views
# and aliases skip _conj_bits (reading a tensor's __dict__ would allocate one).
CONJ_BITS_USED = [False]


def _conj_bits(source: "Tensor", target: "Tensor") -> None:
    """torch's conjugate and negative bits (ops/complex.py, Note: conj is eager) carried from a
    tensor to a view or alias of it (``z.conj()[0]``, ``.t()``, ``.detach()``,
    ``z.conj().imag[0]``)."""
    if source._data.dtype.kind not in "cf":
        return
    bits = source.__dict__
    for name in ("_is_conj", "_is_neg"):
        if bits.get(name):
            target.__dict__[name] = True


def _empty_view_offset(parent: "Tensor", step: tuple) -> int:
    """torch's storage offset of an empty view (``x[:, 3:]`` of a 2x3 tensor: 3). NumPy leaves
    an empty view's data pointer where its parent's is, so the offset is worked out from how
    the view was made: a slice moves it by its (clamped) start, a select by its index, a
    diagonal by its offset; other views keep their parent's."""
    kind = step[0].__name__ if step else ""
    params = step[1] if len(step) > 1 else {}
    offset = parent.storage_offset()
    shape = parent._data.shape
    if kind in ("SliceBackward0", "SelectBackward0") and shape and "dim" in params:
        # (views recorded under these names without a dim, e.g. by a complex backward, keep
        # their parent's offset)
        dim = params["dim"] % len(shape)
        size = shape[dim]
        start = params.get("start" if kind == "SliceBackward0" else "index") or 0
        if start < 0:
            start += size
        start = min(max(start, 0), size)
        offset += start * parent.stride(dim)
    elif kind == "DiagonalBackward0" and shape and "offset" in params:
        diagonal = params["offset"]
        dim = params["dim2"] if diagonal >= 0 else params["dim1"]
        if shape[params["dim1"]] and shape[params["dim2"]]:
            offset += abs(diagonal) * parent.stride(dim % len(shape))
    return offset


def _wrap_view(data, parent: "Tensor", requires_grad: bool, grad_fn, step: tuple,
               multi_output: bool = False) -> "Tensor":
    """A tensor sharing ``parent``'s memory and version counter.

    Note: views and in-place ops. A view remembers how it was made from its root base
    (``_view_steps``: (op, params) pairs) and the version of the shared memory its grad_fn
    describes (torch's attr_version). When the memory was written since (an in-place op on the
    base, on another view, or through a detached alias or under no_grad), the view's grad_fn is
    regenerated from the base's current history by replaying those steps (AsStridedBackward0),
    as torch's VariableHooks::grad_fn does, unless the view has no history and its base does
    not require grad. How it was made (Note: view creation meta) may forbid that.
    """
    if parent._vc is INFERENCE_VC:
        # torch's views of an inference tensor are inference tensors of their own, sharing
        # the memory: no base, no history, never requiring grad (in inference mode or out)
        t = _wrap(data)
        t._data = data
        t._vc = INFERENCE_VC
        return t
    t = _wrap(data, requires_grad, grad_fn)
    t._data = data  # an empty view keeps the strides NumPy derived from its parent's
    if CONJ_BITS_USED[0]:
        _conj_bits(parent, t)
    if not data.size and not step[0].__name__.startswith("AsStrided"):
        # (as_strided places NumPy's pointer itself, empty or not)
        t.__dict__["_empty_offset"] = _empty_view_offset(parent, step)
    counter = parent._version_counter()
    t._vc = INFERENCE_VC if counter is INFERENCE_DETACHED else counter
    base = parent._base if parent._base is not None else parent
    t._base = base
    t._view_steps = parent._view_steps + (step,)
    t._view_version = counter[0]
    if _grad_state.grad_enabled:
        creation = MULTI_OUTPUT_NODE if multi_output else None
    else:
        inference = _INFERENCE_BLOCKS[0] and _grad_state.inference
        creation = INFERENCE_MODE if inference else NO_GRAD_MODE
    if parent._base is not None:  # torch's propagate_creation_meta
        earlier = parent._creation_meta
        if creation is None or earlier == INFERENCE_MODE:
            creation = earlier
    t._creation_meta = creation
    return t


def restride_view(tensor: "Tensor") -> None:
    """A view given new sizes and strides over the same memory (resize_, an out= resize) is its
    base's memory at that geometry: a later regeneration of its grad_fn takes ``as_strided``
    with the view's current sizes, strides and offset, as torch's VariableHooks::grad_fn does,
    not the steps that made it (they describe the old shape: a backward through it failed on
    the shape). A view that no longer shares its base's memory keeps its steps."""
    base = tensor._base
    if base is None:
        return
    data, root = tensor._data, base._data
    if not data.size or not np.may_share_memory(data, root):
        return
    itemsize = data.itemsize
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    tensor._view_steps = ((_ops.AsStridedPublic, {
        "size": data.shape, "stride": tuple(st // itemsize for st in data.strides),
        "storage_offset": offset // itemsize}),)


def _regenerate_real_view(base: "Tensor", steps: tuple):
    """A real view of complex memory (``z.imag``, ``view_as_real(z[1:])``) regenerated as torch
    does: as_strided cannot change the dtype, so its chain of view functions is replayed: the
    steps before view_as_real as one AsStridedBackward0 on the base (none if there are none),
    ViewAsRealBackward0, then one AsStridedBackward0 per later step. None for a view made
    another way (``view(dtype)``)."""
    from .ops.complex import ViewAsReal

    split = next((k for k, (op, _) in enumerate(steps) if op is ViewAsReal), None)
    if split is None:
        return None
    tensor = base
    if split:
        tensor = _ops.AsStrided._record((tensor,), {"steps": steps[:split]})
    tensor = ViewAsReal._record((tensor,), {})
    for step in steps[split + 1:]:
        tensor = _ops.AsStrided._record((tensor,), {"steps": (step,)})
    return tensor


# Note: view creation meta
# torch's CreationMeta: a view made in no_grad or inference mode, or as one of several outputs
# of unbind/split/split_with_sizes/chunk, or returned by an autograd.Function (and any view of
# such a view), may not have its history
# rewritten: an in-place op on it that records ("is being modified inplace"), or reading its
# grad_fn after its memory was written elsewhere ("its base or another view of its base has been
# modified inplace"), raises torch's RuntimeError (handle_view_on_rebase). None is DEFAULT.
NO_GRAD_MODE = "no_grad"
INFERENCE_MODE = "inference_mode"
MULTI_OUTPUT_NODE = "multi_output"
IN_CUSTOM_FUNCTION = "custom_function"  # a view an autograd.Function returned


def check_view_rebase(view: "Tensor", indirect: bool) -> None:
    """torch's handle_view_on_rebase (see Note: view creation meta)."""
    creation = view._creation_meta
    if creation is None:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    fn = view._node
    name = None if fn is None else re.sub(r"Backward\d*$", "", fn.name().rsplit("::", 1)[-1])
    if creation in (NO_GRAD_MODE, INFERENCE_MODE) or fn is None:
        if fn is not None:
            prefix = f"Output {view._output_nr} of {name} is a view of a view which was created in"
        else:
            prefix = "A view was created in"
        if creation == INFERENCE_MODE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = (f"{prefix} no_grad mode and {modified} modified inplace with grad mode "
                       "enabled.")
    else:
        message = f"Output {view._output_nr} of {name} is a view and {modified} modified inplace."
    if creation == MULTI_OUTPUT_NODE:
        message += (" This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one.")
    elif creation == IN_CUSTOM_FUNCTION:
        message += (" This view was created inside a custom Function (or because an input was "
                    "returned as-is) and the autograd logic to handle view+inplace would "
                    "override the custom backward associated with the custom Function, leading "
                    "to incorrect gradients. This behavior is forbidden. You can fix this by "
                    "cloning the output of the custom Function.")
    else:
        mode = "inference_mode" if creation == INFERENCE_MODE else "no_grad"
        message += (" Given that this use case is ambiguous and error-prone, it is forbidden. You "
                    "can clarify your code by moving both the view and the inplace either both "
                    f"inside the {mode} block (if you don't want the inplace to be tracked) or "
                    "both outside (if you want the inplace to be tracked).")
    raise RuntimeError(message)


# Note: strides of empty tensors
# NumPy gives a newly made empty array zero strides; torch gives a new empty tensor contiguous
# strides (a dim of size 0 counted as 1: (2, 0, 3) -> (3, 3, 1)) and derives a view's strides
# from its base's whatever its size (x[:, 3:] of a 2x3 x: (3, 1)). Any strides are valid for an
# empty array, so a new one is given torch's as its NumPy strides when wrapped; NumPy's views
# then derive theirs as torch's do, and ``stride()`` reads them.
def _empty_strides(data: np.ndarray) -> np.ndarray:
    if any(data.strides) and min(data.strides) >= 0:
        return data  # laid out already (a reshape, or a layout an op chose; not flip's view)
    strides, step = [], data.itemsize
    for size in reversed(data.shape):
        strides.append(step)
        step *= max(size, 1)
    return np.lib.stride_tricks.as_strided(data, strides=tuple(reversed(strides)))


_new = object.__new__
_ACCUMULATOR_LOCK = threading.Lock()
_RETAIN_LOCK = threading.Lock()

# Note: operands
# What torch's operators accept besides tensors: Python and NumPy numbers and NumPy arrays.
# Anything else (None, str, list, Decimal...) makes the operator return NotImplemented, so
# Python raises "unsupported operand type(s)" as it does for torch, instead of NumPy
# converting it silently.
# A NumPy array is not one of them: ``a + np.array(2.0)`` lets NumPy compute (``__array__``)
# and wraps its result (``__array_wrap__``), so the result has NumPy's dtype (float64 here) as
# in torch; ``==`` still compares elementwise (_EQ_OPERANDS), while torch's ``!=`` takes no
# array: NumPy's reflected ``!=`` defers to the tensor's higher __array_priority__ too, so
# Python falls back to identity and ``t != array`` is True, as in torch.
_OPERANDS = (bool, int, float, complex, np.generic)
_NUMBERS = _argparse.NUMBERS
_REAL_NUMBERS = (int, float)
_DIM_NOT_GIVEN = _argparse.DIM_NOT_GIVEN  # (sum/mean: keepdim without dim is torch's error)
_KEEPDIM_NOT_GIVEN = _argparse.KEEPDIM_NOT_GIVEN
_CLAMP_BOUNDS = _NUMBERS | {type(None)}


# a NumPy scalar operand as the Python number torch's argument parser reads it, so that it
# stays weak in type promotion (_argparse.numpy_scalar); anything else as it is
_numpy_operand = _argparse.numpy_operand


def _int_args(function: str, named: tuple, first: int) -> tuple:
    """int arguments given positionally from position ``first`` on (transpose's dims,
    select's dim and index), as torch's parser reads them (``_argparse.int_arg``)."""
    return tuple(value if value.__class__ is int else _argparse.int_arg(
        function, name, value, first + index, symint=name == "index")
        for index, (name, value) in enumerate(named))


def _clamp_bounds(tensor, low, high) -> tuple:
    """clamp's Number bounds as its kernel converts them: NumPy scalars as torch's parser reads
    them, a complex number into a floating tensor's double by its real part (Note: complex
    Scalars into real kernels); with an integer tensor it makes the result complex, which
    clamp refuses."""
    bounds = []
    for bound in (low, high):
        bound = _numpy_operand(bound)
        if bound.__class__ is complex:
            _argparse.complex_seen()
            if tensor.dtype.is_floating_point:
                bound = _argparse.real_scalar(bound, tensor.dtype, _argparse.DOUBLE_T)
        bounds.append(bound)
    return tuple(bounds)
_WARNED = {"T": False}  # torch's TORCH_WARN_ONCE warnings, once per process


def _deepcopy_data(data: np.ndarray, memo: dict) -> np.ndarray:
    """A copy of ``data`` for deepcopy: tensors that share memory share it in the copy too.

    As torch copies each storage once per deepcopy call, the array that owns the memory is
    copied once (kept in ``memo``) and ``data`` is rebuilt on the copy with its offset and
    strides, so ``deepcopy((base, view))`` gives a view of the copied base.
    """
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous) or root.size == 0:
        return data.copy()
    key = ("leafgrad.storage", id(root))
    copied = memo.get(key)
    if copied is None:
        copied = memo[key] = root.copy(order="K")
        memo.setdefault(id(memo), []).append(root)  # keep the id from being reused
    offset = (data.__array_interface__["data"][0] - root.__array_interface__["data"][0])
    return np.ndarray(data.shape, data.dtype, buffer=copied.ravel(order="K"),
                      offset=offset, strides=data.strides)


def _rebuild_saved_output(data, counter, node, output_nr) -> "Tensor":
    t = _wrap(data, True, node)
    t._vc = counter
    t._output_nr = output_nr
    return t


SavedTensor.rebuild_output = staticmethod(_rebuild_saved_output)



def _to_dtype(tensor, dtype, memory_format):
    """Tensor.float() and its kin: to(dtype), with memory_format when given (a memory format:
    anything else is torch's TypeError naming the method)."""
    if memory_format is None:
        return _ops.to(tensor, dtype)
    if memory_format.__class__ is not _memory_format.memory_format:
        name = {"float32": "float", "float64": "double", "int64": "long", "int32": "int",
                "int16": "short", "int8": "char", "uint8": "byte", "float16": "half"}.get(
            dtype.name, dtype.name)
        raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{_argparse.typename(memory_format)}")
    return _ops.to(tensor, dtype, memory_format=memory_format)

def _type_flags(flags: tuple, non_blocking, memory_format) -> None:
    """Tensor.type's ``non_blocking`` (a bool, positional too) and ``memory_format``, checked
    as torch's parser checks them."""
    if len(flags) > 1:
        raise TypeError(f"type() takes from 0 to 2 positional arguments but {len(flags) + 1} "
                        "were given")
    position = None
    if flags:
        if non_blocking is not False:
            raise TypeError("type() got multiple values for argument 'non_blocking'")
        non_blocking, position = flags[0], 2
    if non_blocking.__class__ is not bool:
        _argparse.bool_arg("type", "non_blocking", non_blocking, position)
    if memory_format is not None and memory_format.__class__ is not _memory_format.memory_format:
        raise TypeError("type(): argument 'memory_format' must be torch.memory_format, not "
                        f"{_argparse.typename(memory_format)}")


def _new_options(method: str, dtype, layout, requires_grad, pin_memory):
    """The options of ``new_tensor``/``new_zeros``/...: checked as torch's parser checks them,
    named after the method (the factories they call would name themselves); ``dtype``
    resolved (Python types too)."""
    if dtype is not None and dtype.__class__ is not _dtype.dtype:
        dtype = _argparse.dtype_arg(method, dtype)
    if layout is not None and type(layout).__name__ != "layout":
        raise TypeError(f"{method}(): argument 'layout' must be torch.layout, not "
                        f"{_argparse.typename(layout)}")
    if requires_grad.__class__ is not bool and (requires_grad is not None or
                                                method == "new_tensor"):  # (the others: bool?)
        _argparse.bool_arg(method, "requires_grad", requires_grad)
    if pin_memory is not False:
        from ._creation import _pinned

        _pinned(method, pin_memory)
    return dtype


# torch's CPU build, asked for a CUDA tensor type by name (Tensor.type("torch.cuda.FloatTensor"))
_NO_CUDA_LIBRARY = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")


class Tensor(MathMethods, ReductionMethods, LinalgMethods, ShapeMethods, NNMethods,
             ExtraMethods, MathExtraMethods, LegacyMethods, RandomMethods, LinalgMoreMethods,
             ComplexMethods, MiscMethods, StatsMethods, InplaceFormMethods,
             TensorQueryMethods):
    """A multi-dimensional array that can record the operations applied to it.

    >>> x = leafgrad.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.Tensor'>

    __slots__ = (
        "_data",
        "_requires_grad",
        "_node",  # the node that made this tensor (torch's grad_fn); see the _grad_fn property
        "_output_nr",
        "_grad_value",  # .grad (see the _grad property)
        "_vc",
        "_base",
        "_hooks",
        "_acc",
        "_retains_grad",
        "_view_steps",
        "_view_version",  # see Note: views and in-place ops
        "_creation_meta",  # views only: see Note: view creation meta
        "_fw_grad",  # forward-AD tangent; unset unless the tensor ever had one (forward_ad.py)
        "_post_acc_hooks",  # register_post_accumulate_grad_hook's; unset until one is added
        "_grad_dtype",  # a leaf's grad_dtype when set (None: any); unset: its dtype
        "__weakref__",
        "__dict__",  # user attributes (x.note = 1), as torch tensors allow; made only when used
    )
    # Note: NumPy defers to us in ``ndarray + Tensor`` because of this.
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(...) legacy constructor: sizes give an uninitialised float tensor, a
        # sequence gives a float tensor of its values.
        from ._creation import _legacy_new

        return _legacy_new(cls, *args, **kwargs)

    # -- construction helpers ---------------------------------------------------------------------
    def _version_counter(self) -> list:
        counter = self._vc
        if counter is None:
            counter = self._vc = [0]
        return counter

    def _bump_version(self) -> None:
        if _capture.active:  # a write the tracer did not see (recorded writes run untraced)
            _capture.tracer.bumped(self)
        counter = self._vc
        if counter is None:
            self._vc = counter = [1]
        else:
            counter[0] += 1
        if _anomaly_state.enabled:  # the line that wrote, for the in-place error (anomaly_mode)
            _anomaly_note_write(counter)

    def _accumulator(self) -> AccumulateGrad:
        """The leaf's AccumulateGrad node, shared by every op that uses the leaf while alive."""
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            with _ACCUMULATOR_LOCK:  # Note: concurrent accumulation (one node per leaf)
                acc = self._acc() if self._acc is not None else None
                if acc is None:
                    if self._hooks is None:
                        self._hooks = {}
                    acc = AccumulateGrad(self)
                    self._acc = weakref.ref(acc)
        return acc

    def _post_accumulate_hooks(self) -> dict | None:
        # the slot stays unset until a hook is registered; until the process registers one
        # anywhere, no lookup at all (getattr's default on an unset slot builds an exception
        # internally: ~1 us per accumulation)
        if not _POST_ACC_USED[0]:
            return None
        return getattr(self, "_post_acc_hooks", None)

    # -- metadata ---------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> _dtype.dtype:
        return _BY_NP[self._data.dtype]

    @property
    def device(self) -> _device_cls:
        return _META if type(self._data) is _MetaArray else _CPU

    @property
    def is_meta(self) -> bool:
        return type(self._data) is _MetaArray

    @property
    def layout(self):
        """Always ``leafgrad.strided``: leafgrad's tensors are dense (torch's ``Tensor.layout``)."""
        return strided

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f" or _dtype.is_bfloat16_array(self._data)

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None or memory_format is _memory_format.contiguous_format \
                or memory_format is _memory_format.preserve_format:
            return self._data.flags.c_contiguous
        if memory_format is _memory_format.channels_last:
            return is_channels_last(self._data)
        if memory_format is _memory_format.channels_last_3d:
            return is_channels_last(self._data, rank=5)
        return False

    def stride(self, dim: int | None = None):
        data = self._data
        if data.size == 0 and self._base is None and not any(data.strides):
            # an empty array not wrapped by _wrap: torch's contiguous strides (Note: strides of
            # empty tensors)
            strides, step = [], 1
            for size in reversed(data.shape):
                strides.append(step)
                step *= max(size, 1)
            strides = tuple(reversed(strides))
        else:
            strides = tuple(s // data.itemsize for s in data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        if type(self._data) is _MetaArray:
            return 0  # as torch's: a meta tensor has no memory
        return self._data.__array_interface__["data"][0]

    @property
    def is_leaf(self) -> bool:
        if self._base is not None:
            self._refresh_view()
        return self._node is None or bool(_vmap_state.stack) and _transform_input(self)

    @property
    def grad_fn(self):
        if self._base is not None:
            self._refresh_view()
        node = self._node
        if node is not None and _vmap_state.stack and _transform_input(self):
            return None  # a transform's input is a leaf of its level, as torch's wrapper is
        return node

    def _history(self):
        """The node that made this tensor (a view's regenerated first): what the engine
        differentiates through, also for a transform's input (see ``grad_fn``)."""
        if self._base is not None:
            self._refresh_view()
        return self._node

    @property
    def requires_grad(self) -> bool:
        base = self._base
        if base is not None:
            if self._view_stale():
                if self._creation_meta is not None:
                    return True  # torch reads the flags without regenerating (which would raise)
                self._refresh_view()
            # torch's DifferentiableViewMeta::requires_grad: a view made under no_grad of a
            # tensor that requires grad says it requires grad too (its repr shows it), though
            # it has no history
            return self._requires_grad or base._requires_grad
        return self._requires_grad

    def _may_require_grad(self) -> bool:
        """``requires_grad`` as an op's own code reads it: a batched tensor answers for its
        physical tensor, which the op's autograd records (see Note: what autograd shows of a
        batched tensor, ops/_batching.py)."""
        return self.requires_grad

    def _view_stale(self) -> bool:
        """A view whose memory was written since its grad_fn was set, and that has history to
        regenerate (see Note: views and in-place ops)."""
        return self._view_version != self._vc[0] and (
            self._node is not None or self._base._requires_grad)

    def _refresh_view(self) -> None:
        """Regenerate a view's history after its memory was written (see Note: views and
        in-place ops)."""
        if not self._view_stale():
            return
        check_view_rebase(self, indirect=True)
        version = self._vc[0]
        base = self._base
        regenerated = None
        if base._data.dtype.kind == "c" and self._data.dtype.kind != "c":
            regenerated = _regenerate_real_view(base, self._view_steps)
        if regenerated is None:
            regenerated = _ops.AsStrided._record((base,), {"steps": self._view_steps})
        old_fn, old_nr = self._node, self._output_nr
        self._node = regenerated._node
        self._output_nr = 0
        self._requires_grad = True
        self._view_version = version
        self._move_retains_grad(old_fn, old_nr)

    def _move_retains_grad(self, old_fn, old_nr: int) -> None:
        """After an in-place op gave this tensor a new node: its ``retain_grad`` hook moves from
        the old node to the new one, so ``.grad`` is the gradient of the current value (torch's
        update_tensor_hooks_on_new_gradfn; hooks from ``register_hook`` stay where they are)."""
        if not self._retains_grad or old_fn is None or old_fn is self._node:
            return
        hookset = old_fn._hookset
        retains = hookset.retains_grad if hookset is not None else None
        fn = retains.pop(old_nr, None) if retains else None
        if fn is not None and self._node is not None:
            self._node._register_retains_grad(self._output_nr, fn)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self._node is not None:
            # Note: torch's wording; only leaves have a settable flag.
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        value = bool(value)
        if value and self.is_inference() and not _grad_state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed.")
        if value and self._data.dtype.kind not in "fc" and \
                not _dtype.is_bfloat16_array(self._data):
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad = value

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")  # torch's setter, given no value

    def requires_grad_(self, *args, **kwargs) -> "Tensor":
        if len(args) == 1 and not kwargs:
            requires_grad = args[0]
        elif not args and set(kwargs) <= {"requires_grad"}:
            requires_grad = kwargs.get("requires_grad", True)
        else:
            requires_grad = None
        if requires_grad.__class__ is not bool:
            _argparse.check("Tensor.requires_grad_", args, kwargs)
        if _vmap_state.stack:  # (Note: autograd calls inside transforms, _vmap_state.py)
            raise RuntimeError(_INPLACE_REQUIRES_GRAD)
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad: bool) -> "Tensor":
        """``requires_grad_`` without torch's transform check: a factory's ``requires_grad=``
        and leafgrad's own transforms."""
        if self._node is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self.is_inference() and not _grad_state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed.")
        if requires_grad and self._data.dtype.kind not in "fc" and \
                not _dtype.is_bfloat16_array(self._data):
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients"
            )
        if self._node is None:
            self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        if self._node is not None and not self._retains_grad and self._grad_value is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        if _capture.active:
            _capture.tracer.read_grad(self, self._grad_value)
        return self._grad_value

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            allowed = self._allowed_grad_dtype()
            if allowed is not None and value.dtype != allowed:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_NAMES[value.dtype.name]}' "
                    f"to a tensor with grad_dtype '{allowed._legacy}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
        if _capture.active:
            _capture.tracer.set_grad(self, value)
        self._grad_value = value

    def _allowed_grad_dtype(self):
        """``grad_dtype`` without the leaf check: the dtype a gradient must have, or None."""
        try:
            return self._grad_dtype
        except AttributeError:
            return self.dtype

    @property
    def grad_dtype(self):
        """The dtype of this leaf's ``.grad``: its own dtype unless set; the engine casts
        incoming gradients to it; None allows any dtype (torch 2.13's ``Tensor.grad_dtype``).

        >>> x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> x.grad_dtype = leafgrad.float64
        >>> (x * 2).sum().backward()
        >>> x.grad
        tensor([2., 2.], dtype=leafgrad.float64)
        """
        if self._node is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self._allowed_grad_dtype()

    @grad_dtype.setter
    def grad_dtype(self, value) -> None:
        if self._node is not None:
            if not self._retains_grad:  # torch reads .grad first, with its warning
                warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        from .autograd import graph

        graph.GRAD_DTYPE_SEEN[0] = True
        self._grad_dtype = value

    @grad.deleter
    def grad(self) -> None:
        if _capture.active:
            _capture.tracer.set_grad(self, None)
        self._grad_value = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def _version(self) -> int:
        counter = self._vc
        if counter is INFERENCE_VC:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if counter is None or counter is INFERENCE_DETACHED else counter[0]

    def is_inference(self) -> bool:
        """Whether this tensor was made in ``inference_mode()`` (or is a view or detached
        alias of one)."""
        counter = self._vc
        return counter is INFERENCE_VC or counter is INFERENCE_DETACHED

    @property
    def data(self) -> "Tensor":
        """The same storage without history or version sharing (the pre-0.4 escape hatch)."""
        if _capture.active:
            _capture.tracer.ref(self)  # the alias reads the same array
        result = _wrap(self._data)
        if self.is_inference():
            result._vc = INFERENCE_DETACHED
        if self._requires_grad:
            _record.note_cut("data", self, result)  # for explain_grad
        if CONJ_BITS_USED[0]:
            _conj_bits(self, result)
        if not self._data.size:  # an empty view's storage offset (_empty_view_offset)
            result.__dict__["_empty_offset"] = self.storage_offset()
        return result

    @data.setter
    def data(self, value: "Tensor") -> None:
        if _capture.active:
            _capture.tracer.broke("Tensor.data was assigned (a tensor's array replaced)")
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if value._data.dtype.kind not in "fcV" and self.requires_grad:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = value._data

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def T(self) -> "Tensor":
        # torch reverses the dims with permute for every rank (PermuteBackward0), warning once
        # for ranks other than 2
        if self.ndim != 2 and not _WARNED["T"]:
            _WARNED["T"] = True
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                "is deprecated and it will throw an error in a future release. Consider `x.mT` "
                "to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, "
                "-1))` to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> "Tensor":
        if self.ndim < 2:
            if self.ndim == 0:
                return self  # torch's mT of a 0-d tensor is the tensor itself
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    def _is_view(self) -> bool:
        return self._base is not None

    # Note: no __delattr__ on Tensor. A class that defines __setattr__ or __delattr__ gets
    # CPython's generic slot-calling setattr, and its attribute writes are never specialised:
    # every ``t._x = v`` in the hot paths cost ~0.1 us instead of ~0.015 us (about 1.2 us per
    # wrapped result, a third of an unrecorded op). torch's rules for ``del`` on its tensor
    # attributes are kept by properties instead, over the slots the engine uses directly.
    @property
    def _grad_fn(self):
        return self._node

    @_grad_fn.setter
    def _grad_fn(self, value) -> None:
        if value is not None:
            raise RuntimeError("_grad_fn can be only set to None")
        self.detach_()  # as torch's setter: a view refuses, anything else leaves the graph

    @_grad_fn.deleter
    def _grad_fn(self) -> None:
        raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")

    @property
    def _grad(self):
        return self._grad_value

    @_grad.setter
    def _grad(self, value) -> None:
        self._grad_value = value

    @_grad.deleter
    def _grad(self) -> None:
        self.grad = None

    @property
    def _backward_hooks(self):
        # (a user attribute here, as before: leafgrad keeps tensor hooks elsewhere)
        hooks = self.__dict__
        if "_backward_hooks" not in hooks:
            raise AttributeError("'Tensor' object has no attribute '_backward_hooks'")
        return hooks["_backward_hooks"]

    @_backward_hooks.setter
    def _backward_hooks(self, value) -> None:
        self.__dict__["_backward_hooks"] = value

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        raise RuntimeError("Deletion of _backwards_hooks not allowed!")

    def __getitem__(self, index):
        kind = index.__class__
        if kind is int and self._data.ndim:
            # x[i], the commonest index, straight to select (as ops/indexing.py's getitem
            # would, after normalising the index: ~10 us saved per call)
            size = self._data.shape[0]
            if -size <= index < size:
                return _ops.Select.apply(self, dim=0, index=index % size)
        elif kind is tuple or kind is slice:
            # x[i, j] and x[a:b]: the same selects and slice as getitem's, without its general
            # index walk (Note: fast basic indexing)
            shape = self._data.shape
            if _basic_index(shape, index, False) is not None:
                if kind is slice:
                    start, stop, step = index.indices(shape[0])
                    result = _ops.Slice.apply(self, dim=0, start=start, end=max(stop, start),
                                              step=step)
                    if result._node is not None:  # (Note: slice bounds as written, graph.py)
                        result._node._params["as_written"] = index
                    return result
                result = self
                for item in index:
                    result = _ops.Select.apply(result, dim=0, index=item % result._data.shape[0])
                return result
        return _ops.getitem(self, index)

    def __setitem__(self, index, value) -> None:
        if _fast_setitem(self, index, value) is None:
            _ops.setitem(self, index, value)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __hash__(self) -> int:
        return id(self)

    # -- conversion ---------------------------------------------------------------------------
    def item(self):
        if _capture.active:
            _capture.tracer.broke("Tensor.item() reads a value into Python")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        if type(self._data) is _MetaArray:
            raise RuntimeError(_meta.ITEM)
        return self._data.reshape(()).item()

    def tolist(self):
        if _capture.active:
            _capture.tracer.broke("Tensor.tolist() reads values into Python")
        if type(self._data) is _MetaArray:
            raise NotImplementedError(_meta.NO_DATA)
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if _capture.active:
            _capture.tracer.broke("Tensor.numpy() hands the array to code outside the graph")
        if type(self._data) is _MetaArray:
            raise TypeError(_meta.NUMPY)
        # torch refuses only while grad mode is on (numpy() under no_grad is allowed)
        if not force and _grad_state.grad_enabled and self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if _dtype.is_bfloat16_array(self._data):  # torch's numpy() has no bfloat16
            raise TypeError("Got unsupported ScalarType BFloat16")
        if not force and self._data.dtype.kind == "c" and self.is_conj():
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. Use "
                "tensor.resolve_conj().numpy() instead."
            )
        if not force and self.is_neg():
            raise RuntimeError(
                "Can't call numpy() on Tensor that has negative bit set. Use "
                "tensor.resolve_neg().numpy() instead."
            )
        data = self._data
        share_with_numpy(data)  # (Note: storages NumPy shares, _alloc.py)
        if not data.flags.writeable:
            # an expanded or overlapping view is read-only inside leafgrad (Note: writes
            # through expanded tensors, ops/inplace.py); torch hands NumPy its memory writable
            from .ops.inplace import writable_alias

            alias = writable_alias(data)
            if alias is not None:
                data = alias
        if not data.size and data.ndim:  # torch hands NumPy an empty array's strides as zeros
            return np.lib.stride_tricks.as_strided(data, strides=(0,) * data.ndim)
        # a new array object over the memory on each call, as torch's (``t.numpy() is a`` for
        # t = from_numpy(a) is False there, and so is ``t.numpy() is t.numpy()``)
        return data.view()

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """Export the tensor's memory to another array library (utils/dlpack.py)."""
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if self.is_conj():
            raise BufferError("Can't export tensors with the conjugate bit set")
        if max_version is None:
            return self._data.__dlpack__(copy=copy)
        return self._data.__dlpack__(max_version=max_version, copy=copy)

    def module_load(self, other, assign: bool = False):
        """How ``load_state_dict`` turns ``other`` into the value loaded into ``self`` when
        ``__future__.set_swap_module_params_on_conversion(True)``: ``other`` detached
        (``assign``), else ``self`` after copying ``other`` into it, detached. Subclasses may
        override it, as in torch."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    def __dlpack_device__(self):
        from .utils.dlpack import DLDeviceType

        return (DLDeviceType.kDLCPU, 0)

    def __array__(self, dtype=None, copy=None):
        if _capture.active:
            _capture.tracer.broke("a tensor was converted to a NumPy array (__array__)")
        if type(self._data) is _MetaArray:
            raise TypeError(_meta.NUMPY)
        if _grad_state.grad_enabled and self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if _dtype.is_bfloat16_array(self._data):  # (torch's __array__ is numpy())
            raise TypeError("Got unsupported ScalarType BFloat16")
        array = self._data
        share_with_numpy(array)  # (torch's __array__ is numpy(), whatever NumPy does next)
        if dtype is not None and array.dtype != dtype:
            return array.astype(dtype)
        if copy:
            return array.copy()
        if not array.size and array.ndim:  # (as numpy() gives it)
            array = np.lib.stride_tricks.as_strided(array, strides=(0,) * array.ndim)
        return array

    def __array_wrap__(self, array):
        # NumPy's result for ``tensor + ndarray`` and ``np.sin(tensor)`` comes back as a tensor,
        # with torch's quirk of bool results as uint8 (Note: operands). One argument, as
        # torch's: NumPy 2 first passes (array, context, return_scalar), and on the TypeError
        # gives its DeprecationWarning and calls again with the array alone, as for torch.
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        elif array.dtype.kind == "O":  # (an object array's result: t * np.array(["a"], object))
            raise _dtype._unconvertible(array.dtype)
        return _wrap(np.asarray(array))

    def __bool__(self) -> bool:
        if _capture.active:
            _capture.tracer.broke("bool(tensor): Python control flow on a tensor's value")
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        if type(self._data) is _MetaArray:
            raise RuntimeError(_meta.ITEM)
        if self._data.dtype.type is np.uint64:
            _int64_value(self.item())
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        if _capture.active:
            _capture.tracer.broke("float(tensor) reads a value into Python")
        if self._requires_grad and _grad_state.grad_enabled:  # (before the size check)
            _warn_scalar_of_grad()
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._data.dtype.kind == "c":
            return float(_complex_to_real(self.item(), "double"))
        return float(self.item())

    def __complex__(self) -> complex:
        if _capture.active:
            _capture.tracer.broke("complex(tensor) reads a value into Python")
        if self._requires_grad and _grad_state.grad_enabled:  # (before the size check)
            _warn_scalar_of_grad()
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self.item())

    def __int__(self) -> int:
        if _capture.active:
            _capture.tracer.broke("int(tensor) reads a value into Python")
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._data.dtype.kind == "c":
            return int(_complex_to_real(self.item(), "int64_t"))
        if self._data.dtype.kind not in "iub":
            return int(float(self.item()))  # torch: PyLong_FromDouble, any size
        return _int64_value(self.item())

    def __index__(self) -> int:
        if _capture.active:
            _capture.tracer.broke("a tensor was used as a Python index (__index__)")
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return _int64_value(self.item())

    def __iter__(self):
        if self.dim() == 0:  # (through dim() and unbind(), as torch's: a subclass sees both)
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        """The tensor flipped along its first dim (itself when 0-d), as torch's."""
        if self.dim() == 0:
            return self
        return self.flip(0)

    def __contains__(self, element) -> bool:
        """``element in t``: whether any element equals it (a Tensor or a number)."""
        from numbers import Number

        if isinstance(element, (Tensor, Number)):
            return bool((element == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    def __repr__(self, *, tensor_contents=None) -> str:
        from ._printing import tensor_repr

        if _vmap_state.stack and type(self) is Tensor:
            from .autograd._transform_levels import wrapper_repr

            text = wrapper_repr(self)  # (Note: wrapper reprs inside transforms)
            if text is not None:
                return text
        extras = []
        name = None
        try:
            fn = self.grad_fn
        except RuntimeError:  # a view whose history may not be regenerated: torch prints this
            fn, name = None, "Invalid"
        if fn is not None:
            name = type(fn).__name__
            if name == "CppFunction":  # torch prints a C++ node by its short name()
                name = fn.name().rsplit("::", 1)[-1]
        if name is not None:
            extras.append(f"grad_fn=<{name}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        if _dual_state.level is not None:
            from .autograd.forward_ad import get_tangent

            tangent = get_tangent(self)
            if tangent is not None:
                extras.append(f"tangent={tangent}")
        cls = type(self)
        if cls is Tensor or cls.__module__.startswith("leafgrad"):
            return tensor_repr(self._data, self.dtype, extras)
        # a user's subclass (as_subclass, _make_subclass) prints its name, as torch's does,
        # inside Parameter(...) when nn.Parameter marked it
        text = tensor_repr(self._data, self.dtype, extras, prefix=f"{cls.__name__}(")
        return f"Parameter({text})" if getattr(self, "_is_param", False) else text

    __str__ = __repr__

    # -- the __torch_function__ protocol (overrides.py) -----------------------------------------
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default every subclass inherits: run ``func`` with subclass dispatch off and
        return its tensors (in tuples and lists too) as instances of ``cls``."""
        from .overrides import DisableTorchFunctionSubclass, _convert, get_default_nowrap_functions

        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        module = getattr(func, "__module__", None) or getattr(
            getattr(func, "__objclass__", None), "__module__", None) or ""
        if module == "torch" or module.startswith("torch."):
            # real torch asking about a leafgrad tensor (torch.ones(2) + leafgrad.ones(2)):
            # decline, so torch raises its TypeError instead of calling back forever
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
            if func in get_default_nowrap_functions():
                return result
            return _convert(result, cls)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        from .overrides import _on_subclass

        _on_subclass(cls)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and type(self) is Tensor:  # (a subclass's, a Parameter's: not)
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        from ._creation import _rebuild

        return (_rebuild, (self._data, self.requires_grad))

    def __deepcopy__(self, memo):
        if self._node is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        kind = type(self)
        if kind is not Tensor and not hasattr(kind, "_from_tensor") and \
                not kind.__module__.startswith("leafgrad") and kind.new_empty is Tensor.new_empty:
            # torch's default deepcopy makes the copy with new_empty, which gives a plain
            # Tensor for a subclass that does not override it
            raise RuntimeError(
                "The default implementation of __deepcopy__() for non-wrapper subclasses only "
                "works for subclass types that implement new_empty() and for which that "
                "function returns another instance of the same subclass. You should either "
                "properly implement new_empty() for your subclass or override __deepcopy__() if "
                "it is intended behavior for new_empty() to return an instance of a different "
                "type.")
        if kind is not Tensor and not hasattr(kind, "_from_tensor") and \
                not kind.__module__.startswith("leafgrad"):
            # torch's default for a user's subclass: the copy is the subclass's new_empty([])
            # given a copy of the data, the grad flag and grad, then a deep copy of __dict__
            # (its _is_param mark too)
            new = self.new_empty([])
            if type(new) is not kind:
                raise RuntimeError(
                    "The default implementation of __deepcopy__() for non-wrapper subclasses "
                    "only works for subclass types that implement new_empty() and for which that "
                    "function returns another instance of the same subclass. You should either "
                    "properly implement new_empty() for your subclass or override __deepcopy__() "
                    "if it is intended behavior for new_empty() to return an instance of a "
                    "different type.")
            new._data = _deepcopy_data(self._data, memo)
            if self._requires_grad:
                new.requires_grad_()
            if self._grad_value is not None:
                new._grad_value = _wrap(self._grad_value._data.copy())
            new.__dict__ = copy.deepcopy(self.__dict__, memo)
            memo[id(self)] = new
            return new
        new = _wrap(_deepcopy_data(self._data, memo), self._requires_grad)
        if type(self) is not Tensor:
            new = type(self)._from_tensor(new) if hasattr(type(self), "_from_tensor") else new
        if self._grad_value is not None:
            new._grad_value = _wrap(self._grad_value._data.copy())
        memo[id(self)] = new
        return new

    def type(self, dtype=None, *flags, non_blocking=False, memory_format=None):
        if flags or non_blocking.__class__ is not bool or memory_format is not None:
            _type_flags(flags, non_blocking, memory_format)
        if dtype is None:
            return _torch_type_name(self)
        if isinstance(dtype, str):
            if dtype.startswith(("torch.cuda.", "leafgrad.cuda.")):  # (any name: torch's CPU
                raise RuntimeError(_NO_CUDA_LIBRARY)  # build fails to initialise CUDA first)
            for d in (*_dtype.ALL, _dtype.bfloat16):
                if f"torch.{d._legacy}Tensor" == dtype or f"leafgrad.{d._legacy}Tensor" == dtype:
                    return self.to(d)
            raise ValueError(f"invalid type: '{dtype}'")
        legacy = getattr(dtype, "dtype", None)  # torch.FloatTensor and friends
        if isinstance(legacy, _dtype.dtype) and isinstance(dtype, type):
            return self.to(legacy)
        if isinstance(dtype, type):  # int, float, list...: no tensor type (unlike in to())
            raise ValueError(f"invalid type: '{dtype.__name__}'")
        if not isinstance(dtype, _dtype.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def cpu(self) -> "Tensor":
        if type(self._data) is _MetaArray:
            raise NotImplementedError(_meta.NO_DATA)
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> "Tensor":
        from ._device import use

        use("cuda" if device is None else device)
        return self

    # -- autograd -----------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see ``autograd.backward``)."""
        _autograd_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new grad."""
        # (the property: a view made under no_grad of one that requires grad requires grad)
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._node is not None:
            return self._node._register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = {}
            acc = self._acc() if self._acc is not None else None
            if acc is not None:
                acc._hooks().tensor_pre = self._hooks
        return _add_hook(self._hooks, (0, hook))

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(tensor)`` runs after a backward has accumulated into this leaf's ``.grad``.

        >>> w = leafgrad.ones(2, requires_grad=True)
        >>> handle = w.register_post_accumulate_grad_hook(lambda t: print(t.grad))
        >>> (w * 3).sum().backward()
        tensor([3., 3.])
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._node is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        _POST_ACC_USED[0] = True
        hooks = self._post_accumulate_hooks()
        if hooks is None:
            hooks = self._post_acc_hooks = {}
        return _add_hook(hooks, hook)

    def retain_grad(self) -> None:
        """Keep the gradient of a non-leaf in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if _vmap_state.stack:  # (Note: autograd calls inside transforms, _vmap_state.py)
            raise RuntimeError(_RETAIN_GRAD)
        if self._node is None or self._retains_grad:
            return
        fn = self._node
        ref = weakref.ref(self)

        def retain(grad):
            tensor = ref()
            if tensor is None:
                return
            with _RETAIN_LOCK:  # Note: concurrent accumulation
                if tensor._grad_value is None:
                    if _grad_state.grad_enabled or _dual_state.active:
                        tensor._grad_value = grad.clone()  # recorded, and keeps a tangent, as torch's
                    elif grad.__class__ is not Tensor and grad.is_sparse:
                        tensor._grad_value = grad.clone()  # (leafgrad.sparse)
                    else:
                        tensor._grad_value = _wrap(grad._data.copy())
                else:
                    total = tensor._grad_value + grad
                    if _graph.ZERO_GRADS_SEEN[0] and _graph.is_zero_grad(grad):
                        # torch's ``grad() + grad`` of a ZeroTensor: the other operand's values,
                        # its -0. included (Note: zero gradients, autograd/graph.py; seed 197610)
                        total._data = tensor._grad_value._data.copy()
                    tensor._grad_value = total

        fn._register_retains_grad(self._output_nr, retain)
        self._retains_grad = True

    def _accumulate_grad(self, grad: "Tensor") -> None:
        """What AccumulateGrad does with an arriving gradient (torch's accumulateGrad)."""
        if _capture.active:
            return _capture.tracer.accumulate(self, grad)
        old = self._grad_value
        if grad._data.__class__ is not self._data.__class__ and getattr(grad, "is_sparse", False):
            from .sparse._ops import accumulate_sparse  # a sparse gradient of a dense leaf

            return accumulate_sparse(self, grad)
        if type(self._data) is _MetaArray:  # a meta leaf's grad is meta (Note: meta tensors)
            if type(grad._data) is not _MetaArray:
                grad = _wrap(_meta.like(grad._data))
            self._grad_value = grad.detach() if old is None else old + grad
            return
        if old is None:
            if _grad_state.grad_enabled:
                # create_graph: the stored grad is a recorded copy (CopyBackwards), so that
                # differentiating .grad reaches the graph that produced it.
                from ._creation import empty_like

                # One that records nothing is copied too, as torch's clone_obey_contract (a kept
                # view shared memory with other leaves' grads: stack's unbind, zeroed by another
                # optimizer's zero_grad, generated-program seed 45325)
                if not grad._requires_grad:
                    self._grad_value = _copied_grad(grad, self._data)
                elif _grad_state.grad_layout_enforced:
                    # into the leaf's layout (new_empty_strided of the leaf, copy_): a
                    # transposed leaf's grad is transposed too
                    strides = _leaf_strides(self._data)
                    empty = np.empty(grad._data.shape, grad._data.dtype) if strides is None \
                        else _strided_empty(grad._data.shape, strides, grad._data.dtype)
                    self._grad_value = _wrap(empty).copy_(grad)
                else:
                    self._grad_value = empty_like(grad).copy_(grad)
            elif _can_steal(grad) and (not _grad_state.grad_layout_enforced or _obeys_layout(
                    grad._data, self._data)):
                # torch stores it detached: no history, and no forward-AD tangent either
                keep = grad._node is None and not _dual_state.active and grad._base is None
                self._grad_value = grad if keep else grad.detach()
            else:
                self._grad_value = _copied_grad(grad, self._data)
        elif old._data.__class__ is not self._data.__class__ and getattr(old, "is_sparse",
                                                                        False):
            # a dense gradient onto a sparse .grad: torch's accumulateGrad adds dense + sparse
            # (sparse + dense is refused), into a new dense grad
            self._grad_value = grad + old
        elif _grad_state.grad_enabled:
            self._grad_value = old + grad
        elif _dual_state.active:
            old.add_(grad)  # in a dual level torch's in-place sum adds the tangents too
        else:
            if _grad_state.grad_layout_enforced and not _obeys_layout(old._data, self._data):
                _warn_layout(old, self)
            np.add(old._data, grad._data, out=old._data, casting="unsafe")
            old._bump_version()

    def detach(self) -> "Tensor":
        """A tensor sharing storage and version counter, outside the graph."""
        if _capture.active:
            _capture.tracer.ref(self)  # the alias reads the same array
        t = _wrap(self._data)
        counter = self._version_counter()
        t._vc = INFERENCE_DETACHED if counter is INFERENCE_VC else counter
        if self._requires_grad:
            _record.note_cut("detach", self, t)  # for explain_grad
        if CONJ_BITS_USED[0]:
            _conj_bits(self, t)
        if not self._data.size:  # an empty view's storage offset (_empty_view_offset)
            t.__dict__["_empty_offset"] = self.storage_offset()
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._node is not None:
            _graph.note_detached(self)  # Note: saved tensors detached in place
        if getattr(self, "_fw_grad", None) is not None:
            self._fw_grad = None  # torch's detach_() drops the forward gradient too
        self._node = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    # -- ops (each forwards to one op class in leafgrad.ops) -----------------------------------
    def __add__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.add(self, other)
        return _ops.Add.apply(self, other)

    def __radd__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.add(self, other)
        return _ops.Add.apply(self, other)

    def __sub__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.sub(self, other)
        return _ops.Sub.apply(self, other)

    def __rsub__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.rsub(self, other)
        if isinstance(other, Tensor):  # (a direct call: torch's rsub.Tensor)
            return _ops.RsubTensor.apply(self, other)
        return _ops.Rsub.apply(self, other=other)

    def __mul__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if other.__class__ is complex and _grad_state.cpp_formula and \
                        self._data.dtype.kind == "c":  # (C++'s complex Scalar: angle's * i)
                    return _cpp_operators.mul(self, other)
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.mul(self, other)
        return _ops.Mul.apply(self, other)

    def __rmul__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if other.__class__ is complex and _grad_state.cpp_formula and \
                        self._data.dtype.kind == "c":  # (C++'s complex Scalar: angle's * i)
                    return _cpp_operators.mul(self, other)
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.mul(self, other)
        return _ops.Mul.apply(self, other)

    def __truediv__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.div(self, other)
        return _ops.Div.apply(self, other)

    def __rtruediv__(self, other):
        if other.__class__ is not Tensor:
            if other.__class__ not in _NUMBERS:
                if isinstance(other, np.ndarray):  # (torch's Python __rdiv__ with an ndarray:
                    try:  # NumPy computes the product)
                        return _ops.Reciprocal.apply(self) * other
                    except TypeError:  # (an object or str array: torch's __rdiv__ turns the
                        return NotImplemented  # TypeError into "unsupported operand")
                if not isinstance(other, _OPERANDS):
                    return NotImplemented  # Python raises torch's "unsupported operand" TypeError
                other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
            elif _grad_state.cpp_formula and other.__class__ in _REAL_NUMBERS \
                    and _dtype.is_inexact(self._data):  # Note: C++ operators in backward formulas
                return _cpp_operators.rdiv(self, other)
        # torch computes ``other / self`` as ``self.reciprocal() * other`` (MulBackward0).
        return _ops.Mul.apply(_ops.Reciprocal.apply(self), other)

    __rdiv__ = __rtruediv__  # (torch keeps Python 2's name for it)

    def __pow__(self, exponent):
        if exponent.__class__ is not Tensor and exponent.__class__ not in _NUMBERS:
            if not isinstance(exponent, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            exponent = _numpy_operand(exponent)  # (a NumPy scalar: torch's Scalar)
        return _ops.pow(self, exponent)

    def __rpow__(self, base):
        if base.__class__ is not Tensor and base.__class__ not in _NUMBERS:
            if not isinstance(base, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            base = _numpy_operand(base)  # (a NumPy scalar: torch's Scalar)
        return _ops.pow(base, self)

    def __neg__(self):
        return _ops.Neg.apply(self)

    def __pos__(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self):
        return _ops.Abs.apply(self)

    def __matmul__(self, other):
        # matmul takes tensors only: a number is torch's "unsupported operand" TypeError, an
        # ndarray NumPy's to compute (Note: operands)
        if other.__class__ is not Tensor and not isinstance(other, Tensor):
            return NotImplemented
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, Tensor):
            return NotImplemented
        return _ops.matmul(other, self)

    def __eq__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _EQ_OPERANDS) or \
                    other.__class__ is np.ndarray and other.dtype.kind in "OUSV":
                # (an array torch cannot convert: its == gives up, and Python's identity
                # test answers False)
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Eq.apply(self, other)

    def __ne__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):  # (an ndarray too: Note: operands)
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Ne.apply(self, other)

    def __lt__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Lt.apply(self, other)

    def __le__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Le.apply(self, other)

    def __gt__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Gt.apply(self, other)

    def __ge__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.Ge.apply(self, other)

    def __and__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.BitwiseAnd.apply(self, other)

    __rand__ = __and__

    def __or__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.BitwiseOr.apply(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.BitwiseXor.apply(self, other)

    __rxor__ = __xor__

    def __invert__(self):
        return _ops.BitwiseNot.apply(self)

    def __lshift__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.LeftShift.apply(self, other)

    def __rlshift__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.LeftShift.apply(other, self)

    def __rshift__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.RightShift.apply(self, other)

    def __rrshift__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.RightShift.apply(other, self)

    # a &= b, a <<= b ... update a in place, as torch does (without these Python would rebind
    # the name to a new tensor and leave other references to a unchanged)
    def __iand__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.inplace(_ops.BitwiseAnd, self, other)

    def __ior__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.inplace(_ops.BitwiseOr, self, other)

    def __ixor__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.inplace(_ops.BitwiseXor, self, other)

    def __ilshift__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        if other.__class__ is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return self.bitwise_right_shift_(other)

    def __iadd__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.inplace(_ops.Add, self, other)

    def __isub__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.inplace(_ops.Sub, self, other)

    def __imul__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.inplace(_ops.Mul, self, other)

    def __itruediv__(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS:
            if not isinstance(other, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            other = _numpy_operand(other)  # (a NumPy scalar: torch's Scalar)
        return _ops.inplace(_ops.Div, self, other)

    def add(self, other, *deprecated, alpha=1):
        if deprecated:  # Note: deprecated overloads (_argparse.py)
            (other,), alpha = _argparse.scalar_first("add", True, other, deprecated, "alpha",
                                                     alpha)
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor) or alpha.__class__ not in _NUMBERS:
            _argparse.check("Tensor.add", (other,), {"alpha": alpha})
            other = _numpy_operand(other)
            alpha = _argparse.scalar(alpha)
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS and \
                getattr(other, "is_sparse", False):
            from .sparse import _ops as sparse_ops  # dense + sparse (leafgrad.sparse)

            return sparse_ops.dense_add(self, other, alpha)
        return _ops.Add.apply(self, other, alpha=alpha)

    def sub(self, other, *deprecated, alpha=1):
        if deprecated:  # Note: deprecated overloads (_argparse.py)
            (other,), alpha = _argparse.scalar_first("sub", True, other, deprecated, "alpha",
                                                     alpha)
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor) or alpha.__class__ not in _NUMBERS:
            _argparse.check("Tensor.sub", (other,), {"alpha": alpha})
            other = _numpy_operand(other)
            alpha = _argparse.scalar(alpha)
        return _ops.Sub.apply(self, other, alpha=alpha)

    def subtract(self, other, *extra, alpha=_argparse.NO_MODE, **unknown):
        if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(
                other, Tensor) or alpha is not _argparse.NO_MODE and alpha.__class__ not in _NUMBERS:
            # (Note: aliases' errors, _functions.py)
            _argparse.check_alias("Tensor.subtract", (other, *extra), {"alpha": alpha, **unknown})
        return self.sub(other, alpha=1 if alpha is _argparse.NO_MODE else alpha)

    def mul(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.mul", (other,))
            other = _numpy_operand(other)
        return _ops.Mul.apply(self, other)

    def multiply(self, other, *extra, **unknown):
        if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check_alias("Tensor.multiply", (other, *extra), unknown)
        return self.mul(other)

    def div(self, other, *, rounding_mode=_argparse.NO_MODE, **unknown):
        if unknown:  # torch lists div's overloads (Note: aliases' errors, _functions.py)
            _argparse.check_alias("Tensor.div", (other,),
                                  {"rounding_mode": rounding_mode, **unknown})
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check_alias("Tensor.div", (other,), {"rounding_mode": rounding_mode})
            other = _numpy_operand(other)
        if rounding_mode is _argparse.NO_MODE:
            return _ops.Div.apply(self, other)
        # a mode given, None included: DivBackward2 (Note: an explicit rounding_mode=None)
        return _ops.math_binary.div_rounding(self, other, rounding_mode)

    def divide(self, other, *extra, rounding_mode=_argparse.NO_MODE, **unknown):
        if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check_alias("Tensor.divide", (other, *extra),
                                  {"rounding_mode": rounding_mode, **unknown})
        return self.div(other, rounding_mode=rounding_mode)

    def true_divide(self, *args, **kwargs):
        # torch's true_divide has no rounding_mode parameter; its two overloads (Tensor other,
        # Number other) make every refused call an "invalid combination"
        if _argparse.error("Tensor.true_divide", args, kwargs) is not None:
            raise _argparse.invalid_combination("true_divide", args, kwargs)
        return self.div(*args, **kwargs)

    def neg(self):
        return _ops.Neg.apply(self)

    negative = neg

    def reciprocal(self):
        return _ops.Reciprocal.apply(self)

    def pow(self, exponent):
        if exponent.__class__ not in _NUMBERS and not isinstance(exponent, Tensor):
            _argparse.check("Tensor.pow", (exponent,))
            exponent = _numpy_operand(exponent)
        return _ops.pow(self, exponent)

    def exp(self):
        return _ops.Exp.apply(self)

    def log(self):
        return _ops.Log.apply(self)

    def sqrt(self):
        return _ops.Sqrt.apply(self)

    def abs(self):
        return _ops.Abs.apply(self)

    absolute = abs

    def sign(self):
        return _ops.Sign.apply(self)

    def sin(self):
        return _ops.Sin.apply(self)

    def cos(self):
        return _ops.Cos.apply(self)

    def tanh(self):
        return _ops.Tanh.apply(self)

    def sigmoid(self):
        return _ops.Sigmoid.apply(self)

    def relu(self):
        return _ops.Relu.apply(self)

    def clamp(self, min=None, max=None):
        if min.__class__ not in _CLAMP_BOUNDS or max.__class__ not in _CLAMP_BOUNDS:
            _argparse.check("Tensor.clamp", _argparse.given(min, max))
            min, max = _clamp_bounds(self, min, max)
        return _ops.clamp(self, min, max)

    clip = clamp

    def eq(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.eq", (other,))
            other = _numpy_operand(other)
        return _ops.Eq.apply(self, other)

    def ne(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.ne", (other,))
            other = _numpy_operand(other)
        return _ops.Ne.apply(self, other)

    def lt(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.lt", (other,))
            other = _numpy_operand(other)
        return _ops.Lt.apply(self, other)

    def le(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.le", (other,))
            other = _numpy_operand(other)
        return _ops.Le.apply(self, other)

    def gt(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.gt", (other,))
            other = _numpy_operand(other)
        return _ops.Gt.apply(self, other)

    def ge(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.ge", (other,))
            other = _numpy_operand(other)
        return _ops.Ge.apply(self, other)

    def _compare_(self, other, name: str, op):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check(f"Tensor.{name}_", (other,))
            other = _numpy_operand(other)
        # its own node when recording: GtBackward0 for a number, GtBackward1 for a tensor
        from .ops.compare_inplace import INPLACE

        if isinstance(other, Tensor):
            return _ops.inplace(INPLACE[op][1], self, other)
        return _ops.inplace(INPLACE[op][0], self, other=other)

    def eq_(self, other):
        """``self = (self == other)`` in self's dtype (1 and 0)."""
        return self._compare_(other, "eq", _ops.Eq)

    def ne_(self, other):
        return self._compare_(other, "ne", _ops.Ne)

    def lt_(self, other):
        return self._compare_(other, "lt", _ops.Lt)

    def le_(self, other):
        return self._compare_(other, "le", _ops.Le)

    def gt_(self, other):
        return self._compare_(other, "gt", _ops.Gt)

    def ge_(self, other):
        return self._compare_(other, "ge", _ops.Ge)

    def _masked_zero(self, mask):
        """``masked_fill(mask, 0)`` for backward formulas (mask: bool Tensor or array)."""
        return _ops.MaskedZero.apply(self, mask=mask._data if isinstance(mask, Tensor) else mask)

    def equal(self, other) -> bool:
        if _vmap_state.active and "_levels" in getattr(type(other), "__slots__", ()):
            raise RuntimeError(_EQUAL_UNDER_VMAP)  # a batched other (ops/_batching.py)
        return self.shape == other.shape and bool(np.array_equal(self._data, other._data))

    @_argparse.declared("Tensor.sum")  # (Note: parsed through the aliases' wrapper)
    def sum(self, dim=_DIM_NOT_GIVEN, keepdim=_KEEPDIM_NOT_GIVEN, *, dtype=None):
        if keepdim is _KEEPDIM_NOT_GIVEN:
            keepdim = False
            if dim is _DIM_NOT_GIVEN:
                dim = None
            elif dim is None:  # dim=None given: torch's dim_IntList overload (SumBackward1)
                dim = ()
        elif dim is _DIM_NOT_GIVEN or keepdim.__class__ is not bool:
            # (torch's overload without dim takes no keepdim: _argparse.reduction_flags)
            dim, keepdim = _argparse.reduction_flags("sum", (), dim, keepdim, dtype)
            if keepdim.__class__ is not bool and dim is None:
                _argparse.keepdim("sum", keepdim, ())
        elif dim is None:
            dim = ()
        return _ops.sum(self, dim, keepdim, dtype)

    @_argparse.declared("Tensor.mean")  # (Note: parsed through the aliases' wrapper)
    def mean(self, dim=_DIM_NOT_GIVEN, keepdim=_KEEPDIM_NOT_GIVEN, *, dtype=None):
        if keepdim is _KEEPDIM_NOT_GIVEN:
            keepdim = False
            if dim is _DIM_NOT_GIVEN:
                dim = None
            elif dim is None:  # dim=None given: torch's dim_IntList overload (MeanBackward1)
                dim = ()
        elif dim is _DIM_NOT_GIVEN:
            _argparse.reduction_flags("mean", (), dim, keepdim, dtype)
        elif dim is None:
            dim = ()
        return _ops.mean(self, dim, keepdim, dtype)

    def matmul(self, other):
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS and \
                getattr(other, "is_sparse", False):
            return other.__rmatmul__(self)  # dense @ sparse (leafgrad.sparse)
        return _ops.matmul(self, other)

    def mm(self, mat2):
        if mat2.__class__ is not Tensor and getattr(mat2, "is_sparse", False):
            return mat2.__rmatmul__(self)  # dense @ sparse (leafgrad.sparse)
        return _ops.mm(self, mat2)

    def mv(self, vec):
        return _ops.mv(self, vec)

    def dot(self, other):
        return _ops.dot(self, other)

    def bmm(self, mat2):
        return _ops.bmm(self, mat2)

    def view(self, *shape, dtype=None, size=None):
        if size is not None:  # (torch's keyword form: view(size=(2, 3)))
            if shape or dtype is not None or not isinstance(size, (tuple, list)):
                raise _argparse.invalid_combination("view", shape, {"size": size})
            shape = _argparse.varargs_keyword(shape, size, "view", "size")
        if dtype is not None or shape and (isinstance(shape[0], _dtype.dtype)
                                           or shape[0].__class__ is type):
            if dtype is not None:
                dtype = _dtype.as_dtype(dtype)  # Note: Python types as dtypes
            elif shape[0].__class__ is type:
                shape = (_dtype.as_dtype(shape[0]),) + shape[1:]
            from ._view_dtype import view_dtype

            if shape and dtype is not None or len(shape) > 1:
                raise _argparse.invalid_combination("view", shape, {} if dtype is None else
                                                    {"dtype": dtype})
            return view_dtype(self, dtype if dtype is not None else shape[0])
        try:
            return _ops.view(self, shape)
        except (TypeError, ValueError):
            sizes = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
            # (a first size that is an int chooses the size overload: its own errors)
            if all(isinstance(s, (int, np.integer)) for s in sizes) or \
                    sizes and _argparse._is_int(sizes[0], symint=True):
                raise
            raise _argparse.invalid_combination("view", shape, {}) from None

    def view_as(self, other):
        return _ops.view(self, (other.shape,))

    def reshape(self, *args, shape=None):
        if shape is not None:
            args = _argparse.varargs_keyword(args, shape, "reshape", "shape")
        return _ops.reshape(self, args)

    def reshape_as(self, other):
        return _ops.reshape(self, (other.shape,))

    @_argparse.declared("Tensor.flatten")
    def flatten(self, start_dim=0, end_dim=-1):
        if start_dim.__class__ is not int or end_dim.__class__ is not int:
            start_dim, end_dim = _int_args("flatten", (("start_dim", start_dim),
                                                       ("end_dim", end_dim)), 1)
        return _ops.flatten(self, start_dim, end_dim)

    def t(self):
        return _ops.t(self)

    @_argparse.declared("Tensor.transpose")
    def transpose(self, dim0, dim1):
        if dim0.__class__ is not int or dim1.__class__ is not int:
            dim0, dim1 = _int_args("transpose", (("dim0", dim0), ("dim1", dim1)), 1)
        return _ops.transpose(self, dim0, dim1)

    @_argparse.declared("Tensor.swapaxes")
    def swapaxes(self, axis0, axis1):
        if axis0.__class__ is not int or axis1.__class__ is not int:
            axis0, axis1 = _int_args("swapaxes", (("axis0", axis0), ("axis1", axis1)), 1)
        return _ops.transpose(self, axis0, axis1)

    swapdims = transpose

    def permute(self, *args, dims=None):
        if dims is not None:  # (torch's keyword form: permute(dims=(1, 0)))
            args = _argparse.varargs_keyword(args, dims, "permute", "dims")
        if not args:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        return _ops.permute(self, args)

    @_argparse.declared("Tensor.unsqueeze")
    def unsqueeze(self, dim):
        if dim.__class__ is not int:
            dim = _argparse.int_arg("unsqueeze", "dim", dim, 1)
        return _ops.unsqueeze(self, dim)

    @_argparse.declared("Tensor.squeeze")
    def squeeze(self, dim=_DIM_NOT_GIVEN):
        if dim.__class__ is not int:
            if dim is _DIM_NOT_GIVEN:
                dim = None
            elif dim is None or dim.__class__ is bool or _argparse._is_tensor(dim) and \
                    dim.numel() != 1:  # (torch's overloads take none of them)
                _argparse.check("Tensor.squeeze", (dim,))
        return _ops.squeeze(self, dim)

    def expand(self, *sizes, size=None):
        if size is not None:
            sizes = _argparse.varargs_keyword(sizes, size, "expand", "size")
        return _ops.expand(self, sizes)

    def expand_as(self, other):
        return _ops.expand(self, (other.shape,))

    def narrow(self, dim, start, length):
        return _ops.narrow(self, dim, start, length)

    @_argparse.declared("Tensor.select")
    def select(self, dim, index):
        if dim.__class__ is not int or index.__class__ is not int:
            dim, index = _int_args("select", (("dim", dim), ("index", index)), 1)
        return _ops.select(self, dim, index)

    @_argparse.declared("Tensor.unbind")
    def unbind(self, dim=0):
        if dim.__class__ is not int:  # (a bool was read as a dim)
            dim = _argparse.int_arg("unbind", "dim", dim, 1)
        return _ops.unbind(self, dim)

    def clone(self, *, memory_format=None):
        if memory_format is None or memory_format is _memory_format.preserve_format:
            return _ops.Clone.apply(self)
        return _ops.Clone.apply(self, memory_format=memory_format)

    def contiguous(self, *, memory_format=None):
        if memory_format is None:
            memory_format = _memory_format.contiguous_format
        if self.is_contiguous(memory_format=memory_format):
            return self
        if memory_format is _memory_format.preserve_format:
            raise RuntimeError(
                "preserve memory format is unsupported by the contiguous operator")
        return _ops.Clone.apply(self, memory_format=memory_format)

    def to(self, *args, **kwargs):
        return _ops.to(self, *args, **kwargs)

    # Note: the dtype methods (float() ... bool()) take to()'s memory_format, keyword only
    def float(self, *, memory_format=None):
        return _to_dtype(self, _dtype.float32, memory_format)

    def double(self, *, memory_format=None):
        return _to_dtype(self, _dtype.float64, memory_format)

    def half(self, *, memory_format=None):
        return _to_dtype(self, _dtype.float16, memory_format)

    def bfloat16(self, *, memory_format=None):
        return _to_dtype(self, _dtype.bfloat16, memory_format)

    def long(self, *, memory_format=None):
        return _to_dtype(self, _dtype.int64, memory_format)

    def int(self, *, memory_format=None):
        return _to_dtype(self, _dtype.int32, memory_format)

    def short(self, *, memory_format=None):
        return _to_dtype(self, _dtype.int16, memory_format)

    def char(self, *, memory_format=None):
        return _to_dtype(self, _dtype.int8, memory_format)

    def byte(self, *, memory_format=None):
        return _to_dtype(self, _dtype.uint8, memory_format)

    def bool(self, *, memory_format=None):
        return _to_dtype(self, _dtype.bool, memory_format)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from ._creation import tensor

        if dtype.__class__ is not _dtype.dtype or requires_grad.__class__ is not bool:
            dtype = _new_options("new_tensor", dtype, None, requires_grad, False)

        if isinstance(data, Tensor):  # torch's copy-construct warning, naming new_tensor
            from . import _warn

            _warn.warn("To copy construct from a tensor, it is recommended to use "
                       "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                       "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).")
            data = data._data
        return tensor(data, dtype=self.dtype if dtype is None else dtype,
                      requires_grad=requires_grad)

    def _new_device(self, device):
        """``new_*``'s device: the given one, else this tensor's (Note: meta tensors)."""
        if device is None and type(self._data) is _MetaArray:
            return "meta"
        return device

    def new_zeros(self, *args, dtype=None, device=None, requires_grad=False, size=None,
                  layout=None, pin_memory=False):
        from ._creation import _size, zeros

        if size is not None:  # (torch's keyword form: new_zeros(size=(2, 3)))
            args = _argparse.varargs_keyword(args, size, "new_zeros", "size")
        elif not args:
            raise TypeError('new_zeros() missing 1 required positional arguments: "size"')
        size = _size(args, "new_zeros")  # torch's checks and messages under this method's name
        if dtype.__class__ is not _dtype.dtype or requires_grad.__class__ is not bool or \
                layout is not None or pin_memory is not False:
            dtype = _new_options("new_zeros", dtype, layout, requires_grad, pin_memory)
        return zeros(size, dtype=self.dtype if dtype is None else dtype, layout=layout, requires_grad=requires_grad,
                      device=self._new_device(device))

    def new_ones(self, *args, dtype=None, device=None, requires_grad=False, size=None,
                  layout=None, pin_memory=False):
        from ._creation import _size, ones

        if size is not None:  # (torch's keyword form: new_ones(size=(2, 3)))
            args = _argparse.varargs_keyword(args, size, "new_ones", "size")
        elif not args:
            raise TypeError('new_ones() missing 1 required positional arguments: "size"')
        size = _size(args, "new_ones")  # torch's checks and messages under this method's name
        if dtype.__class__ is not _dtype.dtype or requires_grad.__class__ is not bool or \
                layout is not None or pin_memory is not False:
            dtype = _new_options("new_ones", dtype, layout, requires_grad, pin_memory)
        return ones(size, dtype=self.dtype if dtype is None else dtype, layout=layout, requires_grad=requires_grad,
                      device=self._new_device(device))

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        from ._creation import full

        if fill_value.__class__ not in _NUMBERS:  # (named after this method)
            fill_value = _argparse.number("new_full", "fill_value", fill_value, 2)
        if dtype.__class__ is not _dtype.dtype or requires_grad.__class__ is not bool or \
                layout is not None or pin_memory is not False:
            dtype = _new_options("new_full", dtype, layout, requires_grad, pin_memory)
        return full(size, fill_value, dtype=self.dtype if dtype is None else dtype, layout=layout,
                    requires_grad=requires_grad,
                    device=self._new_device(device))

    def new_empty(self, *args, dtype=None, device=None, requires_grad=False, size=None,
                  layout=None, pin_memory=False):
        from ._creation import _size, empty

        if size is not None:  # (torch's keyword form: new_empty(size=(2, 3)))
            args = _argparse.varargs_keyword(args, size, "new_empty", "size")
        elif not args:
            raise TypeError('new_empty() missing 1 required positional arguments: "size"')
        size = _size(args, "new_empty")  # torch's checks and messages under this method's name
        if dtype.__class__ is not _dtype.dtype or requires_grad.__class__ is not bool or \
                layout is not None or pin_memory is not False:
            dtype = _new_options("new_empty", dtype, layout, requires_grad, pin_memory)
        return empty(size, dtype=self.dtype if dtype is None else dtype, layout=layout, requires_grad=requires_grad,
                      device=self._new_device(device))

    # -- in-place ops (see ops/inplace.py for the rules they follow) -----------------------------
    def add_(self, other, *deprecated, alpha=1):
        if deprecated:  # Note: deprecated overloads (_argparse.py)
            (other,), alpha = _argparse.scalar_first("add_", True, other, deprecated,
                                                     "alpha", alpha)
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor) or (
                alpha.__class__ not in _NUMBERS):
            _argparse.check("Tensor.add_", (other,), {"alpha": alpha})
            other = _numpy_operand(other)
            alpha = _argparse.scalar(alpha)
        if other.__class__ is not Tensor and other.__class__ not in _NUMBERS and \
                getattr(other, "is_sparse", False):
            from .sparse import _ops as sparse_ops  # dense += sparse (an optimizer's step)

            return sparse_ops.dense_add_(self, other, alpha)
        return _ops.inplace(_ops.Add, self, other, alpha=alpha)

    def sub_(self, other, *deprecated, alpha=1):
        if deprecated:  # Note: deprecated overloads (_argparse.py)
            (other,), alpha = _argparse.scalar_first("sub_", True, other, deprecated,
                                                     "alpha", alpha)
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor) or (
                alpha.__class__ not in _NUMBERS):
            _argparse.check("Tensor.sub_", (other,), {"alpha": alpha})
            other = _numpy_operand(other)
            alpha = _argparse.scalar(alpha)
        return _ops.inplace(_ops.Sub, self, other, alpha=alpha)

    def mul_(self, other):
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check("Tensor.mul_", (other,))
            other = _numpy_operand(other)
        return _ops.inplace(_ops.Mul, self, other)

    def div_(self, other, *, rounding_mode=_argparse.NO_MODE, **unknown):
        if unknown:  # (Note: aliases' errors, _functions.py)
            _argparse.check_alias("Tensor.div_", (other,),
                                  {"rounding_mode": rounding_mode, **unknown})
        if other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check_alias("Tensor.div_", (other,), {"rounding_mode": rounding_mode})
            other = _numpy_operand(other)
        if rounding_mode is None:  # Note: an explicit rounding_mode=None (ops/math_binary.py)
            return _ops.inplace(_ops.math_binary.DivMode, self, other, rounding_mode=None)
        if rounding_mode is not _argparse.NO_MODE:
            from .ops.math_binary import DivRounding

            if rounding_mode not in ("trunc", "floor"):
                raise RuntimeError(
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                    f"found '{rounding_mode}'"
                )
            return _ops.inplace(DivRounding, self, other, rounding_mode=rounding_mode)
        return _ops.inplace(_ops.Div, self, other)

    def divide_(self, other, *extra, rounding_mode=_argparse.NO_MODE, **unknown):
        if extra or unknown or other.__class__ not in _NUMBERS and not isinstance(other, Tensor):
            _argparse.check_alias("Tensor.divide_", (other, *extra),
                                  {"rounding_mode": rounding_mode, **unknown})
        return self.div_(other, rounding_mode=rounding_mode)

    def true_divide_(self, *args, **kwargs):
        # torch's true_divide_ has no rounding_mode parameter; its two overloads (Tensor other,
        # Number other) make every refused call an "invalid combination"
        if _argparse.error("Tensor.true_divide_", args, kwargs) is not None:
            raise _argparse.invalid_combination("true_divide_", args, kwargs)
        return self.div_(*args, **kwargs)

    def neg_(self):
        return _ops.inplace(_ops.Neg, self)

    negative_ = neg_

    def pow_(self, exponent):
        if exponent.__class__ not in _NUMBERS and not isinstance(exponent, Tensor):
            _argparse.check("Tensor.pow_", (exponent,))
            exponent = _numpy_operand(exponent)
        if isinstance(exponent, Tensor):
            return _ops.inplace(_ops.PowTensor, self, exponent)
        if exponent.__class__ is int and self._data.dtype.kind in "iu":
            _ops.check_int_exponent(self, exponent)
        return _ops.inplace(_ops.PowScalar, self, exponent=exponent)

    def __ipow__(self, exponent):  # (torch's Tensor.__ipow__ is pow_: x **= 2 writes x)
        if exponent.__class__ is not Tensor and exponent.__class__ not in _NUMBERS:
            if not isinstance(exponent, _OPERANDS):
                return NotImplemented  # Python raises torch's "unsupported operand" TypeError
            exponent = _numpy_operand(exponent)  # (a NumPy scalar: torch's Scalar)
        return self.pow_(exponent)

    def exp_(self):
        return _ops.inplace(_ops.Exp, self)

    def log_(self):
        return _ops.inplace(_ops.Log, self)

    def sqrt_(self):
        return _ops.inplace(_ops.Sqrt, self)

    def abs_(self):
        if self._data.dtype.kind == "c":  # (torch: abs's result is real, self is not)
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        return _ops.inplace(_ops.Abs, self)

    def sin_(self):
        return _ops.inplace(_ops.Sin, self)

    def cos_(self):
        return _ops.inplace(_ops.Cos, self)

    def tanh_(self):
        return _ops.inplace(_ops.Tanh, self)

    def sigmoid_(self):
        return _ops.inplace(_ops.Sigmoid, self)

    def relu_(self):
        return _ops.inplace(_ops.Relu, self)

    def clamp_(self, min=None, max=None):
        if min.__class__ not in _CLAMP_BOUNDS or max.__class__ not in _CLAMP_BOUNDS:
            _argparse.check("Tensor.clamp_", _argparse.given(min, max))
            min, max = _clamp_bounds(self, min, max)
        return _ops.clamp_(self, min, max)

    clip_ = clamp_

    def zero_(self):
        return _ops.inplace(_ops.Zero, self)

    def fill_(self, value):
        kind = value.__class__
        data = self._data
        if (kind is float or kind is int or kind is bool) and data.__class__ is np.ndarray and \
                data.dtype.kind in _FAST_KINDS and not (
                    _capture.active or _dual_state.active or _vmap_state.active or
                    self._vc is INFERENCE_VC or _grad_state.grad_enabled and (
                        self._requires_grad or self._base is not None and
                        self._base._requires_grad)) and data.flags.writeable:
            # a number into a tensor that records nothing: checked as below, stored in place
            # (the general path builds a full array and copies it: Note: fast basic indexing)
            dtype = data.dtype
            value = check_scalar_write(value, _BY_NP[dtype], half=data.size != 1)
            if dtype.kind == "u":
                value = unsigned_fill(value, dtype)
            if dtype.char == "e":
                with np.errstate(over="ignore"):  # (one element of float16 may get inf)
                    data.fill(value)
            else:
                data.fill(value)
            self._bump_version()
            return self
        if isinstance(value, Tensor):
            return _ops.inplace(_ops.FillTensor, self, value)
        if not isinstance(value, (bool, int, float, complex)):  # (torch's Number overload)
            if not (isinstance(value, np.generic) and value.dtype.kind in "biufc"):
                raise _argparse.invalid_combination("fill_", (value,), {})
        if isinstance(value, complex) and not value.imag and self._data.dtype.kind != "c":
            value = value.real  # (torch converts a complex without imaginary part)
        if _grad_state.grad_enabled and self._requires_grad:
            # torch's check_inplace runs before the kernel converts the value: a leaf's error
            # comes before an overflowing value's (an inference tensor's error before both)
            check_inplace_allowed(self)
            base = self._base
            if base is not None and base._node is None:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE)
            if self._node is None:
                raise RuntimeError(LEAF_INPLACE)
        if value.__class__ is complex:
            from ._functions_more import check_fill_value

            # (one element: torch's scalar_fill reads the value as a double for float16 and
            # bfloat16, whose message names double: generated-program seed 20011637)
            value = check_fill_value(self, value, setitem=self._data.size == 1)
        else:
            # (Note: checked scalar writes, _construct.py: one element of float16 is not)
            value = check_scalar_write(_argparse.scalar(value), self.dtype,
                                       half=self._data.size != 1)
        return _ops.inplace(_ops.Fill, self, value=value)

    def copy_(self, src, non_blocking=False):
        return _ops.inplace(_ops.Copy, self, src)

    # -- random fills (the same streams as torch's CPU generator) ------------------------------
    def _random_shape(self) -> tuple:
        """The shape a random fill draws: none for a meta tensor, which torch fills without
        touching the generator (Note: meta tensors, _meta.py); the dims in the order the fill
        visits them (see _fill_order)."""
        if type(self._data) is _MetaArray:
            return (0,)
        order = self._fill_order()
        shape = self._data.shape
        return shape if order is None else tuple(shape[d] for d in order)

    def _fill_order(self):
        """The dims in the order torch's fill kernels visit them, outermost first, or None for
        row-major order. Its serial kernels walk a TensorIterator over the tensor, which puts
        the dims in memory order (largest stride outermost): a transposed or permuted tensor
        gets the generator's values in memory order, not row by row."""
        data = self._data
        if type(data) is _MetaArray or data.flags.c_contiguous:
            return None
        strides = data.strides
        order = sorted(range(data.ndim), key=lambda d: -strides[d] if data.shape[d] > 1 else 0)
        return None if order == sorted(order) else tuple(order)

    def _random_fill(self, values: np.ndarray) -> "Tensor":
        check_inplace_allowed(self)
        if type(self._data) is _MetaArray:
            if _grad_state.grad_enabled and self._requires_grad and self._node is None:
                raise RuntimeError(LEAF_INPLACE if self._base is None else VIEW_OF_LEAF_INPLACE)
            self._bump_version()
            return self
        if not self._data.flags.writeable:  # an expanded tensor (Note: writes through expanded
            from .ops.inplace import OVERLAP_ERROR  # tensors, ops/inplace.py)

            raise RuntimeError(OVERLAP_ERROR)
        if _grad_state.grad_enabled and self._requires_grad:
            if self._node is None:
                raise RuntimeError(LEAF_INPLACE if self._base is None else VIEW_OF_LEAF_INPLACE)
            raise NotImplementedError("random in-place fills of tensors that require grad")
        order = self._fill_order()
        np.copyto(self._data if order is None else self._data.transpose(order), values,
                  casting="unsafe")
        self._bump_version()
        if _dual_state.active:
            from .ops._forward import zero_tangent

            zero_tangent(self)
        return self

    @_argparse.parsed("Tensor.uniform_", method=True)
    def uniform_(self, from_=0.0, to=1.0, *, generator=None, **given):
        from . import _rng as _random

        if given:  # torch's keyword ``from`` (a Python keyword: given as **{"from": v})
            from_ = given.pop("from")
            if given:
                raise TypeError("uniform_(): an unexpected keyword")  # (the parser's error)
        from_, to = _argparse.fill_doubles("uniform_", from_, to)
        return self._random_fill(_random.uniform(self._random_shape(), self._data.dtype, from_,
                                                 to, generator=generator))

    @_argparse.parsed("Tensor.normal_", method=True)
    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        from . import _rng as _random

        mean, std = _argparse.fill_doubles("normal_", mean, std)

        # a non-contiguous tensor (of any size) takes the kernel's serial path
        contiguous = type(self._data) is _MetaArray or self.is_contiguous()
        return self._random_fill(_random.normal(self._random_shape(), self._data.dtype, mean, std,
                                                generator=generator, serial=not contiguous))

    def bernoulli_(self, p=0.5, *, generator=None):
        from . import _rng as _random

        if isinstance(p, Tensor):
            probability = p._data
        elif p.__class__ is float or p.__class__ is int:
            probability = p
        else:  # (torch's overloads: bernoulli_(Tensor p), bernoulli_(float p))
            probability = _argparse.number("bernoulli_", "p", p, kind="float",
                                           overloads=((p,), {}))
        order = self._fill_order()
        if order is not None and isinstance(probability, np.ndarray):  # visited with self's
            probability = np.broadcast_to(probability, self._data.shape).transpose(order)
        return self._random_fill(_random.bernoulli(probability, self._random_shape(),
                                                   self._data.dtype, generator=generator))

    def random_(self, from_=0, to=None, *, generator=None):
        from . import _rng as _random

        if to is None and not from_:
            return self._random_fill(_random.random_full(self._random_shape(), self._data.dtype,
                                                         generator=generator))
        if to is None:
            from_, to = 0, from_
        return self._random_fill(_random.randint(from_, to, self._random_shape(), self._data.dtype,
                                                 generator=generator))


_POST_ACC_USED = [False]  # set once any tensor registers a post-accumulate-grad hook


# Note: gradient layout contract
# torch's AccumulateGrad stores a leaf's first gradient with the leaf's strides when the leaf
# is non-overlapping and dense (a transposed or permuted parameter gets a grad laid out the
# same way), row-major otherwise: it keeps the arriving gradient only if that already holds
# (or enforce_grad_layout_policy(False) is in effect), and copies it into that layout if not.


def _leaf_strides(leaf: np.ndarray):
    """The element strides a leaf's grad takes: the leaf's own when it is non-overlapping and
    dense, else None (row-major)."""
    if leaf.size == 0 or any(s < 0 for s in leaf.strides) or _dense_span(leaf) is None:
        return None
    return tuple(s // leaf.itemsize for s in leaf.strides)


def _obeys_layout(grad: np.ndarray, leaf: np.ndarray) -> bool:
    """torch's obeys_layout_contract: the grad's strides are the leaf's (dims of size 1 aside)
    for a dense leaf; the grad is row-major otherwise."""
    if leaf.flags.c_contiguous:
        if leaf.size or grad.size:
            return grad.flags.c_contiguous
        # empty arrays are all c_contiguous to NumPy; their strides are torch's (Note: strides
        # of empty tensors), compared as torch compares them (dims of size 1 aside)
        return all(n == 1 or g // grad.itemsize == s // leaf.itemsize
                   for n, g, s in zip(leaf.shape, grad.strides, leaf.strides))
    strides = _leaf_strides(leaf)
    if strides is None:
        return grad.flags.c_contiguous
    return all(n == 1 or g // grad.itemsize == s
               for n, g, s in zip(grad.shape, grad.strides, strides))


def _warn_layout(grad: "Tensor", leaf: "Tensor") -> None:
    warnings.warn(
        "grad and param do not obey the gradient layout contract. This is not an error, but may "
        f"impair performance.\ngrad.sizes() = {list(grad.shape)}, strides() = "
        f"{list(grad.stride())}\nparam.sizes() = {list(leaf.shape)}, strides() = "
        f"{list(leaf.stride())}", UserWarning, stacklevel=2)


def _copy_obeying_layout(grad: np.ndarray, leaf: np.ndarray, tensor=None) -> np.ndarray:
    """torch's clone_obey_contract: a copy of ``grad`` in the leaf's layout (a gradient torch
    would keep as it is under enforce_grad_layout_policy(False): a copy in its own layout)."""
    if not _grad_state.grad_layout_enforced and grad.size == 0 and tensor is not None:
        return _strided_empty(grad.shape, tensor.stride(), grad.dtype)
    if not _grad_state.grad_layout_enforced and not grad.flags.c_contiguous:
        own = _leaf_strides(grad)
        if own is not None:
            out = _strided_empty(grad.shape, own, grad.dtype)
            np.copyto(out, grad)
            return out
    if leaf.size == 0 and _grad_state.grad_layout_enforced:  # an empty leaf's grad has its
        # strides (Note: strides of empty tensors)
        return _strided_empty(grad.shape, tuple(s // leaf.itemsize for s in leaf.strides),
                              grad.dtype)
    # (a row-major leaf whose size-1 dims have other strides than NumPy's passes NumPy's
    # c_contiguous test; torch's new_empty_strided keeps those strides too)
    strides = None if leaf.flags.c_contiguous and leaf.strides == dense_bytes(
        leaf.shape, leaf.itemsize) else _leaf_strides(leaf)
    if strides is None:
        return np.array(grad, copy=True, order="C")
    out = _strided_empty(grad.shape, strides, grad.dtype)
    np.copyto(out, grad)
    return out


def _copied_grad(grad: "Tensor", leaf: np.ndarray) -> "Tensor":
    """The copy AccumulateGrad stores when it cannot keep ``grad`` (torch's
    clone_obey_contract): for a non-overlapping and dense leaf, new_empty_strided(leaf's
    layout).copy_(grad), a write (_version 1); else grad.clone() (_version 0)."""
    copy = _wrap(_copy_obeying_layout(grad._data, leaf, grad))
    if _grad_state.grad_layout_enforced and (leaf.size == 0 or
                                             _leaf_strides(leaf) is not None):
        copy._vc = [1]
    return copy


def _can_steal(grad: "Tensor") -> bool:
    """Whether AccumulateGrad may keep an engine-made gradient instead of copying it.

    Like torch it requires that nothing else holds the tensor (reference count) and that it has
    an ordinary layout; NumPy adds one more condition: the array owns its memory, so the stored
    grad is never a broadcast view or an alias of another tensor's data.
    """
    data = grad._data
    flags = data.flags
    if not (flags.writeable and sys.getrefcount(grad) <= _STEAL_REFS):
        return False
    if _kept_by_hooks and id(grad) in _kept_by_hooks:  # Note: gradients a hook kept
        return False
    if not flags.c_contiguous:
        # torch keeps any gradient that obeys the layout contract (the caller's test): a dense
        # one of the leaf's order of dims, with its own strides in size-1 dims (a product
        # TensorIterator ordered by them); kept here when it is all of the memory it views
        if min(data.strides, default=0) < 0 or not _dense_positive(data):
            return False
    if flags.owndata:
        return True
    # A contiguous view of the whole of an array that nothing else holds (the transposed
    # product of Note: gradient layout in ops/linalg.py, a bias gradient's reshaped sum) is
    # as private as the array itself. getrefcount sees the view's reference, the local
    # ``base`` and its own argument; and more when the view tensor's root base tensor
    # (``_base``, itself held by nothing else) holds that array or a view of it held by
    # nothing else. The kept grad is then a detached tensor (no ``_base``: torch's stolen
    # grad is no view either).
    if not data.size:  # a view of no memory (an empty one's as_strided strides, Note: strides
        return True  # of empty tensors, or slice) shares nothing: torch keeps it
    base = data.base
    if type(base) is _DummyArray:  # a view by as_strided (an array given
        base = base.base  # torch's strides in its size-1 dims, ops/_layout.py): what it holds
    if type(base) is not np.ndarray or not base.flags.owndata or base.nbytes != data.nbytes:
        return False
    limit = 3
    holder = grad._base
    if holder is not None and sys.getrefcount(holder) <= 3:  # its view, the local, the argument
        held = holder._data
        if held is base:
            limit = 5  # and the holder's and the local ``held``
        elif held.base is base and sys.getrefcount(held) <= 3:  # holder's, local, argument
            limit = 4  # and ``held``'s
    return sys.getrefcount(base) <= limit


_DummyArray = type(np.lib.stride_tricks.as_strided(np.empty(1)).base)


def _dense_positive(data: np.ndarray) -> bool:
    """Non-overlapping and dense, every stride positive (dims of size 1 aside)."""
    expected = data.itemsize
    for stride, size in sorted((s, n) for s, n in zip(data.strides, data.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


# References to a stealable grad seen inside ``_can_steal``: the engine's local and its input
# buffer, the arguments of ``_accumulate_grad`` and ``_can_steal``, getrefcount's own.
# Calibrated by tests/autograd/test_engine.py (test_first_grad_is_stolen_only_when...).
_STEAL_REFS = 5

from .autograd.engine import kept_by_hooks as _kept_by_hooks  # noqa: E402


# c10's scalar type names, used in some of torch's messages
_C_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
            "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
            "uint16": "short unsigned int", "uint32": "unsigned int",
            "uint64": "long unsigned int", "bool": "bool", "bfloat16": "c10::BFloat16",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _int64_value(value) -> int:
    """``int(tensor)``: torch reads the value as an int64 (a uint64 above 2**63 - 1 fails)."""
    value = int(value)
    if value > 9223372036854775807:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return value


def _complex_to_real(value: complex, target: str) -> float:
    """A complex number as a real one, as torch converts it (only without an imaginary part)."""
    if value.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {target} without overflow")
    return value.real


def _torch_type_name(t: Tensor) -> str:
    return f"torch.{t.dtype._legacy}Tensor"


def _wrap_dim(dim: int, ndim: int) -> int:
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but "
            f"got {dim})"
        )
    return dim + bound if dim < 0 else dim


_graph.tensor_class = Tensor  # for the engine's checks of hook results
_argparse.tensor_class = Tensor  # (_argparse loads before this module)


def _read_only(name: str):
    def refuse(self, value=None) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")

    return refuse


# torch's read-only tensor attributes are C getsets: setting or deleting one raises its
# "not writable" AttributeError, not Python's "property ... has no setter". Installed once here,
# so attribute reads cost nothing more.
def _refuse_writes() -> None:
    for name in dir(Tensor):
        attr = next(vars(klass)[name] for klass in Tensor.__mro__ if name in vars(klass))
        if isinstance(attr, property) and attr.fset is None and attr.fdel is None:
            refuse = _read_only(name)
            setattr(Tensor, name, property(attr.fget, refuse, refuse, attr.__doc__))


_refuse_writes()

# torch's Tensor methods written in Python (torch/_tensor.py); Python's argument errors name
# them "Tensor.split()". The rest are C methods, named "kthvalue()".
_PYTHON_METHODS = frozenset((
    "backward", "dim_order", "eig", "index", "is_shared", "istft", "lstsq", "lu", "module_load",
    "norm", "register_hook", "register_post_accumulate_grad_hook", "reinforce", "resize",
    "resize_as", "share_memory_", "solve", "split", "stft", "storage", "storage_type", "symeig",
    "to_sparse_coo", "unflatten", "unique", "unique_consecutive",
))


# Python words a bad keyword or a missing argument as "<function's __qualname__>() got an
# unexpected keyword argument 'out'": a method of the ReductionMethods mixin would say
# "ReductionMethods.kthvalue()" where torch's C method says "kthvalue()". Each method (and the
# functools.wraps wrappers around it) is renamed once here as torch's messages name it; calls
# cost nothing more. (torch's own __qualname__ is "TensorBase.kthvalue": the message wins.)
def _name_methods_as_torch() -> None:
    for klass in Tensor.__mro__[:-1]:
        for name, attr in list(vars(klass).items()):
            if name.startswith("__"):
                continue
            wanted = f"Tensor.{name}" if name in _PYTHON_METHODS else name
            while isinstance(attr, types.FunctionType):
                if attr.__name__ == name and "<" not in attr.__qualname__:
                    attr.__qualname__ = wanted
                attr = getattr(attr, "__wrapped__", None)


_name_methods_as_torch()

# Tensor subclasses (nn.Parameter, nn.Buffer) are operands too: the operators above test
# ``other.__class__ is Tensor`` first for speed, then fall back to this tuple.
_OPERANDS = _OPERANDS + (Tensor,)
_EQ_OPERANDS = _OPERANDS + (np.ndarray,)  # Note: operands

# The op modules import Tensor, so they come last; methods above look ``_ops`` up at call time.
from . import ops as _ops  # noqa: E402
from .ops import _cpp_operators  # noqa: E402
from .ops._layout import _strided_empty, dense_bytes, is_channels_last  # noqa: E402
from ._out import _dense_span  # noqa: E402
