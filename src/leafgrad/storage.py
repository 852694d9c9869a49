"""``torch.storage``: the public home of the storage classes (written in ``_storage.py``)."""

from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
