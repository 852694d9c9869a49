"""``leafgrad.utils``: data loading (``leafgrad.utils.data``) and activation checkpointing
(``leafgrad.utils.checkpoint``)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
