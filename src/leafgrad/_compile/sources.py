"""Python values from outside the call: what a capture read (guarded), and what it changed.

Note: Python values from outside the call
A capture bakes every Python value the function used: ``x * scale`` records the number, and
``torch.tensor(lst)`` the list's values. torch.compile's dynamo guards on the Python values
the trace read (globals, closure variables, attributes, dict entries) and recompiles when one
changes; leafgrad does the same, without a bytecode interpreter:

- While a capture runs, a profile function (``sys.setprofile``, this thread only) sees every
  Python frame of user code the call enters (code in the leafgrad package, the standard
  library and installed packages is not user code). For each, the frame's bytecode names the
  *chains* it reads: a root (a global, a closure variable, a parameter of the frame) followed
  by attribute loads and subscripts by a constant (``self.lr``, ``cfg["lr"]``, ``o.a.b``).
  (Modules' plain attributes, which leafgrad's own forward code reads, are watched when the
  module is called: Dropout's ``p``, BatchNorm's ``momentum``...)
  Each link of a chain is read when the frame starts, without running user code (instance and
  class dictionaries, a module's parameters/buffers/submodules, cells, built-in containers;
  never a property or ``__getattr__``), and remembered: numbers, strings, None and built-in
  containers of them by value (a snapshot), NumPy arrays by value (a copy) unless the trace
  reads the array itself live (below), other objects (modules, tensors, functions) by
  identity.
- The replay checks every link first (inline in the generated code: a dictionary lookup and
  a comparison each); a changed one makes the call miss this capture and capture again (and
  past ``cache_size_limit`` captures, run eagerly with one warning), as a changed argument
  does.
- A NumPy array from outside that a factory turns into a tensor is read live on every
  replay, as an input: ``as_tensor``/``asarray``/``from_numpy`` sharing its memory read it
  as a parameter is read, and copying factories (``tensor(arr)``, ``as_tensor(arr, dtype=)``)
  become a copy kernel of it, so a change of its values needs no new capture.
- The function's own arguments are the call's key (api.py Note: guards and the cache): lists,
  tuples and dicts by value, NumPy arrays by identity and values (up to 65,536 elements,
  beyond by identity), other objects by identity, their attributes through the chains here.

Note: side effects
A replay runs the captured array program only: no Python code of the function runs again.
So what the function does to Python state is done on the capturing call only. Per kind:

- Python state from outside changed by the call (``self.steps += 1``, a global counter,
  ``history.append(loss)``, ``cfg["seen"] = True``, a replaced attribute): found by reading
  every remembered link again after the capturing call. The capture is dropped and the
  function runs eagerly from then on (every later call with the same guards), with one
  warning; ``fullgraph=True`` raises ``Unsupported``. (Replaying the change is not possible
  in general: its new value is computed by Python code the replay does not run.)
- Output (``print``, writes to a file or stream from user code): the same (dynamo breaks
  the graph at a ``print`` and runs it, so it prints on every call; so does eager code).
- Values that differ on every call (Python's ``random``, ``numpy.random``, ``time.time()``
  and its friends): the same; a replay would repeat the first call's value.

What is not seen: state reached other than through a chain (an element picked by a computed
index, ``items[i].n += 1``; objects of C extensions changed by their own methods, except NumPy
generators, whose state is compared), and user code in installed packages. The Python values
such code reads are not guarded either.

Changes the replay does repeat are not side effects here: in-place ops on tensors, ``.grad``
accumulation, optimizer steps (capture.py Note: what a capture records).
"""

from __future__ import annotations

import builtins
import collections
import dis
import io
import os
import sys
import sysconfig
import types

import numpy as np

__all__ = ["Sources", "MISSING", "changed"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = tuple(sorted({os.path.abspath(p) for p in (
    sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("platstdlib"),
    sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")) if p}))

# value snapshots larger than this (elements of a container, or of an array) are not copied:
# such a value is guarded by identity, and its change during the capture is not looked for
_SNAPSHOT_LIMIT = 1 << 20
_DEPTH = 4


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()

_PLAIN = (int, float, complex, str, bytes, bool, type(None), np.generic)
_CONTAINERS = (list, tuple, dict, set, frozenset, collections.deque)


def _is_library(filename: str) -> bool:
    if filename.startswith(_PACKAGE) or filename.startswith("<frozen"):
        return True
    return bool(_LIBRARY) and filename.startswith(_LIBRARY)


# -- chains in bytecode ---------------------------------------------------------------------------

_chains_of: dict = {}  # code object -> tuple of chains (cached; code objects live long)


def _chains(code) -> tuple:
    """The chains ``code`` reads: ``(root_kind, root_name, links, line)``, with ``links`` a
    tuple of ``("attr", name)`` / ``("item", constant)``."""
    found = _chains_of.get(code)
    if found is not None:
        return found
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                              + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
    chains = []
    current = None
    pending = None  # a constant that may be a subscript's key
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        if ins.starts_line is not None:
            line = ins.starts_line
        op = ins.opname
        if op == "LOAD_GLOBAL":
            current = ["global", ins.argval, [], line]
            chains.append(current)
            pending = None
            continue
        if op in ("LOAD_DEREF", "LOAD_CLASSDEREF") and ins.argval in code.co_freevars:
            current = ["cell", ins.argval, [], line]
            chains.append(current)
            pending = None
            continue
        if op == "LOAD_FAST" and ins.argval in params:
            current = ["param", ins.argval, [], line]
            chains.append(current)
            pending = None
            continue
        if current is not None:
            if op in ("LOAD_ATTR", "LOAD_METHOD") and pending is None:
                current[2].append(("attr", ins.argval))
                continue
            if op == "COPY" and ins.arg == 1 and pending is None:
                continue  # augmented assignment: self.x += 1
            if op == "LOAD_CONST" and pending is None:
                pending = (ins.argval,)
                continue
            if op in ("BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR") and pending is not None:
                key = pending[0]
                pending = None
                try:
                    hash(key)
                except TypeError:
                    current = None
                    continue
                current[2].append(("item", key))
                if op != "BINARY_SUBSCR":
                    current = None
                continue
        current = None
        pending = None
    result = tuple((kind, name, tuple(links), line) for kind, name, links, line in chains)
    if len(_chains_of) > 4096:
        _chains_of.clear()
    _chains_of[code] = result
    return result


# -- reading links without running user code ------------------------------------------------------


def _attr_holder(obj, name: str):
    """``(dict, name)`` holding ``obj.name`` when it is plain data (an instance or class
    dictionary entry that is no descriptor; a module's parameter, buffer or submodule), else
    None."""
    from ..nn import Module
    from ..tensor import Tensor

    if isinstance(obj, Tensor) or isinstance(obj, types.ModuleType) and _is_library(
            getattr(obj, "__file__", None) or "<frozen"):
        return None
    if isinstance(obj, Module):
        table = obj.__dict__
        for kind in ("_parameters", "_buffers", "_modules"):
            entries = table.get(kind)
            if entries is not None and name in entries:
                return entries
    try:
        table = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        table = None
    if type(table) is dict and name in table:
        return table
    if isinstance(obj, type):
        return None  # class attributes: through the metaclass, not followed
    for klass in type(obj).__mro__:
        entry = klass.__dict__.get(name, MISSING)
        if entry is not MISSING:
            if hasattr(type(entry), "__get__") or klass.__module__ == "builtins":
                return None  # a method, property, slot or descriptor
            if _is_library(getattr(sys.modules.get(klass.__module__), "__file__", None) or ""):
                return None
            return klass.__dict__  # a class attribute: its mappingproxy
    if type(table) is dict:
        return table  # not set yet: guarded as missing (it may be set by the call)
    return None


def _cell_get(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return MISSING


def _item_get(container, key):
    try:
        return container[key]
    except (IndexError, KeyError, TypeError):
        return MISSING


class Link:
    """One Python value the capture read: where it is, and what it was. ``guard``: checked
    by the replay (an argument is checked by the call's key instead)."""

    __slots__ = ("kind", "holder", "key", "snapshot", "filename", "line", "text", "guard")

    def __init__(self, kind, holder, key, snapshot, filename, line, text) -> None:
        self.kind, self.holder, self.key, self.snapshot = kind, holder, key, snapshot
        self.filename, self.line, self.text = filename, line, text
        self.guard = True

    def read(self):
        kind = self.kind
        if kind == "dict":
            return self.holder.get(self.key, MISSING)
        if kind == "mapping":  # a class's mappingproxy
            return self.holder.get(self.key, MISSING)
        if kind == "cell":
            return _cell_get(self.holder)
        return _item_get(self.holder, self.key)


# -- snapshots ------------------------------------------------------------------------------------


class _Identity:
    __slots__ = ("obj",)

    def __init__(self, obj) -> None:
        self.obj = obj


class _Array:
    __slots__ = ("obj", "copy")

    def __init__(self, obj, copy) -> None:
        self.obj, self.copy = obj, copy


class _Container:
    __slots__ = ("obj", "type", "items")

    def __init__(self, obj, kind, items) -> None:
        self.obj, self.type, self.items = obj, kind, items


def snapshot(value, live: set, depth: int = 0, budget=None):
    """What ``value`` is now, to compare with later (see ``changed``)."""
    if budget is None:
        budget = [_SNAPSHOT_LIMIT]
    if value is MISSING or isinstance(value, _PLAIN):
        return value
    kind = type(value)
    if kind is np.ndarray:
        if _is_live(value, live) or value.size > budget[0] or value.dtype.hasobject:
            return _Identity(value)
        budget[0] -= value.size
        return _Array(value, value.copy())
    if isinstance(value, _CONTAINERS) and depth < _DEPTH and len(value) <= budget[0]:
        budget[0] -= len(value)
        if isinstance(value, dict):
            items = tuple((k, snapshot(v, live, depth + 1, budget))
                          for k, v in dict.items(value))
        elif isinstance(value, (set, frozenset)):
            if all(isinstance(v, _PLAIN) for v in value):
                return _Container(value, kind, frozenset(value))
            return _Identity(value)
        else:
            items = tuple(snapshot(v, live, depth + 1, budget) for v in value)
        return _Container(value, kind, items)
    return _Identity(value)


def _is_live(array: np.ndarray, live: dict) -> bool:
    """Whether the trace reads ``array``'s memory live (a factory shared it)."""
    return id(array) in live or any(np.may_share_memory(array, other)
                                    for other in live.values())


def changed(value, snap) -> bool:
    """Whether ``value`` differs from the snapshot ``snap`` (same type and equal for plain
    values; the same object for others; equal contents for arrays and containers)."""
    if value is snap:
        return False
    kind = type(snap)
    if kind is _Identity:
        return value is not snap.obj
    if kind is _Array:
        copy = snap.copy
        if type(value) is not np.ndarray or value.dtype != copy.dtype \
                or value.shape != copy.shape or value.strides != snap.obj.strides:
            return True
        return not np.array_equal(value, copy, equal_nan=copy.dtype.kind in "fc")
    if kind is _Container:
        if type(value) is not snap.type:
            return True
        items = snap.items
        if isinstance(value, (set, frozenset)):
            return value != items
        if len(value) != len(items):
            return True
        if isinstance(value, dict):
            for (key, item), (k, v) in zip(items, dict.items(value)):
                if key is not k and key != k or changed(v, item):
                    return True
            return False
        return any(changed(v, item) for v, item in zip(value, items))
    if type(value) is not kind:
        return True
    if value != snap:
        return not (kind is float and value != value and snap != snap)
    return False


# -- the profile function -------------------------------------------------------------------------

_TIME = ()


def _changing_builtins() -> tuple:
    global _TIME
    if not _TIME:
        import time

        _TIME = tuple(getattr(time, name) for name in (
            "time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
            "process_time", "process_time_ns", "thread_time", "thread_time_ns", "localtime",
            "gmtime", "ctime", "asctime") if hasattr(time, name))
    return _TIME


def _effect_of_builtin(fn):
    """Why calling the built-in ``fn`` from user code is a side effect, or None."""
    if fn is builtins.print:
        return "print() (output): a replay would not print"
    if fn is builtins.input or fn is builtins.open:
        return f"{fn.__name__}() (input/output): a replay would not repeat it"
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "")
    if owner is not None and name in ("write", "writelines", "flush") and isinstance(
            owner, io.IOBase):
        return f"a write to {type(owner).__name__} (output): a replay would not write"
    if fn in _changing_builtins():
        return (f"time.{name}() (a value that changes on every call): a replay would repeat "
                "the first call's")
    import random

    if isinstance(owner, random.Random) or isinstance(
            owner, (np.random.RandomState, np.random.Generator)) or (
            type(owner) is types.ModuleType and owner.__name__ in ("random", "numpy.random")):
        return (f"Python or NumPy random numbers ({name}): a replay would repeat the first "
                "call's")
    return None


def _numpy_state():
    """numpy.random's global generator's position (drawing from it is a side effect)."""
    state = np.random.get_state()
    return state[2], state[3], bytes(state[1][:8]), bytes(state[1][-8:])


def _generator_state(generator):
    bits = generator.bit_generator if isinstance(generator, np.random.Generator) else \
        generator._bit_generator
    return repr(bits.state)


class Sources:
    """Watches a capture: the Python values its user code reads, and its side effects."""

    def __init__(self, fn, live: set) -> None:
        self.links: dict = {}  # (id(holder), key) -> Link
        self.keep: list = []
        self.effects: list = []  # (reason, filename, line, text)
        self.live = live  # ids of outside arrays the trace reads live (no value snapshot)
        self.cells: dict = {}  # code -> cells by name (closure variables), or None
        self.previous = None
        self.generators: dict = {}  # id -> state of NumPy generators read (drawing: effect)
        self.numpy_state = _numpy_state()
        self._known_functions(fn)

    def _known_functions(self, fn) -> None:
        import functools

        seen = 0
        while fn is not None and seen < 8:
            seen += 1
            if isinstance(fn, functools.partial):
                fn = fn.func
                continue
            if isinstance(fn, types.MethodType):
                fn = fn.__func__
                continue
            if isinstance(fn, types.FunctionType):
                self._cells_of(fn)
                # default values (a mutable default changed by the call is a side effect)
                for index, _ in enumerate(fn.__defaults__ or ()):
                    self._link(fn.__defaults__, "item", index, fn.__code__.co_filename,
                               fn.__code__.co_firstlineno, f"{fn.__name__}'s default {index}")
                for name in fn.__kwdefaults__ or ():
                    self._link(fn.__kwdefaults__, "dict", name, fn.__code__.co_filename,
                               fn.__code__.co_firstlineno, f"{fn.__name__}'s default {name}")
            break

    def watch_module(self, module) -> None:
        """A module called during the capture: its plain attributes (Dropout's ``p``,
        BatchNorm's ``momentum`` and ``eps``, ...), which leafgrad's own forward code reads
        (library code, whose chains are not followed), are guarded as values read."""
        table = module.__dict__
        name = type(module).__name__
        for key, value in table.items():
            if key.startswith("_") or key == "training":
                continue
            if isinstance(value, _PLAIN) or type(value) is tuple and all(
                    isinstance(v, _PLAIN) for v in value):
                self._link(table, "dict", key, "", 0, f"{name}.{key}")

    def watch_arguments(self, args: tuple, kwargs: dict) -> None:
        """The call's own non-tensor arguments: changed by the call is a side effect (their
        values are the call's key, api.py: not guarded here)."""
        from ..tensor import Tensor

        items = list(enumerate(args)) + list(kwargs.items())
        holder = tuple(value for _, value in items)
        for index, (name, value) in enumerate(items):
            if isinstance(value, (Tensor, *_PLAIN)) or callable(value):
                continue
            self._link(holder, "item", index, "", 0, f"argument {name!r}")
            self.links[(id(holder), index)].guard = False

    def _cells_of(self, fn) -> dict:
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        self.cells[fn.__code__] = cells
        return cells

    # -- installing --------------------------------------------------------------------------
    def start(self) -> None:
        self.previous = sys.getprofile()
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(self.previous)
        self.previous = None

    def _profile(self, frame, event, arg) -> None:
        if event == "call":
            code = frame.f_code
            if _is_library(code.co_filename):
                return
            chains = _chains(code)
            if chains:
                self._read(frame, code, chains)
        elif event == "c_call":
            if _is_library(frame.f_code.co_filename):
                return
            reason = _effect_of_builtin(arg)
            if reason is not None:
                import linecache

                filename, line = frame.f_code.co_filename, frame.f_lineno
                self.effects.append((reason, filename, line,
                                     linecache.getline(filename, line).strip()))

    # -- reading chains ----------------------------------------------------------------------
    def _read(self, frame, code, chains) -> None:
        try:
            local = frame.f_locals
        except Exception:  # pragma: no cover - a frame without locals
            return
        globals_ = frame.f_globals
        for kind, name, links, line in chains:
            if kind == "global":
                if name in globals_:
                    holder, how, key = globals_, "dict", name
                else:
                    continue  # a builtin: not guarded
            elif kind == "cell":
                cells = self.cells.get(code, MISSING)
                if cells is MISSING:
                    cells = self._find_cells(code, local)
                if not cells or name not in cells:
                    continue
                holder, how, key = cells[name], "cell", None
            else:
                if name not in local:
                    continue
                value = local[name]
                self._follow(value, links, code.co_filename, line, name)
                continue
            self._chain(holder, how, key, links, code.co_filename, line, name)

    def _find_cells(self, code, local):
        """The closure cells of the function running ``code`` (found through the garbage
        collector: the profile function is not told which function object runs)."""
        import gc

        found = None
        for referrer in gc.get_referrers(code):
            if type(referrer) is types.FunctionType and referrer.__code__ is code \
                    and referrer.__closure__ is not None:
                cells = dict(zip(code.co_freevars, referrer.__closure__))
                if all(name not in local or _cell_get(cell) is local[name]
                       for name, cell in cells.items()):
                    found = cells
                    break
        self.cells[code] = found
        return found

    def _chain(self, holder, how, key, links, filename, line, text) -> None:
        value = self._link(holder, how, key, filename, line, text)
        if value is not MISSING:
            self._follow(value, links, filename, line, text)

    def _follow(self, value, links, filename, line, text) -> None:
        for kind, key in links:
            if value is MISSING or isinstance(value, (types.MethodType,
                                                      types.BuiltinMethodType)):
                return
            if kind == "attr":
                holder = _attr_holder(value, key)
                if holder is None:
                    return
                text = f"{text}.{key}"
                how = "dict" if type(holder) is dict else "mapping"
            else:
                if type(value) not in (dict, list, tuple):
                    return
                holder, how = value, "item"
                text = f"{text}[{key!r}]"
            value = self._link(holder, how, key, filename, line, text)

    def _link(self, holder, how, key, filename, line, text):
        ident = (id(holder), key if how != "cell" else None)
        link = self.links.get(ident)
        if link is None:
            link = Link(how, holder, key, None, filename, line, text)
            value = link.read()
            link.snapshot = snapshot(value, self.live)
            if isinstance(value, (np.random.Generator, np.random.RandomState)):
                self.generators[id(value)] = _generator_state(value)
            self.links[ident] = link
            self.keep.append(holder)
            return value
        return link.read()

    # -- after the call ----------------------------------------------------------------------
    def changes(self) -> list:
        """``(reason, filename, line, text)`` for every side effect of the capturing call."""
        found = list(self.effects)
        if _numpy_state() != self.numpy_state:
            found.append(("NumPy random numbers (numpy.random): a replay would repeat the "
                          "first call's", "", 0, ""))
        for link in self.links.values():
            snap = link.snapshot
            if type(snap) is _Array and _is_live(snap.obj, self.live):
                # written through a tensor the trace reads live: the replay writes it too
                snap = link.snapshot = _Identity(snap.obj)
            if type(snap) is _Identity and id(snap.obj) in self.generators and \
                    _generator_state(snap.obj) != self.generators[id(snap.obj)]:
                found.append((f"{link.text} drew random numbers: a replay would repeat the "
                              "first call's", link.filename, link.line, ""))
                continue
            if changed(link.read(), snap):
                found.append((f"{link.text} (a Python value from outside the call) was "
                              "changed by the call: a replay would not change it",
                              link.filename, link.line, ""))
        return found

    def refresh(self) -> None:
        """Snapshots again after the call (live arrays are now known), for the guards."""
        for link in self.links.values():
            link.snapshot = snapshot(link.read(), self.live)

    def guards(self, add) -> list:
        """The replay's guard expressions (true when a link changed); ``add(obj, prefix)``
        names an object in the generated code's namespace."""
        lines = []
        for link in self.links.values():
            if not link.guard:
                continue
            holder = add(link.holder, "H")
            if link.kind in ("dict", "mapping"):
                read = f"{holder}.get({add(link.key, 'K') if not _literal(link.key) else repr(link.key)}, MISSING)"
            elif link.kind == "cell":
                read = f"cell_get({holder})"
            else:
                read = f"item_get({holder}, {add(link.key, 'K') if not _literal(link.key) else repr(link.key)})"
            snap = link.snapshot
            if type(snap) is _Identity:
                lines.append(f"{read} is not {add(snap.obj, 'O')}")
            elif snap is MISSING:
                lines.append(f"{read} is not MISSING")
            elif type(snap) in (bool, type(None)):
                lines.append(f"{read} is not {snap!r}")
            elif type(snap) in (int, str) and _literal(snap):
                lines.append(f"(g := {read}).__class__ is not {type(snap).__name__} or g != "
                             f"{snap!r}")
            else:
                lines.append(f"changed({read}, {add(snap, 'S')})")
        return lines


def _literal(value) -> bool:
    return type(value) in (int, str) and len(repr(value)) < 80
