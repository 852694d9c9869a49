"""``leafgrad.nn``: modules (layers, containers, losses), ``Parameter``, ``init`` and the
functional layer ``leafgrad.nn.functional``."""

from . import functional, init, utils
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer", *_modules_all]
