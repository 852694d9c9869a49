"""``torch.utils.flop_counter``: count the floating-point operations of a block of code.

``FlopCounterMode`` counts what torch's counts, by the same formulas, under the same aten names
(``aten.mm``, ``aten.addmm``, ``aten.bmm``, ``aten.baddbmm``, ``aten.convolution``,
``aten.convolution_backward``), per module (``utils.module_tracker.ModuleTracker``'s names) and
in total. torch sees these calls in its dispatcher, forward and backward; leafgrad sees its own
matrix-product and convolution ops as they run, and counts the backward nodes whose torch
backward is such a call (``MmBackward0``, ``AddmmBackward0``, ``BmmBackward0``,
``BaddbmmBackward0``, ``ConvolutionBackward0``) by torch's formula for it: one product per
input this backward needs a gradient for (leafgrad's own ops inside them are not counted).
Other ops count nothing, as in torch (``scaled_dot_product_attention`` on the CPU included).
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from collections import defaultdict
from functools import wraps

from ..autograd import engine as _engine
from ..autograd.engine import ChainedObserver
from ..ops import aten as _aten
from ._pytree import tree_map
from .module_tracker import ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula"]

flop_registry: dict = {}


def get_shape(value):
    """A tensor's shape (what the formulas see); anything else as is."""
    from ..tensor import Tensor

    return value.shape if isinstance(value, (Tensor, _Shape)) else value


def shape_wrapper(formula):
    """A formula written on shapes, called with tensors and ``out_val``."""
    @wraps(formula)
    def on_values(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = tree_map(get_shape, (args, kwargs, out_val))
        return formula(*args, out_shape=out_shape, **kwargs)

    return on_values


def register_flop_formula(targets, get_raw: bool = False):
    """Register ``formula(*shapes, out_shape=..., **kwargs) -> int`` for an aten op (or a list
    of them); with ``get_raw``, the formula gets the values themselves."""
    def register(formula):
        wrapped = formula if get_raw else shape_wrapper(formula)
        for target in targets if isinstance(targets, (list, tuple)) else [targets]:
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = wrapped
        return formula

    return register


@register_flop_formula(_aten.mm)
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """(m, k) @ (k, n): 2 m n k."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(_aten.addmm)
def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return mm_flop(a_shape, b_shape)


@register_flop_formula(_aten.bmm)
def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """(b, m, k) @ (b, k, n): 2 b m n k."""
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


@register_flop_formula(_aten.baddbmm)
def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return bmm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed: bool = False) -> int:
    """Two flops per multiply-add: every output position (of the input, for a transposed
    convolution) meets every weight of its group, for each batch element."""
    batch = x_shape[0]
    positions = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *kernel = w_shape
    return math.prod(positions) * math.prod(kernel) * batch * c_out * c_in * 2


@register_flop_formula([_aten.convolution, _aten._convolution])
def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args,
              out_shape=None, **kwargs) -> int:
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


def _swap01(shape) -> list:
    return [shape[1], shape[0], *shape[2:]]


@register_flop_formula(_aten.convolution_backward)
def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                       transposed, _output_padding, _groups, output_mask,
                       out_shape) -> int:
    """The input gradient is a convolution of the output gradient with the weight (transposed
    the other way); the weight gradient one of the input with the output gradient, channels
    and batch swapped."""
    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        if transposed:
            flops += conv_flop_count(_swap01(grad_out_shape), _swap01(x_shape),
                                     _swap01(out_shape[1]), transposed=False)
        else:
            flops += conv_flop_count(_swap01(x_shape), _swap01(grad_out_shape),
                                     _swap01(out_shape[1]), transposed=False)
    return flops


# -- printing ------------------------------------------------------------------------------------

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number) -> str:
    """The suffix a table uses for ``number``: one step per three digits, from four digits
    (1,001,000,000 reads 1001M, not 1.001B)."""
    index = max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))
    return suffixes[index]


def convert_num_with_suffix(number, suffix: str) -> str:
    index = suffixes.index(suffix)
    return f"{number / 1000 ** index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


# -- what leafgrad's ops are, in torch's terms ----------------------------------------------------

def _conv_args(args, params, transposed: bool) -> tuple:
    """aten.convolution's arguments for leafgrad's Convolution/ConvTranspose op."""
    spatial = params["spatial"]

    def view(key):
        value = tuple(params[key])
        return value[1:] if spatial == 1 and len(value) == 2 else value

    x, w, b = args[:3]
    output_padding = [0] * spatial
    if transposed and "output_shape" in params:
        stride, padding, dilation = view("stride"), view("padding"), view("dilation")
        for i, (out, n, k) in enumerate(zip(tuple(params["output_shape"])[-spatial:],
                                            x.shape[2:], w.shape[2:])):
            output_padding[i] = out - ((n - 1) * stride[i] - 2 * padding[i]
                                       + dilation[i] * (k - 1) + 1)
    return (x, w, b, list(view("stride")), list(view("padding")), list(view("dilation")),
            transposed, output_padding, params["groups"])


@functools.lru_cache(maxsize=1)
def _counted_ops() -> dict:
    """leafgrad's op classes the registry may count -> their aten packet."""
    from ..ops.conv import Convolution, ConvolutionBackward, ConvTranspose
    from ..ops.linalg import Addmm, Bmm, Mm
    from ..ops.linalg_ext import Baddbmm

    return {Mm: _aten.mm, Bmm: _aten.bmm, Addmm: _aten.addmm, Baddbmm: _aten.baddbmm,
            Convolution: _aten.convolution, ConvTranspose: _aten.convolution,
            ConvolutionBackward: _aten.convolution_backward}


def _forward_call(cls, args, params):
    """(aten packet, torch-style args) of a leafgrad op the registry may count, or None."""
    packet = _counted_ops().get(cls)
    if packet is None:
        return None
    if packet is _aten.mm or packet is _aten.bmm:
        return packet, tuple(args[:2])
    if packet is _aten.addmm or packet is _aten.baddbmm:
        return packet, tuple(args[:3])
    if packet is _aten.convolution:
        return packet, _conv_args(args, params, "output_shape" in params)
    return packet, (*args[:3], None, *_conv_args((args[1], args[2], None), params,
                                                  params["transposed"])[3:],
                    list(params["output_mask"]))


class _Shape:
    """Stands in for a tensor of a given shape (a formula only reads ``.shape``)."""

    __slots__ = ("shape",)

    def __init__(self, shape) -> None:
        from ..tensor import Size

        self.shape = Size(shape)


def _backward_calls(node) -> list:
    """[(packet, args, out)] torch's backward of ``node`` runs, for the nodes whose torch
    backward is one aten product per gradient (counted from the shapes the node saved)."""
    name = node.name()
    task = _engine.current_task()
    # torch computes only the gradients this backward needs (autograd.grad's inputs)
    needs = [child is not None and (task is None or child in task.nodes)
             for child in node._next_nodes]
    calls = []
    if name in ("MmBackward0", "BmmBackward0"):
        a, b = node.input_shape(0), node.input_shape(1)
        product = _aten.mm if name == "MmBackward0" else _aten.bmm
        batch = a[:-2]
        if needs[0]:  # grad @ mat2^T
            calls.append((product, (_Shape((*batch, a[-2], b[-1])),
                                    _Shape((*batch, b[-1], b[-2]))), _Shape(a)))
        if needs[1]:  # self^T @ grad
            calls.append((product, (_Shape((*batch, a[-1], a[-2])),
                                    _Shape((*batch, a[-2], b[-1]))), _Shape(b)))
    elif name in ("AddmmBackward0", "BaddbmmBackward0"):
        a, b = node.input_shape(1), node.input_shape(2)
        product = _aten.mm if name == "AddmmBackward0" else _aten.bmm
        batch = a[:-2]
        if needs[1]:
            calls.append((product, (_Shape((*batch, a[-2], b[-1])),
                                    _Shape((*batch, b[-1], b[-2]))), _Shape(a)))
        if needs[2]:
            calls.append((product, (_Shape((*batch, a[-1], a[-2])),
                                    _Shape((*batch, a[-2], b[-1]))), _Shape(b)))
    elif name == "ConvolutionBackward0":
        x, w = node.input_shape(0), node.input_shape(1)
        mask = [needs[0], needs[1], len(needs) > 2 and needs[2]]
        params = node._params
        transposed = "output_shape" in params
        conv = _conv_args((_Shape(x), _Shape(w), None), params, transposed)
        out_shape = _conv_out_shape(x, w, conv, transposed)
        outs = (_Shape(x) if mask[0] else None, _Shape(w) if mask[1] else None,
                _Shape((w[1] if transposed else w[0],)) if mask[2] else None)
        calls.append((_aten.convolution_backward,
                      (_Shape(out_shape), _Shape(x), _Shape(w), None, *conv[3:], mask), outs))
    return calls


def _conv_out_shape(x, w, conv, transposed: bool) -> tuple:
    stride, padding, dilation, _, output_padding, groups = conv[3:]
    sizes = []
    for i, (n, k) in enumerate(zip(x[2:], w[2:])):
        if transposed:
            sizes.append((n - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + 1
                         + output_padding[i])
        else:
            sizes.append((n + 2 * padding[i] - dilation[i] * (k - 1) - 1) // stride[i] + 1)
    channels = w[1] * groups if transposed else w[0]
    return (x[0], channels, *sizes)


# -- the counter ---------------------------------------------------------------------------------

_install_lock = threading.Lock()


class FlopCounterMode:
    """Count the flops of the code run inside it, per module and in total; print a table on
    exit (``display=True``; it needs the ``tabulate`` package, as torch's does).

    ``get_total_flops()``, ``get_flop_counts()`` ({module name: {aten op: flops}}, "Global" for
    everything) and ``get_table(depth)``. ``custom_mapping``: {aten op: formula} to add or
    replace formulas (as ``register_flop_formula``'s)."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True,
                 custom_mapping: dict | None = None) -> None:
        self.flop_counts: dict = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_registry = {
            **flop_registry,
            **{k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
               for k, v in custom_mapping.items()}}
        self.mod_tracker = ModuleTracker()

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{module name: {aten op: flops}} ("Global": everything)."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None) -> str:
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        import tabulate

        tabulate.PRESERVE_WHITESPACE = True
        header = ["Module", "FLOP", "% Total"]
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        subsumed = False

        def rows_of(name: str, indent: int) -> list:
            nonlocal subsumed
            total = sum(self.flop_counts[name].values())
            subsumed |= total >= global_flops
            pad = " " * indent
            rows = [[pad + name, convert_num_with_suffix(total, global_suffix),
                     convert_to_percent_str(total, global_flops)]]
            for op, flops in self.flop_counts[name].items():
                rows.append([pad + " - " + str(op), convert_num_with_suffix(flops, global_suffix),
                             convert_to_percent_str(flops, global_flops)])
            return rows

        values = []
        for name in sorted(self.flop_counts.keys()):
            if name == "Global":
                continue
            level = name.count(".") + 1
            if level > depth:
                continue
            values.extend(rows_of(name, level - 1))
        # the Global row only when some flops ran outside every module
        if "Global" in self.flop_counts and not subsumed:
            for row in values:
                row[0] = " " + row[0]
            values = rows_of("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return tabulate.tabulate(values, headers=header, colalign=("left", "right", "right"))

    # Not reentrant, as torch's.
    def __enter__(self):
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self.mode = _Counting(self)
        self.mode.install()
        return self

    def __exit__(self, *args):
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        self.mode.uninstall()
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return False

    def _count_flops(self, packet, out, args, kwargs):
        formula = self.flop_registry.get(packet)
        if formula is not None:
            flops = formula(*args, **kwargs, out_val=out)
            for parent in set(self.mod_tracker.parents):
                self.flop_counts[parent][packet] += flops
            return True
        return False


class _Counting:
    """Watches leafgrad's ops and backward nodes while a FlopCounterMode is entered (the
    profiler's way in: ``Op.apply`` and the engine's observer, restored on exit)."""

    def __init__(self, counter: FlopCounterMode) -> None:
        self.counter = counter
        self.quiet = 0  # inside a node counted by its formula: its own ops are not counted

    def install(self) -> None:
        from ..autograd import engine
        from ..ops.registry import Op

        counting = self
        self._apply = Op.__dict__["apply"]
        inner = self._apply.__func__

        def counted_apply(cls, *args, **params):
            result = inner(cls, *args, **params)
            if not counting.quiet:
                call = _forward_call(cls, args, params)
                if call is not None:
                    packet, torch_args = call
                    counting.counter._count_flops(packet, result, torch_args, {})
            return result

        Op.apply = classmethod(counted_apply)
        self._observer = engine._observer
        engine._observer = _NodeObserver(self, engine._observer)

    def uninstall(self) -> None:
        from ..autograd import engine
        from ..ops.registry import Op

        Op.apply = self._apply
        engine._observer = self._observer

    def count_node(self, node) -> None:
        for packet, args, out in _backward_calls(node):
            self.counter._count_flops(packet, out, args, {})


_FORMULA_NODES = frozenset(("MmBackward0", "BmmBackward0", "AddmmBackward0",
                            "BaddbmmBackward0", "ConvolutionBackward0"))


class _NodeObserver(ChainedObserver):
    """The engine's observer while counting: runs each node, then counts what torch's backward
    of it computes (``_Counting.count_node``); the observer it displaced still sees
    everything."""

    def __init__(self, counting: _Counting, previous) -> None:
        super().__init__(previous)
        self.counting = counting

    def run(self, node, buffer, hookset, run_hooked, retain_graph):
        # torch's backward of these is one or two products it counts by formula; leafgrad's
        # may run other ops (or none): counted by the formula, its own ops are not
        formula = hasattr(node, "input_shape") and node.name() in _FORMULA_NODES
        if formula:
            self.counting.quiet += 1
        try:
            result = self.run_node(node, buffer, hookset, run_hooked, retain_graph)
        finally:
            if formula:
                self.counting.quiet -= 1
        if formula:  # (after its pre-hooks: a module tracker's backward entry is one)
            self.counting.count_node(node)
        return result
