"""The sparse COO tensor: torch's ``layout=torch.sparse_coo`` on the CPU.

Note: sparse tensors are a Tensor subclass
A sparse tensor is a ``SparseTensor``, a subclass of Tensor holding ``_sp_indices`` (an int64
array of shape ``(sparse_dim, nnz)``), ``_sp_values`` (an array of shape ``(nnz, *dense
shape)``) and torch's coalesced flag. Its ``_data`` is a ``SparseShape``: the shape and dtype
that the shared metadata code (``size``, ``dtype``, ``dim``, ``numel``, the engine's buffers)
reads, and nothing else, so that a dense op given a sparse tensor by mistake raises instead of
computing on the wrong thing. The dense classes are not touched: the subclass overrides what
sparse tensors do differently, and Python's rule for reflected operators (a subclass's
``__rmul__`` runs before its base's ``__mul__``) sends ``dense * sparse`` here without a check
on the dense path.
"""

from __future__ import annotations


import numpy as np

from .. import _dtype
from .._layouts import sparse_coo
from .._compile.state import state as _capture
from ..tensor import Tensor, _wrap

__all__ = ["SparseTensor", "SparseShape", "make", "backend_error", "coalesce_arrays", "linear_keys"]

_new = object.__new__


class _NoFlags:
    """The flags the engine reads before summing gradients in place: a sparse tensor has no
    memory of its own to sum into."""

    owndata = writeable = c_contiguous = f_contiguous = False


# Note: backends in torch's errors. torch's dispatcher lists the backends that have a kernel
# for the operator; these are its lists for the groups of operators met here.
_BACKENDS_TAIL = (
    "BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, "
    "ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, "
    "AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, "
    "AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, "
    "AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, "
    "AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, "
    "FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, "
    "FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher]."
)
_DEVICES = (
    "CPU, CUDA, HIP, MPS, IPU, XPU, HPU, VE, MTIA, MAIA, PrivateUse1, PrivateUse2, PrivateUse3, "
    "Meta, FPGA, Vulkan, Metal, QuantizedCPU, QuantizedCUDA, QuantizedHIP, QuantizedMPS, "
    "QuantizedIPU, QuantizedXPU, QuantizedHPU, QuantizedVE, QuantizedMTIA, QuantizedMAIA, "
    "QuantizedPrivateUse1, QuantizedPrivateUse2, QuantizedPrivateUse3, QuantizedMeta, "
    "CustomRNGKeyId, MkldnnCPU, SparseCsrCPU, SparseCsrCUDA, SparseCsrHIP, SparseCsrMPS, "
    "SparseCsrIPU, SparseCsrXPU, SparseCsrHPU, SparseCsrVE, SparseCsrMTIA, SparseCsrMAIA, "
    "SparseCsrPrivateUse1, SparseCsrPrivateUse2, SparseCsrPrivateUse3, SparseCsrMeta, "
)
_BACKENDS = {
    "elementwise": _DEVICES,  # exp, log, sigmoid, clamp, mean.dim
    "comparison": _DEVICES + "NestedTensorCPU, NestedTensorHPU, ",  # eq, gt, _softmax
    "cpu": "CPU, Meta, QuantizedCPU, ",  # max, as_strided
    "view": "CPU, Meta, QuantizedCPU, MkldnnCPU, NestedTensorCPU, NestedTensorHPU, ",
    "fill": "CPU, Meta, QuantizedCPU, SparseCsrCPU, SparseCsrMeta, NestedTensorCPU, "
            "NestedTensorHPU, ",
}


def backend_error(operator: str, group: str = "elementwise") -> NotImplementedError:
    """torch's error for an operator without a SparseCPU kernel (``aten::exp``)."""
    return NotImplementedError(
        f"Could not run '{operator}' with arguments from the 'SparseCPU' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). If you are a Facebook employee "
        "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
        f"resolutions. '{operator}' is only available for these backends: ["
        + _BACKENDS[group] + _BACKENDS_TAIL)


class SparseShape:
    """A sparse tensor's ``_data``: its shape and dtype, no values (see Note: sparse tensors
    are a Tensor subclass). NumPy refuses to compute with it."""

    __slots__ = ("shape", "dtype")
    flags = _NoFlags()
    __array_priority__ = 2000

    def __init__(self, shape: tuple, dtype: np.dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def strides(self) -> tuple:
        """Row-major byte strides: what a dense tensor made "like" this one is laid out as
        (``zeros_like(s, layout=leafgrad.strided)``)."""
        strides, step = [], self.dtype.itemsize
        for size in reversed(self.shape):
            strides.append(step)
            step *= max(size, 1)
        return tuple(reversed(strides))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise backend_error(f"aten::{ufunc.__name__}")

    def __array_function__(self, func, types, args, kwargs):
        raise backend_error(f"aten::{func.__name__}")

    def __array__(self, *args, **kwargs):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def make(indices: np.ndarray, values: np.ndarray, shape: tuple, coalesced: bool = False,
         requires_grad: bool = False, grad_fn=None) -> "SparseTensor":
    """A sparse tensor around arrays the caller owns (indices int64 ``(sparse_dim, nnz)``)."""
    if _capture.active:
        from ._autograd import refuse_capture

        refuse_capture()
    t = _new(SparseTensor)
    t._data = SparseShape(shape, values.dtype)
    t._sp_indices = indices
    t._sp_values = values
    t._sp_coalesced = coalesced
    t._requires_grad = requires_grad
    t._node = grad_fn
    t._output_nr = 0
    t._grad_value = None
    t._vc = None
    t._base = None
    t._hooks = None
    t._acc = None
    t._retains_grad = False
    t._view_steps = ()
    t._view_version = None
    return t


def _refuse(operator: str, group: str = "elementwise"):
    def method(self, *args, **kwargs):
        raise backend_error(operator, group)

    method.__name__ = operator.split("::")[-1].split(".")[0]
    return method


def _runtime(message: str, kind=RuntimeError):
    def method(self, *args, **kwargs):
        raise kind(message)

    return method


def linear_keys(indices: np.ndarray, sizes: tuple) -> np.ndarray:
    """Each column of ``indices`` as one int64 key, row-major over ``sizes`` (torch's
    flatten_indices)."""
    keys = np.zeros(indices.shape[1], np.int64)
    for dim, size in enumerate(sizes):
        keys = keys * size + indices[dim]
    return keys


def coalesce_arrays(indices: np.ndarray, values: np.ndarray, sizes: tuple):
    """Sorted unique indices and the values summed per index, the duplicates added in
    the order they come (torch's _coalesce_sparse_cpu: a stable sort, then a running sum)."""
    nnz = indices.shape[1]
    if nnz < 2:
        return indices.copy(), values.copy()
    keys = linear_keys(indices, sizes)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    ordered = values[order]
    out = ordered[starts].copy()
    counts = np.diff(np.append(starts, nnz))
    # the running sum per index, one position of every group at a time
    for k in range(1, int(counts.max())):
        groups = np.flatnonzero(counts > k)
        out[groups] = out[groups] + ordered[starts[groups] + k]
    return np.ascontiguousarray(indices[:, order[starts]]), out


class SparseTensor(Tensor):
    """A tensor in torch's COO layout: indices, values and a size.

    >>> s = leafgrad.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
    >>> s.to_dense()
    tensor([[0., 2.],
            [3., 0.]])
    """

    from ..overrides import _disabled_torch_function_impl as __torch_function__  # (internal)

    __module__ = "leafgrad"
    __slots__ = ("_sp_indices", "_sp_values", "_sp_coalesced")
    # (torch has one class for every layout: type(s) prints <class 'torch.Tensor'>; here
    # type(s) is a subclass, which prints the same)

    # -- queries -------------------------------------------------------------------------------
    @property
    def layout(self):
        return sparse_coo

    is_sparse = property(lambda self: True)

    def is_coalesced(self) -> bool:
        return self._sp_coalesced

    def _nnz(self) -> int:
        return self._sp_indices.shape[1]

    def sparse_dim(self) -> int:
        return self._sp_indices.shape[0]

    def dense_dim(self) -> int:
        return self._sp_values.ndim - 1

    def _indices(self) -> Tensor:
        return _wrap(self._sp_indices)

    def _values(self) -> Tensor:
        return _wrap(self._sp_values)

    def indices(self) -> Tensor:
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return _wrap(self._sp_indices)

    def values(self) -> Tensor:
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        from . import _ops

        return _ops.values(self)

    def stride(self, dim=None):
        # torch 2.13 answers zeros for a sparse tensor's strides
        ndim = self._data.ndim
        if dim is None:
            return (0,) * ndim
        from ..tensor import _wrap_dim

        _wrap_dim(dim, ndim)
        return 0

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def storage_offset(self) -> int:
        return 0

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    storage = untyped_storage

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self.to_dense().item()

    def __float__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.to_dense())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense())

    def __len__(self) -> int:
        if not self._data.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __hash__(self) -> int:
        return id(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._sp_indices, self._sp_values, self._data.shape,
                           self._sp_coalesced, self.requires_grad))

    def __deepcopy__(self, memo):
        if self._node is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        result = make(self._sp_indices.copy(), self._sp_values.copy(), self._data.shape,
                      self._sp_coalesced, self._requires_grad)
        memo[id(self)] = result
        return result

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return "torch.sparse." + _LEGACY_NAMES[self.dtype]
        return super().type(dtype, non_blocking, **kwargs)

    # -- printing ------------------------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None) -> str:
        from .._printing import _body

        indent = len("tensor(")
        dtype = self.dtype
        default = _dtype.get_default_dtype()
        suffixes = [f"size={tuple(self._data.shape)}", f"nnz={self._nnz()}"]
        if dtype not in (default, _dtype.default_complex_dtype(), _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={dtype}")
        pieces = []
        for name, data, floating in (
                ("indices", self._sp_indices, False),
                ("values", self._sp_values, dtype.is_floating_point)):
            prefix = f"{name}=tensor("
            if data.size:
                text = _body(data, floating, indent + len(prefix))
            else:
                text = f"[], size={tuple(data.shape)}"
            pieces.append(prefix + text + ")")
        suffixes.append(f"layout={sparse_coo}")
        fn = self._node
        if fn is not None:
            suffixes.append(f"grad_fn=<{type(fn).__name__}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        text = "tensor(" + pieces[0] + ",\n" + " " * indent + pieces[1]
        return _add_suffixes(text, suffixes, indent)

    __str__ = __repr__

    # -- autograd ------------------------------------------------------------------------------
    def _accumulate_grad(self, grad) -> None:
        old = self._grad_value
        if old is None:
            from ._ops import stored_grad

            self._grad_value = stored_grad(grad)
        elif isinstance(old, SparseTensor) and not isinstance(grad, SparseTensor):
            self._grad_value = grad + old  # (a dense gradient, torch.mm's: dense + sparse)
        else:
            self._grad_value = old + grad

    def detach(self) -> "SparseTensor":
        t = make(self._sp_indices, self._sp_values, self._data.shape, self._sp_coalesced)
        t._vc = self._version_counter()
        return t

    @property
    def data(self) -> "SparseTensor":
        return make(self._sp_indices, self._sp_values, self._data.shape, self._sp_coalesced)

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, SparseTensor):
            raise RuntimeError("data set to a tensor of a different layout")
        self._data = value._data
        self._sp_indices, self._sp_values = value._sp_indices, value._sp_values
        self._sp_coalesced = value._sp_coalesced


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    """torch's _add_suffixes with force_newline (its sparse form): the first suffix starts a
    line, the others wrap at the line width."""
    from .._printing import _add_suffixes as add

    return add(text, suffixes, indent, force_newline=True)


_LEGACY_NAMES = {}


def _rebuild(indices, values, shape, coalesced, requires_grad):
    return make(indices, values, tuple(shape), coalesced, requires_grad)


def _legacy_names() -> None:
    for dtype, name in ((_dtype.float32, "FloatTensor"), (_dtype.float64, "DoubleTensor"),
                        (_dtype.float16, "HalfTensor"), (_dtype.bfloat16, "BFloat16Tensor"),
                        (_dtype.int64, "LongTensor"), (_dtype.int32, "IntTensor"),
                        (_dtype.int16, "ShortTensor"), (_dtype.int8, "CharTensor"),
                        (_dtype.uint8, "ByteTensor"), (_dtype.bool, "BoolTensor")):
        _LEGACY_NAMES[dtype] = name


_legacy_names()

# Operators torch has no SparseCPU kernel for, as methods (torch's dispatcher error).
for _name, _group in (
        ("exp", "elementwise"), ("log", "elementwise"), ("sigmoid", "elementwise"),
        ("clamp", "elementwise"), ("exp2", "elementwise"), ("log2", "elementwise"),
        ("log10", "elementwise"), ("cos", "elementwise"), ("cosh", "elementwise"),
        ("reciprocal", "elementwise"), ("rsqrt", "elementwise"), ("max", "cpu"),
        ("min", "cpu"), ("argmax", "elementwise"), ("argmin", "elementwise"),
        ("fill_", "fill"), ("view", "view"), ("eq", "comparison"), ("ne", "comparison"),
        ("lt", "comparison"), ("le", "comparison"), ("gt", "comparison"), ("ge", "comparison"),
        ("as_strided", "cpu"), ("squeeze", "cpu"), ("narrow", "cpu"), ("expand_as", "cpu")):
    _operator = {"view": "aten::view", "squeeze": "aten::as_strided",
                 "narrow": "aten::as_strided", "expand_as": "aten::as_strided",
                 "fill_": "aten::fill_.Scalar", "clamp": "aten::clamp"}.get(
        _name, f"aten::{_name}")
    setattr(SparseTensor, _name, _refuse(_operator, _group))
SparseTensor.mean = _refuse("aten::mean.dim")
SparseTensor.reshape = _runtime("reshape is not implemented for sparse tensors")
SparseTensor.flatten = SparseTensor.reshape
SparseTensor.expand = _runtime("expand is unsupported for Sparse tensors")
SparseTensor.contiguous = _runtime("unsupported memory format option Contiguous")
SparseTensor.__name__ = SparseTensor.__qualname__ = "Tensor"  # (see the class's note)
