"""``explain_grad(tensor)``: why is this ``.grad`` None (or zero)? A plain-language answer.

>>> w = leafgrad.tensor([1.], requires_grad=True)
>>> h = (w * 2).detach()
>>> (h * 3).sum().backward()     # raises: nothing requires grad; or, with another path, w.grad
>>> print(leafgrad.autograd.explain_grad(w))   # stays None: "... cut by h = (w * 2).detach()"

The answer comes from the live graph (is the tensor a leaf, is its accumulator reachable from
what the last backward started from), from what leafgrad recorded cheaply (where ``detach()``
and ``.data`` cut a tensor that requires grad, which backward ran last; see _record.py) and from
the caller's source code (the line that made the tensor, the ``with torch.no_grad():`` around
it, ``zero_grad()`` calls). It names the line of user code when it can.
"""

from __future__ import annotations

from .. import _dtype as _dtype

import ast
import linecache
import sys

from . import _record
from ._explain_source import Source as _Source, grad_mode_block as _grad_mode_block
from .graph import AccumulateGrad

__all__ = ["explain_grad", "GradExplanation"]

# ops whose gradient is zero almost everywhere, or zero on part of the input
_FLAT = ("Sign", "Round", "Floor", "Ceil", "Trunc", "Frac", "Relu", "Threshold", "Hardtanh",
         "Clamp", "MaskedFill", "Where", "Max", "Min", "Zero", "Fill", "Copy")


class GradExplanation:
    """The answer: ``reason`` (a short code), ``message`` (the text), ``where`` (file, line)."""

    def __init__(self, reason: str, message: str, where=None):
        self.reason = reason
        self.message = message
        self.where = where  # (filename, line) of the user's code involved, when known

    @property
    def line(self):
        return None if self.where is None else self.where[1]

    def __str__(self) -> str:
        return self.message

    __repr__ = __str__


def explain_grad(tensor) -> GradExplanation:
    """Why ``tensor.grad`` is None or zero (or, if it is set, where it came from).

    >>> print(leafgrad.autograd.explain_grad(a))
    a is not a leaf (it was made by AddBackward0): backward() fills .grad only on leaves ...
    """
    from ..tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"explain_grad() expects a Tensor, got {type(tensor).__name__}")
    frame = sys._getframe(1)
    try:
        source = _Source(frame, tensor)
        return _Explainer(tensor, source).explain()
    finally:
        del frame


# -- the reasoning -------------------------------------------------------------------------------


class _Explainer:
    def __init__(self, tensor, source: _Source):
        self.tensor = tensor
        self.source = source
        self.name = source.names[0] if source.names else "this tensor"
        self.quoted = f"`{self.name}`" if source.names else "this tensor"

    def at(self, line):
        return None if line is None else (self.source.filename, line)

    def line_text(self, line) -> str:
        code = self.source.code(line) if line else ""
        return f"line {line}" + (f" (`{code}`)" if code else "")

    def explain(self) -> GradExplanation:
        tensor = self.tensor
        if _dtype.kind(tensor._data) != "f":
            return GradExplanation(
                "integer_dtype",
                f"{self.quoted} has dtype {tensor.dtype}: only floating point tensors can "
                "require gradients, so it has no .grad and nothing flows into it. Make it a "
                f"float tensor (e.g. {self.name}.float(), or dtype=torch.float32 when creating "
                "it) and set requires_grad=True.",
            )
        if tensor._node is not None and not tensor._retains_grad:
            return self.non_leaf()
        if not tensor._requires_grad:
            return self.no_requires_grad()
        grad = tensor._grad_value
        if grad is not None:
            return self.has_grad(grad)
        return self.grad_none()

    # -- a non-leaf ----------------------------------------------------------------------
    def non_leaf(self) -> GradExplanation:
        fn = self.tensor._node
        leaves = _leaves_under(fn)
        names = self.leaf_names(leaves)
        kind = type(fn).__name__
        if kind in ("ToCopyBackward0", "CloneBackward0") and len(leaves) == 1:
            return GradExplanation(
                "copy_of_leaf",
                f"{self.quoted} is not a leaf: it is a copy ({kind}) of the leaf {names[0]} "
                "(made by .to(), .float(), .double(), .cuda() or .clone() on it), so the "
                f"gradient goes on to that leaf and {self.name}.grad stays None. Create the "
                "tensor with the dtype you want and requires_grad=True, or call "
                f"{self.name}.retain_grad() before backward().",
                self.made_where(),
            )
        listed = ", ".join(names) if names else "the leaves it comes from"
        return GradExplanation(
            "non_leaf",
            f"{self.quoted} is not a leaf (it was made by {fn.name()}): backward() fills .grad "
            f"only on leaf tensors, so {self.name}.grad stays None (torch warns when you read "
            f"it). Call {self.name}.retain_grad() before backward() to keep it, or read the "
            f"gradient of the leaves it depends on: {listed}.",
            self.made_where(),
        )

    def made_where(self):
        made = self.source.made_at()
        return self.at(made[0]) if made else None

    def leaf_names(self, leaves) -> list:
        names = []
        for leaf in leaves:
            found = [n for n, v in self.source.namespace.items()
                     if v is leaf and not n.startswith("_")]
            names.append(found[0] if found else f"a leaf of shape {tuple(leaf.shape)}")
        return names

    # -- a tensor that does not require grad -----------------------------------------------
    def no_requires_grad(self) -> GradExplanation:
        tensor = self.tensor
        record = _cut_record_of(tensor)
        if record is not None:
            kind, where = record[0], record[4]
            source = record[3]() if record[3] is not None else None
            return self.cut_message(kind, where, source, direct=True)
        made = self.source.made_at()
        if made is not None:
            line, _, value, withs, decorators = made
            block = _grad_mode_block(withs, decorators)
            if block is not None:
                mode, text, block_line = block
                inside = f"`{text}`" + (f" (line {block_line})" if block_line else "")
                return GradExplanation(
                    mode,
                    f"{self.quoted} was computed at {self.line_text(line)} inside {inside}: "
                    f"with grad mode off{' (inference mode)' if mode == 'inference_mode' else ''}"
                    ", ops record no graph, so it has no grad_fn, does not require grad, and "
                    "backward cannot reach through it. Compute it outside that block if its "
                    "gradient is needed.",
                    self.at(line),
                )
            text = ast.unparse(value) if value is not None else ""
            decorated = self.decorated_call(value)
            if decorated is not None:
                mode, function = decorated
                return GradExplanation(
                    mode,
                    f"{self.quoted} was made at {self.line_text(line)} by {function}(), which "
                    f"runs with grad mode off (it is decorated with torch.{mode}): its result "
                    "has no grad_fn and does not require grad.",
                    self.at(line),
                )
            for kind, marker in (("detach", ".detach()"), ("data", ".data")):
                if marker in text or (kind == "data" and text.endswith(".data")):
                    return GradExplanation(
                        "detached" if kind == "detach" else "data",
                        f"{self.quoted} was computed at {self.line_text(line)} from a "
                        f"tensor cut by {marker}: a {marker} result shares the values but not "
                        "the history, so nothing before it is differentiated.",
                        self.at(line),
                    )
            inputs = self.tensor_inputs(value)
            if inputs and all(not v._requires_grad for _, v in inputs):
                listed = ", ".join(n for n, _ in inputs)
                return GradExplanation(
                    "leaves_no_requires_grad",
                    f"{self.quoted} was computed at {self.line_text(line)} from {listed}, none "
                    "of which requires grad, so no graph was recorded. Set requires_grad=True "
                    "on the leaf tensors you want gradients for (torch.tensor(..., "
                    "requires_grad=True) or t.requires_grad_()).",
                    self.at(line),
                )
            return GradExplanation(
                "requires_grad_false",
                f"{self.quoted} does not require grad: it was created at {self.line_text(line)} "
                "without requires_grad=True, so backward() never computes a gradient for it. "
                f"Pass requires_grad=True when creating it, or call {self.name}.requires_grad_() "
                "before using it.",
                self.at(line),
            )
        return GradExplanation(
            "requires_grad_false",
            f"{self.quoted} does not require grad and has no grad_fn: it was created without "
            "requires_grad=True, computed from tensors that do not require grad, or computed "
            "with grad mode off (no_grad / inference_mode). Set requires_grad=True on the leaf "
            "tensors you want gradients for.",
        )

    def decorated_call(self, value):
        if not isinstance(value, ast.Call):
            return None
        try:
            function = eval(compile(ast.Expression(value.func), "<explain>", "eval"),
                            {}, self.source.namespace)
        except Exception:
            return None
        from .grad_mode import inference_mode, no_grad

        for cell in getattr(function, "__closure__", None) or ():
            try:
                content = cell.cell_contents
            except ValueError:
                continue
            if isinstance(content, inference_mode):
                return "inference_mode", ast.unparse(value.func)
            if isinstance(content, no_grad):
                return "no_grad", ast.unparse(value.func)
        return None

    def tensor_inputs(self, value) -> list:
        from ..tensor import Tensor

        if value is None:
            return []
        found = []
        for node in ast.walk(value):
            if isinstance(node, ast.Name) and isinstance(self.source.namespace.get(node.id),
                                                         Tensor):
                if all(node.id != n for n, _ in found):
                    found.append((node.id, self.source.namespace[node.id]))
        return found

    def cut_message(self, kind: str, where, source, direct: bool) -> GradExplanation:
        line = where[1] if where else None
        code = _code_at(where)
        place = (f"at {where[0]}:{line}" + (f" (`{code}`)" if code else "")) if where else ""
        source_name = self.name_of(source)
        marker = ".detach()" if kind == "detach" else ".data"
        if direct:
            text = (f"{self.quoted} was made by {source_name}{marker} {place}: it shares "
                    f"{source_name}'s values but not its history (no grad_fn, requires_grad="
                    "False), so gradients do not flow through it. Use "
                    f"{source_name} itself where the gradient is needed.")
        else:
            text = (f"backward() never reached {self.quoted}: the path from the tensor "
                    f"backward() was called on to {self.name} goes through {source_name}, "
                    f"which was cut by {marker} {place}. Past that point there is no graph, "
                    f"so {self.name}.grad stays None. Use {source_name} instead of its "
                    f"{marker} where the gradient should flow.")
        return GradExplanation("detached" if kind == "detach" else "data", text,
                               where[:2] if where else None)

    def name_of(self, tensor) -> str:
        if tensor is None:
            return "a tensor"
        for name, value in self.source.namespace.items():
            if value is tensor and not name.startswith("_"):
                return f"`{name}`"
        fn = tensor._node
        return f"the output of {fn.name()}" if fn is not None else "a tensor"

    # -- a tensor that requires grad ---------------------------------------------------------
    def has_grad(self, grad) -> GradExplanation:
        data = grad._data
        if data.size and not data.any():
            hooks = self.hooks()
            if hooks:
                listed = ", ".join(hooks)
                return GradExplanation(
                    "hook_zero",
                    f"{self.name}.grad is all zeros. {self.quoted} has a hook that sees (and "
                    f"may replace) its gradient: {listed}. A hook that returns zeros (or "
                    "grad * 0) gives exactly this; remove the hook (handle.remove()) or "
                    "return the gradient unchanged.",
                )
            reset = self.later_call("zero_grad")
            if reset is not None:
                return GradExplanation(
                    "zeroed",
                    f"{self.name}.grad is all zeros: {self.line_text(reset)} zeroes the "
                    "gradients in place (set_to_none=False) after the last backward.",
                    self.at(reset),
                )
            flat = self.flat_ops()
            why = (f" The path from the output passes through {', '.join(flat)}, whose "
                   "gradient is zero where the input was clipped, negative or constant."
                   if flat else "")
            return GradExplanation(
                "zero_values",
                f"{self.name}.grad is set but all zeros: backward reached {self.quoted} and "
                f"the gradient that arrived was zero.{why}",
            )
        last = _record.last_backward
        where = last.get("where")
        extra = f" by the backward at {self.place(where)}" if where else ""
        return GradExplanation(
            "has_grad",
            f"{self.name}.grad is set{extra}: {grad!r}. (Gradients add up over backward calls "
            "until zeroed.)",
            where[:2] if where else None,
        )

    def hooks(self) -> list:
        from ..viz._describe import describe_hook

        tensor = self.tensor
        entries = []
        if tensor._node is None:
            stores = [tensor._hooks or {}]
        else:
            hookset = tensor._node._hookset
            stores = [hookset.tensor_pre or {}] if hookset is not None else []
        for store in stores:
            for entry in store.values():
                fn = entry[1] if isinstance(entry, tuple) else entry
                info = describe_hook("tensor hook", fn)
                entries.append(f"{info['fn']}" + (f" ({info['where']})" if info["where"] else ""))
        return entries

    def place(self, where) -> str:
        code = _code_at(where)
        return f"{where[0]}:{where[1]}" + (f" (`{code}`)" if code else "")

    def later_call(self, attribute: str):
        last = _record.last_backward.get("where")
        after = last[1] if last and last[0] == self.source.filename else 0
        lines = [line for line, name, _ in self.source.calls
                 if name == attribute and after < line <= self.source.current]
        return max(lines) if lines else None

    def target_node(self):
        tensor = self.tensor
        if tensor._node is not None:
            return tensor._node
        return tensor._acc() if tensor._acc is not None else None

    def flat_ops(self) -> list:
        roots = [r() for r in _record.last_backward.get("roots", ()) if r() is not None]
        target = self.target_node()
        if not roots or target is None:
            return []
        path = _path_to(roots, target)
        names = []
        for node in path:
            kind = type(node).__name__
            if any(kind.startswith(prefix) for prefix in _FLAT) and kind not in names:
                names.append(kind)
        return names

    def grad_none(self) -> GradExplanation:
        last = _record.last_backward
        if not last:
            return GradExplanation(
                "backward_not_run",
                f"{self.name}.grad is None because no backward pass has run yet: call "
                "loss.backward() (or torch.autograd.backward) on a tensor computed from "
                f"{self.quoted}.",
            )
        target = self.target_node()
        where = last.get("where")
        ran_at = f" at {self.place(where)}" if where else ""
        at_run = where[:2] if where else None
        alive = [r() for r in last["roots"] if r is not None and r() is not None]
        # True / False when the last backward's graph is still alive, None when it is gone
        reached = None
        if alive and len(alive) == len(last["roots"]):
            reached = target is not None and _reaches(alive, target)
        inputs = last.get("inputs")
        listed = inputs is not None and any(ref() is self.tensor for ref in inputs)
        if not last["accumulate"] and (listed or reached):
            return GradExplanation(
                "autograd_grad",
                f"The last backward pass{ran_at} was torch.autograd.grad(): it returns "
                "the gradients instead of storing them, so .grad is never written. Use the "
                f"value it returned for {self.quoted}, or call loss.backward() to fill .grad.",
                at_run,
            )
        if last["accumulate"] and inputs is not None and not listed and reached is not False:
            return GradExplanation(
                "inputs_excluded",
                f"The last backward{ran_at} was given inputs=[...] without {self.quoted}: "
                f"only the listed tensors get .grad. Add {self.name} to inputs, or leave "
                "inputs out.",
                at_run,
            )
        if reached:
            return self.reset_after(ran_at, at_run, certain=True)
        # not reached (or the graph is gone): where was the way cut?
        for record in reversed(_record.cuts):
            kind, leaves, _, source_ref, cut_where = record
            if any(ref is not None and ref() is self.tensor for ref in leaves):
                source = source_ref() if source_ref is not None else None
                return self.cut_message(kind, cut_where, source, direct=False)
        block = self.used_under_no_grad()
        if block is not None:
            mode, text, line, use_line = block
            return GradExplanation(
                mode,
                f"backward() never reached {self.quoted}: it is used at "
                f"{self.line_text(use_line)} inside `{text}` (line {line}), where ops record "
                "no graph, so the result does not depend on it as far as autograd knows. "
                "Move that computation out of the block if it should be differentiated.",
                self.at(use_line),
            )
        later = self.built_after(last)
        if later is not None:
            return GradExplanation(
                "backward_not_run",
                f"{self.quoted} is used by {later}, built after the last backward{ran_at}: "
                "backward has not been run on it yet. Call .backward() on that result.",
                at_run,
            )
        if reached is None and self.later_reset() is not None:
            return self.reset_after(ran_at, at_run, certain=False)
        if reached is False:
            return GradExplanation(
                "not_on_path",
                f"backward() never reached {self.quoted}: the tensor it was called on"
                f"{ran_at} does not depend on {self.name} through any recorded op. Check that "
                f"{self.name} is used in computing that output (not a copy, or a different "
                "variable with the same name).",
                at_run,
            )
        return GradExplanation(
            "not_on_path",
            f"{self.name}.grad is None: the last backward{ran_at} did not write it. Its graph "
            "has been freed, so leafgrad cannot show the path; most likely the output "
            f"backward() was called on does not depend on {self.quoted}.",
            at_run,
        )

    def later_reset(self):
        """The last line after the last backward that resets grads (zero_grad, .grad = None)."""
        where = _record.last_backward.get("where")
        after = where[1] if where and where[0] == self.source.filename else 0
        lines = [line for line, name, _ in self.source.calls
                 if name in ("zero_grad", "grad=") and after < line <= self.source.current]
        return max(lines) if lines else None

    def reset_after(self, ran_at: str, at_run, certain: bool) -> GradExplanation:
        line = self.later_reset()
        wrote = "did write" if certain else "most likely wrote"
        if line is not None:
            return GradExplanation(
                "zero_grad",
                f"The backward{ran_at} {wrote} {self.name}.grad, but {self.line_text(line)} "
                "set it back to None afterwards (zero_grad() sets grads to None by default, "
                "set_to_none=True). Read the gradients between backward() and zero_grad(), "
                "e.g. right before optimizer.step().",
                self.at(line),
            )
        return GradExplanation(
            "zero_grad",
            f"The backward{ran_at} reached {self.quoted} and wrote its .grad, which has been "
            "set to None since: optimizer.zero_grad() / model.zero_grad() (set_to_none=True, "
            f"the default) or `{self.name}.grad = None` do that.",
            at_run,
        )

    def used_under_no_grad(self):
        best = None
        for line, name, withs in self.source.uses:
            if name in self.source.names and line <= self.source.current:
                block = _grad_mode_block(withs, [])
                if block is not None:
                    best = (block[0], block[1], block[2], line)
        return best

    def built_after(self, last: dict):
        from ..tensor import Tensor

        target = self.target_node()
        if target is None:
            return None
        for name, value in self.source.namespace.items():
            if (isinstance(value, Tensor) and value._node is not None
                    and value._node._seq >= last["sequence"]
                    and _reaches([value._node], target)):
                return f"`{name}`"
        return None


def _code_at(where) -> str:
    if not where:
        return ""
    return linecache.getline(where[0], where[1]).strip()


def _cut_record_of(tensor):
    for record in reversed(_record.cuts):
        result = record[2]() if record[2] is not None else None
        if result is tensor:
            return record
    return None


def _reaches(roots: list, target) -> bool:
    seen = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node is target:
            return True
        if node in seen:
            continue
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                stack.append(child)
    return False


def _path_to(roots: list, target) -> list:
    parent = {}
    stack = list(roots)
    for root in roots:
        parent[root] = None
    while stack:
        node = stack.pop()
        if node is target:
            path = []
            while node is not None:
                path.append(node)
                node = parent[node]
            return path
        for child, _ in node.next_functions:
            if child is not None and child not in parent:
                parent[child] = node
                stack.append(child)
    return []


def _leaves_under(fn) -> list:
    leaves = []
    seen = set()
    stack = [fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            leaves.append(node.variable)
        for child, _ in reversed(node.next_functions):
            if child is not None:
                stack.append(child)
    return leaves
