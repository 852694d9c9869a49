"""``Tensor.view(dtype)``: the same bytes read as another dtype (issue 11 item 12).

torch's rules: with equal element sizes any tensor can be viewed; otherwise the tensor needs at
least one dim, a last dim of stride 1, and (to a wider dtype) a last size, storage offset and
other strides divisible by the size ratio; the last dim scales by the ratio. The result shares
memory and the version counter with ``self``, and is not differentiable (torch: it does not
require grad, whatever ``self`` does).
"""

from __future__ import annotations

import numpy as np


def view_dtype(tensor, dtype):
    from .tensor import _wrap

    old, data = tensor.dtype, tensor._data
    names = f"{old._legacy} as {dtype._legacy}"
    if old.itemsize != dtype.itemsize:
        # torch's checks, in its order (downsizing: the last stride; upsizing: the last size,
        # the offset, the last stride, then the other strides)
        if data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names} (different element sizes)")
        strides = tensor.stride()
        checks = []
        if dtype.itemsize > old.itemsize:
            checks = [("self.size(-1)", data.shape[-1]),
                      ("self.storage_offset()", tensor.storage_offset())]
        ratio = dtype.itemsize // old.itemsize
        for what, value in checks:
            if value % ratio:
                raise RuntimeError(f"{what} must be divisible by {ratio} to view {names} "
                                   f"(different element sizes), but got {value}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names} (different element "
                               f"sizes), but got {strides[-1]}")
        for k, stride in enumerate(strides[:-1] if ratio > 1 else ()):
            if stride % ratio:
                raise RuntimeError(f"self.stride({k}) must be divisible by {ratio} to view "
                                   f"{names} (different element sizes), but got {stride}")
        if data.shape[-1] == 1 and data.strides[-1] != data.itemsize:
            # NumPy's view of another item size needs the last axis contiguous in its strides
            data = np.lib.stride_tricks.as_strided(
                data, strides=data.strides[:-1] + (data.itemsize,))
    out = _wrap(data.view(dtype.np))
    out._vc = tensor._version_counter()  # writes through either show in both
    return out
