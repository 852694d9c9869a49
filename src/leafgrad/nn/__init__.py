"""``leafgrad.nn``: for now the functional layer (``leafgrad.nn.functional``)."""

from . import functional

__all__ = ["functional"]
