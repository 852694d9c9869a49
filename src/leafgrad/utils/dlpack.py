"""``torch.utils.dlpack``: exchanging tensors with other array libraries without a copy.

leafgrad's tensors are NumPy arrays underneath, so the exchange is NumPy's: a tensor exports
its array (``Tensor.__dlpack__``, ``to_dlpack``) and ``from_dlpack`` wraps what NumPy imports
(any object with ``__dlpack__`` such as a NumPy array, a torch or JAX tensor, or a legacy
``"dltensor"`` capsule). Memory is shared both ways. CPU only, like the rest of leafgrad.
"""

from __future__ import annotations

import ctypes
import enum

import numpy as np

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


_INVALID = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
            "only once, so you might have already constructed a tensor from it once.")

_capsule_type = type(np.arange(1).__dlpack__())
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _Capsule:
    """A legacy capsule presented to NumPy as a producer (NumPy imports objects, not capsules)."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def to_dlpack(tensor):
    """A ``"dltensor"`` capsule over ``tensor``'s memory (consumable once)."""
    return tensor._data.__dlpack__()


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor over the memory of ``ext_tensor`` (an object with ``__dlpack__`` or a
    ``"dltensor"`` capsule); ``copy=True`` copies it."""
    from ..tensor import Tensor, _wrap

    if device is not None:
        from .._device import device as _device

        if _device(device).type != "cpu":
            raise AssertionError("Torch not compiled with CUDA enabled")
    if type(ext_tensor) is _capsule_type:
        if not _is_valid(ext_tensor, b"dltensor"):
            raise RuntimeError(_INVALID)
        producer = _Capsule(ext_tensor)
    elif hasattr(ext_tensor, "__dlpack__"):
        producer = ext_tensor
    else:
        raise RuntimeError(_INVALID)
    if isinstance(producer, Tensor):
        producer.__dlpack__()  # torch's refusals (requires grad, conjugate bit)
        array = producer._data
    else:
        array = np.from_dlpack(producer)
    if copy:
        array = array.copy()
    return _wrap(array)
