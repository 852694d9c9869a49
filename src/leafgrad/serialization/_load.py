"""Reading checkpoints: torch's zip format here, the legacy format in ``_legacy``; every
global goes through the allow-list, every storage through ``map_location``."""

from __future__ import annotations

import _compat_pickle
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from ._allowlist import _BLOCKED_MODULES, _allowed_globals, _unsafe
from .. import _dtype
from ._format import _STORAGE_TYPES


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
    def __init__(self, file, read_record, allowed: dict, restore=_to_cpu, trusted=False):
        super().__init__(file, encoding="utf-8")
        self.trusted = trusted
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
        if module == "torch" and name == "BFloat16Storage":  # RuntimeError without ml_dtypes
            return _dtype.bfloat16.np.type
        if module == "torch" and name.endswith("Storage") and name[:1].isupper():
            raise pickle.UnpicklingError(
                f"the file holds a torch.{name}, a dtype leafgrad does not have")
        found = self.allowed.get(f"{module}.{name}")
        if found is not None and module not in _BLOCKED_MODULES:
            return found
        if not self.trusted:
            raise _unsafe(module, name)
        if module == "torch.nn.parameter" and name in ("UninitializedParameter",
                                                       "UninitializedBuffer"):
            from ..nn import parameter  # (not weights: torch refuses them under weights_only)

            return getattr(parameter, name)
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(
                f"the file holds {module}.{name}, a torch object leafgrad cannot rebuild (a "
                "whole pickled torch model, say): save and load its state_dict instead")
        return super().find_class(module, name)  # weights_only=False: the caller trusts it

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
            array = np.frombuffer(raw, dtype=dtype.newbyteorder("<"))
            if array.dtype != dtype or not array.flags.writeable:  # a mapped file needs neither
                array = array.astype(dtype)
            array = self.restore(array, location)
            self.storages[key] = array
        return array


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap=None, **pickle_load_args):
    """Read a checkpoint written by ``torch.save`` or ``leafgrad.save``.

    By default only allow-listed globals are resolved (see Note: loading never runs code).
    ``weights_only=False`` unpickles any object, as torch does, which RUNS WHATEVER CODE THE
    FILE NAMES: use it only for files you trust; torch objects other than tensors, Parameters,
    storages, sizes, devices and dtypes cannot be rebuilt even then. Storages load on the CPU, also those saved on a GPU;
    ``map_location`` takes torch's forms (a str, device, dict or callable) and an explicit
    "cuda" fails as in torch without CUDA. Files in torch's legacy (non-zip) format load too.

    >>> leafgrad.load("model.pt", map_location="cpu")  # doctest: +SKIP"""
    trusted = weights_only is False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    restore = _restore_location(map_location)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    data = _read_bytes(f, bool(mmap))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else f)
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
        from ._legacy import load_legacy

        return load_legacy(io.BytesIO(data), _allowed_globals(), restore, trusted)
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
                if mmap and record.startswith("data/"):
                    return _mapped(data, archive.getinfo(prefix + record))
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
                               _allowed_globals(), restore, trusted)
        return unpickler.load()


def _read_bytes(f, mapped: bool = False):
    """The file's bytes; with ``mapped``, a private (copy-on-write) memory map of the path,
    so storages are read from disk only when touched, as torch's mmap=True."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            if mapped and os.fstat(handle.fileno()).st_size:
                import mmap

                return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
            return handle.read()
    return f.read()


def _mapped(data, info: zipfile.ZipInfo) -> memoryview:
    """A stored record's bytes as a view of the mapped file (no copy)."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: "
                           "compressed records cannot be memory-mapped")
    header = bytes(data[info.header_offset:info.header_offset + 30])
    if header[:4] != b"PK\x03\x04":
        raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: "
                           "invalid local header")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    start = info.header_offset + 30 + name_len + extra_len
    return memoryview(data)[start:start + info.file_size]

