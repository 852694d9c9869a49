"""ATen-level ops torch exposes in its namespace, under their own nodes: ``torch.cholesky``
(CholeskyBackward0), ``torch.frobenius_norm`` (NormBackward1), ``torch.native_dropout``
(NativeDropoutBackward0, with its mask) and ``torch.native_group_norm`` (NativeGroupNormBackward0
with the mean and reciprocal standard deviation as outputs of the same node). The formulas are
the ones of the ops they mirror."""

from __future__ import annotations

import numpy as np

from ..backends import cpu as _cpu
from ..tensor import _wrap
from . import _layout, _norm_kernels
from .linalg_decomp import _LinAlgError
from .linalg_factor import LinalgCholeskyEx
from .norm import GroupNorm
from .reductions_stats import LinalgVectorNorm
from .registry import Op, register
from .norm import group_norm_statistics_grad
from .. import _dtype


@register
class Cholesky(LinalgCholeskyEx):
    """The deprecated ``torch.cholesky(A, upper)``: linalg.cholesky's values and formulas,
    its errors named ``cholesky`` and its kernel's dtype error."""

    node = "CholeskyBackward0"
    bfloat16_kernel = "cholesky_cpu"  # torch has no bfloat16 kernel
    torch_names = ("cholesky", "Tensor.cholesky")

    @staticmethod
    def forward(ctx, a, upper=False):
        if a.ndim < 2:
            raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
        if a.shape[-1] != a.shape[-2]:
            raise RuntimeError(f"cholesky: A must be batches of square matrices, but they are "
                               f"{a.shape[-2]} by {a.shape[-1]} matrices")
        if a.dtype.kind not in "fc":
            name = _dtype.from_numpy_dtype(a.dtype)._legacy
            raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{name}'")
        if a.size == 0:  # (torch's cholesky returns an empty tensor of the input's layout)
            return np.empty(a.shape, a.dtype)
        try:
            return LinalgCholeskyEx.forward(ctx, a, upper=upper)
        except _LinAlgError as error:
            raise _LinAlgError(str(error).replace("linalg.cholesky:", "cholesky:", 1)) from None


@register
class NormDims(LinalgVectorNorm):
    """``norm(self, p, dim, keepdim)`` (ATen's norm.ScalarOpt_dim), which ``frobenius_norm``
    calls: the vector norm's values and formulas under torch's NormBackward1."""

    node = "NormBackward1"
    complex_ok = True  # the norm of the moduli: a real result, sgn(z) in the gradient
    torch_names = ("frobenius_norm",)


@register
class NormAll(LinalgVectorNorm):
    """``norm(self, p)`` over every element (ATen's norm.Scalar, which norm_except_dim calls
    for dim -1): the vector norm's values and formulas under torch's NormBackward0."""

    node = "NormBackward0"
    complex_ok = True
    torch_names = ("norm_except_dim",)

    def jvp(self, tangents, primals, result):
        # torch's norm.Scalar forward-AD formula keeps the reduced dims, so setting its tangent
        # on the 0-d result fails with its size-mismatch error
        a = primals[0]
        if a.ndim:
            kept = ", ".join(["1"] * a.ndim)
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size [] while the given "
                f"forward gradient is of size [{kept}].")
        return super().jvp(tangents, primals, result)


@register
class NativeDropout(Op):
    """``(input * mask * scale, mask)`` for a mask drawn by the caller (``native_dropout``)."""

    node = "NativeDropoutBackward0"
    index_saves = {"result1": ()}  # the mask output (Note: saved index tensors, registry.py)
    multi_output = True
    complex_ok = True
    uint_ok = True  # eval mode copies any dtype (training refuses integers before the op)
    torch_names = ("native_dropout",)

    @staticmethod
    def forward(ctx, a, mask, scale, grad_scale=None):
        if ctx is not None:
            ctx.keep("mask", mask)
        out = a * mask if scale == 1 else a * mask * a.dtype.type(scale)
        # output and mask are laid out as the input (torch's mul and empty_like)
        return _layout.like(np.asarray(out, dtype=a.dtype), a), _layout.like(mask.copy(), a)

    def backward(self, grads):
        grad = grads[0]
        if grad is None:
            return None
        p = self._params
        # native_dropout_backward: grad * mask * scale (a dropped inf or NaN gives NaN, a
        # dropped negative -0)
        out = grad * _wrap(p["mask"])
        scale = p["scale"] if p.get("grad_scale") is None else p["grad_scale"]
        return out * scale if scale != 1 else out

    def jvp(self, tangents, primals, result):
        return (NativeDropout.apply(tangents[0], **self._params)[0], None)


@register
class NativeGroupNorm(GroupNorm):
    """group_norm returning ``(out, mean, rstd)`` as torch's native_group_norm: the statistics
    are outputs of the same node (their incoming gradients are not used, as in torch)."""

    multi_output = True
    vmap = None
    torch_names = ("native_group_norm",)

    @classmethod
    def forward(cls, ctx, x, weight, bias, **params):
        out = GroupNorm.forward.__func__(cls, ctx, x, weight, bias, **params)
        if _cpu.torch_bits and x.dtype in (np.float32, np.float16) and x.size:
            mean, rstd = _norm_kernels.group_norm_stats(x, params["num_groups"], params["eps"])
            return (out, mean.reshape(x.shape[0], -1).astype(x.dtype),
                    rstd.reshape(x.shape[0], -1).astype(x.dtype))
        grouped = x.reshape(GroupNorm._grouped_shape(tuple(x.shape), params)).astype(np.float64)
        mean = grouped.mean(axis=2)
        rstd = 1 / np.sqrt(grouped.var(axis=2) + params["eps"])
        return out, mean.astype(x.dtype), rstd.astype(x.dtype)

    def backward(self, grads):
        grad, dmean, drstd = (tuple(grads) + (None, None))[:3]
        results = (None, None, None) if grad is None else tuple(GroupNorm.backward(self, grad))
        if dmean is None or drstd is None or not self.needs_grad(0):
            return results
        # torch's infinitely_differentiable_native_group_norm_backward (taken whenever the
        # statistics get a gradient): their var_mean backward reaches the input too, when
        # both have one (one alone is dropped, as torch's formula does)

        extra = group_norm_statistics_grad(self.saved("input"), dmean, drstd,
                                           self._params["num_groups"], self._params["eps"])
        grad_x = extra if results[0] is None else results[0] + extra
        return (grad_x,) + results[1:]

    def jvp(self, tangents, primals, result):
        out = GroupNorm.jvp(self, tangents, primals, result[0])
        if tangents[0] is None:
            return out, None, None
        # torch's group_norm_mean_jvp and group_norm_invstd_jvp: over (1, N * G, -1) views,
        # mean_t = mean(t), rstd_t = sum((x - mean(x)) * (t - mean) * -rstd^3) / count (its
        # _invstd_jvp with the primal and the tangent swapped: the same derivative)
        x, tangent = primals[0], tangents[0]
        _, mean, rstd = result
        n = x.shape[0]
        view = (1, n * self._params["num_groups"], -1 if n else 1)
        grouped_t, grouped_x = tangent.reshape(view), x.reshape(view)
        mean_t = grouped_t.mean((2,), False).view_as(mean)
        rstd_t = grouped_x - grouped_x.mean((2,), True)
        rstd_t = rstd_t * (grouped_t - mean.reshape(view))
        rstd_t = rstd_t * -rstd.reshape(view).pow(3)
        rstd_t = rstd_t.sum((2,), False) / grouped_t.shape[2]
        return out, mean_t, rstd_t.view_as(rstd)
