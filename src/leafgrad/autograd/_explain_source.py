"""explain_grad's reading of the caller's source: assignments, uses, calls, grad-mode blocks.

The statements of the function (or module) the caller is running, walked without recursion,
each with the ``with`` blocks around it; enough to say which line made a tensor and whether
``no_grad``/``inference_mode`` (a ``with`` or a decorator) was on there.
"""

from __future__ import annotations

import ast
import linecache

__all__ = ["Source", "grad_mode_block"]


class Source:
    """The caller's variables and the statements of the function (or module) it is running."""

    def __init__(self, frame, tensor):
        self.filename = frame.f_code.co_filename
        self.current = frame.f_lineno
        self.namespace = dict(frame.f_globals)
        self.namespace.update(frame.f_locals)
        self.names = [name for name, value in frame.f_locals.items() if value is tensor]
        if not self.names:
            self.names = [name for name, value in frame.f_globals.items() if value is tensor]
        self.assignments = []  # (line, target names, value node, enclosing withs, decorators)
        self.uses = []  # (line, name, enclosing withs)
        self.calls = []  # (line, attribute name, call node)
        self.lines = linecache.getlines(self.filename)
        try:
            tree = ast.parse("".join(self.lines)) if self.lines else None
        except SyntaxError:
            tree = None
        if tree is not None:
            self._scan(self._scope(tree, frame.f_code.co_name))

    def _scope(self, tree, function_name: str):
        """The innermost function around the current line (the module at top level)."""
        best = tree
        stack = [tree]
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    end = getattr(child, "end_lineno", child.lineno)
                    if child.lineno <= self.current <= end:
                        best = child
                stack.append(child)
        return best

    def _scan(self, scope) -> None:
        decorators = []
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = [ast.unparse(d) for d in scope.decorator_list]
        # (statement list, enclosing with-expressions) pairs, walked without recursion
        stack = [(scope.body, ())]
        while stack:
            body, withs = stack.pop()
            for statement in body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                inner = withs
                if isinstance(statement, (ast.With, ast.AsyncWith)):
                    inner = withs + tuple(
                        (ast.unparse(item.context_expr), statement.lineno)
                        for item in statement.items)
                targets = []
                value = None
                if isinstance(statement, ast.Assign):
                    targets = [n.id for t in statement.targets for n in ast.walk(t)
                               if isinstance(n, ast.Name)]
                    value = statement.value
                elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and isinstance(
                        statement.target, ast.Name):
                    targets = [statement.target.id]
                    value = statement.value
                elif isinstance(statement, (ast.For, ast.AsyncFor)):
                    targets = [n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name)]
                    value = statement.iter
                if targets:
                    self.assignments.append((statement.lineno, targets, value, inner, decorators))
                for node in ast.walk(statement) if not hasattr(statement, "body") else (
                        _header_nodes(statement)):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                        self.uses.append((node.lineno, node.id, inner))
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                        self.calls.append((node.lineno, node.func.attr, node))
                    if (isinstance(node, ast.Assign) and any(
                            isinstance(t, ast.Attribute) and t.attr == "grad"
                            for t in node.targets)):
                        self.calls.append((node.lineno, "grad=", node))
                for field in ("body", "orelse", "finalbody", "handlers"):
                    block = getattr(statement, field, None)
                    if isinstance(block, list) and block:
                        if field == "handlers":
                            for handler in block:
                                stack.append((handler.body, inner))
                        else:
                            stack.append((block, inner))

    def code(self, line: int) -> str:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1].strip()
        return ""

    def made_at(self):
        """The last assignment to one of the tensor's names before the current line."""
        best = None
        for entry in self.assignments:
            line, targets = entry[0], entry[1]
            if line <= self.current and any(n in targets for n in self.names):
                if best is None or line > best[0]:
                    best = entry
        return best


def _header_nodes(statement):
    """The nodes of a compound statement outside its blocks (a with's items, an if's test)."""
    for field, value in ast.iter_fields(statement):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, ast.AST):
                yield from ast.walk(item)


def grad_mode_block(withs, decorators):
    """The ``with`` (or decorator) that turns grad mode off around a statement, if any."""
    for text, line in reversed(withs):
        kind = _mode_kind(text)
        if kind:
            return kind, text, line
    for text in decorators:
        kind = _mode_kind(text)
        if kind:
            return kind, "@" + text, None
    return None


def _mode_kind(text: str):
    compact = text.replace(" ", "")
    if "inference_mode(" in compact and "inference_mode(False)" not in compact or compact.endswith(
            "inference_mode"):
        return "inference_mode"
    if "no_grad" in compact or "set_grad_enabled(False)" in compact:
        return "no_grad"
    return None
