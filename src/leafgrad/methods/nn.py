"""Tensor methods for nn-style ops (softmax, log_softmax, hardshrink, prelu)."""

from __future__ import annotations

from .. import _argparse
from . import lazy_ops as _ops


class NNMethods:
    __slots__ = ()

    @_argparse.declared("Tensor.softmax")
    def softmax(self, dim, dtype=None):
        if dim.__class__ is not int:
            dim = _argparse.int_arg("softmax", "dim", dim, 1)
        source = self if dtype is None else self.to(_argparse.dtype_arg("softmax", dtype))
        return _ops.Softmax.apply(source, dim=_ops.wrap_dim(dim, self.ndim))

    @_argparse.declared("Tensor.log_softmax")
    def log_softmax(self, dim, dtype=None):
        if dim.__class__ is not int:
            dim = _argparse.int_arg("log_softmax", "dim", dim, 1)
        source = self if dtype is None else self.to(_argparse.dtype_arg("log_softmax", dtype))
        return _ops.LogSoftmax.apply(source, dim=_ops.wrap_dim(dim, self.ndim))

    def hardshrink(self, lambd=0.5):
        from ..nn.functional import hardshrink

        return hardshrink(self, lambd)

    def prelu(self, weight):
        from ..nn.functional import prelu

        return prelu(self, weight)
