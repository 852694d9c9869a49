"""Safetensors files for leafgrad tensors, with ``safetensors.torch``'s API (an optional extra:
``pip install leafgrad[safetensors]``).

>>> from leafgrad.safetensors import save_file, load_file  # doctest: +SKIP
>>> save_file({"w": leafgrad.ones(2)}, "w.safetensors")    # doctest: +SKIP

The files are the safetensors format itself (written and read by the ``safetensors`` package's
NumPy functions), so ``safetensors.torch.load_file`` reads what ``save_file`` writes and the
other way round. As ``safetensors.torch`` does, saving refuses non-contiguous tensors and
tensors that share memory.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor, _wrap

__all__ = ["save_file", "load_file", "save", "load"]


def _arrays(tensors: dict) -> dict:
    arrays = {}
    for key, value in tensors.items():
        if not isinstance(value, Tensor):
            raise ValueError(
                f"Key `{key}` is invalid, expected torch.Tensor but received {type(value)}")
        data = value._data
        if not data.flags.c_contiguous:
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{key}` which is not allowed. "
                "It either means you are trying to save tensors which are reference of each "
                "other in which case it's recommended to save only the full tensors, and slice "
                "at load time, or simply call `.contiguous()` on your tensor to pack it before "
                "saving.")
        arrays[key] = data
    groups = _sharing_groups(arrays)
    if groups:
        raise RuntimeError(
            f"Some tensors share memory, this will lead to duplicate memory on disk and "
            f"potential differences when loading them again: {groups}.")
    return arrays


def _sharing_groups(arrays: dict) -> list:
    keys = list(arrays)
    groups = []
    seen = set()
    for i, a in enumerate(keys):
        if a in seen:
            continue
        group = {a}
        for b in keys[i + 1:]:
            if b not in seen and np.shares_memory(arrays[a], arrays[b]):
                group.add(b)
        if len(group) > 1:
            seen |= group
            groups.append(group)
    return groups


def _safetensors_numpy():
    try:
        import safetensors.numpy as numpy_api
    except ImportError as error:  # pragma: no cover - the extra is not installed
        raise ImportError(
            "leafgrad.safetensors needs the safetensors package: pip install safetensors"
        ) from error
    return numpy_api


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write ``{name: tensor}`` to a safetensors file."""
    _safetensors_numpy().save_file(_arrays(tensors), str(filename), metadata=metadata)


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """``{name: tensor}`` as the bytes of a safetensors file."""
    return _safetensors_numpy().save(_arrays(tensors), metadata=metadata)


def load_file(filename, device="cpu") -> dict:
    """Read a safetensors file into ``{name: tensor}`` (CPU only)."""
    from ._device import use

    use(device)
    return {k: _wrap(np.array(v)) for k, v in _safetensors_numpy().load_file(str(filename)).items()}


def load(data: bytes) -> dict:
    return {k: _wrap(np.array(v)) for k, v in _safetensors_numpy().load(data).items()}
