"""``leafgrad.nn``: modules (layers, containers, losses), ``Parameter``, ``init`` and the
functional layer ``leafgrad.nn.functional``."""

from . import attention, functional, grad, init, parallel, utils
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel

__all__ = ["attention", "functional", "init", "parallel", "utils", "Parameter", "Buffer",
           "UninitializedParameter", "UninitializedBuffer", "DataParallel", *_modules_all]
