"""``leafgrad.utils``: data loading (``leafgrad.utils.data``), activation checkpointing
(``leafgrad.utils.checkpoint``) and exchange with other array libraries
(``leafgrad.utils.dlpack``)."""

from . import _pytree, checkpoint, data, dlpack, hooks, model_zoo
from ._swap import swap_tensors

__all__ = ["checkpoint", "data", "dlpack", "hooks", "model_zoo", "swap_tensors"]
