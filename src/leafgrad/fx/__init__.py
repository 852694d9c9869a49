"""``torch.fx``: symbolic tracing of a module's forward into a ``Graph`` of ``Node``s, the
``GraphModule`` running the code generated from it, and the tools built on them
(``Interpreter``, ``Transformer``, ``replace_pattern``, ``passes.shape_prop``).

Tracing intercepts leafgrad's functions and Tensor methods through the ``__torch_function__``
protocol of ``leafgrad.overrides`` (``Proxy.__torch_function__``), operators through the
proxy's own dunders and module calls by patching ``Module.__call__``, as torch's does; node
names, targets, the printed graph and the generated code are torch's (leafgrad's functions
are printed under torch's names: ``torch.relu``, ``torch._C._nn.linear``,
``torch.nn.functional.relu``)."""

from . import passes  # noqa: F401 - torch.fx.passes (shape_prop)
from ._symbolic_trace import PH, Tracer, is_fx_tracing, symbolic_trace, wrap
from .graph import CodeGen, Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "Graph", "GraphModule", "Node", "Proxy", "Interpreter",
           "Transformer", "wrap", "map_arg", "replace_pattern", "has_side_effect", "PH",
           "CodeGen", "is_fx_tracing"]
