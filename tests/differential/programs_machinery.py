"""The autograd-machinery stage appended to a generated program (seeds 0 mod 8: see
programs_after.py).

New leaves, then one or two of: ``autograd.functional`` (``jacobian`` / ``hessian`` /
``vjp`` / ``jvp`` / ``hvp`` / ``vhp`` of a small random function, sometimes with
``create_graph``, ``jacobian`` with ``vectorize``/``strategy``), ``utils.checkpoint``
(reentrant or not) of a small function followed by a backward, a backward under
``autograd.graph.saved_tensors_hooks`` whose pack and unpack change what is saved, a backward
inside ``autograd.detect_anomaly`` (its warning is compared too), and an optimizer with an lr
scheduler stepping on leaves that carry gradient hooks (a tensor hook scaling the gradient, a
post-accumulate-grad hook observing the leaf). Everything the stage observes is new: it draws
from its own random streams, so the program before it is the one the seed made before the
stage existed.
"""

from __future__ import annotations

import random

import numpy as np

# Small differentiable functions of x (and y): "{x}", "{y}" are the operands.
_FUNCTIONS = [
    "({x}).sin() * ({x})",
    "({x}).tanh() ** 2",
    "(({x}) * 1.5).sigmoid()",
    "({x}) * ({y})",
    "(({x}) ** 2 + ({y})).cos()",
    "({x}).exp().tanh() + ({y}) * 0.5",
]
_SCHEDULERS = [
    "lib.optim.lr_scheduler.StepLR({opt}, step_size=1, gamma=0.5)",
    "lib.optim.lr_scheduler.ExponentialLR({opt}, gamma=0.9)",
    "lib.optim.lr_scheduler.CosineAnnealingLR({opt}, T_max=3)",
    "lib.optim.lr_scheduler.LambdaLR({opt}, lambda epoch: 1.0 / (epoch + 1))",
    "lib.optim.lr_scheduler.MultiStepLR({opt}, milestones=[1], gamma=0.25)",
]
_OPTIMIZERS = [
    "lib.optim.SGD({params}, lr=0.1)",
    "lib.optim.SGD({params}, lr=0.1, momentum=0.9, nesterov=True)",
    "lib.optim.Adam({params}, lr=0.05)",
    "lib.optim.AdamW({params}, lr=0.05, weight_decay=0.1)",
    "lib.optim.RMSprop({params}, lr=0.01)",
    "lib.optim.Adagrad({params}, lr=0.1)",
]


def _literal(array: np.ndarray) -> str:
    return f"np.array({array.tolist()!r}, dtype=np.{array.dtype})"


class MachineryStage:
    def machinery_stage(self) -> None:
        self.mrng = random.Random(self.seed * 7_000_003 + 29)
        self.mnp = np.random.default_rng(self.seed * 13 + 7)
        steps = [self.functional_step, self.checkpoint_step, self.saved_hooks_step,
                 self.anomaly_step, self.optimizer_hooks_step]
        for step in self.mrng.sample(steps, self.mrng.randint(1, 2)):
            step()

    def machinery_leaves(self, count: int, requires_grad=True) -> list[str] | None:
        rng, np_rng = self.mrng, self.mnp
        shape = rng.choice([(), (3,), (2, 2), (1, 3)])
        dtype = rng.choice(["float32", "float64"])
        names = [self.fresh() for _ in range(count)]
        statements = []
        for name in names:
            values = np.asarray(np_rng.uniform(0.25, 1.5, size=shape)
                                * np_rng.choice([-1, 1], size=shape), dtype)
            statements.append(f"{name} = lib.tensor({_literal(values)}, "
                              f"requires_grad={requires_grad})")
        statement = "; ".join(statements)
        if not self.attempt(statement, checks=names):
            return None
        self.keep(statement, "machinery_leaves", [])
        return names

    def machinery_function(self, *operands: str) -> str:
        pieces = _FUNCTIONS if len(operands) > 1 else [f for f in _FUNCTIONS if "{y}" not in f]
        expr = self.mrng.choice(pieces)
        return expr.format(x=operands[0], y=operands[-1])

    def functional_step(self) -> None:
        rng = self.mrng
        names = self.machinery_leaves(2, requires_grad=rng.random() < 0.5)
        if names is None:
            return
        a, b = names
        result = self.fresh()
        create = ", create_graph=True" if rng.random() < 0.3 else ""
        kind = rng.choice(["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
        body = self.machinery_function("u", "v")
        scalar = f"({body}).sum()"
        if kind == "jacobian":
            extra = rng.choice(["", ", vectorize=True", ", strategy='forward-mode', "
                                "vectorize=True"])
            if extra:
                # (forward mode takes no create_graph; a vectorized reverse-mode jacobian's
                # create_graph history is torch's vmapped backward's nodes, leafgrad's a stack
                # of per-row graphs: a known difference, left out here)
                create = ""
            call = f"lib.autograd.functional.jacobian(lambda u, v: {body}, ({a}, {b}){create}{extra})"
        elif kind == "hessian":
            single = self.machinery_function("u")
            call = f"lib.autograd.functional.hessian(lambda u: ({single}).sum(), {a}{create})"
        elif kind in ("vjp", "jvp"):
            vector = f"lib.ones_like((lambda u, v: {body})({a}, {b})) * 0.5"
            if kind == "jvp":
                vector = f"(lib.ones_like({a}) * 0.5, lib.ones_like({b}))"
            call = f"lib.autograd.functional.{kind}(lambda u, v: {body}, ({a}, {b}), {vector}{create})"
        else:
            call = (f"lib.autograd.functional.{kind}(lambda u, v: {scalar}, ({a}, {b}), "
                    f"(lib.ones_like({a}), lib.ones_like({b}) * -0.5){create})")
        statement = f"{result} = {call}"
        if not self.attempt(statement):
            return
        self.keep(statement, f"functional_{kind}",
                  [f"O.see({result!r}, {result}, grad=True)"])

    def checkpoint_step(self) -> None:
        rng = self.mrng
        names = self.machinery_leaves(2)
        if names is None:
            return
        a, b = names
        out = self.fresh()
        reentrant = rng.choice([True, False])
        body = self.machinery_function("u", "v")
        second = f"{b}" if rng.random() < 0.7 else f"{b}.detach()"
        statement = (f"{out} = lib.utils.checkpoint.checkpoint(lambda u, v: {body}, {a} * 1, "
                     f"{second}, use_reentrant={reentrant})")
        if not self.attempt(statement, checks=[out]):
            return
        self.keep(statement, "checkpoint", [f"O.see({out!r}, {out})"])
        statement = f"({out} * {out}).sum().backward()"
        if self.attempt(statement):
            self.keep(statement, "checkpoint_backward",
                      [f"O.grad({a!r}, {a})", f"O.grad({b!r}, {b})"])

    def saved_hooks_step(self) -> None:
        rng = self.mrng
        names = self.machinery_leaves(2)
        if names is None:
            return
        a, b = names
        out, packed = self.fresh(), self.fresh()
        pack, unpack = rng.choice([
            ("lambda t: t", "lambda t: t"),
            ("lambda t: t * 2", "lambda t: t / 2"),
            ("lambda t: t.detach().clone()", "lambda t: t"),
            (f"lambda t: ({packed}.append(tuple(t.shape)), t)[1]", "lambda t: t"),
            ("lambda t: t * 1", "lambda t: t + 0.5"),
        ])
        body = self.machinery_function(a, b)
        if not self.attempt(f"{packed} = []"):
            return
        self.keep(f"{packed} = []", "saved_tensors_hooks_list", [])
        statement = (f"with lib.autograd.graph.saved_tensors_hooks({pack}, {unpack}): "
                     f"{out} = {body}")
        if not self.attempt(statement, checks=[out]):
            return
        self.keep(statement, "saved_tensors_hooks", [f"O.see({out!r}, {out})",
                                                     f"O.see({packed!r}, {packed})"])
        statement = f"{out}.sum().backward()"
        if self.attempt(statement):
            self.keep(statement, "saved_tensors_hooks_backward",
                      [f"O.grad({a!r}, {a})", f"O.grad({b!r}, {b})"])

    def anomaly_step(self) -> None:
        rng = self.mrng
        names = self.machinery_leaves(2)
        if names is None:
            return
        a, b = names
        body = self.machinery_function(a, b)
        check = rng.choice(["", "check_nan=False"])
        statement = (f"with lib.autograd.detect_anomaly({check}): ({body}).sum().backward()")
        if self.attempt(statement):
            self.keep(statement, "anomaly_mode", [f"O.grad({a!r}, {a})", f"O.grad({b!r}, {b})"])

    def optimizer_hooks_step(self) -> None:
        rng = self.mrng
        names = self.machinery_leaves(2)
        if names is None:
            return
        a, b = names
        hooks = []
        if rng.random() < 0.7:
            hooks.append(f"{a}.register_hook(lambda g: g * 0.5)")
        if rng.random() < 0.5:
            hooks.append(f"{b}.register_post_accumulate_grad_hook("
                         f"lambda p: O.see('post accumulate {b}', p.grad, grad=True))")
        for hook in hooks:
            if self.attempt(hook):
                self.keep(hook, "optim_hook", [])
        opt, sched = self.fresh(), self.fresh()
        statement = (f"{opt} = {rng.choice(_OPTIMIZERS).format(params=f'[{a}, {b}]')}; "
                     f"{sched} = {rng.choice(_SCHEDULERS).format(opt=opt)}")
        if not self.attempt(statement):
            return
        self.keep(statement, "optim_scheduler", [])
        body = self.machinery_function(a, b)
        for step in range(rng.randint(1, 3)):
            statement = (f"{opt}.zero_grad(); ({body}).sum().backward(); {opt}.step(); "
                         f"{sched}.step()")
            if not self.attempt(statement, checks=[a, b]):
                return
            self.keep(statement, "optim_scheduler_step",
                      [f"O.see('{a} step {step}', {a})", f"O.see('{b} step {step}', {b})",
                       f"O.see('lr {step}', {sched}.get_last_lr())"])
