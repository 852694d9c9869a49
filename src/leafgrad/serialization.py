"""``leafgrad.save`` / ``leafgrad.load``: PyTorch's checkpoint format, both ways, safely.

A checkpoint is the zip archive ``torch.save`` writes: ``<name>/data.pkl`` (a protocol-2
pickle of the object in which every tensor is ``torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, hooks)`` and every storage a persistent id
``("storage", torch.FloatStorage, key, "cpu", numel)``), one record ``<name>/data/<key>`` of raw
little-endian bytes per storage (64-byte aligned), and small records for the format version,
alignment and byte order. So ``torch.load(path, weights_only=True)`` reads what
``leafgrad.save`` writes, and ``leafgrad.load`` reads what ``torch.save`` writes; tensors that
share memory are written once and load sharing memory again.

Note: loading never runs code from the file. The unpickler resolves globals through an
allow-list (the tensor/parameter rebuild functions, storage and dtype names, ``torch.Size``,
``OrderedDict``, the ``_codecs.encode`` that protocol-2 bytes use) and refuses any other with
``pickle.UnpicklingError``, the check torch's ``weights_only=True`` makes.

>>> leafgrad.save({"w": leafgrad.ones(2)}, "/tmp/w.pt")
>>> leafgrad.load("/tmp/w.pt")
{'w': tensor([1., 1.])}
"""

from __future__ import annotations

import _compat_pickle
import collections
import io
import os
import pickle
import struct
import zipfile
from typing import Any

import numpy as np

from . import _dtype
from ._device import device as _device
from .tensor import Size, Tensor, _wrap

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]

_ALIGNMENT = 64
_STORAGE_TYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
}
_STORAGE_BY_DTYPE = {np.dtype(v): k for k, v in _STORAGE_TYPES.items()}
_USER_SAFE_GLOBALS: list = []


# -- saving ---------------------------------------------------------------------------------------
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

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            storage_type = _TorchGlobal("torch", _STORAGE_BY_DTYPE[obj.dtype])
            return ("storage", storage_type, obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
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
        from .nn.parameter import Parameter

        state = tensor.__dict__  # user attributes travel as torch's do
        if isinstance(tensor, Parameter):
            args = (_wrap(tensor._data), tensor._requires_grad, collections.OrderedDict())
            if state:
                return (_TorchGlobal("torch._utils", "_rebuild_parameter_with_state"),
                        args + (dict(state),))
            return (_TorchGlobal("torch._utils", "_rebuild_parameter"), args)
        storage, offset, strides = self._storage(tensor._data)
        args = (storage, offset, tuple(tensor._data.shape), strides, tensor._requires_grad,
                collections.OrderedDict())
        rebuild = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
        if state:
            return (_TorchGlobal("torch._tensor", "_rebuild_from_type_v2"),
                    (rebuild, _TorchGlobal("torch", "Tensor"), args, dict(state)))
        return (rebuild, args)


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
        from .serialization_legacy import save_legacy

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


def _write_zip(handle, name: str, records) -> None:
    """Stored (uncompressed) records, each one's data starting at a multiple of 64 bytes."""
    start = handle.tell() if handle.seekable() else 0
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        for record, data in records:
            info = zipfile.ZipInfo(f"{name}/{record}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            header = handle.tell() - start if handle.seekable() else 0
            used = header + 30 + len(info.filename.encode()) + 4
            padding = (-used) % _ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
            archive.writestr(info, data)


# -- loading -------------------------------------------------------------------------------------
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
    from .nn.parameter import Parameter

    return _set_state(Parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor saved with attributes (or as a subclass): rebuilt by ``func``, then given
    its attributes; only types on the allow-list reach here."""
    result = func(*args)
    if type(result) is not new_type:
        raise pickle.UnpicklingError(
            f"leafgrad cannot rebuild a tensor as {new_type.__qualname__}")
    setstate = getattr(type(result), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        result.__setstate__(state)
        return result
    return _set_state(result, state)


def _parameter_class():
    from .nn.parameter import Parameter

    return Parameter


def _size(values) -> Size:
    return Size(values)


def _allowed_globals() -> dict:
    allowed = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
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
    for d in _dtype.ALL:
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
    "\n(leafgrad never unpickles arbitrary objects, weights_only=False included: resolving this "
    "global could run code from the file.)"
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


_CUDA_MESSAGE = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU."
)


def _to_cpu(array: np.ndarray, location: str) -> np.ndarray:
    """The default placement: leafgrad is CPU-only, so storages saved on a GPU ("cuda:0")
    load on the CPU (torch would refuse on a machine without CUDA)."""
    if not isinstance(location, str) or not (
            location == "cpu" or location == "cuda" or (
                location.startswith("cuda:") and location[5:].isdigit())):
        raise RuntimeError(
            f"don't know how to restore data location of torch.storage.UntypedStorage "
            f"(tagged with {location})")
    return array


def _explicit(array: np.ndarray, location) -> np.ndarray:
    """A placement the caller asked for: "cuda" cannot be honoured, as in torch without CUDA."""
    location = str(location)
    if location == "cuda" or location.startswith("cuda:"):
        raise RuntimeError(_CUDA_MESSAGE)
    return _to_cpu(array, location)


def _restore_location(map_location):
    """``map_location`` (None, a str, a device, a dict or a callable) as a function
    ``(storage array, saved location) -> storage array``."""
    if map_location is None:
        return _to_cpu
    if isinstance(map_location, bytes):
        map_location = map_location.decode()
    if isinstance(map_location, dict):
        def restore(array, location):
            if location in map_location:
                return _explicit(array, map_location[location])
            return _to_cpu(array, location)
        return restore
    if isinstance(map_location, str) or type(map_location).__name__ == "device":
        return lambda array, location: _explicit(array, map_location)
    if not callable(map_location):
        raise TypeError(f"'{type(map_location).__name__}' object is not callable")

    def restore(array, location):
        result = map_location(array, location)
        if result is None:
            return _to_cpu(array, location)
        if not isinstance(result, np.ndarray) or result.shape != array.shape:
            raise TypeError("map_location must return the storage it was given (leafgrad "
                            "keeps every storage on the CPU) or None")
        return result
    return restore


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, read_record, allowed: dict, restore=_to_cpu):
        super().__init__(file, encoding="utf-8")
        self.read_record = read_record
        self.allowed = allowed
        self.restore = restore
        self.storages: dict[str, np.ndarray] = {}

    def storage_dtype(self, storage_type) -> np.dtype:
        if isinstance(storage_type, type) and issubclass(storage_type, np.generic):
            return np.dtype(storage_type)
        raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r}")

    def find_class(self, module: str, name: str):
        # protocol-2 pickles name Python 2 modules (__builtin__.set): Python 3's names
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if module == "torch" and name in _STORAGE_TYPES:
            return _STORAGE_TYPES[name]
        if module == "torch" and name.endswith("Storage") and name[:1].isupper():
            raise pickle.UnpicklingError(
                f"the file holds a torch.{name}, a dtype leafgrad does not have")
        if module in _BLOCKED_MODULES:
            raise _unsafe(module, name)
        try:
            return self.allowed[f"{module}.{name}"]
        except KeyError:
            raise _unsafe(module, name) from None

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        array = self.storages.get(key)
        if array is None:
            dtype = self.storage_dtype(storage_type)
            raw = self.read_record(f"data/{key}")
            if len(raw) != numel * dtype.itemsize:
                raise RuntimeError(
                    f"storage data/{key} holds {len(raw)} bytes, expected {numel} elements of "
                    f"{dtype.itemsize} bytes: the file is corrupted"
                )
            array = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
            array = self.restore(array, location)
            self.storages[key] = array
        return array


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap=None, **pickle_load_args):
    """Read a checkpoint written by ``torch.save`` or ``leafgrad.save``.

    Only allow-listed globals are resolved (see Note: loading never runs code), so
    ``weights_only=False`` is refused. Storages load on the CPU, also those saved on a GPU;
    ``map_location`` takes torch's forms (a str, device, dict or callable) and an explicit
    "cuda" fails as in torch without CUDA. Files in torch's legacy (non-zip) format load too.

    >>> leafgrad.load("model.pt", map_location="cpu")  # doctest: +SKIP"""
    if weights_only is False:
        raise pickle.UnpicklingError(
            "leafgrad.load never unpickles arbitrary objects (weights_only=False): it could run "
            "code from the file. Allow the classes you trust with "
            "leafgrad.serialization.add_safe_globals([...]) instead."
        )
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    restore = _restore_location(map_location)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    data = _read_bytes(f)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        if data[:2] == b"PK":
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central "
                "directory"
            ) from None
        if mmap:
            raise RuntimeError(
                "mmap can only be used with files saved with "
                "`torch.save(_use_new_zipfile_serialization=True), please torch.save your "
                "checkpoint with this option in order to use mmap.") from None
        from .serialization_legacy import load_legacy

        return load_legacy(io.BytesIO(data), _allowed_globals(), restore)
    with archive:
        names = archive.namelist()
        if not any(n.endswith("/version") or n.endswith("/.data/version") for n in names):
            raise RuntimeError(
                'Expected hasRecord("version") to be true, but got false.  (a zip archive '
                "without torch's version record is not a checkpoint)")
        pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pickles[0][: -len("data.pkl")]

        def read_record(record: str) -> bytes:
            try:
                return archive.read(prefix + record)
            except KeyError:
                raise RuntimeError(
                    f"PytorchStreamReader failed locating file {record}: file not found"
                ) from None
            except (zipfile.BadZipFile, OSError) as error:
                raise RuntimeError(
                    f"PytorchStreamReader failed reading file {record}: {error}") from None

        byteorder = prefix + "byteorder"
        if byteorder in names and archive.read(byteorder) not in (b"little",):
            raise RuntimeError("leafgrad reads only little-endian checkpoints")
        unpickler = _Unpickler(io.BytesIO(read_record("data.pkl")), read_record,
                               _allowed_globals(), restore)
        return unpickler.load()


def _read_bytes(f) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            return handle.read()
    return f.read()


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
