"""``leafgrad.utils``: data loading (``leafgrad.utils.data``) and activation checkpointing
(``leafgrad.utils.checkpoint``)."""

from . import checkpoint, data, hooks
from ._swap import swap_tensors

__all__ = ["checkpoint", "data", "hooks", "swap_tensors"]
