"""Writing torch's zip checkpoint: a pickle whose tensors reduce through torch's rebuild
functions and whose storages are persistent ids, plus one aligned raw record per storage."""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import types
import zipfile
from typing import Any

import numpy as np

from .. import _dtype
from .._device import device as _device
from ..tensor import Size, Tensor, _wrap
from ._format import _ALIGNMENT, storage_name


class _TorchGlobal:
    """A name in torch's namespace, written into the pickle as a GLOBAL (torch need not be
    installed to write it)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires reduce functions to be callable
        raise TypeError(f"{self.module}.{self.name} is a placeholder for writing checkpoints")


class _StorageRef:
    __slots__ = ("key", "dtype", "numel")

    def __init__(self, key: str, dtype: np.dtype, numel: int):
        self.key, self.dtype, self.numel = key, dtype, numel


def _root(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory (following ``.base``), or ``array`` itself when
    the owner is not an ndarray of the same dtype with a contiguous block."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.dtype != array.dtype or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return array
    return root


def _uninitialized() -> type:
    from ..nn.parameter import UninitializedTensorMixin

    return UninitializedTensorMixin


class _Pickler(pickle._Pickler):  # the pure-Python pickler lets GLOBALs be written by name
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol: int):
        super().__init__(file, protocol)
        self.storages: dict[int, tuple[str, np.ndarray]] = {}

    def _save_torch_global(self, obj: _TorchGlobal) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_TorchGlobal] = _save_torch_global

    def _save_dtype(self, obj) -> None:
        self.write(pickle.GLOBAL + f"torch\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_dtype.dtype] = _save_dtype
    dispatch[_dtype._WideUnsignedDtype] = _save_dtype
    dispatch[_dtype._ComplexDtype] = _save_dtype  # (a dtype saved by itself, in a dict)
    dispatch[_dtype._BFloat16Dtype] = _save_dtype

    def save_global(self, obj, name=None) -> None:
        try:
            super().save_global(obj, name)
        except pickle.PicklingError:
            # torch pickles with the C pickler, whose errors differ from the pure-Python one's
            # (a local class: AttributeError "Can't pickle local object"): raise the C one's
            pickle.dumps(obj, self.proto)
            raise

    dispatch[types.FunctionType] = save_global

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            name = storage_name(obj.dtype)
            if name is None:  # uint16/32/64 have no typed storage: bytes, as torch writes them
                storage_type = _TorchGlobal("torch.storage", "UntypedStorage")
                return ("storage", storage_type, obj.key, "cpu", obj.numel * obj.dtype.itemsize)
            return ("storage", _TorchGlobal("torch", name), obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if isinstance(obj, _uninitialized()):  # a lazy module's: its class and flag, as torch
                return (_TorchGlobal("torch.nn.parameter", type(obj).__name__),
                        (obj._requires_grad,))
            return self._reduce_tensor(obj)
        if isinstance(obj, _Reduced):
            return obj.reduced
        if isinstance(obj, Size):
            return (_TorchGlobal("torch", "Size"), (tuple(obj),))
        if isinstance(obj, _device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_TorchGlobal("torch", "device"), args)
        return NotImplemented

    def _storage(self, array: np.ndarray) -> tuple[_StorageRef, int, tuple]:
        """(storage, element offset, element strides) for an array, sharing storages."""
        root = _root(array)
        itemsize = array.itemsize
        offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        strides = tuple(s // itemsize for s in array.strides)
        if root is array and not array.flags.c_contiguous:
            root = offset = None
        if (root is None or offset % itemsize or any(s < 0 for s in strides)
                or any(s % itemsize for s in array.strides)):
            # negative or misaligned strides cannot be described to torch: store a copy
            root = np.ascontiguousarray(array)
            offset = 0
            strides = tuple(s // itemsize for s in root.strides)
        entry = self.storages.get(id(root))
        if entry is None:
            key = str(len(self.storages))
            self.storages[id(root)] = entry = (key, root)
        if array.size == 0:
            strides = _contiguous_strides(array.shape)
        ref = _StorageRef(entry[0], array.dtype, root.size)
        return ref, offset // itemsize, strides

    def _reduce_tensor(self, tensor: Tensor):
        from ..nn.parameter import Parameter

        if tensor.is_sparse:  # torch's: the layout, then indices, values, size and flag
            layout = (_TorchGlobal("torch.serialization", "_get_layout"), ("torch.sparse_coo",))
            return (_TorchGlobal("torch._utils", "_rebuild_sparse_tensor"),
                    (_Reduced(layout), (tensor._indices(), tensor._values(), tensor.shape,
                                        tensor.is_coalesced())))

        state = tensor.__dict__  # user attributes travel as torch's do
        kind = type(tensor)
        if issubclass(kind, Parameter):  # (a subclass nn.Parameter marked is saved as below)
            args = (_wrap(tensor._data), tensor._requires_grad, collections.OrderedDict())
            if state:
                return (_TorchGlobal("torch._utils", "_rebuild_parameter_with_state"),
                        args + (dict(state),))
            return (_TorchGlobal("torch._utils", "_rebuild_parameter"), args)
        storage, offset, strides = self._storage(tensor._data)
        args = (storage, offset, tuple(tensor._data.shape), strides, tensor._requires_grad,
                collections.OrderedDict())
        rebuild = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
        if storage_name(tensor._data.dtype) is None:  # uint16/32/64: torch's v3 names the dtype
            rebuild = _TorchGlobal("torch._utils", "_rebuild_tensor_v3")
            args = args + (tensor.dtype,)
        user_class = kind is not Tensor and not kind.__module__.startswith("leafgrad")
        if state or user_class:
            # a user's subclass is pickled by reference, as torch's Tensor.__reduce_ex__ does
            # (a local class cannot be: pickle's error)
            new_type = kind if user_class else _TorchGlobal("torch", "Tensor")
            return (_TorchGlobal("torch._tensor", "_rebuild_from_type_v2"),
                    (rebuild, new_type, args, dict(state)))
        return (rebuild, args)


class _Reduced:
    """An object pickled as the (callable, args) pair it holds."""

    def __init__(self, reduced: tuple):
        self.reduced = reduced


def _contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return name or "archive"
    return "archive"


def save(obj: Any, f, pickle_module=pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False
         ) -> None:
    """Write ``obj`` (tensors, Parameters, state dicts, containers, numbers, strings) to
    ``f`` (a path or a binary file) in torch's checkpoint format."""
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    if not _use_new_zipfile_serialization:
        from ._legacy import save_legacy

        if isinstance(f, (str, os.PathLike)):
            with open(f, "wb") as handle:
                save_legacy(obj, handle, pickle_protocol)
        else:
            save_legacy(obj, f, pickle_protocol)
        return
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, pickle_protocol)
    pickler.dump(obj)
    name = _archive_name(f)
    records = [("data.pkl", buffer.getvalue()), (".format_version", b"1"),
               (".storage_alignment", str(_ALIGNMENT).encode())]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    for key, root in pickler.storages.values():
        array = root.astype(root.dtype.newbyteorder("<"), copy=False)
        records.append((f"data/{key}", array.ravel(order="K").tobytes(order="A")))
    records.append(("version", b"3\n"))
    records.append((".data/serialization_id", _serialization_id(records)))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            _write_zip(handle, name, records)
    else:
        _write_zip(f, name, records)


def _serialization_id(records) -> bytes:
    import hashlib

    digest = hashlib.sha1()
    for record, data in records:
        digest.update(record.encode())
        digest.update(data)
    return digest.hexdigest().zfill(40).encode()


class _FromHere:
    """A binary file seen from its current position: the archive's offsets start at 0 there
    (torch reads a checkpoint saved mid-file from that point), and a stream that cannot seek
    still reports how much was written, so data records stay aligned."""

    def __init__(self, handle):
        self.handle = handle
        self.can_seek = handle.seekable() if hasattr(handle, "seekable") else False
        self.start = handle.tell() if self.can_seek else 0
        self.written = 0

    def seekable(self) -> bool:
        return self.can_seek

    def write(self, data) -> int:
        self.handle.write(data)
        self.written += len(data)
        return len(data)

    def tell(self) -> int:
        return self.handle.tell() - self.start if self.can_seek else self.written

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            offset += self.start
        return self.handle.seek(offset, whence) - self.start

    def flush(self) -> None:
        if hasattr(self.handle, "flush"):
            self.handle.flush()


def _write_zip(handle, name: str, records) -> None:
    """Stored (uncompressed) records, each one's data starting at a multiple of 64 bytes."""
    stream = _FromHere(handle)
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
        for record, data in records:
            info = zipfile.ZipInfo(f"{name}/{record}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            used = stream.tell() + 30 + len(info.filename.encode()) + 4
            padding = (-used) % _ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
            archive.writestr(info, data)
