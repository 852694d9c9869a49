"""``torch.utils.benchmark``: timing statements the way torch's benchmark utilities do.

``Timer(stmt, setup, globals=...)`` times Python statements (``torch`` in them is leafgrad,
as in torch it is torch) with ``timeit``, ``blocked_autorange`` or ``adaptive_autorange``;
each returns a ``Measurement`` (median, mean, IQR, its significant figures and warnings about
noise), printed as torch prints it. ``Compare`` lays many measurements out as torch's table.
C++ statements and Callgrind need torch's C++ toolchain and are refused.
"""

from .utils.common import (Measurement, TaskSpec, ordered_unique, select_unit,  # noqa: F401
                           set_torch_threads, trim_sigfig, unit_to_english)
from .utils.compare import Colorize, Compare  # noqa: F401
from .utils.timer import Language, Timer  # noqa: F401

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer",
           "ordered_unique", "select_unit", "set_torch_threads", "trim_sigfig",
           "unit_to_english"]
