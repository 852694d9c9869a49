"""``torch.distributed``: leafgrad runs in one process; there is no process group to join.

``is_available()`` is False (torch's answer on a build without the distributed package), so
code that guards on it runs its single-process path; the functions that need a process group
raise torch's error for one that was not initialized.
"""

from __future__ import annotations

import enum
import os
import warnings

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size", "init_process_group",
           "barrier", "destroy_process_group", "ReduceOp", "all_reduce", "broadcast",
           "all_gather", "all_gather_into_tensor", "all_gather_object", "broadcast_object_list",
           "reduce", "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor",
           "all_to_all", "all_to_all_single", "send", "recv", "isend", "irecv", "new_group",
           "get_backend", "monitored_barrier", "is_nccl_available", "is_gloo_available",
           "is_mpi_available", "is_torchelastic_launched"]

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
    raise AssertionError("Process group cannot be None")


def init_process_group(*args, **kwargs) -> None:
    raise RuntimeError("leafgrad has no distributed backend: it trains in one process")


class ReduceOp(enum.Enum):
    """The reductions collectives take (torch's ``RedOpType`` values)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


_RENAMED = {"all_gather_into_tensor": "all_gather_single",
            "reduce_scatter_tensor": "reduce_scatter_single"}  # deprecated in torch 2.13


def _needs_group(name: str):
    def collective(*args, **kwargs):
        if name in _RENAMED:
            warnings.warn(f"`torch.distributed.{name}` is deprecated. Please use "
                          f"`torch.distributed.{_RENAMED[name]}` instead.", FutureWarning,
                          stacklevel=2)
        raise ValueError(_NO_GROUP)

    collective.__name__ = collective.__qualname__ = name
    collective.__doc__ = f"torch.distributed.{name}: needs a process group, which leafgrad never has."
    return collective


for _name in ("all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
              "all_gather_object", "broadcast_object_list", "reduce", "gather", "scatter",
              "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send",
              "recv", "isend", "irecv", "new_group", "get_backend", "monitored_barrier"):
    globals()[_name] = _needs_group(_name)
del _name


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    """True when this process was started by torchrun (it sets TORCHELASTIC_RUN_ID)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
