"""Every op's samples on meta tensors against torch (Note: meta tensors, _meta.py): where torch
gives meta results leafgrad gives meta results of the same shapes and dtypes; where torch
raises, leafgrad raises (never a CPU tensor computed from no data)."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from tests._torch import require_torch

from .samples import SAMPLES

torch = require_torch()

CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flatten(part)]
    return [value]


def _outcome(lib, sample):
    inputs = [lib.empty(shape, device="meta") for shape, _ in sample.shapes]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = sample.call(lib, *inputs)
    except Exception as exc:  # noqa: BLE001 - compared as "raises"
        return "raises", type(exc).__name__
    return [(tuple(t.shape), str(t.dtype).split(".")[-1], str(t.device))
            if isinstance(t, (torch.Tensor, leafgrad.Tensor)) else type(t).__name__
            for t in _flatten(result)]


@pytest.mark.parametrize("name,index", CASES)
def test_meta_sample(name, index):
    sample = SAMPLES[name][index]
    expected = _outcome(torch, sample)
    got = _outcome(leafgrad, sample)
    if expected[0] == "raises":
        assert got[0] == "raises" or all(item[2] == "meta" for item in got
                                         if isinstance(item, tuple)), got
        return
    assert got == expected
