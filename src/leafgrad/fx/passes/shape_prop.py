"""``torch.fx.passes.shape_prop``: ``ShapeProp`` runs a GraphModule and records each node's
result as ``node.meta['tensor_meta']`` (a ``TensorMetadata``, or a structure of them) and its
type as ``node.meta['type']``."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result, include_contiguity: bool = True) -> TensorMetadata:
    import leafgrad

    memory_format = None
    if include_contiguity:
        for query in (leafgrad.contiguous_format, leafgrad.channels_last,
                      leafgrad.channels_last_3d):
            try:
                if result.is_contiguous(memory_format=query):
                    memory_format = query
                    break
            except RuntimeError:
                continue
    return TensorMetadata(result.shape, result.dtype, result.requires_grad,
                          result.stride() if result.layout == leafgrad.strided else (),
                          memory_format, result.is_quantized, {})


class ShapeProp(Interpreter):
    """Runs the module on example inputs, recording shapes, dtypes and strides per node."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode
        self.real_module = self.module

    def run_node(self, n):
        from ...tensor import Tensor

        try:
            result = super().run_node(n)
        except Exception as error:
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with "
                               f"meta={n.meta}") from error
        found = [False]

        def extract(obj):
            if isinstance(obj, Tensor):
                found[0] = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
