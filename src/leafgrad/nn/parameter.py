"""``nn.Parameter`` (a leaf tensor a Module registers as learnable) and ``nn.Buffer``."""

from __future__ import annotations

from .. import _dtype as _dtype

from ..tensor import Tensor, _wrap

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _alias(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A ``cls`` instance sharing ``data``'s memory and version counter, with no history."""
    if _dtype.kind(data._data) not in "fc" and requires_grad:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = object.__new__(cls)
    plain = _wrap(data._data, bool(requires_grad))
    for slot in Tensor.__slots__:
        if slot not in ("__weakref__", "__dict__", "_fw_grad", "_post_acc_hooks",
                        "_creation_meta", "_grad_dtype"):  # (set on views only; set if set)
            object.__setattr__(t, slot, getattr(plain, slot))
    t._vc = data._version_counter()
    return t


from ..overrides import _disabled_torch_function_impl


class _ParameterMeta(type):
    """``isinstance(t, Parameter)`` is also True for an instance of a user's Tensor subclass
    marked ``_is_param`` (torch's _ParameterMeta): ``Parameter(subclass_instance)`` keeps the
    subclass and marks it."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Parameter and isinstance(instance, Tensor) and getattr(
                instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    >>> w = leafgrad.nn.Parameter(leafgrad.zeros(2))
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    __torch_function__ = _disabled_torch_function_impl  # (dispatched as a plain tensor)

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._creation import empty

            data = empty(0)
        if type(data) is Tensor or type(data) is Parameter:
            return _alias(cls, data, requires_grad)
        # a user's subclass (torch's path for custom tensors): its detached alias, marked
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} requires "
                "that detach() returns an instance of the same type, but return type "
                f"{type(t).__name__} was found instead. To use the type as a Parameter, please "
                "correct the detach() semantics defined by its __torch_dispatch__() "
                "implementation.")
        t._is_param = True
        return t

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # torch's Parameter.__deepcopy__ copies the data only: the copy's .grad is None
        # (a plain tensor's deepcopy keeps its grad)
        result = type(self)(_wrap(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))

    @classmethod
    def _from_tensor(cls, tensor: Tensor) -> "Parameter":
        return cls(tensor, tensor._requires_grad)


def _rebuild_parameter(data, requires_grad: bool) -> Parameter:
    return Parameter(_wrap(data), requires_grad)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is True for any tensor marked ``_is_buffer`` (torch's
    _BufferMeta): what ``nn.Buffer(...)`` returns, and the same object once registered."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(
                instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer when assigned to a Module attribute (``nn.Buffer`` in torch).

    As in torch, ``Buffer(data)`` is a plain Tensor (``data`` detached) carrying the marks
    ``persistent`` and ``_is_buffer``: assigning it registers it with ``register_buffer``, and
    assigning the registered tensor to another attribute registers it again (tied buffers).
    """

    __torch_function__ = _disabled_torch_function_impl  # (dispatched as a plain tensor)

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from .._creation import empty

            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


# -- uninitialized parameters and buffers (lazy modules) --------------------------------------

_RAW = Tensor.__dict__["_data"]  # the slot itself, under the property that guards it below


def _caller_name() -> str:
    """The leafgrad function the user called, for torch's 'Attempted to use ... in <func>'
    (torch names the intercepted callable; here the outermost leafgrad frame)."""
    import sys

    frame, name = sys._getframe(2), "an operation"
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("leafgrad"):
            name = frame.f_code.co_name
        elif name != "an operation":
            break
        frame = frame.f_back
    return name


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet. Its dtype, ``size()``,
    ``requires_grad`` and conversions (``float()``, ``to()``) work; anything that reads its
    values raises torch's ValueError; ``materialize(shape)`` turns it into the plain class."""

    __torch_function__ = _disabled_torch_function_impl

    cls_to_become: type = Tensor

    def _refuse(self, func: str):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error "
            "happens when you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")

    @property
    def _data(self):
        self._refuse(_caller_name())

    # the methods torch refuses although leafgrad's Tensor writes them through ``to``
    # (conversions off torch's allowed list) or without reading the values
    def _refused_method(name: str):
        def refused(self, *args, **kwargs):
            self._refuse(f"<method '{name}' of 'torch._C.TensorBase' objects>")

        refused.__name__ = name
        return refused

    bfloat16 = _refused_method("bfloat16")
    bool = _refused_method("bool")
    byte = _refused_method("byte")
    cfloat = _refused_method("cfloat")
    cdouble = _refused_method("cdouble")
    chalf = _refused_method("chalf")
    requires_grad_ = _refused_method("requires_grad_")
    del _refused_method

    @_data.setter
    def _data(self, value) -> None:
        _RAW.__set__(self, value)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give it ``shape`` (uninitialized values, as torch.empty) and its final class.
        ``shape`` is read as ``torch.empty`` reads it: an int, a sequence or a Size."""
        from .._creation import empty

        if dtype is None:
            dtype = self.dtype
        _RAW.__set__(self, _RAW.__get__(empty(shape, device=device, dtype=dtype)))
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def size(self, dim=None):
        from ..tensor import Size

        shape = _RAW.__get__(self).shape
        return Size(shape) if dim is None else shape[dim]

    @property
    def dtype(self):
        from .._dtype import from_numpy_dtype

        return from_numpy_dtype(_RAW.__get__(self).dtype)

    def _converted(self, dtype) -> None:
        """``float()`` / ``double()`` / ``to(dtype)``: the same object, another dtype."""
        import numpy as np

        _RAW.__set__(self, np.empty(0, dtype=dtype.np))
        return self

    # Note: what an uninitialized tensor answers. torch lets through its C properties (device,
    # is_meta, ndim, itemsize, nbytes: those of an empty 1-d tensor) and a short list of methods
    # (UninitializedTensorMixin._allowed_methods): the dtype queries and the conversions, which
    # give back the same object when nothing changes (so `module.to(device)` works before the
    # first forward, as in d2l's use-gpu chapter); everything else raises the ValueError above.
    def _placeholder(self) -> Tensor:
        return _wrap(_RAW.__get__(self))

    is_meta = property(lambda self: False)
    device = property(lambda self: self._placeholder().device)
    ndim = property(lambda self: 1)
    itemsize = property(lambda self: self._placeholder().itemsize)
    nbytes = property(lambda self: 0)

    def is_floating_point(self) -> bool:
        return self._placeholder().is_floating_point()

    def is_complex(self) -> bool:
        return self._placeholder().is_complex()

    def get_device(self) -> int:
        return -1

    def to(self, *args, **kwargs):
        placeholder = self._placeholder()
        result = placeholder.to(*args, **kwargs)
        if result is placeholder:
            return self
        if isinstance(self, Parameter):  # torch: a plain empty tensor copied from it
            return placeholder.requires_grad_(self._requires_grad).to(*args, **kwargs)
        converted = type(self)(self._requires_grad, dtype=result.dtype)
        converted.persistent = getattr(self, "persistent", True)
        return converted

    def cpu(self, memory_format=None):
        return self

    def type(self, dtype=None, non_blocking=False, **kwargs):
        return self._data  # (not on torch's list: its ValueError, naming type)

    def float(self, *, memory_format=None):
        return self.to(_dtype.float32)

    def double(self, *, memory_format=None):
        return self.to(_dtype.float64)

    def half(self, *, memory_format=None):
        return self.to(_dtype.float16)

    def long(self, *, memory_format=None):
        return self.to(_dtype.int64)

    def int(self, *, memory_format=None):
        return self.to(_dtype.int32)

    def short(self, *, memory_format=None):
        return self.to(_dtype.int16)

    def char(self, *, memory_format=None):
        return self.to(_dtype.int8)

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy module before its first forward.

    >>> p = leafgrad.nn.UninitializedParameter()
    >>> p.materialize((2, 3)); type(p).__name__
    'Parameter'
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from .._creation import empty

        return _alias(cls, empty(0, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self._requires_grad, None, self.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first forward."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        from .._creation import empty

        t = _alias(cls, empty(0, dtype=dtype), requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self._requires_grad, None, self.dtype, self.persistent)
        memo[id(self)] = result
        return result


def is_lazy(value) -> bool:
    return isinstance(value, UninitializedTensorMixin)
