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
