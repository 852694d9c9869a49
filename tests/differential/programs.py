"""Random torch programs for differential testing, and the observer that compares two runs.

`generate(seed, torch)` writes a small Python function `program(lib, O=None)` that uses only the
torch API through `lib`, so `program(torch)` and `program(leafgrad)` run the very same code. Each
program builds a random graph over leaf tensors (0-d to 3-d, float32/float64/int64, some not
requiring grad), applies 1-12 ops from the core op set (even seeds also from an extended set:
indexing and index assignment, unbind/split/chunk outputs, reductions with dims, keepdim and
dtype=, where/clamp/masked_fill/maximum/lerp, permute/flatten/flip/repeat/roll/movedim/narrow/
select, and writes autograd does not record: under no_grad, through .detach() or .data; seeds
2 mod 4 also from the user-code set of programs_user.py: nn.functional calls, type promotion,
out=, grad-mode blocks, requires_grad toggles, retain_grad on views, hooks), then
differentiates it one of several ways (`backward()`, `backward(gradient)`, `autograd.grad` with
and without `create_graph` and a second derivative, `retain_graph` and accumulation, `inputs=`);
seeds from 10_000_000 draw from every set and also from the wide set of programs_wide.py
(strided and empty operands, int8/16/32, uint8, bool, float16, bfloat16 and complex dtypes,
in-place ops on views, index writes, out= buffers of other shapes, gradient-changing hooks);
seeds from 20_000_000 also from the second wide set of programs_wide2.py (more ops on strided
operands, gradients taken mid-program with create_graph and computed on, in-place ops mixing
dtypes and Python scalars, whose promotion errors are recorded with O.fails, and indexing);
seeds from 30_000_000 also from the third wide set of programs_wide3.py (float16/bfloat16
and complex tensors) and end with its training loop (hooks, a custom Function or
checkpoint, a few optimizer steps with zero_grad variations);
seeds 3 and 5 mod 8 then append a stage (programs_after.py): torch.func transforms of small
functions of the program's tensors, or optimizer steps on the leaves that got gradients.
The program records an observation of every tensor it makes, after every in-place change, after
backward, and at the end.

Generation is guided by real torch: each candidate statement is executed on torch while the
program is written and kept only if torch accepts it and the values stay finite and moderate
(and away from kinks and ties where a last-bit difference would flip a derivative or a
comparison). So every generated program is valid for torch, and any error or difference that
leafgrad shows is leafgrad's. The generator tracks shapes, dtypes and storage sharing itself to
choose ops that are valid, and uses torch only as the final judge.

Comparison rule (`compare`): structural fields (dtype, shape, is_leaf, requires_grad,
retains_grad, grad_fn names, next_functions, _version, aliasing, errors, warnings) must be
equal. Values must be equal for bool and integer tensors and close for floating ones
(float32: rtol 1e-5, atol 1e-6; float64: rtol 1e-12, atol 1e-12; NaN and inf in the same places).
Tolerance: float32 libm results legitimately differ in the last bit between torch (SLEEF) and
NumPy, and such a difference survives a later `.double()` or float64 promotion. So a float64
value is held to 1e-12 only while the program has not yet made any float32 tensor; from the first
one on, float64 values get float32's tolerance too.
`repr` text must be identical when the two tensors' values are bitwise identical; when they
differ only by rounding, the texts must be identical apart from whitespace and the printed
numbers, and each printed number must agree to within one unit of the coarser last printed digit
(so 0.1235 against 0.1234, or 0.0000 against -2.7838e-17 after a different summation order,
pass: those are rounding, not behaviour). A -0.0 printed where torch prints 0.0 is a difference:
the values compare equal, so the texts must be identical.
"""

from __future__ import annotations

import itertools
import random
import re
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .programs_after import AfterStages
from .programs_modules import ModuleStage
from .programs_functions import FunctionStage
from .programs_machinery import MachineryStage
from .programs_user import UserOps
from .programs_wide import WIDE_SEED0, WideOps
from .programs_wide2 import WIDE2_SEED0, Wide2Ops
from .programs_wide3 import WIDE3_SEED0, Wide3Ops

LEAF_SHAPES = [(), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 3, 4)]
SCALARS = [2, 3, -1, 0.5, -1.5, 0.25, 2.0, 1, 1.5]
TOLERANCES = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12), "float16": (1e-3, 1e-3),
              "bfloat16": (1e-2, 1e-2)}
MAX_VALUE = 1e3  # forward values beyond this are rejected: they amplify rounding differences
MAX_GRAD = 1e6
KINK = 1e-4  # inputs this close to a kink or tie are rejected (see module docstring)


# ---------------------------------------------------------------------------------------------
# Observing one run


def _normalise(text: str) -> str:
    """Spell torch's names as leafgrad's; drop object addresses and torch's C++ source paths."""
    text = text.replace("torch.", "leafgrad.")
    text = re.sub(r" \(Triggered internally at [^)]*\)", "", text)
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


def to_numpy(tensor) -> np.ndarray:
    """A copy of a tensor's values (torch's ZeroTensor gradients need `force=True`)."""
    tensor = tensor.detach()
    if str(tensor.dtype).endswith("bfloat16"):  # (NumPy has no bfloat16: float32 holds it)
        tensor = tensor.float()
    try:
        return tensor.numpy().copy()
    except RuntimeError:
        if getattr(tensor, "_is_zerotensor", lambda: False)():
            # numpy(force=True) of a ZeroTensor with a storage offset (cat's gradient, narrowed)
            # reads past its empty storage: a segfault in torch 2.13 (generated-program seed 42217)
            return tensor.new_zeros(tensor.shape).numpy()
        return tensor.numpy(force=True).copy()


def _version(tensor):
    """`tensor._version`, or the error an inference tensor raises for it."""
    try:
        return tensor._version
    except RuntimeError as error:
        return ("raised", _first_line(error))


def _first_line(error: BaseException) -> str:
    text = str(error)
    return _normalise(text.splitlines()[0]) if text else ""


class Observer:
    """Records snapshots of tensors as a program runs; `records` is a list of (label, snapshot)."""

    def __init__(self, lib):
        self.lib = lib
        self.records: list[tuple[str, object]] = []
        self._names: dict[int, str] = {}
        self._alive: list[object] = []  # keeps named tensors alive so that ids stay unique
        self._low_precision_seen = False  # see "tolerance" in the module docstring

    def new(self, name: str, value) -> None:
        """Name a freshly bound value and snapshot it; notes when it is an earlier object."""
        alias = self._names.get(id(value))
        if alias is None and isinstance(value, self.lib.Tensor):
            self._names[id(value)] = name
            self._alive.append(value)
        self.records.append((name, {"same_object_as": alias, **self._snap(value)}))

    def see(self, label: str, value, grad: bool = False) -> None:
        """Snapshot a value under a label (`grad=True` for gradients: see `_snap`)."""
        self.records.append((label, self._snap(value, grad)))

    def fails(self, label: str, call) -> None:
        """Run `call()`, which failed on torch when the program was written: record its error."""
        try:
            result = call()
        except Exception as error:  # noqa: BLE001 - the type and first line are compared
            said = (type(error).__name__, _first_line(error))
        else:
            said = ("no error", type(result).__name__)
        self.records.append((label, {"raised": said}))

    def grad(self, name: str, tensor) -> None:
        """Snapshot `tensor.grad`, including the warning torch gives for a non-leaf's .grad."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = tensor.grad
        said = tuple(
            (w.category.__name__, _normalise(str(w.message).splitlines()[0])) for w in caught
        )
        self.records.append((f"{name}.grad", {"warnings": said, **self._snap(value, grad=True)}))

    def _snap(self, value, grad: bool = False) -> dict:
        if isinstance(value, (tuple, list)):
            items = tuple(self._snap(v, grad) for v in value)
            return {"kind": type(value).__name__, "items": items}
        if not isinstance(value, self.lib.Tensor):
            return {"kind": type(value).__name__, "value": value}
        fn = value.grad_fn
        if str(value.dtype).rpartition(".")[2] in ("float32", "float16", "bfloat16"):
            self._low_precision_seen = True
        snapshot = {
            "kind": "Tensor",
            "repr": _normalise(repr(value)),
            "dtype": _normalise(str(value.dtype)),
            "shape": tuple(int(n) for n in value.shape),
            "is_leaf": value.is_leaf,
            "requires_grad": value.requires_grad,
            "retains_grad": value.retains_grad,
            "grad_fn": None if fn is None else (type(fn).__name__, fn.name()),
            "next_functions": None if fn is None else self._edges(fn, 2),
            "_version": _version(value),
            "is_inference": value.is_inference(),
            "values": to_numpy(value),
            "_float64_tolerance": "float32" if self._low_precision_seen else "float64",
        }
        if grad:
            # A gradient's _version counts the engine's internal in-place accumulations (torch's
            # InputBuffer), an implementation detail; its values and graph are what users see.
            del snapshot["_version"]
        return snapshot

    def _edges(self, fn, depth: int):
        edges = []
        for child, input_nr in fn.next_functions:
            if child is None:
                edges.append((None, input_nr))
                continue
            label = (type(child).__name__, child.name())
            if type(child).__name__ == "AccumulateGrad":
                label += (self._names.get(id(child.variable), "<unnamed leaf>"),)
            below = self._edges(child, depth - 1) if depth > 1 else ()
            edges.append((label, input_nr, below))
        return tuple(edges)


# ---------------------------------------------------------------------------------------------
# Comparing two runs

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|-?inf|nan")


def _last_digit_unit(token: str) -> float:
    mantissa, _, exponent = token.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (-decimals) * 10.0 ** int(exponent or 0)


def _reprs_match_loosely(a: str, b: str) -> bool:
    # Whitespace is free: a last-bit difference can switch the printer to scientific notation
    # (0.0000 vs -2.7838e-17) and so change column widths and where lines wrap.
    if [" ".join(p.split()) for p in _NUMBER.split(a)] != [
        " ".join(p.split()) for p in _NUMBER.split(b)
    ]:
        return False
    for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
        if x == y:
            continue
        if not all(re.fullmatch(r"-?[\d.]+(?:e[+-]?\d+)?", t) for t in (x, y)):
            return False
        unit = max(_last_digit_unit(x), _last_digit_unit(y))
        if abs(float(x) - float(y)) > unit * 1.001:
            return False
    return True


def _values_agree(a: np.ndarray, b: np.ndarray, float64_tolerance: str) -> tuple[bool, bool]:
    """(close, identical) for two value arrays of the same dtype and shape."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False, False
    if a.dtype.kind == "c":  # complex: each part as a float of the part's precision
        a, b = (np.stack([x.real, x.imag]) for x in (a, b))
    if a.dtype.kind != "f":
        same = bool(np.array_equal(a, b))
        return same, same
    identical = bool(np.array_equal(a, b, equal_nan=True))
    dtype = float64_tolerance if a.dtype == np.float64 else str(a.dtype)
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES["float32"])
    close = bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    close = close and np.array_equal(np.isinf(a), np.isinf(b))
    return close, identical


def _short(value, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


def _diff_snapshots(path: str, a, b, names, out: list[str], fields) -> None:
    if type(a) is not type(b) or not isinstance(a, dict):
        if a != b:
            out.append(f"{path}: {names[0]}={_short(a)} {names[1]}={_short(b)}")
        return
    for key in list(dict.fromkeys([*a, *b])):
        if key in ("values", "repr", "_float64_tolerance") or key not in fields and key != "items":
            continue
        x, y = a.get(key, "<absent>"), b.get(key, "<absent>")
        if key == "items" and isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
            for index, (p, q) in enumerate(zip(x, y)):
                _diff_snapshots(f"{path}[{index}]", p, q, names, out, fields)
        elif key == "items" and isinstance(x, tuple) and isinstance(y, tuple):
            # (their snapshots hold arrays: no == on them)
            out.append(f"{path}: {key}: {names[0]} has {len(x)}, {names[1]} has {len(y)}")
        elif x != y:
            out.append(f"{path}: {key}: {names[0]}={_short(x)} {names[1]}={_short(y)}")
    if "values" in a and "values" in b:
        close, identical = _values_agree(a["values"], b["values"], a["_float64_tolerance"])
        if not close and "values" in fields:
            out.append(
                f"{path}: values differ:\n    {names[0]}={a['values']!r}\n"
                f"    {names[1]}={b['values']!r}"
            )
        repr_ok = a["repr"] == b["repr"] or (
            close and not identical and _reprs_match_loosely(a["repr"], b["repr"])
        )
        if not repr_ok and "repr" in fields:
            out.append(f"{path}: repr:\n    {names[0]}: {a['repr']}\n    {names[1]}: {b['repr']}")


# What a program computes: values, types, shapes and autograd state, and any error it raises.
SEMANTIC_FIELDS = frozenset(
    [
        "kind",
        "value",
        "values",
        "dtype",
        "shape",
        "is_leaf",
        "requires_grad",
        "retains_grad",
        "same_object_as",
        "is_inference",
        "raised",
    ]
)
# How it shows it: reprs, grad_fn names and graph structure, version counters, warnings.
PRESENTATION_FIELDS = frozenset(
    ["repr", "grad_fn", "next_functions", "_version", "warnings", "raised"]
)
ALL_FIELDS = SEMANTIC_FIELDS | PRESENTATION_FIELDS


def compare(
    a_obs: list,
    b_obs: list,
    names: tuple[str, str] = ("torch", "leafgrad"),
    fields: frozenset = ALL_FIELDS,
) -> str:
    """Readable differences between two observation lists in `fields` ('' when they agree)."""
    out: list[str] = []
    for index, (ra, rb) in enumerate(itertools.zip_longest(a_obs, b_obs)):
        if ra is None or rb is None:
            present, missing = (names[0], names[1]) if rb is None else (names[1], names[0])
            record = ra if rb is None else rb
            out.append(f"[{index}] {record[0]}: only {present} has it ({missing} ended early)")
            continue
        if ra[0] != rb[0]:
            for name, (label, snapshot) in zip(names, (ra, rb)):
                said = snapshot.get("raised") if isinstance(snapshot, dict) else None
                shown = f"raised {said[0]}: {said[1]}" if said else f"observation {label!r}"
                out.append(f"[{index}] the runs diverge: {name} has {shown}")
            break  # everything after this point differs for that one reason
        _diff_snapshots(f"[{index}] {ra[0]}", ra[1], rb[1], names, out, fields)
    if len(out) > 25:  # the first differences explain the rest; keep the report readable
        out = out[:25] + [f"... and {len(out) - 25} more differences"]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# A generated program


_ONCE_PER_PROCESS = (
    "create_graph=True will create a reference cycle",
    "Using padding='same' with even kernel lengths and odd dilation",
    # (leafgrad gives this one at each cast: ops/elementwise.py's _warn_complex_to_real)
    "Casting complex values to real discards the imaginary part",
)


@dataclass
class Program:
    """One generated program: its source, the op kinds it exercises, and a way to run it."""

    seed: int
    source: str
    kinds: Counter = field(default_factory=Counter)

    def __post_init__(self):
        namespace = {"np": np, "Observer": Observer}
        exec(compile(self.source, f"<program {self.seed}>", "exec"), namespace)
        self.program = namespace["program"]

    def run(self, lib) -> list:
        """Run on `lib` (torch or leafgrad); an exception ends the records with an 'raised' one."""
        observer = Observer(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.program(lib, observer)
            except Exception as error:  # noqa: BLE001 - recorded and compared like any output
                raised = (type(error).__name__, _first_line(error))
                observer.records.append(("raised", {"raised": raised}))
        said = [
            (w.category.__name__, _normalise(str(w.message).splitlines()[0]))
            for w in caught
            # torch gives these once per process (TORCH_WARN_ONCE), and so does leafgrad: whether
            # a given program sees one depends on which test ran first, and torch's was used up
            # while the program was generated (it runs on torch then).
            if not any(text in str(w.message) for text in _ONCE_PER_PROCESS)
        ]
        observer.records.append(("the run", {"warnings": tuple(dict.fromkeys(said))}))
        return observer.records


# ---------------------------------------------------------------------------------------------
# Generation


@dataclass
class _Var:
    name: str
    group: int  # storage group: tensors sharing memory (views, detach, self-returning casts)
    expanded: bool = False  # overlapping memory: in-place on it is an error


class _Reject(Exception):
    """The program being generated went somewhere torch or the value checks refuse."""


def _literal(array: np.ndarray) -> str:
    return f"np.array({array.tolist()!r}, dtype=np.{array.dtype})"


def _broadcast(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


# Below these magnitudes a nonzero value is what is left of a cancellation: its digits are the
# rounding of the kernels' summation orders (a normalisation's outputs summed, its gradient
# under a constant upstream gradient). The user-code seeds (programs_user.py), whose nn
# kernels are not all torch's bit for bit, reject such values as they reject kinks and ties.
NOISE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-11, np.dtype(np.float16): 1e-2}


def _rounding_noise(array: np.ndarray) -> bool:
    magnitude = np.abs(array[np.isfinite(array)])
    return bool(((magnitude > 0) & (magnitude < NOISE.get(array.dtype, 0))).any())


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


class _Generator(UserOps, WideOps, Wide2Ops, Wide3Ops, AfterStages, ModuleStage, FunctionStage,
                 MachineryStage):
    def __init__(self, seed: int, torch):
        self.seed = seed
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.torch = torch
        # Even seeds also draw from EXTENDED_OPS (indexing, setitem, multi-output views,
        # more reductions and shape ops, writes autograd does not record); odd seeds keep the
        # programs they had before it, among them the seeds with known differences.
        self.extended = seed % 2 == 0
        # Seeds 2 mod 4 also draw from USER_OPS (programs_user.py: nn.functional, promotion,
        # out=, grad modes, toggles, hooks); seeds 0 mod 4 keep their extended programs.
        self.user = seed % 4 == 2
        # Seeds from WIDE_SEED0 on draw from every op set and WIDE_OPS (programs_wide.py:
        # strided and empty operands, more dtypes, in-place on views, index writes, out=,
        # gradient-changing hooks); the seeds below keep their programs.
        self.wide = seed >= WIDE_SEED0
        self.user = self.user or self.wide
        # Seeds from WIDE2_SEED0 on also draw from WIDE2_OPS (programs_wide2.py).
        self.wide2 = seed >= WIDE2_SEED0
        # Seeds from WIDE3_SEED0 on also draw from WIDE3_OPS and end with its training-loop
        # stage (programs_wide3.py).
        self.wide3 = seed >= WIDE3_SEED0

    # -- bookkeeping ---------------------------------------------------------------------------

    def reset(self) -> None:
        self.lines: list[tuple[str, list[str]]] = []  # (statement, observation lines)
        self.vars: list[_Var] = []
        self.ns = {"lib": self.torch, "np": np, "O": _NullObserver()}
        self.count = itertools.count()
        self.groups = itertools.count()
        self.saved_groups: set[int] = set()  # memory some node saved: in-place would break it
        self.grad_leaf_groups: set[int] = set()  # memory of a leaf that requires grad
        self.kinds: Counter = Counter()

    def replay(self) -> None:
        self.ns = {"lib": self.torch, "np": np, "O": _NullObserver()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for statement, _ in self.lines:
                exec(statement, self.ns)

    def value(self, var: _Var):
        return self.ns[var.name]

    def attempt(self, statement: str, checks=()) -> bool:
        """Run a statement on torch; keep the state only if it works and values stay sane."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(statement, self.ns)
            ok = all(self.sane(self.ns[name]) for name in checks)
        except Exception:  # noqa: BLE001 - torch refused: not a valid program
            ok = False
        if not ok:
            self.replay()
        return ok

    def sane(self, value) -> bool:
        torch = self.torch
        if not isinstance(value, torch.Tensor):
            return True
        array = to_numpy(value)
        if array.dtype.kind == "f":
            if self.user and _rounding_noise(array):
                return False
            return bool(np.isfinite(array).all() and np.abs(array).max(initial=0) <= MAX_VALUE)
        if array.dtype.kind == "c":
            return bool(np.isfinite(array).all() and np.abs(array).max(initial=0) <= MAX_VALUE)
        if array.dtype.kind in "iu":
            return bool(np.abs(array).max(initial=0) <= 10**6)
        return True

    def keep(self, statement: str, kind: str, observe: list[str]) -> None:
        self.lines.append((statement, observe))
        self.kinds[kind] += 1

    def fresh(self) -> str:
        return f"x{next(self.count)}"

    def emit(self, expr: str, kind: str, inputs=(), view_of: _Var | None = None, saves=False,
             prefix: str = ""):
        """Bind `expr` to a new variable (`prefix`: a `with ...: ` block around the binding);
        returns the new _Var or None if torch refused."""
        name = self.fresh()
        if not self.attempt(f"{prefix}{name} = {expr}", checks=[name]):
            return None
        result = self.ns[name]
        if not isinstance(result, self.torch.Tensor):  # (a list or a named tuple)
            self.replay()
            return None
        same = next((v for v in self.vars if self.ns[v.name] is result), None)
        if view_of is None and same is not None:
            view_of = same
        var = _Var(name, next(self.groups) if view_of is None else view_of.group)
        if view_of is not None:
            var.expanded = view_of.expanded or kind == "expand"
        if saves:
            self.saved_groups.update(v.group for v in (*inputs, var))
        self.vars.append(var)
        self.keep(f"{prefix}{name} = {expr}", kind, [f"O.new({name!r}, {name})"])
        return var

    # -- choosing operands ---------------------------------------------------------------------

    def is_float(self, var: _Var) -> bool:
        return self.value(var).dtype.is_floating_point

    def is_bool(self, var: _Var) -> bool:
        return self.value(var).dtype == self.torch.bool

    def shape(self, var: _Var) -> tuple:
        return tuple(self.value(var).shape)

    def pick(self, accept=lambda var: True) -> _Var | None:
        """A variable, preferring recent ones so that graphs grow deep rather than wide."""
        candidates = [v for v in self.vars if accept(v)]
        if not candidates:
            return None
        differentiable = [v for v in candidates if self.value(v).requires_grad]
        if differentiable and self.rng.random() < 0.75:
            candidates = differentiable
        if self.rng.random() < 0.55:
            return candidates[-1]
        return self.rng.choice(candidates)

    def leaf(self, shape=None, dtype=None, requires_grad=None) -> _Var:
        rng = self.rng
        shape = tuple(rng.choice(LEAF_SHAPES) if shape is None else shape)
        if dtype is None:
            dtype = rng.choices(["float32", "float64", "int64"], [0.6, 0.25, 0.15])[0]
        if dtype == "int64":
            array = self.np_rng.integers(-3, 4, size=shape).astype(np.int64)
            requires_grad = False
        else:
            style = rng.random()
            if style < 0.1:  # exactly representable values, including 0 (kinks are exact too)
                array = np.round(self.np_rng.uniform(-2, 2, size=shape) * 2) / 2
            elif style < 0.25:
                array = self.np_rng.uniform(0.5, 2.0, size=shape)
            else:
                array = self.np_rng.uniform(-2, 2, size=shape)
            bfloat16 = dtype == "bfloat16"  # (NumPy has none: float32 values it holds exactly,
            array = np.asarray(array, dtype="float32" if bfloat16 else dtype)  # cast by lib)
            if bfloat16:
                array = self.torch.tensor(array).bfloat16().float().numpy()
            if requires_grad is None:
                requires_grad = rng.random() < 0.75
        name = self.fresh()
        form = rng.random()
        if dtype == "bfloat16":
            grad = ", requires_grad=True" if requires_grad else ""
            statement = f"{name} = lib.tensor({_literal(array)}, dtype=lib.bfloat16{grad})"
        elif not requires_grad:
            statement = f"{name} = lib.tensor({_literal(array)})"
        elif form < 0.75:
            statement = f"{name} = lib.tensor({_literal(array)}, requires_grad=True)"
        elif form < 0.9:
            statement = f"{name} = lib.tensor({_literal(array)}).requires_grad_()"
        else:  # the dtype keyword converts; the leaf is still a leaf
            other = "float32" if dtype == "float64" else "float64"
            array = array.astype(other)
            statement = (
                f"{name} = lib.tensor({_literal(array)}, dtype=lib.{dtype}, requires_grad=True)"
            )
        if not self.attempt(statement):
            raise _Reject(statement)
        var = _Var(name, next(self.groups))
        if requires_grad:
            self.grad_leaf_groups.add(var.group)
        self.vars.append(var)
        self.keep(statement, "leaf", [f"O.new({name!r}, {name})"])
        return var

    def broadcast_partner_shape(self, shape: tuple, grow: bool = True) -> tuple:
        """A shape that broadcasts with `shape` (to exactly `shape` unless `grow`)."""
        rng = self.rng
        options = [shape, shape[rng.randint(0, len(shape)) :]]
        options.append(tuple(1 if rng.random() < 0.5 else n for n in shape))
        if grow:
            options.append((2, *shape) if len(shape) < 3 else shape)
            options.append(tuple(rng.choice([2, 3]) if n == 1 else n for n in shape))
            options.extend(s for s in LEAF_SHAPES if _broadcast(s, shape) is not None)
        return rng.choice(options)

    def partner(self, var: _Var, grow=True, scalar_ok=True):
        """Second operand for a binary op: (code, _Var or None, value-for-checks)."""
        rng = self.rng
        roll = rng.random()
        if scalar_ok and roll < 0.25:
            scalar = rng.choice(SCALARS)
            if not self.is_float(var) and rng.random() < 0.6:
                scalar = int(abs(scalar)) or 2  # keep int tensors int sometimes
            return repr(scalar), None, scalar
        shape = self.shape(var)
        if roll < 0.6:

            def fits(v: _Var) -> bool:
                joint = _broadcast(self.shape(v), shape)
                if self.is_bool(v) or joint is None:
                    return False
                return (grow or joint == shape) and _numel(joint) <= 48

            existing = self.pick(fits)
            if existing is not None:
                return existing.name, existing, self.value(existing)
        dtype = str(self.value(var).dtype).removeprefix("torch.")
        if rng.random() < 0.25:  # another dtype: type promotion
            dtype = None
        other = self.leaf(self.broadcast_partner_shape(shape, grow), dtype=dtype)
        return other.name, other, self.value(other)

    def positive(self, var: _Var, lower: float = 0.1) -> _Var | None:
        """`var` if its values are >= lower, else a new positive variable computed from it."""
        value = self.value(var)
        if value.dtype.is_floating_point and bool((value >= lower).all()):
            return var
        forms = [
            f"{var.name}.abs() + 0.5",
            f"{var.name}.sigmoid() + 0.25",
            f"{var.name} ** 2 + 0.5",
            f"lib.add({var.name}.abs(), 1)",
        ]
        form = self.rng.choice(forms)
        if "abs" in form and not self.far_from(value, 0.0):
            form = forms[2]
        return self.emit(form, "positivise", inputs=[var], saves=True)

    def far_from(self, value, point) -> bool:
        """No element within KINK of `point` except exact hits (which are deterministic)."""
        torch = self.torch
        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            return True
        distance = (value.detach().double() - point).abs()
        return bool(((distance == 0) | (distance > KINK)).all())

    # -- ops -----------------------------------------------------------------------------------

    def op_unary(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        name = rng.choice(
            ["neg", "exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu"]
        )
        if name in ("log", "sqrt"):
            var = self.positive(var)
            if var is None:
                return None
        if name == "exp" and float(self.value(var).detach().max()) > 5:
            var = self.emit(f"{var.name}.tanh()", "tanh", inputs=[var], saves=True)
            if var is None:
                return None
        if name in ("abs", "relu") and not self.far_from(self.value(var), 0.0):
            return None
        forms = [f"{var.name}.{name}()", f"lib.{name}({var.name})"]
        if name == "neg":
            forms.append(f"-{var.name}")
        saves = name not in ("neg",)
        return self.emit(rng.choice(forms), name, inputs=[var], saves=saves)

    def op_binary(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        op = rng.choice(["+", "-", "*", "/", "**", "mask"])
        if op == "mask":
            mask = self.pick(lambda v: self.is_bool(v))
            if (
                mask is None
                or not self.is_float(var)
                or _broadcast(self.shape(var), self.shape(mask)) is None
            ):
                return None
            return self.emit(
                f"{var.name} * {mask.name}", "mul_bool", inputs=[var, mask], saves=True
            )
        if op == "**":
            return self.op_pow(var)
        code, other, _ = self.partner(var)
        if op == "/":
            if other is not None:
                if not bool((self.value(other).abs() >= 0.25).all()):
                    other = self.positive(other, 0.25)
                    if other is None:
                        return None
                code = other.name
            elif rng.random() < 0.3:  # scalar / tensor
                if not bool((self.value(var).abs() >= 0.25).all()):
                    var = self.positive(var, 0.25)
                    if var is None:
                        return None
                return self.emit(f"{code} / {var.name}", "rdiv", inputs=[var], saves=True)
        inputs = [var] + ([other] if other is not None else [])
        saves = op in ("*", "/")
        if rng.random() < 0.35:
            function = {"+": "add", "-": "sub", "*": "mul", "/": "div"}[op]
            if function in ("add", "sub") and rng.random() < 0.4:
                alpha = rng.choice([2, -1, 0.5])
                return self.emit(
                    f"lib.{function}({var.name}, {code}, alpha={alpha})",
                    function,
                    inputs=inputs,
                    saves=saves,
                )
            form = rng.choice(
                [f"lib.{function}({var.name}, {code})", f"{var.name}.{function}({code})"]
            )
            return self.emit(form, function, inputs=inputs, saves=saves)
        if other is None and rng.random() < 0.4 and op != "/":
            expr = f"{code} {op} {var.name}"  # reflected operators with a Python scalar
        else:
            expr = f"{var.name} {op} {code}"
        return self.emit(expr, op, inputs=inputs, saves=saves)

    def op_pow(self, var: _Var):
        rng = self.rng
        style = rng.choice(["scalar", "scalar", "tensor", "rpow"])
        if style == "scalar":
            exponent = rng.choice([2, 0.5, -1, 3, 2.0])
            if exponent == 0.5:
                var = self.positive(var)
            elif exponent == -1 and not (
                self.is_float(var) and bool((self.value(var).abs() >= 0.25).all())
            ):
                var = self.positive(var, 0.25)
            if var is None:
                return None
            form = rng.choice(
                [
                    f"{var.name} ** {exponent}",
                    f"lib.pow({var.name}, {exponent})",
                    f"{var.name}.pow({exponent})",
                ]
            )
            return self.emit(form, "pow_scalar", inputs=[var], saves=True)
        if style == "rpow":
            if float(self.value(var).detach().abs().max()) > 5:
                return None
            return self.emit(
                f"{rng.choice([2, 0.5, 1.5])} ** {var.name}", "rpow", inputs=[var], saves=True
            )
        base = self.positive(var)
        if base is None:
            return None
        code, other, _ = self.partner(base, scalar_ok=False)
        if other is None or not self.is_float(other) and rng.random() < 0.5:
            return None
        if float(self.value(other).detach().abs().max()) > 3:
            return None
        form = rng.choice([f"{base.name} ** {code}", f"lib.pow({base.name}, {code})"])
        return self.emit(form, "pow_tensor", inputs=[base, other], saves=True)

    def op_reduce(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        name = "mean" if rng.random() < 0.35 and self.is_float(var) else "sum"
        ndim = max(len(self.shape(var)), 1)
        dim = rng.randint(-ndim, ndim - 1)
        style = rng.choice(["all", "dim", "keepdim", "module", "tuple"])
        if style == "all":
            forms = [f"{var.name}.{name}()", f"lib.{name}({var.name})"]
        elif style == "dim":
            forms = [f"{var.name}.{name}({dim})", f"{var.name}.{name}(dim={dim})"]
        elif style == "keepdim":
            forms = [
                f"{var.name}.{name}({dim}, keepdim=True)",
                f"{var.name}.{name}(dim={dim}, keepdim=True)",
            ]
        elif style == "module":
            forms = [
                f"lib.{name}({var.name}, {dim})",
                f"lib.{name}({var.name}, dim={dim}, keepdim={rng.random() < 0.5})",
            ]
        else:
            dims = sorted(rng.sample(range(-ndim, ndim), min(ndim, 2)))
            if len({d % ndim for d in dims}) < len(dims):
                return None
            forms = [f"{var.name}.{name}({tuple(dims)!r})"]
        return self.emit(rng.choice(forms), f"{name}_{style}", inputs=[var])

    def op_matmul(self):
        rng = self.rng
        var = self.pick(lambda v: 1 <= len(self.shape(v)) <= 3 and not self.is_bool(v))
        if var is None:
            return None
        shape = self.shape(var)
        left = rng.random() < 0.6  # var @ other, else other @ var
        inner = shape[-1] if left else (shape[0] if len(shape) == 1 else shape[-2])
        m = rng.choice([1, 2, 3])
        batch = shape[0] if len(shape) == 3 and rng.random() < 0.7 else rng.choice([1, 2])
        options = [(inner,), (inner, m) if left else (m, inner)]
        options.append((batch, inner, m) if left else (batch, m, inner))
        other_shape = rng.choice(options)
        dtype = self.value(var).dtype
        other = self.pick(lambda v: self.shape(v) == other_shape and self.value(v).dtype == dtype)
        if other is None or rng.random() < 0.4:
            other = self.leaf(other_shape, dtype=str(dtype).removeprefix("torch."))
        a, b = (var, other) if left else (other, var)
        forms = [
            f"{a.name} @ {b.name}",
            f"lib.matmul({a.name}, {b.name})",
            f"{a.name}.matmul({b.name})",
        ]
        kind = f"matmul_{len(self.shape(a))}d_{len(self.shape(b))}d"
        if len(self.shape(a)) == 2 and len(self.shape(b)) == 2 and rng.random() < 0.4:
            forms = [f"{a.name}.mm({b.name})", f"lib.mm({a.name}, {b.name})"]
            kind = "mm"
        return self.emit(rng.choice(forms), kind, inputs=[a, b], saves=True)

    def reshape_target(self, numel: int) -> tuple:
        rng = self.rng
        dims = []
        remaining = numel
        for _ in range(rng.randint(0 if numel == 1 else 1, 3)):
            divisor = rng.choice([d for d in range(1, remaining + 1) if remaining % d == 0])
            dims.append(divisor)
            remaining //= divisor
        if remaining != 1 or not dims and numel != 1:
            dims.append(remaining)
        rng.shuffle(dims)
        if dims and rng.random() < 0.4:
            dims[rng.randrange(len(dims))] = -1
        return tuple(dims)

    def op_reshape(self):
        rng = self.rng
        var = self.pick()
        target = self.reshape_target(_numel(self.shape(var)))
        method = rng.choice(["reshape", "view", "reshape"])
        spelled = ", ".join(map(str, target)) if target else "()"
        forms = [f"{var.name}.{method}({spelled})", f"{var.name}.{method}({target!r})"]
        if method == "reshape":
            forms.append(f"lib.reshape({var.name}, {target!r})")
        result = self.emit(rng.choice(forms), method, inputs=[var], view_of=var)
        if result is None and method == "view":  # non-contiguous: torch refuses view
            result = self.emit(f"{var.name}.reshape({target!r})", "reshape", view_of=var)
        return result

    def op_transpose(self):
        rng = self.rng
        var = self.pick()
        ndim = len(self.shape(var))
        if ndim <= 2 and rng.random() < 0.4:
            form = rng.choice([f"{var.name}.t()", f"lib.t({var.name})"])
            return self.emit(form, "t", inputs=[var], view_of=var)
        span = max(ndim, 1)
        first, second = rng.randint(-span, span - 1), rng.randint(-span, span - 1)
        form = rng.choice(
            [
                f"{var.name}.transpose({first}, {second})",
                f"lib.transpose({var.name}, {first}, {second})",
            ]
        )
        return self.emit(form, "transpose", inputs=[var], view_of=var)

    def op_cat(self):
        rng = self.rng
        stack = rng.random() < 0.4
        var = self.pick(lambda v: stack or len(self.shape(v)) > 0)
        if var is None:
            return None
        shape = self.shape(var)
        ndim = len(shape)
        dim = rng.randint(-(ndim + 1), ndim) if stack else rng.randint(-ndim, ndim - 1)
        parts = [var]
        for _ in range(rng.choice([1, 1, 2])):
            want = list(shape)
            if not stack:
                want[dim] = rng.choice([1, 2, shape[dim]])
            want = tuple(want)
            other = self.pick(lambda v, want=want: self.shape(v) == want and not self.is_bool(v))
            if other is None or rng.random() < 0.5:
                dtype = str(self.value(var).dtype).removeprefix("torch.")
                other = self.leaf(want, dtype=dtype if rng.random() < 0.8 else None)
            parts.append(other)
        rng.shuffle(parts)
        listed = ", ".join(p.name for p in parts)
        container = f"[{listed}]" if rng.random() < 0.7 else f"({listed},)"
        function = "stack" if stack else "cat"
        form = rng.choice(
            [f"lib.{function}({container}, {dim})", f"lib.{function}({container}, dim={dim})"]
        )
        return self.emit(form, function, inputs=parts)

    def op_squeeze(self):
        rng = self.rng
        var = self.pick()
        ndim = len(self.shape(var))
        if rng.random() < 0.5:
            dim = rng.randint(-(ndim + 1), ndim)
            form = rng.choice([f"{var.name}.unsqueeze({dim})", f"lib.unsqueeze({var.name}, {dim})"])
            return self.emit(form, "unsqueeze", inputs=[var], view_of=var)
        span = max(ndim, 1)
        dim = rng.randint(-span, span - 1)
        form = rng.choice(
            [
                f"{var.name}.squeeze()",
                f"{var.name}.squeeze({dim})",
                f"lib.squeeze({var.name})",
                f"lib.squeeze({var.name}, {dim})",
            ]
        )
        return self.emit(form, "squeeze", inputs=[var], view_of=var)

    def op_expand(self):
        rng = self.rng
        var = self.pick()
        shape = self.shape(var)
        target = [rng.choice([1, 2, 3, -1]) if n == 1 else rng.choice([n, -1]) for n in shape]
        if not shape or rng.random() < 0.4:
            target.insert(0, rng.choice([2, 3]))
        spelled = ", ".join(map(str, target))
        form = rng.choice([f"{var.name}.expand({spelled})", f"{var.name}.expand({tuple(target)})"])
        return self.emit(form, "expand", inputs=[var], view_of=var)

    def op_copyish(self):
        rng = self.rng
        var = self.pick()
        kind = rng.choice(["clone", "detach", "double", "float", "ones_like", "zeros_like"])
        if kind == "clone":
            form = rng.choice([f"{var.name}.clone()", f"lib.clone({var.name})"])
            return self.emit(form, "clone", inputs=[var])
        if kind == "detach":
            return self.emit(f"{var.name}.detach()", "detach", inputs=[var], view_of=var)
        if kind in ("double", "float"):
            return self.emit(f"{var.name}.{kind}()", kind, inputs=[var])
        return self.emit(f"lib.{kind}({var.name})", kind, inputs=[var])

    def op_compare(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        code, other, value = self.partner(var)
        difference = self.value(var).detach().double() - (
            value.detach().double() if other is not None else value
        )
        if not self.far_from(difference, 0.0):
            return None
        symbol, function = rng.choice(
            [(">", "gt"), ("<", "lt"), (">=", "ge"), ("<=", "le"), ("==", "eq"), ("!=", "ne")]
        )
        form = rng.choice(
            [
                f"{var.name} {symbol} {code}",
                f"lib.{function}({var.name}, {code})",
                f"{var.name}.{function}({code})",
            ]
        )
        return self.emit(form, "compare", inputs=[var] + ([other] if other else []))

    def op_retain_grad(self):
        var = self.pick(lambda v: not self.value(v).is_leaf and self.value(v).requires_grad)
        if var is None:
            return None
        statement = f"{var.name}.retain_grad()"
        if not self.attempt(statement):
            return None
        self.keep(statement, "retain_grad", [f"O.see({var.name + ' retains grad'!r}, {var.name})"])
        return var

    def inplace_target_ok(self, var: _Var) -> bool:
        value = self.value(var)
        return not (
            var.expanded
            or var.group in self.saved_groups
            or var.group in self.grad_leaf_groups
            or value.dtype == self.torch.bool
        )

    def op_inplace(self):
        rng = self.rng
        var = self.pick(self.inplace_target_ok)
        if var is None:
            return None
        value = self.value(var)
        is_float = value.dtype.is_floating_point
        op = rng.choice(
            ["add_", "sub_", "mul_", "div_", "zero_", "fill_", "clamp_", "+=", "*=", "-="]
        )
        operands: list[_Var] = []
        if op in ("zero_",):
            statement = f"{var.name}.zero_()"
        elif op == "fill_":
            number = rng.choice(SCALARS) if is_float else rng.choice([0, 2, -1])
            statement = f"{var.name}.fill_({number})"
        elif op == "clamp_":
            if not is_float:
                return None
            low, high = sorted(rng.sample([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0], 2))
            if not (self.far_from(value, low) and self.far_from(value, high)):
                return None
            statement = rng.choice(
                [
                    f"{var.name}.clamp_({low}, {high})",
                    f"{var.name}.clamp_(min={low})",
                    f"{var.name}.clamp_(max={high})",
                ]
            )
        else:
            code, other, number = self.partner(var, grow=False)
            if other is not None:
                if not is_float and self.is_float(other):
                    return None
                if op in ("div_",) and not bool((self.value(other).abs() >= 0.25).all()):
                    return None
                operands.append(other)
            elif not is_float and isinstance(number, float):
                return None
            if op == "div_" and not is_float:
                return None
            if op in ("+=", "*=", "-="):
                statement = f"{var.name} {op} {code}"
            elif op in ("add_", "sub_") and rng.random() < 0.3:
                statement = f"{var.name}.{op}({code}, alpha={rng.choice([2, -1])})"
            else:
                statement = f"{var.name}.{op}({code})"
        alias = None
        if not op.endswith("=") and rng.random() < 0.3:
            alias = self.fresh()
            statement = f"{alias} = {statement}"
        if not self.attempt(statement, checks=[var.name]):
            return None
        if op in ("mul_", "div_", "clamp_", "*="):
            self.saved_groups.update(v.group for v in (var, *operands))
        observe = [f"O.see({statement!r}, {v.name})" for v in self.vars if v.group == var.group]
        if alias is not None:
            self.vars.append(_Var(alias, var.group, var.expanded))
            observe.append(f"O.new({alias!r}, {alias})")
        self.keep(statement, "inplace_" + op, observe)
        return var

    # (method, weight): how often each op family is tried.
    OPS = (
        ("op_unary", 6),
        ("op_binary", 8),
        ("op_reduce", 3),
        ("op_matmul", 3),
        ("op_reshape", 2),
        ("op_transpose", 2),
        ("op_cat", 2),
        ("op_squeeze", 2),
        ("op_expand", 1.5),
        ("op_copyish", 2),
        ("op_compare", 1.5),
        ("op_retain_grad", 1),
        ("op_inplace", 4),
    )

    # -- the extended op set (even seeds: see `extended`) ---------------------------------------

    def dim_of(self, var: _Var) -> int:
        ndim = max(len(self.shape(var)), 1)
        return self.rng.randint(-ndim, ndim - 1)

    def index_for(self, shape: tuple) -> str | None:
        """A basic index for `shape` (ints, slices with steps, None, Ellipsis) or an advanced
        one (an index list, a LongTensor, a bool mask), spelled as code."""
        rng = self.rng
        if not shape:
            return rng.choice(["...", "None", "()"])
        items = []
        for n in shape[: rng.randint(1, len(shape))]:
            roll = rng.random()
            if n == 0:
                items.append(":")
            elif roll < 0.3:
                items.append(str(rng.randint(-n, n - 1)))
            elif roll < 0.7:
                start = rng.choice([None, 0, 1, -1]) if n > 1 else None
                stop = rng.choice([None, n, -1, 100]) if n > 1 else None
                step = rng.choice([None, None, 2])
                spelled = ":".join("" if v is None else str(v) for v in (start, stop))
                items.append(spelled + (f":{step}" if step else ""))
            elif roll < 0.8:
                items.append("None")
            elif roll < 0.9:
                picks = [rng.randint(-n, n - 1) for _ in range(rng.randint(1, 3))]
                items.append(rng.choice([repr(picks), f"lib.tensor({picks!r})"]))
            else:
                items.append("...")
        if items.count("...") > 1:
            return None
        if rng.random() < 0.15:
            mask = self.np_rng.random(shape) < 0.5
            return f"lib.tensor({mask.tolist()!r})"
        return items[0] if len(items) == 1 and rng.random() < 0.5 else ", ".join(items)

    def op_getitem(self):
        var = self.pick()
        index = self.index_for(self.shape(var))
        if index is None:
            return None
        advanced = "lib.tensor" in index or "[" in index
        return self.emit(f"{var.name}[{index}]", "getitem", inputs=[var],
                         view_of=None if advanced else var)

    def op_setitem(self):
        rng = self.rng
        var = self.pick(self.inplace_target_ok)
        if var is None:
            return None
        index = self.index_for(self.shape(var))
        if index is None:
            return None
        value = self.value(var)
        if rng.random() < 0.5 or not value.dtype.is_floating_point:
            code, operands = repr(rng.choice([0, 1, -2] if not value.dtype.is_floating_point
                                             else SCALARS)), []
        else:
            try:
                region = eval(f"{var.name}[{index}]", dict(self.ns))
            except Exception:  # noqa: BLE001 - torch refused the index
                return None
            shape = tuple(region.shape)
            target = shape[rng.randint(0, len(shape)):] if shape else ()
            if rng.random() < 0.3:
                target = (1, *target)
            other = self.leaf(target, dtype=str(value.dtype).removeprefix("torch."))
            code, operands = other.name, [other]
        statement = f"{var.name}[{index}] = {code}"
        if not self.attempt(statement, checks=[var.name]):
            return None
        self.saved_groups.update(v.group for v in operands)
        observe = [f"O.see({statement!r}, {v.name})" for v in self.vars if v.group == var.group]
        self.keep(statement, "setitem", observe)
        return var

    def op_split(self):
        rng = self.rng
        var = self.pick(lambda v: len(self.shape(v)) > 0)
        if var is None:
            return None
        dim = self.dim_of(var)
        size = self.shape(var)[dim]
        form = rng.choice(
            [
                f"{var.name}.unbind({dim})",
                f"lib.unbind({var.name}, dim={dim})",
                f"{var.name}.split({rng.randint(1, max(size, 1))}, {dim})",
                f"lib.split({var.name}, {rng.randint(1, max(size, 1))}, dim={dim})",
                f"{var.name}.chunk({rng.randint(1, 3)}, dim={dim})",
                f"{var.name}.tensor_split({rng.randint(1, 3)}, {dim})",
                f"list({var.name})",
            ]
        )
        return self.emit(f"{form}[{rng.choice([0, -1])}]", "split", inputs=[var], view_of=var)

    def op_reduce_more(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        if var is None:
            return None
        dim = self.dim_of(var)
        keep = rng.choice(["", ", keepdim=True", ", keepdim=False"])
        name = rng.choice(["max", "min", "amax", "prod", "std", "var", "logsumexp", "norm",
                           "cumsum", "softmax", "log_softmax", "sum_dtype", "mean_dtype",
                           "argmax", "max_all", "all_any", "count_nonzero"])
        v = var.name
        value = self.value(var)
        if name in ("max", "min", "amax", "argmax", "max_all"):
            # ties would make the chosen index (and the gradient's place) a last-bit matter
            flat = value.detach().double().flatten()
            if flat.numel() != flat.unique().numel():
                return None
            if name == "max_all":
                form = rng.choice([f"{v}.max()", f"lib.min({v})"])
            elif name == "amax":
                form = f"{v}.amax({dim}{keep})"
            elif name == "argmax":
                form = rng.choice([f"{v}.argmax({dim}{keep})", f"lib.argmin({v})"])
            else:
                form = rng.choice([f"lib.{name}({v}, {dim}{keep})[0]", f"{v}.{name}(dim={dim}"
                                   f"{keep}).values", f"{v}.{name}({dim})[{rng.randint(0, 1)}]"])
        elif name == "prod":
            form = rng.choice([f"{v}.prod({dim}{keep})", f"lib.prod({v})"])
        elif name in ("std", "var"):
            if not value.dtype.is_floating_point or _numel(self.shape(var)) < 2:
                return None
            form = rng.choice([f"{v}.{name}()", f"lib.{name}({v}, {dim}, correction=0{keep})",
                               f"{v}.{name}(dim=({dim},), unbiased=False)"])
        elif name == "logsumexp":
            if not value.dtype.is_floating_point:
                return None
            form = f"lib.logsumexp({v}, {dim}{keep})"
        elif name == "norm":
            if not value.dtype.is_floating_point or not self.far_from(value, 0.0):
                return None
            form = rng.choice([f"{v}.norm()", f"lib.norm({v}, dim={dim}{keep})",
                               f"lib.linalg.vector_norm({v}, 1, dim={dim})"])
        elif name == "cumsum":
            form = rng.choice([f"{v}.cumsum({dim})", f"lib.cumprod({v}, dim={dim})"])
        elif name in ("softmax", "log_softmax"):
            dtype = rng.choice(["", ", dtype=lib.float64"])
            if not value.dtype.is_floating_point and not dtype:
                return None
            form = rng.choice([f"{v}.{name}({dim}{dtype})",
                               f"lib.nn.functional.{name}({v}, dim={dim}{dtype})"])
        elif name in ("sum_dtype", "mean_dtype"):
            function = name.partition("_")[0]
            dtype = rng.choice(["float64", "float32"] + (["int64"] if function == "sum" else []))
            if function == "mean" and not value.dtype.is_floating_point and dtype == "int64":
                return None
            form = rng.choice([f"{v}.{function}(dtype=lib.{dtype})",
                               f"lib.{function}({v}, {dim}{keep}, dtype=lib.{dtype})"])
        elif name == "all_any":
            form = rng.choice([f"{v}.all()", f"lib.any({v}, {dim})", f"({v} > 0).all({dim})"])
        else:
            form = rng.choice([f"lib.count_nonzero({v})", f"{v}.count_nonzero({dim})"])
        return self.emit(form, name, inputs=[var], saves=True)

    def op_choose(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        if var is None:
            return None
        value = self.value(var)
        v = var.name
        kind = rng.choice(["where", "clamp", "masked_fill", "maximum", "lerp"])
        if kind == "where":
            code, other, number = self.partner(var)
            condition = self.pick(lambda c: self.is_bool(c) and _broadcast(
                self.shape(c), self.shape(var)) is not None)
            cond = condition.name if condition is not None else f"{v} > 0"
            if condition is None and not self.far_from(value, 0.0):
                return None
            form = rng.choice([f"lib.where({cond}, {v}, {code})", f"{v}.where({cond}, {code})"])
            return self.emit(form, "where", inputs=[var] + ([other] if other else []))
        if kind == "clamp":
            if not value.dtype.is_floating_point:
                return None
            low, high = sorted(rng.sample([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0], 2))
            if not (self.far_from(value, low) and self.far_from(value, high)):
                return None
            form = rng.choice([f"{v}.clamp({low}, {high})", f"lib.clamp({v}, min={low})",
                               f"{v}.clamp(max={high})", f"lib.clip({v}, {low}, {high})"])
            return self.emit(form, "clamp", inputs=[var], saves=True)
        if kind == "masked_fill":
            if not self.far_from(value, 0.5):
                return None
            fill = rng.choice([0, -1.5, 2]) if value.dtype.is_floating_point else 0
            form = rng.choice([f"{v}.masked_fill({v} > 0.5, {fill})",
                               f"lib.masked_fill({v}, {v} < 0.5, {fill})"])
            return self.emit(form, "masked_fill", inputs=[var])
        code, other, number = self.partner(var, scalar_ok=False)
        if other is None:
            return None
        if kind == "maximum":
            difference = value.detach().double() - self.value(other).detach().double()
            if not self.far_from(difference, 0.0):
                return None
            form = rng.choice([f"lib.maximum({v}, {code})", f"{v}.minimum({code})",
                               f"lib.fmax({v}, {code})"])
            return self.emit(form, "maximum", inputs=[var, other])
        if not (value.dtype.is_floating_point and self.value(other).dtype == value.dtype):
            return None
        weight = rng.choice(["0.25", "0.75", "1.5"])
        return self.emit(f"lib.lerp({v}, {code}, {weight})", "lerp", inputs=[var, other])

    def op_shape_more(self):
        rng = self.rng
        var = self.pick()
        shape = self.shape(var)
        v = var.name
        ndim = len(shape)
        dim = self.dim_of(var)
        choices = ["flatten", "flip", "repeat", "roll", "movedim"]
        if ndim:
            choices += ["permute", "narrow", "select", "contiguous"]
        kind = rng.choice(choices)
        view = kind in ("permute", "narrow", "select", "movedim")
        if kind == "permute":
            order = list(range(ndim))
            rng.shuffle(order)
            form = rng.choice([f"{v}.permute({', '.join(map(str, order))})",
                               f"lib.permute({v}, {tuple(order)!r})"])
        elif kind == "flatten":
            form = rng.choice([f"{v}.flatten()", f"lib.flatten({v}, {dim})"])
            view = None  # a view only when the memory allows
        elif kind == "flip":
            form = f"{v}.flip({dim})" if ndim else f"{v}.flip(0)"
        elif kind == "repeat":
            form = f"{v}.repeat({', '.join(['2'] + ['1'] * ndim)})"
        elif kind == "roll":
            form = f"lib.roll({v}, {rng.choice([1, -1])}{f', {dim}' if ndim else ''})"
        elif kind == "movedim":
            form = f"{v}.movedim({dim}, {self.dim_of(var)})"
        elif kind == "narrow":
            size = shape[dim]
            start = rng.randint(0, max(size - 1, 0))
            form = f"{v}.narrow({dim}, {start}, {rng.randint(1, size - start) if size else 0})"
        elif kind == "select":
            if not shape[dim]:
                return None
            form = f"{v}.select({dim}, {rng.randint(-shape[dim], shape[dim] - 1)})"
        else:
            form = f"{v}.transpose(0, -1).contiguous()"
        result = self.emit(form, kind, inputs=[var], view_of=var if view else None)
        if result is not None and kind == "flatten" and self.value(result)._base is not None:
            result.group = var.group  # flatten viewed the memory
        return result

    def op_hidden_write(self):
        """A write that autograd does not record (no_grad, a detached alias): views of the
        memory regenerate their history (AsStridedBackward0), saved values are checked."""
        rng = self.rng
        var = self.pick(lambda v: self.is_float(v) and not v.expanded
                        and v.group not in self.saved_groups)
        if var is None:
            return None
        op = rng.choice(["mul_(2)", "add_(1)", "zero_()", "sub_(0.5)", "clamp_(-1, 1)"])
        form = rng.choice(["no_grad", "detach", "data"])
        if form == "no_grad":
            statement = f"with lib.no_grad(): {var.name}.{op}"
        elif form == "detach":
            statement = f"{var.name}.detach().{op}"
        else:
            statement = f"{var.name}.data.{op}"
        if not self.attempt(statement, checks=[var.name]):
            return None
        observe = [f"O.see({statement!r}, {v.name})" for v in self.vars if v.group == var.group]
        self.keep(statement, "hidden_write", observe)
        return var

    EXTENDED_OPS = (
        ("op_getitem", 2.5),
        ("op_setitem", 1.5),
        ("op_split", 1.5),
        ("op_reduce_more", 2.5),
        ("op_choose", 1.5),
        ("op_shape_more", 1.5),
        ("op_hidden_write", 1),
    )

    # -- differentiation -----------------------------------------------------------------------

    def grad_leaves(self) -> list[_Var]:
        return [
            v
            for v in self.vars
            if self.value(v).is_leaf
            and self.value(v).requires_grad
            and v.name == self.first_name(v)
        ]

    def first_name(self, var: _Var) -> str:
        value = self.value(var)
        return next(v.name for v in self.vars if self.ns[v.name] is value)

    def gradient_literal(self, value) -> str:
        dtype = str(value.dtype).removeprefix("torch.")
        if self.rng.random() < 0.2:
            dtype = "float64" if dtype == "float32" else "float32"
        if dtype == "bfloat16":  # (NumPy has none: float32 values, converted by the library)
            array = np.asarray(self.np_rng.uniform(-1, 1, size=tuple(value.shape)), "float32")
            return f"lib.tensor({_literal(array)}, dtype=lib.bfloat16)"
        array = np.asarray(self.np_rng.uniform(-1, 1, size=tuple(value.shape)), dtype=dtype)
        return f"lib.tensor({_literal(array)})"

    def differentiate(self) -> None:
        rng = self.rng
        outputs = [
            v
            for v in self.vars
            if self.value(v).requires_grad and self.value(v).dtype.is_floating_point
        ]
        results = [v for v in outputs if not self.value(v).is_leaf]
        outputs = results or outputs
        if not outputs:
            return
        out = outputs[-1] if rng.random() < 0.8 else rng.choice(outputs)
        leaves = self.grad_leaves()
        o = out.name
        scalar = f"{o}.sum()" if self.value(out).dim() else rng.choice([o, f"{o}.sum()"])
        modes = ["sum", "gradient", "grad", "grad_create", "retain_twice", "inputs",
                 "create_graph_backward"]
        mode = rng.choice(modes + (["retain_clear"] if self.user else []))
        steps: list[str] = []
        if mode == "sum":
            steps.append(f"{scalar}.backward()")
        elif mode == "gradient":
            keyword = rng.choice(["", "gradient="])
            steps.append(f"{o}.backward({keyword}{self.gradient_literal(self.value(out))})")
        elif mode == "retain_twice":
            steps.append(f"s = {scalar}")
            steps.append("s.backward(retain_graph=True)")
            steps.append("O.grads()")
            steps.append("s.backward()")
        elif mode == "retain_clear":
            steps = self.retain_and_clear_steps(scalar, leaves)
        elif mode == "create_graph_backward":
            steps.append(f"{scalar}.backward(create_graph=True)")
        elif mode == "inputs":
            pool = leaves + [
                v
                for v in self.vars
                if not self.value(v).is_leaf
                and self.value(v).requires_grad
                and v.name == self.first_name(v)
            ]
            chosen = rng.sample(pool, rng.randint(1, min(3, len(pool))))
            listed = ", ".join(v.name for v in chosen)
            steps.append(f"{scalar}.backward(inputs=[{listed}])")
        else:
            pool = leaves + [
                v
                for v in self.vars
                if not self.value(v).is_leaf
                and self.value(v).requires_grad
                and v.name == self.first_name(v)
            ]
            if not leaves or rng.random() < 0.2:
                chosen = rng.sample(pool, rng.randint(1, min(3, len(pool))))
            else:
                chosen = leaves
            listed = ", ".join(v.name for v in chosen)
            create = mode == "grad_create"
            target = scalar
            extra = ""
            if rng.random() < 0.25 and self.value(out).dim():
                target, extra = o, f", grad_outputs={self.gradient_literal(self.value(out))}"
            if create:
                extra += ", create_graph=True"
            elif rng.random() < 0.3:
                extra += ", retain_graph=True"
            used = self.unused_ok(f"lib.autograd.grad({target}, [{listed}]{extra})")
            if used is None:
                return self.reject("autograd.grad refused")
            if not used:
                extra += rng.choice(
                    [", allow_unused=True", ", allow_unused=True, materialize_grads=True"]
                )
            steps.append(f"gs = lib.autograd.grad({target}, [{listed}]{extra})")
            steps.append("O.see('autograd.grad', gs, grad=True)")
            if "retain_graph" in extra and rng.random() < 0.7:
                steps.append(f"{scalar}.backward()")
            if create:
                steps.append("s2 = sum(g.sum() for g in gs if g is not None)")
                steps.append("O.see('sum of first grads', s2)")
                if self.second_order_possible(steps):
                    if rng.random() < 0.5:
                        steps.append(f"gs2 = lib.autograd.grad(s2, [{listed}], allow_unused=True)")
                        steps.append("O.see('second grads', gs2, grad=True)")
                    else:
                        steps.append("s2.backward()")
        self.run_steps(steps, mode)

    def unused_ok(self, call: str):
        """True if the call works as is, False if it needs allow_unused, None if neither."""
        for extra, verdict in (("", True), (", allow_unused=True", False)):
            probe = f"_probe = {call[:-1]}{extra})"
            if self.attempt(probe):
                self.replay()
                return verdict
        return None

    def second_order_possible(self, steps: list[str]) -> bool:
        namespace = dict(self.ns, O=_NullObserver())
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for step in steps:
                    exec(step, namespace)
            result = namespace["s2"]
        except Exception:  # noqa: BLE001
            result = None
        self.replay()
        return isinstance(result, self.torch.Tensor) and result.requires_grad

    def run_steps(self, steps: list[str], mode: str) -> None:
        namespace = dict(self.ns, O=_NullObserver())
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for step in steps:
                    exec(step, namespace)
        except Exception as error:  # noqa: BLE001 - e.g. an in-place change broke a saved tensor
            self.reject(f"backward failed: {error}")
        for var in self.vars:
            value = namespace[var.name]
            grad = value.grad if value.is_leaf or value.retains_grad else None
            if grad is not None and not self.sane_grad(grad):
                self.reject("gradient out of range")
        for key in ("gs", "gs2"):
            for grad in namespace.get(key) or ():
                if grad is not None and not self.sane_grad(grad):
                    self.reject("gradient out of range")
        total = namespace.get("s2")
        if self.user and isinstance(total, self.torch.Tensor) \
                and _rounding_noise(to_numpy(total)):
            # a sum of first gradients that cancels (layer_norm's: seed 42086), whose second
            # derivatives are those of rounding noise
            self.reject("rounding noise")
        for step in steps:
            if step.startswith("O."):
                self.lines.append(("", [step]))  # an observation, not a statement to replay
            else:
                self.lines.append((step, []))
        self.kinds["backward_" + mode] += 1

    def sane_grad(self, grad) -> bool:
        array = to_numpy(grad)
        if self.user and _rounding_noise(array):
            return False
        return bool(np.isfinite(array).all() and np.abs(array).max(initial=0) <= MAX_GRAD)

    def reject(self, why: str):
        raise _Reject(why)

    # -- whole programs ------------------------------------------------------------------------

    def build(self) -> tuple[str, Counter]:
        rng = self.rng
        for _ in range(200):
            self.reset()
            try:
                for _ in range(rng.randint(1, 3)):
                    self.leaf()
                target = rng.randint(1, 12)
                done = tries = 0
                names, weights = zip(*(
                    self.OPS + self.EXTENDED_OPS + self.USER_OPS + self.WIDE_OPS
                    + self.WIDE2_OPS + self.WIDE3_OPS if self.wide3
                    else self.OPS + self.EXTENDED_OPS + self.USER_OPS + self.WIDE_OPS
                    + self.WIDE2_OPS if self.wide2
                    else self.OPS + self.EXTENDED_OPS + self.USER_OPS + self.WIDE_OPS if self.wide
                    else self.OPS + self.EXTENDED_OPS + self.USER_OPS if self.user
                    else self.OPS + self.EXTENDED_OPS if self.extended
                    else self.OPS))
                while done < target and tries < 200:
                    tries += 1
                    try:
                        made = getattr(self, rng.choices(names, weights)[0])()
                    except (IndexError, ValueError, RuntimeError) as error:
                        # an op family's choices assume sizes an empty tensor lacks
                        raise _Reject(f"generator: {error}") from None
                    if made is not None:
                        done += 1
                try:
                    self.differentiate()
                except RuntimeError as error:  # e.g. reading a view torch no longer allows
                    raise _Reject(f"differentiate: {error}") from None
                try:  # (its own random stream: the program before it is unchanged)
                    self.after_differentiation()
                except Exception:  # noqa: BLE001 - a stage that went wrong ends there
                    self.replay()
                if self.wide3:
                    try:  # (programs_wide3.py: its own random streams, new tensors only)
                        self.wide3_stage()
                    except Exception:  # noqa: BLE001 - a stage that went wrong ends there
                        self.replay()
            except _Reject:
                continue
            return self.source(), self.kinds
        raise RuntimeError(f"seed {self.seed}: no valid program in 200 attempts")

    def source(self) -> str:
        body = ["def program(lib, O=None):", "    if O is None:", "        O = Observer(lib)"]
        for statement, observe in self.lines:
            if statement:
                body.append(f"    {statement}")
            body.extend(f"    {line}" for line in observe)
        body.append("    O.grads()")
        for var in self.vars:
            body.append(f"    O.see({var.name + ' at the end'!r}, {var.name})")
        body.append("    return O.records")
        # O.grads() is spelled out so that a reader of a failing program sees every access.
        grads = "\n".join(f"    O.grad({v.name!r}, {v.name})" for v in self.vars) or "    pass"
        return "\n".join(body).replace("    O.grads()", grads) + "\n"


class _NullObserver:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def generate(seed: int, torch) -> Program:
    """The program for `seed` (deterministic; `torch` only judges candidate statements)."""
    source, kinds = _Generator(seed, torch).build()
    return Program(seed, source, kinds)
