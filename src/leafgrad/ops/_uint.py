"""uint16 / uint32 / uint64: the ops torch 2.13 computes for them, and its error for the others.

Note: wide unsigned support. torch 2.13 gives these dtypes "limited support": creation, copies
and casts, views and shape ops, ``*``, ``/``, ``&``/``|``/``^``, ``==``/``!=``, sum/prod/cumsum,
sort, unique and the floating unary functions work; most other kernels raise
``"<kernel>" not implemented for 'UInt16'`` (see the probe in tests/test_uint.py). An op
class says which applies to it:

- ``uint_ok = True``: the forward runs on the NumPy array (NumPy computes what torch does, or
  the forward raises torch's own error, e.g. "cdist only supports floating-point dtypes").
- ``uint_kernel``: torch's kernel name in its message when it is not the one the op's
  ``complex_message`` names, nor ``"<torch name>_cpu"``.

The check is installed into ``Op.apply`` (and the in-place path) the first time the process
makes a tensor of one of these dtypes (see _dtype._WideUnsignedDtype), so programs without
them pay nothing for it.
"""

from __future__ import annotations

from .. import _dtype
from ..tensor import Tensor
from .registry import Op

_NOT_IMPLEMENTED = "not implemented for 'ComplexFloat'"


def uint_error(cls, dtype) -> NotImplementedError:
    """The error torch raises when the op ``cls`` meets a uint16/32/64 tensor of ``dtype``."""
    kernel = cls.uint_kernel
    if kernel is None:
        message = cls.complex_message
        if message is not None and message.endswith(_NOT_IMPLEMENTED):
            return NotImplementedError(message.replace("ComplexFloat", dtype._legacy))
        name = cls.torch_names[0] if cls.torch_names else cls.op_name.lower()
        kernel = name.rsplit(".", 1)[-1] + "_cpu"
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy}'")


def wide_dtype(cls, operands):
    """The uint16/32/64 dtype ``cls`` would compute ``operands`` in, or None.

    torch dispatches on the dtype an op computes in: ``uint16_tensor * 2.5`` computes in
    float32 and works, ``uint16_tensor * 2`` in uint16. That is the promoted dtype of the
    tensors and numbers among the operands; where they do not promote (an int64 index with a
    uint16 source) it is the first tensor's dtype, except for broadcasting ops, which raise
    torch's promotion error.
    """
    found = None
    for arg in operands:
        if isinstance(arg, Tensor) and arg._data.dtype.kind == "u" and arg._data.itemsize > 1:
            found = arg
            break
    if found is None:
        return None
    values = [arg for arg in operands if isinstance(arg, (Tensor, int, float, complex))]
    try:
        computed = _dtype.result_type(*values)
    except RuntimeError:
        if cls.broadcasts:
            raise
        computed = next(arg for arg in operands if isinstance(arg, Tensor)).dtype
    return computed if computed in _dtype.WIDE_UNSIGNED else None


def check_operands(cls, operands) -> None:
    """Raise torch's error when ``cls`` cannot compute ``operands`` (Note: wide unsigned)."""
    if cls.uint_ok:
        return
    computed = wide_dtype(cls, operands)
    if computed is not None:
        raise uint_error(cls, computed)


_installed = []


def install_uint_check() -> None:
    """Make ``Op.apply`` refuse uint16/32/64 tensors for ops torch has no kernel of them for."""
    if _installed:
        return
    plain_apply = Op.__dict__["apply"].__func__

    def apply(cls, *args, **params):
        if not cls.uint_ok:
            check_operands(cls, args)
        return plain_apply(cls, *args, **params)

    apply.__doc__ = plain_apply.__doc__
    Op.apply = classmethod(apply)
    _installed.append(plain_apply)
    from .inplace import UINT_SEEN

    UINT_SEEN[0] = True


_dtype.on_first_wide_unsigned(install_uint_check)
