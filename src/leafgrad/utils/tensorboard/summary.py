"""torch's ``torch.utils.tensorboard.summary``: the functions that make each kind of
``Summary`` protocol buffer (what SummaryWriter's ``add_*`` methods write)."""

from __future__ import annotations

import struct

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._media import audio, mesh, video
from ._summary import (custom_scalars, histogram, hparams, image, image_boxes, make_histogram,
                       pr_curve, pr_curve_raw, scalar, text)

__all__ = ["audio", "custom_scalars", "half_to_int", "histogram", "hparams", "image",
           "image_boxes", "int_to_half", "make_histogram", "mesh", "pr_curve", "pr_curve_raw",
           "scalar", "tensor_proto", "text", "video"]


def _calc_scale_factor(tensor) -> int:
    """255 to bring [0, 1] floats to pixel values; 1 for uint8 images."""
    array = tensor.numpy() if not isinstance(tensor, np.ndarray) else tensor
    return 1 if array.dtype == np.uint8 else 255


def half_to_int(f: float) -> int:
    """A half (or bfloat16) value for TensorProto's half_val: torch stores the bits of the
    value as a float32, read as an int32."""
    return struct.unpack("i", struct.pack("f", f))[0]


def int_to_half(i: int) -> float:
    """``half_to_int`` undone."""
    return struct.unpack("f", struct.pack("i", i))[0]


def _halves(t) -> list:
    return [half_to_int(x) for x in t.flatten().tolist()]


def _complexes(t) -> list:
    from ... import view_as_real

    return view_as_real(t).flatten().tolist()


def _values(t) -> list:
    return t.flatten().tolist()


# dtype name -> (TensorProto dtype, its field, how the values are written), as torch's map
_TENSOR_TYPES = {
    "float16": ("DT_HALF", "half_val", _halves),
    "bfloat16": ("DT_BFLOAT16", "half_val", _halves),
    "float32": ("DT_FLOAT", "float_val", _values),
    "float64": ("DT_DOUBLE", "double_val", _values),
    "int8": ("DT_INT8", "int_val", _values),
    "uint8": ("DT_UINT8", "uint32_val", _values),
    "int16": ("DT_INT16", "int_val", _values),
    "int32": ("DT_INT32", "int_val", _values),
    "int64": ("DT_INT64", "int64_val", _values),
    "complex32": ("DT_COMPLEX32", "scomplex_val", _complexes),
    "complex64": ("DT_COMPLEX64", "scomplex_val", _complexes),
    "complex128": ("DT_COMPLEX128", "dcomplex_val", _complexes),
    "bool": ("DT_BOOL", "bool_val", _values),
}


def tensor_proto(tag, tensor):
    """The whole tensor in a summary for the tensor plugin."""
    if tensor.numel() * tensor.itemsize >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    kind = _TENSOR_TYPES.get(str(tensor.dtype).split(".")[-1])
    if kind is None:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, values = kind
    proto = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(
        dim=[TensorShapeProto.Dim(size=size) for size in tensor.shape]), **{field: values(tensor)})
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])
