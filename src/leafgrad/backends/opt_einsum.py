"""``torch.backends.opt_einsum``: whether ``einsum`` orders its contractions with the
``opt_einsum`` package. leafgrad contracts left to right, as torch does without it, so the
package counts as absent and switching it on is refused with torch's message."""

from __future__ import annotations

import contextlib
import sys

enabled = False
strategy = None


def is_available() -> bool:
    return False


def get_opt_einsum():
    return None


def set_flags(_enabled=None, _strategy=None):
    """Set the flags (torch's checks); returns the previous ``(enabled, strategy)``."""
    module = sys.modules[__name__]
    previous = (module.enabled, None)
    if _enabled is not None:
        if _enabled:
            raise ValueError(
                f"opt_einsum is not available, so setting `enabled` to {_enabled} will not reap "
                "the benefits of calculating an optimal path for einsum. torch.einsum will fall "
                "back to contracting from left to right. To enable this optimal path "
                "calculation, please install opt-einsum.")
        module.enabled = _enabled
    if _strategy is not None:
        raise ValueError(
            f"opt_einsum is not available, so setting `strategy` to {_strategy} will not be "
            "meaningful. torch.einsum will bypass path calculation and simply contract from "
            "left to right. Please install opt_einsum or unset `strategy`.")
    return previous


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    previous = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*previous)
