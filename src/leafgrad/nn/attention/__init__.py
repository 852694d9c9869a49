"""``torch.nn.attention``: choosing scaled-dot-product-attention backends.

leafgrad has one implementation of ``F.scaled_dot_product_attention`` (the math one, as
torch's ``SDPBackend.MATH``); ``sdpa_kernel`` records the choice for the duration of the
block, as torch's does, and the computation is the same whichever backend is named.
"""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]
_enabled = list(_ALL)


def _current_backends() -> list:
    return list(_enabled)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Within the block, only ``backends`` (one SDPBackend or a list) are enabled."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = list(_enabled)
    _enabled[:] = backends
    try:
        yield {}
    finally:
        _enabled[:] = previous
