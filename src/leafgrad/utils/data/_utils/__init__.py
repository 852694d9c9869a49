"""torch's ``torch.utils.data._utils``: collation, the dataset fetchers and the worker side of
the DataLoader (``collate``, ``fetch``, ``worker``), under the names torch's users import."""

from . import collate, fetch, worker

__all__ = ["collate", "fetch", "worker"]
