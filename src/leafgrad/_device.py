"""``device``: leafgrad runs on the CPU only. As on a CPU-only build of torch, any device can be
named (``leafgrad.device("cuda")``), and using one that is not the CPU fails with torch's error
(``use``)."""

from __future__ import annotations

import builtins
import re

import numpy as np

__all__ = ["device", "CPU", "use"]

_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
          "privateuseone")


_DEVICE_STRING = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")
builtins_type = builtins.type  # (``type`` is the constructor's parameter)


class device:
    """``leafgrad.device('cpu')``; other device types can be named, not used (see ``use``)."""

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.device'>

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index
        text = str(type)
        if isinstance(type, (int, np.integer)) and not isinstance(type, (bool, np.bool_)):
            # torch.device(0) is the current accelerator's first device: none on a CPU build
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if index is not None:
            if not isinstance(index, (int, np.integer)) or isinstance(index, (bool, np.bool_)):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                                f"{builtins_type(index).__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        parsed = _DEVICE_STRING.fullmatch(text)
        if parsed is None:  # c10's Device(string): letters or _, then ':' and a plain number
            raise RuntimeError(f"Invalid device string: '{text}'")
        if parsed.group(2) is not None:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {text}")
            if int(parsed.group(2)) > 2**31 - 1:  # (std::stoi)
                raise RuntimeError(f"Could not parse device index '{parsed.group(2)}' in "
                                   f"device string '{text}'")
            text, index = parsed.group(1), int(parsed.group(2))
        if text not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: "
                f"{text}"
            )
        self.type = text
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    # ``with torch.device('cpu'):`` makes it the default device of the factories inside (the
    # 'Tips for loading an nn.Module from a checkpoint' recipe); entering any named device
    # works, as in torch, and a factory then refuses one leafgrad cannot use
    def __enter__(self) -> "device":
        _DEFAULTS.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _DEFAULTS.pop()
        return None

    def __eq__(self, other) -> bool:
        # torch.device('cpu') == 'cpu' is False: a device equals only a device
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
META = device("meta")


_DEFAULTS: list = []  # the devices of the ``with leafgrad.device(...)`` blocks entered


def default() -> "device | None":
    """The device of the innermost ``with leafgrad.device(...)`` block, if any."""
    return _DEFAULTS[-1] if _DEFAULTS else None


def use(where) -> device:
    """The device ``where`` names, if leafgrad can put tensors there (only the CPU); otherwise
    torch's error on a CPU-only build."""
    target = where if isinstance(where, device) else device(where)
    if target.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if target.type not in ("cpu", "meta"):
        raise RuntimeError(
            f"leafgrad runs on the CPU only; device '{target}' is not available"
        )
    return target
