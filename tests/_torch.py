"""The one way tests get PyTorch: skipped locally when absent, a failure in CI (CI=1)."""

from __future__ import annotations

import os

import pytest


def require_torch():
    """Return the torch module. Without torch: skip, unless running in CI where it must exist."""
    if os.environ.get("CI"):
        import torch  # noqa: F401 - CI installs torch; its absence must fail loudly

        return torch
    return pytest.importorskip("torch")
