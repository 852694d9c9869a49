"""The custom autograd.Function stage appended to a generated program (seeds 1 mod 8: see
programs_after.py).

A ``lib.autograd.Function`` subclass written in one statement (``type(name, (Function,),
{...})``, its forward and backward lambdas), applied to new leaves (or to a clone of one, for
the in-place kind), then a backward or ``autograd.grad`` (sometimes with create_graph and a
second derivative). The kinds: a product saving its inputs (``save_for_backward``,
``saved_tensors``, ``needs_input_grad``), an in-place scale (``mark_dirty``), two outputs of
which one is ``mark_non_differentiable``, a backward under ``once_differentiable``, and two
outputs with ``set_materialize_grads(False)`` of which only one reaches the loss (its
backward sees None). Sometimes a tensor hook returning a changed gradient on an input, and
``retain_grad`` on the output; an identity and a view returned from forward; inputs that
are views or non-leaves; the apply under no_grad or inference_mode. Everything the stage
observes is new: the program before it is the one the seed made before the stage existed.
"""

from __future__ import annotations

import numpy as np

_F = "lib.autograd.Function"
_ONCE = "lib.autograd.function.once_differentiable"

# name: (forward, backward, outputs, needs a non-leaf first input)
_FUNCTIONS = {
    "save": (
        "lambda ctx, x, y: (ctx.save_for_backward(x, y), x * y + x)[1]",
        "lambda ctx, g: (g * (ctx.saved_tensors[1] + 1) if ctx.needs_input_grad[0] else None,"
        " g * ctx.saved_tensors[0] if ctx.needs_input_grad[1] else None)",
        1, False),
    "dirty": (
        "lambda ctx, x, y: (x.mul_(2), ctx.mark_dirty(x))[0]",
        "lambda ctx, g: (g * 2, None)",
        1, True),
    "nondiff": (
        "lambda ctx, x, y: (lambda out, other: (ctx.save_for_backward(x, y),"
        " ctx.mark_non_differentiable(other), (out, other))[2])(x * y, x - y)",
        "lambda ctx, g, g_other: (g * ctx.saved_tensors[1], g * ctx.saved_tensors[0])",
        2, False),
    "once": (
        "lambda ctx, x, y: (ctx.save_for_backward(x, y), (x * y).sin())[1]",
        f"{_ONCE}(lambda ctx, g: (g * (ctx.saved_tensors[0] * ctx.saved_tensors[1]).cos()"
        " * ctx.saved_tensors[1], g * (ctx.saved_tensors[0] * ctx.saved_tensors[1]).cos()"
        " * ctx.saved_tensors[0]))",
        1, False),
    "identity": (
        "lambda ctx, x, y: x",
        "lambda ctx, g: (g, None)",
        1, False),
    "view": (
        "lambda ctx, x, y: (setattr(ctx, 'shape', x.shape), x.view(-1))[1]",
        "lambda ctx, g: (g.view(ctx.shape), None)",
        1, False),
    "materialize": (
        "lambda ctx, x, y: (ctx.set_materialize_grads(False), (x * 2, x * y))[1]",
        "lambda ctx, g1, g2: ((0 if g1 is None else g1 * 2) + (0 if g2 is None else g2 * 1.5),"
        " None if g2 is None else g2 * 3)",
        2, False),
}


def _literal(array: np.ndarray) -> str:
    return f"np.array({array.tolist()!r}, dtype=np.{array.dtype})"


class FunctionStage:
    def function_stage(self) -> None:
        rng = self.srng
        np_rng = np.random.default_rng(self.seed * 11 + 5)
        kind = rng.choice(sorted(_FUNCTIONS))
        forward, backward, outputs, clone_first = _FUNCTIONS[kind]
        shape = rng.choice([(), (3,), (2, 3), (1, 2)])
        dtype = rng.choice(["float32", "float64"])
        a, b = self.fresh(), self.fresh()
        values = [np.asarray(np_rng.uniform(0.25, 2, size=shape)
                             * np_rng.choice([-1, 1], size=shape), dtype) for _ in range(2)]
        needs_b = rng.random() < 0.6 and kind != "dirty"
        statement = (f"{a} = lib.tensor({_literal(values[0])}, requires_grad=True); "
                     f"{b} = lib.tensor({_literal(values[1])}, requires_grad={needs_b})")
        if not self.attempt(statement):
            return
        self.keep(statement, "function_leaves", [])
        fn = f"{kind.capitalize()}Fn"
        statement = (f"{fn} = type({fn!r}, ({_F},), {{'forward': staticmethod({forward}), "
                     f"'backward': staticmethod({backward})}})")
        if not self.attempt(statement):
            return
        self.keep(statement, "function_define", [])
        if rng.random() < 0.3:
            hook = rng.choice([f"{a}.register_hook(lambda g: g * 2)",
                               f"{a}.register_hook(lambda g: O.see('hook on {a}', g, grad=True))"])
            if self.attempt(hook):
                self.keep(hook, "function_hook", [])
        forms = [f"{a} * 1", f"{a}.clone()"] if clone_first else [a, a, f"{a} * 1"]
        if shape:
            forms.append(f"{a}[0]" if not clone_first else f"({a} * 1)[0]")
        first = rng.choice(forms)
        out = self.fresh()
        names = [out] if outputs == 1 else [out, self.fresh()]
        target = ", ".join(names) if outputs > 1 else out
        mode = rng.choices(["", "with lib.no_grad(): ", "with lib.inference_mode(): "],
                           [8, 1, 1])[0]
        statement = f"{mode}{target} = {fn}.apply({first}, {b})"
        if not self.attempt(statement, checks=names):
            return
        self.keep(statement, f"function_{kind}", [f"O.see({n!r}, {n})" for n in names]
                  + [f"O.see({a + ' after apply'!r}, {a})"])
        if mode:  # (nothing to differentiate: the outputs are observed as they are)
            self.kinds["function_grad_mode"] += 1
            return
        if rng.random() < 0.3 and self.ns[out].requires_grad:
            statement = f"{out}.retain_grad()"
            if self.attempt(statement):
                self.keep(statement, "function_retain_grad", [])
        weight = np.asarray(np_rng.uniform(-1, 1, size=tuple(self.ns[out].shape)), dtype)
        loss = f"({out} * lib.tensor({_literal(weight)})).sum()"
        if kind == "materialize" and rng.random() < 0.5:
            loss = f"{names[1]}.sum()"  # (the first output's gradient is None in backward)
        listed = f"[{a}, {b}]" if needs_b else f"[{a}]"
        mode = rng.choice(["backward", "grad", "grad_create"] if kind != "once"
                          else ["backward", "grad"])
        if mode == "backward":
            statement = f"{loss}.backward()"
            observe = [f"O.grad({a!r}, {a})", f"O.grad({b!r}, {b})", f"O.grad({out!r}, {out})"]
        else:
            grads = self.fresh()
            create = ", create_graph=True" if mode == "grad_create" else ""
            statement = (f"{grads} = lib.autograd.grad({loss}, {listed}, allow_unused=True"
                         f"{create})")
            observe = [f"O.see('function grads', {grads}, grad=True)"]
        if not self.attempt(statement):
            return
        if mode != "backward":
            checked = [g for g in self.ns[grads] if g is not None]
            if not all(self.sane(g) for g in checked):
                self.replay()
                return
        self.keep(statement, "function_backward", observe)
        if mode == "grad_create" and any(g is not None and g.requires_grad
                                         for g in self.ns[grads]):
            second = self.fresh()
            statement = (f"{second} = lib.autograd.grad(sum(g.sum() for g in {grads} if g is not "
                         f"None and g.requires_grad), {listed}, allow_unused=True)")
            if self.attempt(statement):
                self.keep(statement, "function_double_backward",
                          [f"O.see('function second grads', {second}, grad=True)"])
