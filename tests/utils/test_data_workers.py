"""DataLoader with num_workers > 0 against torch 2.13's worker processes (leafgrad emulates them
in the calling process: utils/data/dataloader.py, Note: worker processes). Random draws in
__getitem__/__iter__ (torch, random, numpy), worker_init_fn, get_worker_info(), the batch order
of sharded and unsharded iterable datasets, persistent workers over epochs, and the main
process's generators afterwards must all be torch's. Each library runs in a child process (torch
starts real worker processes; the module-level datasets below are importable by them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests._torch import require_torch

require_torch()

CHILD = r'''
import gc, json, os, random, sys
import numpy as np
lib = __import__(sys.argv[1])
data = lib.utils.data


class Augmented(data.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        info = data.get_worker_info()
        wid = -1 if info is None else info.id
        return (lib.tensor([float(i)]) + lib.rand(1), random.random(), float(np.random.rand()),
                wid)


class Stream(data.IterableDataset):
    def __init__(self, shard):
        self.shard = shard

    def __iter__(self):
        info = data.get_worker_info()
        start, step = 0, 1
        if self.shard and info is not None:
            start, step = info.id, info.num_workers
        noise = lib.randint(0, 100, (1,)).item()
        return iter([(i, noise) for i in range(start, 11, step)])


def init(worker_id):
    info = data.get_worker_info()
    random.seed(info.seed % 1000 + worker_id)


def describe(batch):
    if isinstance(batch, (list, tuple)):
        return [describe(b) for b in batch]
    if hasattr(batch, "tolist"):
        return batch.tolist()
    return batch


def run(case):
    lib.manual_seed(case["seed"])
    random.seed(0)
    np.random.seed(0)
    kw = dict(num_workers=case["workers"], batch_size=case["batch"])
    if case["workers"]:
        kw["persistent_workers"] = case["persistent"]
    if case.get("init"):
        kw["worker_init_fn"] = init
    if case["kind"] == "map":
        loader = data.DataLoader(Augmented(), shuffle=case["shuffle"], drop_last=case["drop"],
                                 **kw)
    else:
        loader = data.DataLoader(Stream(case["kind"] == "sharded"), drop_last=case["drop"], **kw)
    epochs = [[describe(b) for b in loader] for _ in range(2)]
    after = (lib.rand(2).tolist(), random.random(), float(np.random.rand()))
    del loader  # (persistent) workers shut down before this process exits
    gc.collect()
    return [epochs, after, data.get_worker_info() is None]


# Each case in a process forked from this one after the import (a fresh random state and no
# worker from an earlier case), so each library is imported once for all cases.
for index, case in enumerate(json.loads(sys.argv[2])):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            print(json.dumps([index, run(case)]))
        except BaseException as error:
            print(json.dumps([index, "failed: " + repr(error)]))
        sys.stdout.flush()
        os._exit(0)
    os.waitpid(pid, 0)
'''


_RESULTS: dict = {}


def _run(lib: str, case: dict):
    """``case``'s outcome under ``lib``; one child process runs every case (see CHILD)."""
    if lib not in _RESULTS:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.join(os.path.dirname(__file__), "..", "..", "src"),
             os.environ.get("PYTHONPATH", "")]))
        out = subprocess.run([sys.executable, "-c", CHILD, lib, json.dumps(CASES)],
                             capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode == 0, out.stderr[-2000:]
        rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
        _RESULTS[lib] = {index: result for index, result in rows}
    result = _RESULTS[lib].get(CASES.index(case))
    assert result is not None and not isinstance(result, str), (lib, result)
    return result


CASES = []
for workers in (0, 1, 2, 3):
    for kind in ("map", "sharded", "unsharded"):
        for persistent in ((False, True) if workers else (False,)):
            CASES.append(dict(seed=7, workers=workers, kind=kind, persistent=persistent,
                              batch=3, shuffle=kind == "map", drop=False))
CASES += [dict(seed=1, workers=2, kind="map", persistent=False, batch=4, shuffle=True,
               drop=True, init=True),
          dict(seed=2, workers=2, kind="sharded", persistent=False, batch=4, shuffle=False,
               drop=True, init=True),
          dict(seed=3, workers=2, kind="map", persistent=False, batch=None, shuffle=False,
               drop=False),
          dict(seed=4, workers=3, kind="sharded", persistent=True, batch=None, shuffle=False,
               drop=False)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_workers_as_torch(case):
    assert _run("leafgrad", case) == _run("torch", case)
