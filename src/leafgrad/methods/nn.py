"""Tensor methods for nn-style ops (softmax, log_softmax, hardshrink, prelu)."""

from __future__ import annotations

from . import lazy_ops as _ops


class NNMethods:
    __slots__ = ()

    def softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _ops.Softmax.apply(source, dim=_ops.wrap_dim(dim, self.ndim))

    def log_softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _ops.LogSoftmax.apply(source, dim=_ops.wrap_dim(dim, self.ndim))

    def hardshrink(self, lambd=0.5):
        from ..nn.functional import hardshrink

        return hardshrink(self, lambd)

    def prelu(self, weight):
        from ..nn.functional import prelu

        return prelu(self, weight)
