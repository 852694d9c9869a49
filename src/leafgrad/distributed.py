"""``torch.distributed``: leafgrad runs in one process; there is no process group to join.

``is_available()`` is False (torch's answer on a build without the distributed package), so
code that guards on it runs its single-process path; the functions that need a process group
raise torch's error for one that was not initialized.
"""

from __future__ import annotations

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size", "init_process_group",
           "barrier", "destroy_process_group"]

_NO_GROUP = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def get_rank(group=None) -> int:
    raise ValueError(_NO_GROUP)


def get_world_size(group=None) -> int:
    raise ValueError(_NO_GROUP)


def barrier(group=None, async_op: bool = False, device_ids=None):
    raise ValueError(_NO_GROUP)


def destroy_process_group(group=None) -> None:
    raise ValueError(_NO_GROUP)


def init_process_group(*args, **kwargs) -> None:
    raise RuntimeError("leafgrad has no distributed backend: it trains in one process")
