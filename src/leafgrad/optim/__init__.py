"""Optimizers (``leafgrad.optim.SGD``); built on Tensor only."""

from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD"]
