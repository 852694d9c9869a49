"""``leafgrad.utils``: data loading (``leafgrad.utils.data``) and activation checkpointing
(``leafgrad.utils.checkpoint``)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
