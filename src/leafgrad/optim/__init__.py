"""Optimizers with torch's update rules and state dicts, and ``lr_scheduler``; built on Tensor
only."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from .adaptive import Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop
from .classic import ASGD, Rprop, SparseAdam
from .lbfgs import LBFGS
from .adafactor import Adafactor
from .muon import Muon
from . import lr_scheduler, swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "SparseAdam", "LBFGS", "Adafactor", "Muon",
           "lr_scheduler", "swa_utils"]
