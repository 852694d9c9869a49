"""``torch.nn.attention.bias``: causal attention biases for ``scaled_dot_product_attention``.

A ``CausalBias`` stands for a boolean (seq_len_q, seq_len_kv) mask it never stores: passed as
``attn_mask``, its ``__torch_function__`` runs the attention with ``is_causal=True`` (the
upper-left variant, or any square one) or with the lower-right mask materialised (torch's
fused kernels, which take that variant directly, do not run on the CPU). As torch's, the
tensor itself is an uninitialised float tensor of shape (variant, seq_len_q, seq_len_kv), and
its repr is the materialised mask's.
"""

from __future__ import annotations

import enum
import warnings

from ...tensor import Tensor

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    """UPPER_LEFT: ``tril(ones(q, kv))``; LOWER_RIGHT: ``tril(ones(q, kv), kv - q)`` (the
    kept entries aligned to the lower-right corner). Equal for square masks."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias(Tensor):
    """A causal (triangular) attention bias; made by ``causal_upper_left`` or
    ``causal_lower_right``."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        from ... import overrides

        overrides._activate()  # (leafgrad's own subclasses do not switch the protocol on)
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when "
                          "seq_len_q > seq_len_kv!", stacklevel=2)

    def _upper_left(self, device) -> Tensor:
        from ... import bool as bool_, ones, tril

        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=bool_))

    def _lower_right(self, device) -> Tensor:
        from ... import bool as bool_, ones, tril

        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=bool_),
                    diagonal=self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None) -> Tensor:
        """The boolean mask (True: attended), on ``device`` (the CPU by default)."""
        from ... import device as device_

        if device is None:
            device = device_("cpu")
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        return None

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p: float = 0.0,
                  is_causal: bool = False, scale=None, enable_gqa: bool = False) -> Tensor:
        """scaled_dot_product_attention with this bias as ``attn_mask``."""
        from .. import functional as F

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or \
                attn_mask.variant == CausalVariant.UPPER_LEFT:
            return F.scaled_dot_product_attention(query, key, value, attn_mask=None,
                                                  dropout_p=dropout_p, is_causal=True,
                                                  scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            _validate_sdpa_input(query, key, value)
            return F.scaled_dot_product_attention(
                query, key, value, attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p, is_causal=False, scale=scale, enable_gqa=enable_gqa)
        raise ValueError("CausalBias.variant must be a CausalVariant type, but found: "
                         f"{attn_mask.variant}")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from .. import functional as F

        if kwargs is None:
            kwargs = {}
        if func is F.scaled_dot_product_attention:
            return cls._dispatch(*args, **kwargs)
        return super().__torch_function__(func, types, args, kwargs)

    def __repr__(self) -> str:
        return self._materialize().__repr__()

    __str__ = __repr__  # (print: torch's Tensor has no __str__ of its own)


def _validate_sdpa_input(query, key, value) -> None:
    """torch's checks before its lower-right path: one dtype, one device, 2 dims or more."""
    if query.dtype != key.dtype or query.dtype != value.dtype:
        query_dtype, key_dtype, value_dtype = (f"torch.{t.dtype.name}" for t in (query, key, value))
        raise ValueError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query_dtype}, key.dtype: {key_dtype}, and value.dtype: {value_dtype} instead.")
    if query.device != key.device or query.device != value.device:
        raise ValueError(
            f"Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device}, key.device: {key.device}, and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")


def causal_upper_left(*size) -> CausalBias:
    """The upper-left causal bias of ``size`` (seq_len_q, seq_len_kv): ``is_causal=True``."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size) -> CausalBias:
    """The lower-right causal bias of ``size`` (seq_len_q, seq_len_kv)."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
