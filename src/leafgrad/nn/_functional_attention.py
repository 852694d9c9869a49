"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``, composed from
differentiable ops in the order torch's math path computes them."""

from __future__ import annotations

import math

from ..tensor import Tensor
from ..ops.activation import SafeSoftmax
from ..ops.elementwise import MulScalar
from .._out import _C10
from .._construct import check_scalar_write
from ..ops.attention import ScaledDotProductFlashAttentionForCpu

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _float_mask(mask: Tensor | None, like: Tensor) -> Tensor | None:
    """A boolean mask (True = not allowed) as an additive float mask (-inf where True)."""
    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        return mask
    from .. import zeros_like

    return zeros_like(mask, dtype=like.dtype).masked_fill(mask, float("-inf"))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False):
    """``softmax(q @ k^T * scale + mask) @ v`` over the last two dims, in the steps of torch's
    CPU math path (_scaled_dot_product_attention_math), so that the graph it records (and a
    create_graph backward through it) has torch's nodes: q and k^T are each scaled by the
    square root of the scale (MulBackward1), the mask is added (AddBackward0) and the weights
    are a _safe_softmax (SafeSoftmaxBackward0: a fully masked query gets zeros, not NaN)."""
    from .. import ones, tril
    from . import functional as F

    dtype = query.dtype
    if not dtype is key.dtype is value.dtype:
        names = [_C10.get(t.dtype.name, "c10::BFloat16") for t in (query, key, value)]
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{names[0]} key.dtype: {names[1]} and value.dtype: {names[2]} instead.")
    if attn_mask is not None and attn_mask.dtype.name not in ("bool", "float32") and (
            attn_mask.dtype is not dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_C10.get(attn_mask.dtype.name, 'c10::BFloat16')} and  "
            f"query.dtype: {_C10.get(dtype.name, 'c10::BFloat16')} instead.")
    if query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
        # torch's answer for empty inputs: zeros of the output's shape, joined to the graph
        # by a product with 0 (AddBackward0 over MulBackward1 of the inputs' sums)
        from .. import zeros

        out = zeros(*query.shape[:-1], value.size(-1), dtype=dtype)
        return out + MulScalar.apply(query.sum() + key.sum() + value.sum(), other=0)
    if attn_mask is not None and attn_mask.dtype.name == "bool" and not (
            dtype.is_floating_point or dtype.is_complex or dtype.name == "bool"):
        # torch first makes a boolean mask a float one of the query's dtype (-inf: overflow)

        check_scalar_write(float("-inf"), dtype)
    if _takes_flash(query, key, value, attn_mask, dropout_p, enable_gqa):
        mask = None if attn_mask is None else attn_mask._data
        return ScaledDotProductFlashAttentionForCpu.apply(
            query, key, value, mask=mask, is_causal=bool(is_causal),
            scale=None if scale is None else float(scale),
            softmax_scale=1 / math.sqrt(query.size(-1)) if scale is None else float(scale))
    if dtype.name in ("float16", "bfloat16"):
        # torch's math path on the CPU computes reduced floating types in float32 and casts
        # the output back (ToCopyBackward0)
        query, key, value = query.float(), key.float(), value.float()
    length, source = query.size(-2), key.size(-2)
    negative = scale is not None and scale < 0
    factor = math.sqrt(1 / math.sqrt(query.size(-1)) if scale is None else abs(scale))
    if not (query.dtype.is_floating_point or query.dtype.is_complex):
        # an integer query times a float scale is a float (torch's promotion); the product
        # with the integer value then raises torch's "expected scalar type" error
        from .. import get_default_dtype

        query, key = query.to(get_default_dtype()), key.to(get_default_dtype())
    query = MulScalar.apply(query, other=0.0 - factor if negative else factor)
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        allowed = tril(ones(length, source, dtype=bool_dtype(), device=query.device))
        bias = _float_mask(~allowed, query)
    elif attn_mask is not None:
        # here a boolean mask marks the positions that DO take part (MultiheadAttention's
        # marks the ones that do not)
        bias = attn_mask if attn_mask.dtype.is_floating_point else _float_mask(~attn_mask, query)
    if enable_gqa:  # torch's pre_process_group_query_attention_input
        heads = query.size(-3)
        if heads % key.size(-3) or heads % value.size(-3):
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
        if not heads == key.size(-3) == value.size(-3):
            key = key.repeat_interleave(heads // key.size(-3), -3)
            value = value.repeat_interleave(heads // value.size(-3), -3)
    scores = query @ MulScalar.apply(key.transpose(-2, -1), other=factor)
    if bias is not None:
        scores = scores + bias
    weights = SafeSoftmax.apply(scores, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p, True)
    out = weights @ value
    return out if out.dtype is dtype else out.to(dtype)


def _takes_flash(query, key, value, attn_mask, dropout_p, enable_gqa) -> bool:
    """Whether torch's CPU dispatch (sdp_utils_cpp's use_flash_attention_cpp) picks the fused
    kernel: 4-d floating query, key and value with equal batch sizes, head counts (with
    enable_gqa: key and value heads equal and dividing the query's) and head dims, non-empty
    sequences, unit last strides, no dropout and a mask that is 2-d or 4-d and does not
    require grad."""
    if dropout_p > 0.0:
        return False
    tensors = (query, key, value)
    if any(t.dim() != 4 for t in tensors) or not query.dtype.is_floating_point:
        return False
    if any(t.size(0) != query.size(0) for t in tensors):
        return False
    heads = query.size(1)
    if enable_gqa:
        if key.size(1) != value.size(1) or heads % key.size(1):
            return False
    elif key.size(1) != heads or value.size(1) != heads:
        return False
    if any(t.size(-1) != query.size(-1) or t.stride(-1) != 1 for t in tensors):
        return False
    if query.size(-1) == 0 or query.size(-2) == 0 or key.size(-2) == 0:
        return False
    if attn_mask is not None and (attn_mask._may_require_grad() or attn_mask.dim() not in (2, 4)):
        return False
    return True


def bool_dtype():
    from .. import bool as bool_

    return bool_


def _size(shape) -> str:
    return f"torch.Size({list(shape)})"  # (as torch's messages print a shape)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """torch's _mha_shape_check: whether the call is batched, or its AssertionError."""
    if query.dim() == 3:
        if not (key.dim() == 3 and value.dim() == 3):
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D "
                                 f"but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if not (key.dim() == 2 and value.dim() == 2):
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{_size(attn_mask.shape)}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """torch's packed in-projection: self-attention (``q is k is v``) projects once with the
    whole (3E, E) weight, encoder-decoder attention (``k is v``) projects the key once with
    the last 2E rows; the product's shape decides BLAS's blocking, so the bits follow the
    call. Otherwise three products with the weight's thirds."""
    from . import functional as F

    E = q.size(-1)
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q = b_kv = None
        if b is not None:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = F.linear(q, w_q, b_q)
        kv_proj = F.linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v,
                                 add_zero_attn: bool, dropout_p: float, out_proj_weight,
                                 out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); torch's steps."""
    from .. import baddbmm, bmm, cat, zeros
    from . import functional as F

    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    # torch hands a causal hint without padding mask or weights to SDPA as is_causal
    causal_sdpa = is_causal and key_padding_mask is None and not need_weights
    if causal_sdpa:
        attn_mask = None
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {_size(key.shape[:2])} do not "
                                 f"match value's {_size(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {_size(key.shape)} does not match value shape "
                             f"{_size(value.shape)}")
    # input projections (one packed weight, or three)
    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = F.linear(query, q_proj_weight, b_q)
        k = F.linear(key, k_proj_weight, b_k)
        v = F.linear(value, v_proj_weight, b_v)
    attn_mask = _float_mask(attn_mask, q)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, "
                                   f"but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, "
                                   f"but should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = cat([k, zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)], dim=1)
        v = cat([v, zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        padding = _float_mask(key_padding_mask, q).view(bsz, 1, 1, src_len)
        padding = padding.expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:  # one fused product and sum, as torch: other last bits
            scores = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            scores = bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        output = bmm(weights, v)
        output = output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        output = F.linear(output, out_proj_weight, out_proj_bias)
        output = output.view(tgt_len, bsz, output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, causal_sdpa)
    output = output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    output = F.linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not batched:
        output = output.squeeze(1)
    return output, None
