"""Facts of torch's checkpoint format shared by the writer and the readers."""

import numpy as np

_ALIGNMENT = 64
_STORAGE_TYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
    "ComplexFloatStorage": np.complex64, "ComplexDoubleStorage": np.complex128,
}
_STORAGE_BY_DTYPE = {np.dtype(v): k for k, v in _STORAGE_TYPES.items()}


def storage_name(dtype: np.dtype):
    """torch's typed storage class name for an array dtype (None: uint16/32/64, which torch
    writes as untyped bytes). bfloat16 is ml_dtypes' (kind "V"): torch.BFloat16Storage."""
    name = _STORAGE_BY_DTYPE.get(dtype)
    if name is None and dtype.kind == "V" and dtype.name == "bfloat16":
        return "BFloat16Storage"
    return name
