"""Warnings that point at the user's line.

torch's C++ warnings (TORCH_WARN) reach Python attributed to the innermost Python frame, which
is the user's line that called into torch (or a line of torch's own Python code, when that made
the call). leafgrad's implementation is Python all the way down, so a fixed ``stacklevel``
points at the right line only from one call path: called through a wrapper (``takes_out``, an
argument parser) or from another leafgrad function (softmin calls softmax), it points into
leafgrad. :func:`warn` walks out of leafgrad's files first.
"""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(__file__) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside leafgrad."""
    frame = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
