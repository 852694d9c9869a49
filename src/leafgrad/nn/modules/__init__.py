"""The layers of ``leafgrad.nn``, one topic per file (as torch.nn.modules)."""

from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .flatten import Flatten, Unflatten
from .activation import *  # noqa: F403
from .activation import __all__ as _activation_all
from .loss import *  # noqa: F403
from .loss import __all__ as _loss_all

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", *_activation_all, *_loss_all,
]
