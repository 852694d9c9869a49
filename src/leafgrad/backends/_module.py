"""The module type of the backends whose settings torch checks when they are set."""

from __future__ import annotations

import contextlib
import sys
import types


def check_bool(setter: str, value) -> None:
    """torch's check on a flag set from Python: a bool, nothing else (not even 0 or 1)."""
    if type(value) is not bool:
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")


_PRECISIONS = ("none", "ieee", "tf32", "bf16")


def check_precision(backend: str, op: str, value) -> None:
    """torch's ``fp32_precision`` setters (its pybind signature is three strings)."""
    if not isinstance(value, str):
        raise TypeError("_set_fp32_precision_setter(): incompatible function arguments. The "
                        "following argument types are supported:\n"
                        "    1. (arg0: str, arg1: str, arg2: str) -> str\n\n"
                        f"Invoked with: {backend!r}, {op!r}, {value!r}")
    if value not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {value}")


class FlagModule(types.ModuleType):
    """A backend module whose flags are checked on assignment, as torch's ``PropModule`` does:
    ``CHECKED`` maps a flag to the setter torch names in its error."""

    CHECKED: dict = {}

    def __setattr__(self, name, value):
        setter = type(self).CHECKED.get(name)
        if setter is not None:
            check_bool(setter, value)
        elif name == "fp32_precision":
            check_precision(self._PRECISION_BACKEND, "all", value)
        super().__setattr__(name, value)


def install(module_name: str, cls: type) -> None:
    """Give the module ``module_name`` the checking type ``cls``."""
    sys.modules[module_name].__class__ = cls


def flags_context(module, names: tuple, values: tuple):
    """torch's ``flags(...)`` context managers: set the non-None values, restore on exit."""

    @contextlib.contextmanager
    def context():
        previous = tuple(getattr(module, name) for name in names)
        for name, value in zip(names, values):
            if value is not None:
                setattr(module, name, value)
        try:
            yield
        finally:
            for name, value in zip(names, previous):
                module.__dict__[name] = value

    return context()


class FP32Precision:
    """A backend op's ``fp32_precision`` (``torch.backends.mkldnn.matmul``, ``cudnn.conv``):
    recorded and checked as torch checks it; leafgrad computes float32 in IEEE float32."""

    def __init__(self, backend: str, op: str, precision: str):
        self.__dict__.update(backend=backend, op=op, _precision=precision)

    def __getattr__(self, name):
        if name == "fp32_precision":
            return self._precision
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name != "fp32_precision":
            raise AttributeError(f"Unknown attribute {name}")
        check_precision(self.backend, self.op, value)
        self.__dict__["_precision"] = value
