"""``leafgrad.utils``: data loading (``leafgrad.utils.data``)."""

from . import data

__all__ = ["data"]
