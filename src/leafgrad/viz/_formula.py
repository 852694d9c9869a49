"""The per-node formula ("MulBackward0: grad_self = grad * other"), read from the op class.

The text is derived from the op's own ``backward`` source, so it cannot drift from what the
engine runs: the statements are evaluated symbolically (locals inlined, ``self.saved("other")``
read as ``other``, ``self._params["dim"]`` as ``dim`` or, for a given node, its value), the
branches a node does not take are dropped, and the returned expressions are printed one per
input. Two kinds of branch are decided without a node: ``if self.needs_grad(i)`` is taken (every
input's formula is shown) and ``if not _grad_state.grad_enabled`` is not (that is the
array-level fast path; see Note: array-level backwards in ops/); the Tensor-level path below it
is the formula. A backward that loops, or prints to more than ``MAX_CHARS``, has no formula:
the viewer shows where its source is instead.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import textwrap

__all__ = ["formula", "backward_source"]

MAX_CHARS = 160  # longer derived lines read worse than the source they come from


class _GiveUp(Exception):
    """The backward uses a construct the symbolic evaluation does not follow."""


_UNKNOWN = object()


def formula(node) -> list[str] | None:
    """``["grad_self = grad * other", ...]`` for a node, or None when none can be derived."""
    cls = type(node)
    params = getattr(node, "_params", None) or {}
    try:
        key = tuple(sorted((k, _hashable(v)) for k, v in params.items()))
    except TypeError:
        key = None
    if key is None:
        return _derive(cls, None)
    return _derive_cached(cls, key)


def _hashable(value):
    hash(value)
    return value


@functools.lru_cache(maxsize=4096)
def _derive_cached(cls, key):
    return _derive(cls, dict(key))


@functools.lru_cache(maxsize=1024)
def _class_tree(cls):
    backward = getattr(cls, "backward", None)
    if backward is None or not getattr(cls, "inputs", None):
        return None
    try:
        source = textwrap.dedent(inspect.getsource(backward))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef) or len(function.args.args) < 2:
        return None
    return function


def _derive(cls, params: dict | None) -> list[str] | None:
    function = _class_tree(cls)
    if function is None:
        return None
    grad_name = function.args.args[1].arg
    evaluator = _Evaluator(cls, params, grad_name)
    try:
        result = evaluator.block(function.body, {})
    except (_GiveUp, RecursionError):
        return None
    if result is None:
        return None
    values = list(result.elts) if isinstance(result, ast.Tuple) else [result]
    names = cls.inputs
    lines = []
    for name, value in zip(names, values):
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        text = ast.unparse(value)
        if grad_name != "grad":
            text = re.sub(rf"\b{re.escape(grad_name)}\b", "grad", text)
        line = f"grad_{name} = {text}"
        if len(line) > MAX_CHARS or "_params" in text or "_input_meta" in text:
            return None
        lines.append(line)
    return lines or None


def backward_source(node) -> str | None:
    """``file:line`` of the code that computes the node's gradients."""
    cls = type(node)
    target = getattr(cls, "_forward_cls", None)  # custom autograd.Function: the user's class
    target = getattr(target, "backward", None) if target is not None else cls.__dict__.get(
        "backward", getattr(cls, "backward", None))
    if target is None:
        return None
    target = inspect.unwrap(target)
    try:
        code = target.__code__
    except AttributeError:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class _Evaluator:
    """Symbolic evaluation of a backward body: returns the expression it returns."""

    def __init__(self, cls, params: dict | None, grad_name: str):
        self.cls = cls
        self.params = params
        self.grad_name = grad_name
        self.param_aliases = set()

    # -- statements -----------------------------------------------------------------------
    def block(self, body: list, env: dict):
        """Evaluate statements; the returned expression, or None if the block falls through."""
        for index, statement in enumerate(body):
            if isinstance(statement, ast.Return):
                if statement.value is None:
                    return ast.Constant(None)
                return self.expr(statement.value, env)
            if isinstance(statement, ast.If):
                decided = self.decide(statement.test, env)
                if decided is True:
                    result = self.block(statement.body, env)
                    if result is not None:
                        return result
                    continue
                if decided is False:
                    result = self.block(statement.orelse, env)
                    if result is not None:
                        return result
                    continue
                # Undecided: evaluate both ways, each followed by the rest of the block.
                rest = body[index + 1:]
                yes = self.block(statement.body + rest, dict(env)) if not _raises(
                    statement.body) else None
                no = self.block(statement.orelse + rest, dict(env)) if not _raises(
                    statement.orelse) else None
                if yes is None:
                    return no
                if no is None:
                    return yes
                if ast.dump(yes) == ast.dump(no):
                    return yes
                return _if_exp(self.expr(statement.test, env), yes, no)
            if isinstance(statement, ast.Assign):
                value = statement.value
                for target in statement.targets:
                    self.assign(target, value, env)
                continue
            if isinstance(statement, ast.AnnAssign) and statement.value is not None:
                self.assign(statement.target, statement.value, env)
                continue
            if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
                name = statement.target.id
                combined = ast.BinOp(ast.Name(name, ast.Load()), statement.op, statement.value)
                env[name] = self.expr(combined, env)
                continue
            if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Pass, ast.Assert)):
                continue
            if isinstance(statement, ast.Expr):
                continue  # docstrings, side-effect calls
            if isinstance(statement, ast.Raise):
                return None
            raise _GiveUp(type(statement).__name__)
        return None

    def assign(self, target, value, env: dict) -> None:
        if isinstance(target, ast.Name):
            if _is_params(value):
                self.param_aliases.add(target.id)
                env.pop(target.id, None)
                return
            env[target.id] = self.expr(value, env)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                values = [self.expr(v, env) for v in value.elts]
                for sub, sub_value in zip(target.elts, values):
                    if isinstance(sub, ast.Name):
                        env[sub.id] = sub_value
                    else:
                        raise _GiveUp("nested target")
            else:
                whole = self.expr(value, env)
                for position, sub in enumerate(target.elts):
                    if not isinstance(sub, ast.Name):
                        raise _GiveUp("nested target")
                    env[sub.id] = ast.Subscript(whole, ast.Constant(position), ast.Load())
        else:
            raise _GiveUp("assignment to " + type(target).__name__)

    def decide(self, test, env: dict):
        """True/False when the branch is known for this node, None otherwise."""
        if _is_needs_grad(test):
            return True
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.decide(test.operand, env)
            return None if inner is None else not inner
        if _is_grad_mode(test):
            return True  # the Tensor-level path is the formula
        if ast.unparse(test) in ("on_arrays()", "plain_backward()"):
            return False  # the array-level fast path is not the formula either
        value = self.constant(self.expr(test, env))
        if value is _UNKNOWN:
            return None
        try:
            return bool(value)
        except Exception:
            return None

    def constant(self, expression):
        if isinstance(expression, ast.Constant):
            return expression.value
        try:
            return ast.literal_eval(expression)
        except Exception:
            pass
        if isinstance(expression, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
            names = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name)}
            if not names:
                try:
                    return eval(compile(ast.Expression(expression), "<formula>", "eval"), {})
                except Exception:
                    return _UNKNOWN
        return _UNKNOWN

    # -- expressions ----------------------------------------------------------------------
    def expr(self, expression, env: dict):
        rewritten = _Rewriter(self, env).visit(_copy(expression))
        return ast.fix_missing_locations(_fold(rewritten, self))

    def param(self, key: str):
        if self.params is not None and key in self.params:
            value = self.params[key]
            if _literal(value):
                return ast.Constant(value) if not isinstance(value, tuple) else ast.parse(
                    repr(value), mode="eval").body
        return ast.Name(key, ast.Load())

    def input_name(self, index: int) -> str:
        names = self.cls.inputs
        return names[index] if index < len(names) else f"input{index}"


def _literal(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, tuple) and len(value) <= 8:
        return all(_literal(v) for v in value)
    return False


def _copy(expression):
    return ast.parse(ast.unparse(expression), mode="eval").body


def _raises(body: list) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _if_exp(test, yes, no):
    if isinstance(yes, ast.Tuple) and isinstance(no, ast.Tuple) and len(yes.elts) == len(no.elts):
        return ast.Tuple(
            [a if ast.dump(a) == ast.dump(b) else ast.IfExp(test, a, b)
             for a, b in zip(yes.elts, no.elts)],
            ast.Load(),
        )
    return ast.IfExp(test, yes, no)


def _is_self_attr(expression, attr: str) -> bool:
    return (isinstance(expression, ast.Attribute) and expression.attr == attr
            and isinstance(expression.value, ast.Name) and expression.value.id == "self")


def _is_params(expression) -> bool:
    return _is_self_attr(expression, "_params")


def _is_needs_grad(test) -> bool:
    return (isinstance(test, ast.Call) and _is_self_attr(test.func, "needs_grad"))


def _is_grad_mode(test) -> bool:
    text = ast.unparse(test)
    return text.endswith("grad_enabled") or text.startswith(("is_grad_enabled(",
                                                              "_grad_state.grad_enabled"))


def _string_arg(call) -> str | None:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


class _Rewriter(ast.NodeTransformer):
    """Locals inlined; node accessors read as the names torch's formulas use."""

    def __init__(self, evaluator: _Evaluator, env: dict):
        self.evaluator = evaluator
        self.env = env

    def _is_params_ref(self, expression) -> bool:
        return _is_params(expression) or (
            isinstance(expression, ast.Name) and expression.id in self.evaluator.param_aliases)

    def visit_Name(self, node):
        if node.id in self.env:
            return _copy(self.env[node.id])
        if node.id.startswith("_") and node.id != "_":
            return ast.Name(node.id.lstrip("_"), ast.Load())
        return node

    def visit_Attribute(self, node):
        # ``x._data`` is x's array: the formula reads the same either way.
        if node.attr == "_data":
            return self.visit(node.value)
        if (isinstance(node.value, ast.Name) and node.value.id == "self"
                and not node.attr.startswith("_")):
            return ast.Name(node.attr, ast.Load())  # a helper on the node: self.slope -> slope
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if self._is_params_ref(node.value) and isinstance(node.slice, ast.Constant):
            return self.evaluator.param(str(node.slice.value))
        return self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id == "self":
                key = _string_arg(node)
                if func.attr == "saved" and key is not None:
                    return ast.Name(key, ast.Load())
                if func.attr == "input_shape":
                    index = 0
                    if node.args and isinstance(node.args[0], ast.Constant):
                        index = node.args[0].value
                    return ast.Name(f"{self.evaluator.input_name(index)}.shape", ast.Load())
                if func.attr == "needs_grad":
                    return ast.Constant(True)
            if func.attr == "get" and self._is_params_ref(owner):
                key = _string_arg(node)
                if key is not None:
                    value = self.evaluator.param(key)
                    if (isinstance(value, ast.Name) and len(node.args) > 1
                            and self.evaluator.params is not None):
                        return self.visit(node.args[1])  # not set on this node: the default
                    return value
            if func.attr == "apply" and isinstance(owner, ast.Name) \
                    and owner.id in _OPERATOR_OPS and len(node.args) == 2 and not node.keywords:
                # Mul.apply(a, b) (a formula spelling the op out: Note: C++ operators in
                # backward formulas) reads as the operator it is
                return self.visit(ast.BinOp(node.args[0], _OPERATOR_OPS[owner.id](),
                                            node.args[1]))
            if func.attr == "apply" and isinstance(owner, ast.Name):
                node.func = ast.Name(_snake(owner.id), ast.Load())
            elif func.attr == "apply" and _is_self_attr(owner, owner.attr if isinstance(
                    owner, ast.Attribute) else ""):
                node.func = ast.Name(owner.attr, ast.Load())  # self.backward_op.apply(...)
        elif isinstance(func, ast.Name) and func.id == "_wrap" and len(node.args) == 1:
            return self.visit(node.args[0])  # wrapping an array as a Tensor changes no value
        node.keywords = [k for k in node.keywords if k.arg is not None]  # drop **params
        return self.generic_visit(node)


_OPERATOR_OPS = {"Mul": ast.Mult, "Add": ast.Add, "Sub": ast.Sub, "Div": ast.Div}


def _fold(expression, evaluator: _Evaluator):
    """Resolve conditional expressions whose test is known for this node."""

    class Folder(ast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            if (isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)
                    and type(node.left.value) in (int, float)
                    and type(node.right.value) in (int, float)
                    and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult))):
                value = eval(compile(ast.Expression(node), "<formula>", "eval"), {})
                return ast.Constant(value)
            return node

        def visit_IfExp(self, node):
            self.generic_visit(node)
            decided = evaluator.decide(node.test, {})
            if decided is True:
                return node.body
            if decided is False:
                return node.orelse
            return node

    return Folder().visit(expression)
