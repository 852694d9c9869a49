"""Fused elementwise runs: consecutive small elementwise kernels of a replay as one compiled
loop (where numba is installed; ops/_numba_tape.py).

Note: fused elementwise runs
A replay calls NumPy once per elementwise op. On small arrays a call is almost all overhead
(0.25-0.5 us for one element, whatever the op), so a chain of them costs what its calls cost.
Where the compiled loops are on (ops/_numba_kernels.py), a run of consecutive kernel nodes
(codegen.py's ``kernels``: add, sub, mul, div, neg; MKL's exp/log/sqrt/sin/cos/tanh where
MKL computes them; tanh's backward; the ``capture_steps`` kernels) whose results have one
dtype and the same number of elements (at most ``MAX_ELEMENTS``), C-contiguous, with operands
of that shape or numbers, runs as one call: the values live in the rows of a workspace (the
results' ``out=`` buffers become views of its rows), operands from elsewhere are copied into
spare rows first, and the run is a table of instructions, each the NumPy call it replaces with
the same operation per element (the same bits: tests/compile/test_fuse.py). The generated code
keeps the NumPy calls as the other branch, taken when the loops are switched off
(``leafgrad.backends.cpu.compiled_loops``) or MKL's functions are (``mkl_vml``).
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..ops import _mkl

MAX_ELEMENTS = 1024  # past this a NumPy call is mostly work, and as fast as the loop
MIN_CALLS = 2  # NumPy calls a run must replace, beyond the copies it adds


class Run:
    """One fused run: its nodes, instructions, and the copies it starts with."""

    __slots__ = ("nodes", "group", "code", "staging", "vml", "calls")

    def __init__(self, group) -> None:
        self.nodes = []
        self.group = group
        self.code = []  # [opcode, destination row, a, b]
        self.staging = []  # the Values copied into spare rows before the loop
        self.vml = False  # calls MKL: taken only while MKL's functions are on
        self.calls = 0  # NumPy calls replaced


class Group:
    """The workspace of one (dtype, element count): rows for buffers, then staging rows."""

    __slots__ = ("dtype", "size", "plan_rows", "consts", "staging_rows", "ws")

    def __init__(self, dtype, size) -> None:
        self.dtype = dtype
        self.size = size
        self.plan_rows = {}  # buffer plan id -> row
        self.consts = {}  # float.hex of the number -> index
        self.staging_rows = 0
        self.ws = None

    def row_of(self, plan) -> int:
        row = self.plan_rows.get(plan[0])
        if row is None:
            row = self.plan_rows[plan[0]] = len(self.plan_rows)
        return row

    def const(self, number) -> int:
        key = float(number).hex()  # (read back by float.fromhex: exact, -0. and nan kept)
        index = self.consts.get(key)
        if index is None:
            index = self.consts[key] = len(self.consts)
        return index


def _contiguous(value, shape, dtype) -> bool:
    """Whether ``value`` has ``shape`` and ``dtype`` and NumPy's C-order strides (those of a
    workspace row viewed in that shape)."""
    if value.shape != shape or value.dtype != dtype:
        return False
    expected = dtype.itemsize
    for size, stride in zip(reversed(value.shape), reversed(value.strides)):
        if stride != expected:
            return False
        expected *= size
    return True


def _steps(node, kernel):
    """The node's NumPy calls as ``(opcode kind, operands)``: ``("bin", ufunc, x, y)``,
    ``("neg", x)``, ``("vml", name, x)``, ``("tanh_backward", g, y)``, operands being the
    node's operands, ``"out"`` or Python numbers; None when the tape has no form for it."""
    from ..ops import _numba_tape as tape

    ufunc, operands, composite = kernel
    op = node.op
    if not composite:
        if ufunc in tape.BINARY and len(operands) == 2:
            return [("bin", ufunc, operands[0], operands[1])]
        if ufunc in tape.UNARY and len(operands) == 1:
            return [("neg", operands[0])]
        return None
    name = getattr(op, "capture_vml", None)
    if name is not None and len(operands) == 1:
        return [("vml", name, operands[0])]
    if getattr(op, "capture_tape", None) == "tanh_backward" and len(operands) == 2:
        return [("tanh_backward", operands[0], operands[1])]
    steps = getattr(op, "capture_steps", None)
    if steps is None:
        return None
    found = []
    for ufunc, *args in steps:
        if ufunc not in tape.BINARY or len(args) != 2:
            return None
        found.append(("bin", ufunc) + tuple(
            "out" if a == "out" else operands[a] if type(a) is int else a for a in args))
    return found


def plan(live, kernels, buffer_of, relaid, typed) -> tuple[list, dict]:
    """The fused runs of a replay (in order) and, for each buffer plan id in a workspace, the
    row view that replaces its array. ``typed(number, dtype)``: the 0-d array the replay
    would use for a number operand (codegen._typed), or None where it keeps the number (the
    node then stays a NumPy call). A destination row is given before a node's operands are
    looked at, so a node left out may still have its buffer in a workspace: the rows are
    buffers like any other, whoever writes them."""
    from ..ops import _numba_tape as tape

    groups: dict = {}
    runs: list = []
    current = None
    for node in live:
        encoded = None
        kernel = kernels.get(node)
        out = node.outputs[0] if node.outputs else None
        if kernel is not None and node not in relaid and out in buffer_of:
            size = out.array.size
            if 0 < size <= MAX_ELEMENTS and out.dtype.char in "fd" and \
                    _contiguous(out, out.shape, out.dtype):
                steps = _steps(node, kernel)
                if steps is not None:
                    key = (out.dtype.char, size)
                    group = groups.get(key)
                    if group is None:
                        group = groups[key] = Group(out.dtype.char, size)
                    encoded = _encode(steps, out, buffer_of, group, typed, tape)
        if encoded is None:
            current = None
            continue
        if current is None or current.group is not group:
            current = Run(group)
            runs.append(current)
        current.nodes.append(node)
        current.calls += len(encoded)
        for opcode, destination, a, b in encoded:
            a = _operand(a, current, buffer_of)
            if opcode < tape.ADD_C or opcode == tape.TANH_BACKWARD:
                b = _operand(b, current, buffer_of)
            current.vml = current.vml or opcode == tape.VML
            current.code.append([opcode, destination, a, b])
    kept = [run for run in runs if run.calls >= MIN_CALLS + len(run.staging)]
    for run in kept:
        run.group.staging_rows = max(run.group.staging_rows, len(run.staging))
    replacements: dict = {}
    for group in groups.values():
        base = len(group.plan_rows)
        group.ws = np.zeros((base + group.staging_rows, group.size), np.dtype(group.dtype))
        for plan_id, row in group.plan_rows.items():
            replacements[plan_id] = group.ws[row]
    for run in kept:  # staging operands: the rows after the buffers'
        base = len(run.group.plan_rows)
        for instruction in run.code:
            for position in (2, 3):
                item = instruction[position]
                if type(item) is tuple:
                    instruction[position] = base + item[1]
        run.staging = [(base + index, value) for index, value in enumerate(run.staging)]
    return kept, replacements


def _encode(steps, out, buffer_of, group, typed, tape):
    """The node's instructions, operands still ``("value", v)``/``("row", r)``, or None."""
    from .graph import Value

    dtype = out.dtype
    destination = group.row_of(buffer_of[out])

    def operand(item):
        if isinstance(item, str) and item == "out":
            return ("row", destination)
        if isinstance(item, Value):
            return ("value", item) if _contiguous(item, out.shape, dtype) else None
        number = typed(item, dtype)
        if isinstance(number, np.ndarray) and number.dtype == dtype and not number.shape:
            return ("const", group.const(number[()]))
        return None

    encoded = []
    for step in steps:
        kind = step[0]
        if kind == "bin":
            x, y = operand(step[2]), operand(step[3])
            if x is None or y is None or x[0] == "const" and y[0] == "const":
                return None
            code = tape.BINARY[step[1]]
            if y[0] == "const":
                encoded.append((code + tape.ADD_C, destination, x, y[1]))
            elif x[0] == "const":
                encoded.append((code + tape.C_ADD, destination, y, x[1]))
            else:
                encoded.append((code, destination, x, y))
            continue
        operands = [operand(item) for item in step[1:] if not isinstance(item, str)]
        if any(x is None or x[0] == "const" for x in operands):
            return None
        if kind == "neg":
            encoded.append((tape.NEG, destination, operands[0], 0))
        elif kind == "vml":
            function = _vml_index(step[1], dtype)
            if function is None:
                return None
            encoded.append((tape.VML, destination, operands[0], function))
        else:  # tanh_backward
            encoded.append((tape.TANH_BACKWARD, destination, operands[0], operands[1]))
    return encoded


def _operand(item, run, buffer_of):
    """The row an operand is read from: its buffer's, when that buffer is a row of the run's
    workspace (whoever wrote it, the loop or a NumPy call), else a staging row (``("stage",
    k)`` until the workspace's size is known)."""
    kind, payload = item
    if kind == "row":
        return payload
    plan = buffer_of.get(payload)
    if plan is not None:
        row = run.group.plan_rows.get(plan[0])
        if row is not None:
            return row
    for index, staged in enumerate(run.staging):
        if staged is payload:
            return ("stage", index)
    run.staging.append(payload)
    return ("stage", len(run.staging) - 1)


_FUNCTIONS: dict = {}  # MKL function address -> index in FUNCTIONS
FUNCTIONS = np.zeros(0, np.int64)


def _vml_index(name: str, dtype):
    """The index in ``FUNCTIONS`` of MKL's ``name`` for ``dtype`` (the function
    ``_mkl.kernel`` calls), or None where MKL does not compute it."""
    global FUNCTIONS
    if not _mkl.available():
        return None
    function = _mkl._served.get((np.dtype(dtype).char, name))
    if function is None:
        return None
    address = ctypes.cast(function, ctypes.c_void_p).value
    index = _FUNCTIONS.get(address)
    if index is None:
        index = _FUNCTIONS[address] = len(_FUNCTIONS)
        FUNCTIONS = np.append(FUNCTIONS, np.int64(address))
    return index
