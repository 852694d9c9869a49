"""``torch.functional``: the module torch's tensor-level functions such as ``einsum``,
``meshgrid`` and ``split`` are defined in (``from torch.functional import einsum``); here
they are leafgrad's own, re-exported."""

from __future__ import annotations

from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes,
               broadcast_tensors, cartesian_prod, cdist, chain_matmul, einsum, istft, lu,
               meshgrid, norm, split, stft, tensordot, unique, unique_consecutive, unravel_index)
from ._lowrank import pca_lowrank, svd_lowrank

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]
