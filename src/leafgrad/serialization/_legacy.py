"""torch's legacy (pre-1.6, non-zip) checkpoint format, both ways.

``torch.save(obj, f, _use_new_zipfile_serialization=False)`` writes one stream of pickles: the
magic number, the protocol version, a dict of system facts, the object (storages as persistent
ids ``("storage", torch.FloatStorage, key, location, numel, view_metadata)``), the sorted list
of storage keys, then for each key the storage's element count (int64, little-endian) and its
raw bytes. Storages are needed while the object is unpickled (tensors are views of them) but
their bytes come after it, so the loader allocates each storage empty and fills it in place.
Every pickle goes through the same allow-listed unpickler as the zip format.
"""

from __future__ import annotations

import pickle
import struct

import numpy as np

from ._format import storage_name
from ._load import _Unpickler
from ._save import _Pickler

_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_PROTOCOL_VERSION = 1001
# the system facts torch records (it never checks them when loading)
_SYS_INFO = {"protocol_version": _PROTOCOL_VERSION, "little_endian": True,
             "type_sizes": {"short": 2, "int": 4, "long": 4}}


class _LegacyPickler(_Pickler):
    def persistent_id(self, obj):
        found = super().persistent_id(obj)
        return None if found is None else found + (None,)


def save_legacy(obj, handle, protocol: int) -> None:
    """Write ``obj`` to the binary file ``handle`` in torch's legacy format."""
    for header in (_MAGIC_NUMBER, _PROTOCOL_VERSION, _SYS_INFO):
        pickle.dump(header, handle, protocol=protocol)
    pickler = _LegacyPickler(handle, protocol)
    pickler.dump(obj)
    entries = sorted(pickler.storages.values())
    pickle.dump([key for key, _ in entries], handle, protocol=protocol)
    for _, root in entries:
        assert storage_name(root.dtype) is not None
        handle.write(struct.pack("<q", root.size))
        handle.write(root.astype(root.dtype.newbyteorder("<"), copy=False)
                     .ravel(order="K").tobytes(order="A"))


class _LegacyUnpickler(_Unpickler):
    def __init__(self, file, allowed: dict, restore, storages: dict, trusted=False):
        super().__init__(file, None, allowed, restore, trusted)
        self.storages = storages

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel, view = pid
        if isinstance(location, bytes):
            location = location.decode("ascii")
        array = self.storages.get(key)
        if array is None:
            array = np.zeros(numel, dtype=self.storage_dtype(storage_type))
            self.storages[key] = array = self.restore(array, location)
        if view is not None:  # a storage that was itself a slice of another (torch < 1.0)
            _, offset, size = view
            return array[offset:offset + size]
        return array


def _plain(file, allowed: dict):
    return _LegacyUnpickler(file, allowed, None, {}).load()


def load_legacy(file, allowed: dict, restore, trusted: bool = False):
    """Read a legacy checkpoint from the seekable binary stream ``file``."""
    try:
        magic = _plain(file, allowed)
        if magic != _MAGIC_NUMBER:
            raise RuntimeError("Invalid magic number; corrupt file?")
        version = _plain(file, allowed)
        if version != _PROTOCOL_VERSION:
            raise RuntimeError(f"Invalid protocol version: {version}")
        _plain(file, allowed)  # system facts
    except (EOFError, pickle.UnpicklingError) as error:
        if isinstance(error, EOFError) or "truncated" in str(error):
            raise EOFError("the checkpoint ends before its header does: truncated file?") from None
        raise
    storages: dict = {}
    result = _LegacyUnpickler(file, allowed, restore, storages, trusted).load()
    keys = _plain(file, allowed)
    for key in keys:
        if key not in storages:
            raise RuntimeError(f"storage key {key!r} is not used by the checkpoint: corrupt file?")
        array = storages[key]
        _read_exact(file, 8)
        raw = _read_exact(file, array.size * array.itemsize)
        array[...] = np.frombuffer(raw, dtype=array.dtype.newbyteorder("<"))
    return result


def _read_exact(file, size: int) -> bytes:
    data = file.read(size)
    if len(data) < size:
        raise RuntimeError(f"unexpected EOF, expected {size - len(data)} more bytes. The file "
                           f"might be corrupted.")
    return data
