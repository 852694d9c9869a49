"""``torch.backends.mha``: the switch for the fused inference path of ``nn.MultiheadAttention``
and the transformer layers (leafgrad computes them one way; the switch is recorded)."""

from __future__ import annotations

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    return _fastpath[0]


def set_fastpath_enabled(value) -> None:
    _fastpath[0] = value
