"""Module scopes: which ``nn.Module`` call made each node.

Recorded exactly by ``record_scopes()`` (global forward hooks note the range of node sequence
numbers each module call spans; see Note: execution order in autograd/graph.py), or inferred
from parameter names when nothing was recorded: a node that reads a parameter named
``layer1.weight`` (directly, or through a node that only reads parameters, as ``TBackward0``
in ``Linear``) belongs to ``layer1``.
"""

from __future__ import annotations

import bisect
import collections
import threading
import weakref

__all__ = ["record_scopes", "ScopeRecords", "recorded_scopes", "infer_scopes"]

# the latest recordings, kept after their block ends so that a later draw() can use them
_recorders: collections.deque = collections.deque(maxlen=4)


class ScopeRecords:
    """The module calls seen while recording: ``(start, end, path, type name, parent index)``."""

    def __init__(self):
        self.records: list[list] = []
        self._starts: list[int] = []
        self._stack: list[int] = []
        self._handles = []
        self._thread = None

    # -- recording -------------------------------------------------------------------------
    def __enter__(self) -> "ScopeRecords":
        from ..nn.modules import module as _module

        self._thread = threading.get_ident()
        self._handles = [
            _module.register_module_forward_pre_hook(self._pre),
            _module.register_module_forward_hook(self._post, always_call=True),
        ]
        if self not in _recorders:
            _recorders.append(self)
        return self

    def __exit__(self, *exc) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _pre(self, module, args) -> None:
        if threading.get_ident() != self._thread:
            return
        from ..autograd.graph import next_sequence_nr

        parent = self._stack[-1] if self._stack else -1
        if parent >= 0:
            parent_module = self.records[parent][5]()
            name = None
            if parent_module is not None:
                for child_name, child in parent_module.named_children():
                    if child is module:
                        name = child_name
                        break
            above = self.records[parent][2]
            path = (above + "." if above else "") + (name or type(module).__name__)
        else:
            path = ""  # the outermost module: named by its class
        start = next_sequence_nr()  # nodes made inside take this number or above
        self.records.append([start, None, path, type(module).__name__, parent,
                             weakref.ref(module)])
        self._starts.append(start)
        self._stack.append(len(self.records) - 1)

    def _post(self, module, args, output) -> None:
        if threading.get_ident() != self._thread or not self._stack:
            return
        from ..autograd.graph import next_sequence_nr

        index = self._stack.pop()
        self.records[index][1] = next_sequence_nr()  # and stay below this one

    # -- lookup ----------------------------------------------------------------------------
    def lookup(self, sequence_nr) -> int | None:
        """Index of the innermost recorded call that created the node numbered ``sequence_nr``."""
        if not isinstance(sequence_nr, int):
            return None
        position = bisect.bisect_right(self._starts, sequence_nr) - 1
        index = position if position >= 0 else None
        while index is not None and index >= 0:
            start, end = self.records[index][0], self.records[index][1]
            if start <= sequence_nr and (end is None or sequence_nr < end):
                return index
            parent = self.records[index][4]
            index = parent if parent >= 0 else None
        return None


def record_scopes() -> ScopeRecords:
    """Record which module call makes each node, for ``draw`` to group nodes by module.

    >>> with leafgrad.viz.record_scopes():
    ...     loss = model(x).sum()
    >>> leafgrad.viz.draw(loss)          # nodes grouped by module, each group collapsible
    """
    return ScopeRecords()


def recorded_scopes(nodes: list) -> dict:
    """``{node index: [(scope key, label, parent key), ...] outermost first}`` from recordings."""
    result = {}
    recorders = [r for r in reversed(_recorders) if r.records]
    if not recorders:
        return result
    for position, node in enumerate(nodes):
        sequence_nr = getattr(node, "_seq", None)
        for recorder in recorders:
            index = recorder.lookup(sequence_nr)
            if index is None:
                continue
            chain = []
            while index is not None and index >= 0:
                record = recorder.records[index]
                key = ("rec", id(recorder), index)
                label = f"{record[2]} ({record[3]})" if record[2] else record[3]
                chain.append((key, label, record[4]))
                index = record[4] if record[4] >= 0 else None
            chain.reverse()
            result[position] = [
                (key, label, chain[i - 1][0] if i else None)
                for i, (key, label, _) in enumerate(chain)
            ]
            break
    return result


def infer_scopes(nodes: list, is_acc: list, index: dict, param_names: dict) -> dict:
    """``{node index: [(scope key, label, parent key), ...]}`` inferred from parameter names."""
    owner: dict = {}  # node index -> module path
    for position, node in enumerate(nodes):
        if is_acc[position]:
            name = param_names.get(id(node.variable))
            if name and "." in name:
                owner[position] = name.rsplit(".", 1)[0]
    if not owner:
        return {}

    def param_only(position: int) -> str | None:
        # a node whose every edge leads to parameters of one module (TBackward0 of a weight)
        paths = set()
        for child, _ in nodes[position].next_functions:
            if child is None:
                continue
            child_pos = index[child]
            if child_pos not in owner or not is_acc[child_pos]:
                return None
            paths.add(owner[child_pos])
        return paths.pop() if len(paths) == 1 else None

    direct = {}
    for position, node in enumerate(nodes):
        if is_acc[position]:
            continue
        only = param_only(position)
        if only is not None:
            direct[position] = only
    for position, node in enumerate(nodes):
        if is_acc[position] or position in direct:
            continue
        paths = set()
        for child, _ in node.next_functions:
            if child is None:
                continue
            child_pos = index[child]
            if is_acc[child_pos] and child_pos in owner:
                paths.add(owner[child_pos])
            elif child_pos in direct:
                paths.add(direct[child_pos])
        if paths:
            owner[position] = _common_prefix(paths)
    owner.update(direct)
    result = {}
    for position, path in owner.items():
        if not path:
            continue
        parts = path.split(".")
        chain = []
        for depth in range(1, len(parts) + 1):
            key = ("param", ".".join(parts[:depth]))
            parent = chain[-1][0] if chain else None
            chain.append((key, ".".join(parts[:depth]), parent))
        result[position] = chain
    return result


def _common_prefix(paths: set) -> str:
    split = [p.split(".") for p in paths]
    common = []
    for parts in zip(*split):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return ".".join(common)
