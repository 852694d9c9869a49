"""torch's MemoryFormat::Preserve (empty_like, clone, .to(dtype), .double(), ...) over many
layouts: dense permutations keep their strides, others get ``infer_dense_strides`` (stride-0
dims stay in place, ties go to the smaller size), empty tensors keep theirs. Expected strides are
torch 2.13's, computed in the test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _layouts(lib):
    base = lib.arange(2 * 3 * 4, dtype=lib.float32).reshape(2, 3, 4)
    out = {}
    for perm in itertools.permutations(range(3)):
        out[f"permute{perm}"] = base.permute(*perm)
        out[f"permute{perm} sliced"] = base.permute(*perm)[:, 1:]
        out[f"permute{perm} stepped"] = base.permute(*perm)[..., ::2]
    column = lib.arange(3.0).reshape(3, 1)
    out["expand rows"] = column.expand(3, 4)
    out["expand cols"] = lib.arange(4.0).reshape(1, 4).expand(3, 4)
    out["expand transposed"] = lib.zeros(2, 1, 3).expand(2, 4, 3).transpose(0, 2)
    out["expand middle"] = lib.zeros(2, 1, 3).expand(2, 5, 3)
    out["expand scalar"] = lib.tensor(1.5).expand(2, 3)
    out["expand then permute"] = lib.zeros(1, 3, 1).expand(4, 3, 2).permute(2, 0, 1)
    out["equal strides"] = lib.zeros(4, 4)[:, :1].expand(4, 3)
    out["size-1 dims"] = lib.zeros(3, 1, 4).permute(1, 2, 0)
    out["empty slice"] = lib.zeros(2, 3)[:, :0]
    out["empty expand"] = lib.zeros(1, 3).expand(0, 3)
    out["diagonal"] = lib.arange(16.0).reshape(4, 4).diagonal()
    out["as_strided overlap"] = lib.arange(10.0).as_strided((3, 3), (2, 1))
    return out


CASES = sorted(_layouts(leafgrad))
FORMS = {"clone": lambda t, lib: t.clone(), "double": lambda t, lib: t.double(),
         "to int32": lambda t, lib: t.to(lib.int32), "half": lambda t, lib: t.half(),
         "empty_like": lambda t, lib: lib.empty_like(t),
         "zeros_like": lambda t, lib: lib.zeros_like(t)}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("case", CASES)
def test_strides_as_torch(case, form):
    ours = FORMS[form](_layouts(leafgrad)[case], leafgrad)
    theirs = FORMS[form](_layouts(torch)[case], torch)
    assert ours.stride() == theirs.stride()
    if form not in ("empty_like",):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
