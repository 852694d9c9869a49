"""The recorded graph: nodes (what ``grad_fn`` shows), saved tensors and leaf accumulators.

A node is created by every differentiable op that runs while grad mode is on and one of its
inputs requires grad. It points *down* the graph, toward the leaves, through
``next_functions``: one ``(node, input_nr)`` edge per input, ``(None, 0)`` for inputs that do not
require grad. Nothing points up, so a graph is freed as soon as the last tensor that can reach
its root is dropped.

This module imports only NumPy and the standard library; tensors reach it through the
duck-typed attributes documented on ``Node`` and ``SavedTensor``.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import Any, Callable

from .._hooks import RemovableHandle as _HandleBase
from .anomaly_mode import record_node, state as _anomaly_state, write_location
from .grad_mode import state as _grad_state

# Note: inference tensors. Tensors made inside inference_mode() share this one version counter,
# which marks them (torch's inference tensors track no version). Views of an inference tensor
# inherit it; a view of a normal tensor keeps its base's counter, and so stays normal, as in
# torch. Outside inference mode they cannot be updated in place, saved for backward or made to
# require grad. detach() and .data of one give INFERENCE_DETACHED: still inference tensors, but
# (as in torch) updatable in place and with a readable _version of 0; their views are guarded
# again.
INFERENCE_VC = [0]
INFERENCE_DETACHED = [0]

__all__ = [
    "Node",
    "Hooks",
    "AccumulateGrad",
    "SavedTensor",
    "RemovableHandle",
    "FREED_MESSAGE",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)

# Note: execution order
# torch gives every node a sequence number when it is created and the engine runs the ready
# node with the highest number first (the most recently recorded op), leaves' accumulators
# before everything else. leafgrad does the same, so hooks fire in torch's order.
_sequence = itertools.count()
_UINT64_MAX = 2**64 - 1  # an accumulator's number in torch (its own, none taken)


# What dir() shows of a built-in node besides its saved values (torch's names that exist here).
_NODE_PUBLIC = frozenset(("metadata", "name", "next_functions", "register_hook",
                          "register_prehook", "_sequence_nr", "_set_sequence_nr"))
# Values leafgrad's ops keep for their backward under names torch's nodes do not have: dir()
# leaves them out (``grad_fn._saved_dtype`` still reads them).
_INTERNAL_SAVES = frozenset((
    "UPLO", "as_written", "atol", "bags", "base", "bias_shape", "choice", "columns", "compute_uv", "compute_v",
    "decimals", "descending", "dtype", "extrema", "factor", "forward", "hermitian", "in_strides",
    "input_size", "input_sizes", "largest", "last_dim_size", "layouts", "memory_format", "nan",
    "neginf", "normalized_ndim", "num_bags", "num_groups", "num_weights", "output_mask",
    "output_shape", "posinf", "rtol", "samples", "shape", "slow", "softmax", "sorted",
    "spatial", "stable", "var", "weight_array",
))


# Note: slice bounds as written
# torch's SliceBackward0 of ``x[a:b]`` keeps the bounds as written, not clamped to the size (an
# open end is INT64_MAX), and its accessors show them as unsigned 64-bit numbers (-1 reads
# 18446744073709551615). getitem keeps the slice object in the node's params ("as_written");
# the accessors work the numbers out from it (narrow's bounds are its own, kept as given).
def _as_written(item: slice, key: str) -> int:
    if key == "start":
        value = 0 if item.start is None else int(item.start)
    else:
        value = 2**63 - 1 if item.stop is None else int(item.stop)
    return value % 2**64


def next_sequence_nr() -> int:
    """The number the next node will take, without taking it (torch's counter moves only
    when a node is made, not when a backward runs): read from the counter's repr,
    ``count(N)``."""
    return int(repr(_sequence)[6:-1])


# Shared tuples of zeros for the usual ``_next_nrs`` (every edge to output 0).
_ZEROS = tuple((0,) * n for n in range(9))


def _output_numbers(numbers: tuple) -> tuple:
    """``numbers``, or the shared tuple equal to it when every one is 0."""
    if len(numbers) < len(_ZEROS) and not any(numbers):
        return _ZEROS[len(numbers)]
    return numbers


class RemovableHandle(_HandleBase):
    """Returned by ``register_hook``; ``remove()`` unregisters the hook. A subclass of
    ``torch.utils.hooks.RemovableHandle`` (isinstance holds, as in torch) that keeps its dict
    strongly and nothing else. torch returns its ``torch.utils.hooks.RemovableHandle`` itself, so
    this one carries that module name and draws its ids from the same counter as module hooks."""

    __slots__ = ("_hooks", "_key")
    __module__ = "leafgrad.utils.hooks"

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self._key = next(_HandleBase._ids)

    @property
    def id(self) -> int:
        return self._key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


def _add_hook(hooks: dict, fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle._key] = fn
    return handle


class Hooks:
    """A node's hooks, kept apart so that the common hook-less node carries one None."""

    __slots__ = ("tensor_pre", "retains_grad", "pre", "post", "metadata")

    def __init__(self):
        self.tensor_pre = None  # {key: (output_nr, fn)}: Tensor.register_hook on outputs
        self.retains_grad = None  # {output_nr: fn}: Tensor.retain_grad, run after tensor_pre
        self.pre = None  # {key: fn(grad_outputs)}: Node.register_prehook
        self.post = None  # {key: fn(grad_inputs, grad_outputs)}: Node.register_hook
        self.metadata = None


_BUILTIN_HOMES = ("leafgrad.ops.", "leafgrad.nn.")  # where leafgrad writes torch's own nodes


class Node:
    """A recorded operation; the object a tensor's ``grad_fn`` returns.

    Subclasses implement ``_apply(grads) -> tuple`` mapping the gradients of the node's outputs
    to one gradient per edge in ``next_functions``. The class name is the torch name
    (``MulBackward0``), so ``type(y.grad_fn).__name__`` matches torch too.
    """

    # Note: edges kept flat
    # ``next_functions`` is stored as two tuples, the child nodes and their output numbers,
    # and built as torch's tuple of pairs only when asked for. A pair per edge would be one
    # more object per edge for the cyclic garbage collector to traverse while the graph is
    # alive (each collection of the oldest generation walks every live node): on the
    # 100,000-op chain of benchmarks/bench_chain.py that traversal was most of the forward.
    __slots__ = (
        "_next_nodes",
        "_next_nrs",
        "_seq",
        "_saved",
        "_params",
        "_input_meta",
        "_hookset",
        "__weakref__",
    )

    # Whether the engine runs the node when no gradient reached it (see Note: nodes reached
    # without a gradient, engine.py): a custom Function's does, with zeros
    runs_without_grads = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith(_BUILTIN_HOMES):
            # torch's built-in nodes are C++ classes: ``type(y.grad_fn)`` prints
            # ``<class 'MulBackward0'>``; where the class is written stays in ``defined_in``
            cls.defined_in = cls.__module__
            cls.__module__ = "builtins"

    def __init__(self, next_functions: tuple = ()):
        self.next_functions = next_functions
        self._seq = next(_sequence)
        self._saved = {}
        self._params = {}
        self._input_meta = ()
        self._hookset = None
        if _anomaly_state.enabled:
            record_node(self)

    @property
    def next_functions(self) -> tuple:
        return tuple(zip(self._next_nodes, self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        self._next_nodes = tuple([node for node, _ in edges])
        self._next_nrs = _output_numbers(tuple([output_nr for _, output_nr in edges]))

    # Set where torch's name() differs from the class name (torch::autograd::CopyBackwards).
    qualified_name = None

    # -- what torch shows ------------------------------------------------------------------
    def name(self) -> str:
        return self.qualified_name or type(self).__name__

    @property
    def metadata(self) -> dict:
        hooks = self._hooks()
        if hooks.metadata is None:
            hooks.metadata = {}
        return hooks.metadata

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _sequence_number(self) -> int:
        return self._seq

    def _sequence_nr(self) -> int:
        """torch's ``Node._sequence_nr()``: the number this node took when it was made (one
        counter for every node, counted from 0 in the process; an accumulator's is
        UINT64_MAX, as in torch)."""
        return self._seq if self._seq != float("inf") else _UINT64_MAX

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """torch's ``Node._set_sequence_nr``: the number the engine orders ready nodes by (the
        highest runs first; see Note: execution order)."""
        if not isinstance(sequence_nr, int):
            raise TypeError("an integer is required")
        if sequence_nr < 0:  # (torch's number is a uint64_t)
            raise OverflowError("can't convert negative int to unsigned")
        if sequence_nr > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        self._seq = int(sequence_nr)

    def __getattr__(self, attr: str) -> Any:
        # Only reached when normal lookup fails: serves torch's ``_saved_<name>`` accessors.
        if attr.startswith("_raw_saved_"):
            key = attr[11:]
            saved = object.__getattribute__(self, "_saved")
            if saved is None:  # released: torch's SavedTensor objects stay, unusable
                saves = getattr(type(self), "saves", None)
                if saves and key in saves:
                    return graph_hooks.raw_saved(self, key)
            elif isinstance(saved.get(key), SavedTensor) or self._never_saved(key) or (
                    saved.get(key).__class__ in _NUMBERS and key in type(self).saves):
                return graph_hooks.raw_saved(self, key)
        if attr.startswith("_saved_"):
            key = attr[7:]
            saved = object.__getattribute__(self, "_saved")
            if saved is None:
                # torch frees the saved tensors only: a node's other saved values (dims,
                # exponents, alpha) stay readable after the backward
                params = object.__getattribute__(self, "_params")
                if key in ("start", "end") and "as_written" in params:
                    return _as_written(params["as_written"], key)
                value = params.get(key, _NO_PARAM)
                if value is _NO_PARAM and self._never_saved(key):
                    return None
                if value is _NO_PARAM and key in (getattr(type(self), "saved_computed", None)
                                                  or ()):
                    return type(self).saved_computed[key](self)
                if value is _NO_PARAM or isinstance(value, (tensor_class, SavedTensor)):
                    raise RuntimeError(FREED_MESSAGE)
                if key == "reduction" and value.__class__ is str:
                    return _REDUCTIONS.get(value, value)
                view = getattr(type(self), "saved_param_view", None)
                return value if view is None else view(self, key, value)
            if (key,) in saved:  # an integer output kept as an array (ops/registry.py)
                return saved[(key,)].unpack(self)
            if key in saved:
                value = saved[key]
                if isinstance(value, tuple):  # a list of saved tensors (index's indices)
                    return tuple(v.unpack(self) if isinstance(v, SavedTensor) else v
                                 for v in value)
                if isinstance(value, SavedTensor):
                    return value.unpack(self, True)
                if value.__class__ in _NUMBERS and key in type(self).saves:
                    # a Python number given for a tensor (a * 2): torch saves the wrapped
                    # number, a 0-d tensor (int64, float64, bool or complex128)
                    return graph_hooks.wrapped_number(value)
                return value
            params = object.__getattribute__(self, "_params")
            if key in params:
                if key in ("start", "end") and "as_written" in params:
                    return _as_written(params["as_written"], key)
                value = params[key]
                if key == "reduction" and value.__class__ is str:  # torch saves the enum's
                    return _REDUCTIONS.get(value, value)  # integer (at::Reduction)
                view = getattr(type(self), "saved_param_view", None)  # (as torch shows it)
                return value if view is None else view(self, key, value)
            defaults = getattr(type(self), "saved_defaults", None)
            if defaults and key in defaults:  # a parameter left at its default (add's alpha)
                return defaults[key]
            computed = getattr(type(self), "saved_computed", None)
            if computed and key in computed:  # a value torch keeps that leafgrad can derive
                return computed[key](self)
            if key in getattr(type(self), "index_saves", ()):  # an optional tensor not given
                return None  # (nll_loss's weight=None: torch's _saved_weight is None)
            if self._never_saved(key):
                return None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def __dir__(self) -> list:
        """torch's built-in nodes list their public methods and their ``_saved_<name>`` (and
        ``_raw_saved_<name>`` for tensors) accessors, as tutorials look for them; a custom
        Function's node is a Python class in torch too and lists everything."""
        names = set(super().__dir__())
        if type(self).__module__ == "builtins":
            names = {name for name in names if name[:2] == "__" or name in _NODE_PUBLIC}
        saved = object.__getattribute__(self, "_saved")
        keys = set(object.__getattribute__(self, "_params"))
        keys.update(getattr(type(self), "saves", None) or ())
        keys.update(getattr(type(self), "index_saves", None) or ())
        keys.update(getattr(type(self), "saved_defaults", None) or ())
        keys.update(getattr(type(self), "saved_computed", None) or ())
        if saved:
            keys.update(key if key.__class__ is str else key[0] for key in saved)
        for key in keys - _INTERNAL_SAVES:
            names.add("_saved_" + key)
            if saved is None:
                if key in (getattr(type(self), "saves", None) or ()):
                    names.add("_raw_saved_" + key)
            elif isinstance(saved.get(key), SavedTensor) or self._never_saved(key) or (
                    saved.get(key).__class__ in _NUMBERS
                    and key in (getattr(type(self), "saves", None) or ())):
                names.add("_raw_saved_" + key)
        return sorted(names)

    def _never_saved(self, key: str) -> bool:
        """Whether ``key`` is a tensor the op declares in ``saves`` but did not save because no
        input whose gradient needs it required grad: torch's undefined saved variable, read
        as None (before and after the backward): ``(x * c)._saved_self`` for a constant c."""
        saves = getattr(type(self), "saves", None)
        if not saves or key not in saves or key == "result":  # (outputs: always saved)
            return False
        names = getattr(type(self), "inputs", None) or ("self",)
        nodes = object.__getattribute__(self, "_next_nodes")
        for needer in saves[key]:
            if needer not in names:
                return False  # (needed by something else than an input: kept)
            index = names.index(needer)
            if index < len(nodes) and nodes[index] is not None:
                return False
        return True

    # -- hooks -----------------------------------------------------------------------------
    def _hooks(self) -> Hooks:
        hooks = self._hookset
        if hooks is None:
            hooks = self._hookset = Hooks()
        return hooks

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; a non-None return replaces
        ``grad_inputs``."""
        hooks = self._hooks()
        if hooks.post is None:
            hooks.post = {}
        return _add_hook(hooks.post, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; a non-None return replaces them."""
        hooks = self._hooks()
        if hooks.pre is None:
            hooks.pre = {}
        return _add_hook(hooks.pre, fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        # ``Tensor.register_hook`` on a non-leaf: a pre-hook that sees one output's grad.
        hooks = self._hooks()
        if hooks.tensor_pre is None:
            hooks.tensor_pre = {}
        return _add_hook(hooks.tensor_pre, (output_nr, fn))

    def _register_retains_grad(self, output_nr: int, fn: Callable) -> None:
        hooks = self._hooks()
        if hooks.retains_grad is None:
            hooks.retains_grad = {}
        hooks.retains_grad[output_nr] = fn

    # -- running -----------------------------------------------------------------------------
    def _apply(self, grads: list) -> tuple:
        raise NotImplementedError

    def _release(self) -> None:
        """Drop saved tensors; a later unpack raises torch's "second time" error."""
        if self._saved:
            self._saved = None

    def __call__(self, *grads):
        """Run the node's backward directly, as torch allows (``y.grad_fn(g)``)."""
        if getattr(self, "_output_meta", None) is not None:
            # a custom Function's node is a Python object without __call__ in torch
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        # an op's node has one output unless the op has several (their count is not kept)
        expected = None if getattr(type(self), "multi_output", False) else 1
        if expected is not None and len(grads) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(grads)} instead")
        result = self._apply(list(grads))
        return result[0] if len(result) == 1 else result


# Note: zero gradients
# A few of torch's backward formulas give a ZeroTensor (sgn of a real tensor: efficient zeros,
# no memory): the engine's sum of gradients returns the other operand when one is a
# ZeroTensor, so a gradient of -0. plus sgn's zero stays -0. (a real +0. would make it +0.).
# leafgrad's such gradients are zero tensors remembered here (weakly); ZERO_GRADS_SEEN keeps
# the engine's check to one list lookup until the first one is made. A product node fed only
# ZeroTensors gives ZeroTensors; other nodes give real zeros (engine._KEEPS_ZEROS).
import weakref as _weakref  # noqa: E402

_ZERO_GRADS: dict = {}  # id -> weak reference (a WeakSet would compare tensors with ==)
ZERO_GRADS_SEEN = [False]


def zero_grad_tensor(tensor):
    """Mark ``tensor`` (zeros) as torch's ZeroTensor gradient (see Note: zero gradients)."""
    ZERO_GRADS_SEEN[0] = True
    key = id(tensor)
    _ZERO_GRADS[key] = _weakref.ref(tensor, lambda _, key=key: _ZERO_GRADS.pop(key, None))
    return tensor


def is_zero_grad(tensor) -> bool:
    ref = _ZERO_GRADS.get(id(tensor))
    return ref is not None and ref() is tensor


# Set once a program sets a leaf's grad_dtype: the engine then casts what reaches that leaf's
# accumulator (``cast_to_grad_dtype``), as torch's engine casts to the accumulator's metadata.
GRAD_DTYPE_SEEN = [False]


def cast_to_grad_dtype(node, buffer: list) -> None:
    """Cast the gradient arriving at the AccumulateGrad ``node`` to its leaf's grad_dtype."""
    variable = node.variable
    try:
        dtype = variable._grad_dtype
    except AttributeError:
        return
    grad = buffer[0]
    if dtype is not None and grad is not None and grad.dtype != dtype:
        import warnings

        if dtype.itemsize == 2:  # torch warns that the imaginary part is discarded only when
            buffer[0] = grad.to(dtype)  # casting to a half-precision grad_dtype (measured)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            buffer[0] = grad.to(dtype)


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds incoming gradients into ``.grad``."""

    __slots__ = ("variable", "_lock")

    def __init__(self, variable):
        # Node.__init__ spelled out for the no-edge case: one is made per leaf per backward
        self._next_nodes = self._next_nrs = ()
        self._saved = {}
        self._params = {}
        self._input_meta = ()
        self._hookset = None
        if _anomaly_state.enabled:
            record_node(self)
        self.variable = variable
        # Note: concurrent accumulation. Threads running backward into the same leaf share
        # this node (tensor.py creates it under a lock) and take turns on its lock, as on
        # torch's per-accumulator mutex: the read-add-write of .grad, including the first
        # assignment and NumPy's in-place add (which releases the GIL on large arrays), is
        # atomic per leaf. Post-accumulate hooks run inside it, as in torch.
        self._lock = threading.Lock()
        # Note: execution order. Accumulators run before any other ready node.
        self._seq = float("inf")
        # Hooks registered on the leaf run as this node's tensor pre-hooks (same dict object).
        self._hooks().tensor_pre = variable._hooks

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _apply(self, grads: list) -> tuple:
        variable = self.variable
        with self._lock:
            # torch: a leaf that stopped requiring grad (requires_grad_(False) after it was
            # used) gets nothing; its hooks still run (generated-program seed 30910)
            if variable.requires_grad:
                variable._accumulate_grad(grads[0])
            hooks = variable._post_accumulate_hooks()
            if hooks:
                for fn in list(hooks.values()):
                    result = fn(variable)
                    if result is not None and result is not variable:
                        check_hook_value(fn, variable, result)  # Note: hook results
                        raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


AccumulateGrad.defined_in = __name__
AccumulateGrad.__module__ = "builtins"  # a C++ class in torch: <class 'AccumulateGrad'>


# Note: saved-tensor hooks
# Inside ``saved_tensors_hooks(pack, unpack)`` a SavedTensor keeps ``pack(tensor)`` instead of
# the tensor and calls ``unpack`` on it when the backward needs the value (graph_hooks.py). The
# stack of hook pairs is per thread, as in torch; ``hooks_entered`` counts the pairs entered in
# any thread so that saving pays one global read while no hooks exist anywhere.
class _SavedHooksState(threading.local):
    stack: tuple = ()  # (pack, unpack) pairs, innermost last
    disabled: str | None = None  # disable_saved_tensors_hooks' message while it is active


saved_hooks_state = _SavedHooksState()
hooks_entered = 0


def _inside_grad_transform() -> bool:
    """Whether a torch.func grad-family transform (grad, vjp, jacrev...) is running: torch
    lifts a tensor from outside into the transform's GradTrackingTensor, a wrapper that is no
    inference tensor, so an inference tensor its function captures may be saved (generated-
    program seed 10031819: vjp of ``f(a) * c`` with ``c`` made in inference_mode)."""
    from ._vmap_state import state

    return any(level[0] == "grad" for level in state.stack)


class SavedTensor:
    """A tensor kept by a node for its backward, with the version it had when saved.

    Saving an op's own output would make a cycle (output -> node -> output), so outputs are
    kept as data plus version counter and rebuilt, pointing at the node, when unpacked.
    """

    # With saved-tensor hooks (graph_hooks.py) ``tensor`` and ``data`` are None and the slots
    # after ``output_nr`` hold what the pack hook returned and how to rebuild the tensor.
    __slots__ = ("tensor", "data", "_counter", "version", "output_nr",
                 "packed", "unpack_hook", "history")

    # Set by tensor.py: builds the tensor an unpacked output is, ``(data, counter, node, nr)``.
    rebuild_output: Callable = None

    def __init__(self, tensor, is_output: bool = False):
        counter = tensor._vc
        if (counter is INFERENCE_VC or counter is INFERENCE_DETACHED) \
                and not _grad_state.inference and not _inside_grad_transform():
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`.")
        if hooks_entered and saved_hooks_state.stack:  # Note: saved-tensor hooks
            graph_hooks.pack(self, tensor, is_output)
            return
        if is_output:
            counter = tensor._version_counter()
            self._counter = counter
            self.version = counter[0]
            self.tensor = None
            self.data = tensor._data
            self.output_nr = tensor._output_nr
        else:
            # A kept input is asked for its counter when unpacked, so a tensor never modified
            # in place needs none (a counter is one more object per op for the collector; see
            # Note: edges kept flat). A tensor's counter, once made, is never replaced.
            counter = tensor._vc
            self._counter = None
            self.version = 0 if counter is None else counter[0]
            self.tensor = tensor
            self.data = None
            self.output_nr = None

    @property
    def version_counter(self) -> list:
        counter = self._counter
        return counter if counter is not None else self.tensor._version_counter()

    def unpack(self, node: Node, attribute: bool = False):
        if self.tensor is None and self.data is None:  # packed by a saved-tensor hook
            return graph_hooks.unpack(self, node)
        output_nr = self.output_nr
        if output_nr is None:
            tensor = self.tensor
            if DETACHED_SEEN[0] and not attribute and tensor._node is None:
                check_not_detached(tensor, node)
            counter = self._counter if self._counter is not None else tensor._vc
            now = 0 if counter is None else counter[0]
            if now == self.version:
                return tensor
            # torch names the tensor's history as it is now, not as it was when saved.
            fn = tensor._node
            where = None if fn is None else (fn, tensor._output_nr)
        else:
            tensor = SavedTensor.rebuild_output(self.data, self._counter, node, output_nr)
            now = self._counter[0]
            if now == self.version:
                return tensor
            where = (node, output_nr)
        raise RuntimeError(_modified_message(tensor, where, now, self.version))


# Note: saved tensors detached in place
# torch refuses to unpack a saved input that had a grad_fn when it was saved and lost it to
# detach_() since: the backward raises (SavedVariable keeps no grad_fn of its own for inputs).
# ``grad_fn._saved_self`` still reads it (torch passes the node there). detach_() of a tensor
# with a node records it here with the next node number, so a node made before that detach_()
# knows it saved the tensor while it had a history; until the first such detach_() the unpack
# pays one list read.
DETACHED_SEEN = [False]
_DETACHED: dict = {}  # id -> (weak reference, next node number at the detach_())
DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)


def note_detached(tensor) -> None:
    """Record that ``tensor``, which had a node, was just detached in place."""
    DETACHED_SEEN[0] = True
    key = id(tensor)
    ref = _weakref.ref(tensor, lambda _, key=key: _DETACHED.pop(key, None))
    _DETACHED[key] = (ref, next_sequence_nr())


def check_not_detached(tensor, node) -> None:
    entry = _DETACHED.get(id(tensor))
    if entry is not None and entry[0]() is tensor and node is not None \
            and node._seq < entry[1]:
        raise RuntimeError(DETACHED_MESSAGE)


# Note: hook results
# What a hook returns replaces a gradient only after torch's checks (python_hook.cpp): a tensor
# hook must return None or a tensor of the same type (dtype) and size as the gradient it saw; a
# node hook must return None or a tuple with one entry per gradient, each checked the same way,
# and may not put a value where the gradient was None. A failed check raises before anything is
# replaced or accumulated.

# Set by tensor.py: the Tensor class (this module does not import it).
tensor_class: type = None
_NO_PARAM = object()  # (Node.__getattr__: a parameter not recorded)
_NUMBERS = (bool, int, float, complex)
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # torch's at::Reduction, as _saved_reduction


def hook_name(fn) -> str:
    return getattr(fn, "__name__", "<unknown>")


def check_hook_value(fn, original, result) -> None:
    """Raise torch's error if ``result`` may not replace the gradient ``original``."""
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, tensor_class):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    was, got = original._data, result._data
    if was.dtype != got.dtype:
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has changed the type of value (was "
            f"torch.{original.dtype._legacy}Tensor got torch.{result.dtype._legacy}Tensor)"
        )
    if was.shape != got.shape:
        raise RuntimeError(f"hook '{hook_name(fn)}' has changed the size of value")


def check_hook_values(fn, originals: tuple, result) -> tuple:
    """Check a node hook's result (a tuple replacing ``originals``); return it as a tuple."""
    if type(result) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(originals)})"
        )
    for original, value in zip(originals, result):
        if value is not None:
            check_hook_value(fn, original, value)
    return result


_LEGACY_TYPE_NAMES = frozenset(("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"))


def _modified_message(tensor, where, now: int, expected: int) -> str:
    shape = ", ".join(str(s) for s in tensor.shape)
    text = ""
    if where is not None:
        fn, output_nr = where
        # torch names the op without "Backward0" but keeps other overload numbers:
        # MulBackward0 -> Mul, SumBackward1 -> Sum1
        op = re.sub(r"Backward(\d*)$", lambda m: m.group(1).lstrip("0"), fn.name())
        text = f", which is output {output_nr} of {op},"
    legacy = tensor.dtype._legacy
    # torch's message names the type as at::Tensor::toString does ("CPUBoolType"); its Python
    # layer rewrites only the legacy tensor types' names to "torch.FloatTensor" and the like.
    kind = (f"torch.{legacy}Tensor" if legacy in _LEGACY_TYPE_NAMES else f"CPU{legacy}Type")
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} [{shape}]]{text} is at version {now}; "
        f"expected version {expected} instead. "
        + (
            "Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!" + write_location(getattr(tensor, "_vc", None), expected)
            if _anomaly_state.enabled
            else "Hint: enable anomaly detection to find the operation that failed to compute "
            "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )
    )


from . import graph_hooks  # noqa: E402  (it builds on the classes above)
from .graph_hooks import (  # noqa: E402,F401  (torch.autograd.graph's public names)
    GradientEdge,
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    get_gradient_edge,
    increment_version,
    register_multi_grad_hook,
    save_on_cpu,
    saved_tensors_hooks,
)

# torch defines these in torch/autograd/graph.py: reprs and type names say so
for _cls in (GradientEdge, allow_mutation_on_saved_tensors, disable_saved_tensors_hooks,
             save_on_cpu, saved_tensors_hooks, graph_hooks._MultiHandle):
    _cls.__module__ = __name__
_MultiHandle = graph_hooks._MultiHandle
del _cls
