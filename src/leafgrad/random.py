"""``leafgrad.random``: the default generator's state and seeds, as ``torch.random``.

>>> with leafgrad.random.fork_rng():
...     _ = leafgrad.rand(3)  # the stream outside the block is not advanced
"""

from __future__ import annotations

import contextlib

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]


def set_rng_state(new_state) -> None:
    from . import set_rng_state as _set

    _set(new_state)


def get_rng_state():
    from . import get_rng_state as _get

    return _get()


def manual_seed(seed):
    from . import manual_seed as _manual_seed

    return _manual_seed(seed)


def seed() -> int:
    from . import seed as _seed

    return _seed()


def initial_seed() -> int:
    from . import initial_seed as _initial_seed

    return _initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Save the CPU generator's state and restore it when the block ends (there are no other
    devices to fork here)."""
    if device_type == "meta" or not enabled:
        yield
        return
    if device_type not in (None, "cuda", "cpu"):
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a "
                           "module by `torch._register_device_module`.")
    if devices is not None:
        devices = list(devices)  # a generator is consumed once, as torch does
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """The DataLoader thread worker's generator; None outside one (always here: leafgrad's
    DataLoader loads in the main process)."""
    return None
