"""Optimizers (``leafgrad.optim.SGD``, ``Adam``, ``AdamW``); built on Tensor only."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
