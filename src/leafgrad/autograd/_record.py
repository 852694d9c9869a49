"""What ``explain_grad`` needs to know later, recorded when it happens, cheaply.

- Cuts: ``detach()`` and ``.data`` on a tensor that requires grad note where they were called
  (the user's line) and what they cut (weak references only). Calls on tensors that do not
  require grad, the common case inside optimizers, record nothing.
- The last backward pass: its roots (weakly), whether it wrote ``.grad`` (``backward``) or
  returned gradients (``autograd.grad``), its ``inputs=``, and the line that called it.

Both are bounded and hold no tensor alive. ``no_grad``/``inference_mode`` are not recorded
per op (that would tax every op run under them): ``explain_grad`` finds them in the source.
"""

from __future__ import annotations

import collections
import sys
import weakref

from .graph import _sequence

__all__ = ["note_cut", "note_backward", "cuts", "last_backward"]

_PACKAGE = __name__.split(".")[0]
cuts: collections.deque = collections.deque(maxlen=256)
last_backward: dict = {}
_counter = [0]


_PREFIX = _PACKAGE + "."


def _user_line(depth: int):
    """(filename, line, function) of the first frame outside leafgrad, ``depth`` up."""
    frame = sys._getframe(depth + 1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != _PACKAGE and not name.startswith(_PREFIX):
            code = frame.f_code
            return code.co_filename, frame.f_lineno, code.co_name
        frame = frame.f_back
    return None


def _ref(obj):
    try:
        return weakref.ref(obj)
    except TypeError:
        return None


CUT_WALK = 32  # nodes looked at below a cut to note which leaves it cut off


def note_cut(kind: str, source, result) -> None:
    """``result = source.detach()`` (kind "detach") or ``source.data`` ("data") just ran.

    The graph above a cut is usually dropped right away (``h = (w * 2).detach()``), so the
    leaves it led to are noted now, from a walk bounded to ``CUT_WALK`` nodes.
    """
    from .graph import AccumulateGrad

    fn = source._node
    leaves = []
    if fn is None:
        leaves.append(_ref(source))
    else:
        seen = set()
        stack = [fn]
        while stack and len(seen) < CUT_WALK:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if type(node) is AccumulateGrad:
                leaves.append(_ref(node.variable))
                continue
            for child, _ in node.next_functions:
                if child is not None:
                    stack.append(child)
    cuts.append((kind, tuple(leaves), _ref(result), _ref(source), _user_line(2)))


def note_backward(root_nodes: list, accumulate: bool, inputs) -> None:
    # Once per backward call (a Hessian by rows makes 64): item assignments into the same
    # dict, no import, no keyword call (~1.5 us instead of ~4.5).
    number = _counter[0] = _counter[0] + 1
    last = last_backward
    last["number"] = number
    last["roots"] = [_ref(node) for node in root_nodes]
    last["accumulate"] = accumulate
    last["inputs"] = None if inputs is None else [_ref(edge[2]) for edge in inputs]
    last["where"] = _user_line(2)
    last["sequence"] = int(repr(_sequence)[6:-1])  # graph.next_sequence_nr(), inlined:
    # nodes numbered this or above were made after it
