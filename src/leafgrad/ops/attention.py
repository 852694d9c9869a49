"""torch's fused attention on the CPU: ``_scaled_dot_product_flash_attention_for_cpu``.

scaled_dot_product_attention takes it, not the math path, for 4-d query, key and value of one
floating dtype with equal head dims, no dropout and a mask (boolean or additive) that does not
require grad (nn/_functional_attention.py decides); its node is
ScaledDotProductFlashAttentionForCpuBackward0 over (query, key, value) alone. float32 and
float64 replay torch's kernel (ops/_flash_attention.py: its blocks, online softmax and MKL
gemms), forward and backward, every bit, where MKL is loaded; elsewhere (float16, bfloat16,
no MKL, and a create_graph backward, recorded as Tensor ops) it computes
``softmax(q @ k^T * scale + mask) @ v`` in the tensors' floating type (float32 for
float16/bfloat16) and rounds once, torch's values within rounding.
"""

from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from . import _flash_attention
from ._layout import like
from .registry import Op, array_kernel, plain_backward, register


def _bias(mask, is_causal: bool, length: int, source: int, dtype) -> np.ndarray | None:
    """The additive mask: -inf where a boolean mask is False or above the causal diagonal."""
    bias = None
    if mask is not None:
        if mask.dtype == np.bool_:
            bias = np.where(mask, dtype.type(0), dtype.type(-np.inf))
        else:
            bias = mask.astype(dtype)
    if is_causal:
        causal = np.where(np.tri(length, source, dtype=bool), dtype.type(0), dtype.type(-np.inf))
        bias = causal if bias is None else bias + causal
    return bias


def _probabilities(q, k, bias, scale):
    """softmax(q @ k^T * scale + bias) over the last dim; a fully masked row gives zeros."""
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) * q.dtype.type(scale)
    if bias is not None:
        scores = scores + bias
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        weights = np.exp(scores - top)
        total = weights.sum(axis=-1, keepdims=True)
        return np.where(total > 0, weights / np.where(total > 0, total, 1), 0)


def _saved_mask(node):
    """torch's ``_saved_attn_mask``: the mask the kernel got (a boolean one as 0 and -inf in
    the query's dtype), or None."""
    mask = node._params["mask"]
    if mask is None:
        return None
    if mask.dtype == np.bool_:
        dtype = node._input_meta[0][1] if node._input_meta else np.dtype(np.float32)
        mask = np.where(mask, dtype.type(0), dtype.type(-np.inf))
    return _wrap(mask)


def _work_dtype(a: np.ndarray) -> np.dtype:
    return np.dtype(np.float64) if a.dtype == np.float64 else np.dtype(np.float32)


@register
class ScaledDotProductFlashAttentionForCpu(Op):
    node = "ScaledDotProductFlashAttentionForCpuBackward0"
    inputs = ("query", "key", "value")
    saves = {"query": ("query", "key", "value"), "key": ("query", "key", "value"),
             "value": ("query", "key", "value"), "result": ("query", "key", "value")}
    torch_names = ()
    # torch's other saved values: the output, no dropout, the mask as the kernel got it
    # (the kernel's logsumexp is kept as an array, "lse", so leafgrad.compile's replay
    # recomputes it with the forward: capture.py's _kept; torch's accessor shows a Tensor)
    saved_computed = {"output": lambda node: node._saved_result,
                      "logsumexp": lambda node: _wrap(node._saved["lse"]),
                      "dropout_p": lambda node: 0.0,
                      "attn_mask": lambda node: _saved_mask(node)}

    @staticmethod
    def forward(ctx, query, key, value, mask=None, is_causal=False, scale=None, softmax_scale=1.0):
        # (scale is the argument as given, None by default: torch's _saved_scale; the factor
        # used is softmax_scale, 1/sqrt(E) unless scale was given)
        scale = softmax_scale
        if _flash_attention.supported(query.dtype):  # torch's kernel, every bit
            out, logsumexp = _flash_attention.forward(query, key, value, mask, is_causal, scale)
            if ctx is not None:
                ctx.keep("lse", logsumexp)
            # torch's kernel writes an empty_like(query): a query viewed from (B, L, H, E)
            # gives an output whose transpose(1, 2) is contiguous (the tutorials' .view)
            return like(out, query)
        work = _work_dtype(query)
        q, k, v = (a.astype(work, copy=False) for a in (query, key, value))
        if q.shape[1] != k.shape[1]:  # enable_gqa: each key head serves a group of queries
            k, v = (np.repeat(a, q.shape[1] // k.shape[1], axis=1) for a in (k, v))
        bias = _bias(mask, is_causal, q.shape[-2], k.shape[-2], work)
        out = np.matmul(_probabilities(q, k, bias, scale), v)
        return like(np.ascontiguousarray(out).astype(query.dtype, copy=False), query)

    def backward(self, grad):
        params = self._params
        q, k, v = self.saved("query"), self.saved("key"), self.saved("value")
        logsumexp = self._saved.get("lse") if self._saved else None
        if (logsumexp is not None and plain_backward() and grad._data.dtype == q._data.dtype
                and _flash_attention.supported(q._data.dtype)):
            # torch's kernel, every bit (Note: array-level backwards, activation.py)
            grads = array_kernel(_flash_attention.backward, grad._data, q._data, k._data,
                                 v._data, self.saved("result")._data, logsumexp,
                                 mask=params["mask"], is_causal=params["is_causal"],
                                 scale=params["softmax_scale"])
            return tuple(_wrap(g) if self.needs_grad(i) else None for i, g in enumerate(grads))
        work = _work_dtype(q._data)
        reduced = q._data.dtype != work
        if reduced:
            q, k, v, grad = q.float(), k.float(), v.float(), grad.float()
        scale = params["softmax_scale"]
        group = q.shape[1] // k.shape[1]
        if group > 1:  # enable_gqa: the key heads repeated, their gradients summed back
            k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        weights = self._weights(q, k)
        grad_value = weights.transpose(-2, -1) @ grad
        grad_weights = grad @ v.transpose(-2, -1)
        grad_scores = weights * (grad_weights - (grad_weights * weights).sum(-1, keepdim=True))
        grad_query = (grad_scores @ k) * scale
        grad_key = (grad_scores.transpose(-2, -1) @ q) * scale
        if group > 1:
            grad_key, grad_value = (g.unflatten(1, (-1, group)).sum(2)
                                    for g in (grad_key, grad_value))
        grads = (grad_query, grad_key, grad_value)
        if reduced:
            grads = tuple(g.to(self.saved("query").dtype) for g in grads)
        return tuple(g if self.needs_grad(i) else None for i, g in enumerate(grads))

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for this op; leafgrad's: with P = softmax(S),
        # S = q k^T * scale + mask, out = P v: dS = (dq k^T + q dk^T) * scale,
        # dP = P * (dS - sum(dS * P)), d(out) = dP v + P dv
        query, key, value = primals
        t_query, t_key, t_value = (list(tangents) + [None] * 3)[:3]
        group = query.shape[1] // key.shape[1]
        if group > 1:  # enable_gqa: the key heads repeated
            key, value = key.repeat_interleave(group, 1), value.repeat_interleave(group, 1)
            t_key, t_value = (None if t is None else t.repeat_interleave(group, 1)
                              for t in (t_key, t_value))
        weights = self._weights(query, key)
        scale = self._params["softmax_scale"]
        t_scores = None
        if t_query is not None:
            t_scores = (t_query @ key.transpose(-2, -1)) * scale
        if t_key is not None:
            part = (query @ t_key.transpose(-2, -1)) * scale
            t_scores = part if t_scores is None else t_scores + part
        out = None
        if t_scores is not None:
            t_weights = weights * (t_scores - (t_scores * weights).sum(-1, keepdim=True))
            out = t_weights @ value
        if t_value is not None:
            part = weights @ t_value
            out = part if out is None else out + part
        return out

    def _weights(self, query, key):
        """softmax(q @ k^T * scale + mask) as recorded Tensor ops (fully masked rows: 0)."""
        params = self._params
        work = _work_dtype(query._data)
        bias = _bias(params["mask"], params["is_causal"], query.shape[-2], key.shape[-2], work)
        scores = (query @ key.transpose(-2, -1)) * params["softmax_scale"]
        if bias is not None:
            scores = scores + _wrap(bias)
        weights = scores.softmax(-1)
        return weights if bias is None else weights.nan_to_num(0.0)
