"""leafgrad.layout, its values and Tensor.layout against torch 2.13."""

from __future__ import annotations

import pickle

import leafgrad
from tests._torch import require_torch

torch = require_torch()

NAMES = ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
         "jagged", "_mkldnn")


def test_the_same_layout_values_as_torch():
    theirs = {n for n in dir(torch) if isinstance(getattr(torch, n, None), torch.layout)}
    ours = {n for n in dir(leafgrad) if isinstance(getattr(leafgrad, n, None), leafgrad.layout)}
    assert ours == theirs == set(NAMES)
    for name in NAMES:
        assert repr(getattr(leafgrad, name)) == repr(getattr(torch, name)).replace(
            "torch.", "leafgrad.")


def test_tensors_are_strided_and_layouts_pass_through_factories():
    for lib in (leafgrad, torch):
        x = lib.zeros(2, 3, layout=lib.strided)
        assert x.layout is lib.strided and x.layout == lib.strided
        assert x.t().layout is lib.strided and x.layout != lib.sparse_coo
        assert lib.ones_like(x, layout=lib.strided).layout is lib.strided
    assert pickle.loads(pickle.dumps(leafgrad.strided)) is leafgrad.strided
    assert pickle.loads(pickle.dumps(leafgrad.sparse_csr)) is leafgrad.sparse_csr
