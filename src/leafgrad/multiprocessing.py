"""``torch.multiprocessing``: Python's multiprocessing (torch's wraps it to share tensor
memory between processes; leafgrad's tensors pickle as arrays), plus torch's sharing-strategy
switches."""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403 - torch re-exports the whole module

__all__ = list(_mp.__all__) + ["get_all_sharing_strategies", "get_sharing_strategy",
                               "set_sharing_strategy", "spawn"]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def get_all_sharing_strategies() -> set:
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    return _strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    if new_strategy not in _STRATEGIES:
        raise AssertionError
    _strategy[0] = new_strategy


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn"):
    """Runs ``fn(i, *args)`` in ``nprocs`` processes (torch.multiprocessing.spawn); with
    ``join`` waits for them and raises if one failed."""
    context = _mp.get_context(start_method)
    processes = [context.Process(target=fn, args=(i, *args), daemon=daemon)
                 for i in range(nprocs)]
    for process in processes:
        process.start()
    if not join:
        return processes
    for process in processes:
        process.join()
    failed = [i for i, process in enumerate(processes) if process.exitcode != 0]
    if failed:
        raise Exception(f"process {failed[0]} terminated with exit code "
                        f"{processes[failed[0]].exitcode}")
    return None
