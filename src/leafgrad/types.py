"""``torch.types``: the type aliases annotations use (``from torch.types import Number``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union

from ._device import device as _device
from ._dtype import dtype as _dtype
from .storage import UntypedStorage as Storage
from .tensor import Size, Tensor

__all__ = ["Number", "Device", "FileLike", "Storage", "Size", "Tensor", "IntLikeType",
           "FloatLikeType", "BoolLikeType"]

_bool = bool
_int = int
_float = float
_complex = complex
_str = str
_bytes = bytes
_size: TypeAlias = Union[Size, list[int], tuple[int, ...]]  # noqa: UP007 - torch's spelling
_symsize: TypeAlias = _size
_TensorOrTensors: TypeAlias = Union[Tensor, Sequence[Tensor]]  # noqa: UP007
_TensorOrOptionalTensors: TypeAlias = Union[Tensor, Sequence[Union[Tensor, None]]]  # noqa: UP007
_Number = (int, float, bool)
Number: TypeAlias = Union[int, float, bool]  # noqa: UP007
Device: TypeAlias = Union[_device, str, int, None]  # noqa: UP007
FileLike: TypeAlias = Union[str, os.PathLike, IO[bytes]]  # noqa: UP007
IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
_dtype = _dtype
_device = _device
del Any
