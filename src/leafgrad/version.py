"""``torch.version``: leafgrad's version, and the accelerator toolkits it is built with (none)."""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

from . import __version__  # noqa: F401 - torch.version.__version__ is torch.__version__

cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
