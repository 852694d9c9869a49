"""What leafgrad.load may resolve while unpickling: torch's weights_only=True allow-list
(rebuild functions, storage and dtype names, Size, device, OrderedDict, Counter, ...) mapped
to leafgrad's objects, the user's additions (add_safe_globals), and the refusal messages."""

from __future__ import annotations

import collections
import pickle

import numpy as np

from .. import _dtype
from .._device import device as _device
from ..tensor import Size, Tensor, _wrap

_USER_SAFE_GLOBALS: list = []


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None) -> Tensor:
    array = storage
    itemsize = array.itemsize
    if len(size) and 0 in size:
        data = np.empty(size, dtype=array.dtype)
    else:
        data = np.lib.stride_tricks.as_strided(
            array[storage_offset:], shape=tuple(size),
            strides=tuple(s * itemsize for s in stride))
    return _wrap(data, bool(requires_grad))


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None) -> Tensor:
    """torch's rebuild for dtypes without a typed storage (uint16/32/64): the storage is
    bytes, viewed as ``dtype``."""
    if not isinstance(dtype, _dtype.dtype) or storage.dtype != np.uint8:
        raise pickle.UnpicklingError("_rebuild_tensor_v3 expects an untyped storage and a dtype")
    np_dtype = dtype.np
    if storage.size % np_dtype.itemsize:
        raise RuntimeError(f"a storage of {storage.size} bytes cannot hold {dtype} elements: "
                           "the file is corrupted")
    typed = storage.view(np_dtype.newbyteorder("<"))
    if typed.dtype != np_dtype:  # a big-endian machine
        typed = typed.astype(np_dtype)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks)


def _set_state(obj, state):
    """Restore saved attributes (a ``__dict__``, or a ``(__dict__, slots)`` pair)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        parts = state
    else:
        parts = (state,)
    for part in parts:
        for key, value in (part or {}).items():
            setattr(obj, key, value)
    return obj


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from ..nn.parameter import Parameter

    return _set_state(Parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor saved with attributes (or as a subclass): rebuilt by ``func``, then given
    its attributes; only types on the allow-list reach here."""
    result = func(*args)
    if type(result) is not new_type:  # a user's subclass (torch's as_subclass: an alias)
        result = result.as_subclass(new_type)
    setstate = getattr(type(result), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        result.__setstate__(state)
        return result
    return _set_state(result, state)


def _parameter_class():
    from ..nn.parameter import Parameter

    return Parameter


def _size(values) -> Size:
    return Size(values)


def _rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor for the COO layout (leafgrad.sparse)."""
    from .. import sparse_coo

    if layout is not sparse_coo:
        raise NotImplementedError(f"rebuilding sparse tensor for layout {layout}")
    indices, values, size = data[:3]
    is_coalesced = data[3] if len(data) > 3 else None
    from ..sparse import sparse_coo_tensor

    return sparse_coo_tensor(indices, values, size, check_invariants=False,
                             is_coalesced=is_coalesced)


def _get_layout(name: str):
    from .. import _layouts

    found = getattr(_layouts, name.rsplit(".", 1)[-1], None)
    if not isinstance(found, _layouts.layout):
        raise RuntimeError(f"Unsupported layout {name}")
    return found


def _allowed_globals() -> dict:
    allowed = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch.storage.UntypedStorage": np.uint8,  # the bytes of a uint16/32/64 tensor
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch.serialization._get_layout": _get_layout,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.nn.parameter.Parameter": _parameter_class(),
        "torch.Tensor": Tensor,
        "torch.Size": _size,
        "torch.device": _device,
        "_codecs.encode": _latin1_encode,
        "builtins.set": set,
        "builtins.complex": complex,
        "builtins.bytearray": bytearray,
    }
    for d in (*_dtype.ALL, _dtype.bfloat16):
        allowed["torch." + d.name] = d
    for user in _USER_SAFE_GLOBALS:  # torch's rules for add_safe_globals entries
        if isinstance(user, tuple):
            if len(user) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(user)}")
            if type(user[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(user[1])}")
            allowed[user[1]] = user[0]
        else:
            allowed[f"{user.__module__}.{user.__qualname__}"] = user
    return allowed


def _latin1_encode(text, encoding="latin1"):
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError("_codecs.encode is allowed only for latin1 bytes")
    return text.encode("latin1")


# torch's wording (first lines included), then leafgrad's own note
_WEIGHTS_ONLY = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source."
)
_LEAFGRAD_NOTE = (
    "\n(leafgrad resolves only allow-listed globals unless weights_only=False: resolving this "
    "one could run code from the file.)"
)
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _unsafe(module: str, name: str) -> pickle.UnpicklingError:
    full = f"{module}.{name}"
    if module in _BLOCKED_MODULES:
        detail = f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked."
        message = f"Weights only load failed. {_WEIGHTS_ONLY}\n\n\n{detail}"
    else:
        shown = name if module == "builtins" else full
        detail = (f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
                  f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
                  f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist "
                  "this global if you trust this class/function.")
        message = ("Weights only load failed. This file can still be loaded, to do so you have "
                   "two options, \033[1mdo those steps only if you trust the source of the "
                   f"checkpoint\033[0m. \n\t(1) {_WEIGHTS_ONLY}\n\t(2) Alternatively, to load "
                   "with `weights_only=True` please check the recommended steps in the "
                   f"following error message.\n\tWeightsUnpickler error: {detail}")
    return pickle.UnpicklingError(message + _LEAFGRAD_NOTE)



# -- user allow-list (torch.serialization's names) ---------------------------------------------
def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) in ``load``.

    >>> leafgrad.serialization.add_safe_globals([MyConfig])  # doctest: +SKIP"""
    for entry in safe_globals:
        if entry not in _USER_SAFE_GLOBALS:
            _USER_SAFE_GLOBALS.append(entry)


def get_safe_globals() -> list:
    return list(_USER_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    _USER_SAFE_GLOBALS.clear()


class safe_globals:
    """Context manager: ``add_safe_globals`` for the duration of a ``with`` block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self.saved = list(_USER_SAFE_GLOBALS)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _USER_SAFE_GLOBALS[:] = self.saved

