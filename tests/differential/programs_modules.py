"""The nn.Module stage appended to a generated program (seeds 7 mod 8: see programs_after.py).

A small model built from nn layers (Linear, activations, LayerNorm, Dropout(p=0)) in an
``nn.Sequential``, its parameters set from literals, run on a detached float tensor of the
program; then some of: forward pre-hooks and forward hooks on its modules (one replacing the
output), full backward hooks, a loss and ``backward()`` (the parameters' gradients observed),
``train()``/``eval()``, a ``state_dict()`` round trip into a second model built the same way,
``requires_grad_(False)`` on a layer, and an SGD step under an lr scheduler (StepLR,
ExponentialLR, MultiStepLR, LambdaLR) with the learning rates observed. Everything the stage
observes is new: the program before it is the one the seed made before the stage existed.
"""

from __future__ import annotations

import numpy as np

_ACTIVATIONS = ["Tanh()", "Sigmoid()", "Softplus()", "GELU()", "SiLU()", "ELU()", "Identity()"]
_SCHEDULERS = [
    "StepLR({opt}, step_size=1, gamma=0.5)",
    "ExponentialLR({opt}, gamma=0.9)",
    "MultiStepLR({opt}, milestones=[1, 2], gamma=0.1)",
    "LambdaLR({opt}, lambda epoch: 1.0 / (epoch + 1))",
]


def _literal(array: np.ndarray) -> str:
    return f"np.array({array.tolist()!r}, dtype=np.{array.dtype})"


class ModuleStage:
    def module_stage(self) -> None:
        rng = self.srng
        np_rng = np.random.default_rng(self.seed * 7 + 3)
        candidates = [v for v in self.vars if self.is_float(v) and 1 <= len(self.shape(v)) <= 3
                      and 0 not in self.shape(v) and self.shape(v)[-1] <= 4
                      and np.prod(self.shape(v)) <= 24]
        if candidates:
            var = rng.choice(candidates)
            shape = self.shape(var)
            x = f"{var.name}.detach()"
            dtype = str(self.value(var).dtype).removeprefix("torch.")
        else:  # (a program of 0-d tensors: the model gets an input of its own)
            shape = (rng.randint(1, 3), rng.randint(1, 4))
            dtype = rng.choice(["float32", "float64"])
            x = f"lib.tensor({_literal(np.asarray(np_rng.uniform(-2, 2, size=shape), dtype))})"
        width = shape[-1]
        hidden, out = rng.randint(1, 4), rng.randint(1, 3)
        layers = [f"lib.nn.Linear({width}, {hidden})", f"lib.nn.{rng.choice(_ACTIVATIONS)}"]
        if hidden > 2 and rng.random() < 0.3:  # (over 1 or 2 features: constant, gradients noise)
            layers.append(f"lib.nn.LayerNorm({hidden})")
        if rng.random() < 0.3:
            layers.append("lib.nn.Dropout(p=0.0)")
        bias = rng.choice(["True", "False"])
        layers.append(f"lib.nn.Linear({hidden}, {out}, bias={bias})")
        build = f"lib.nn.Sequential({', '.join(layers)})"
        if dtype == "float64":
            build += ".double()"
        model = self.fresh()
        statement = f"{model} = {build}"
        if not self.attempt(statement):
            return
        # the parameters from literals (each library's initialisation draws differently)
        sets = []
        for name, parameter in self.ns[model].named_parameters():
            array = np.asarray(np_rng.uniform(-1, 1, size=tuple(parameter.shape)), dtype=dtype)
            sets.append(f"{model}.get_parameter({name!r}).copy_(lib.tensor({_literal(array)}))")
        self.keep(statement, "module_build", [])
        statement = "with lib.no_grad(): " + "; ".join(sets)
        if not self.attempt(statement):
            return
        self.keep(statement, "module_build", [])
        if rng.random() < 0.5:
            hook = rng.choice([
                f"{model}[0].register_forward_hook(lambda m, i, o: O.see('forward hook', o))",
                f"{model}[1].register_forward_pre_hook(lambda m, i: O.see('pre-hook', i[0]))",
                f"{model}[-1].register_forward_hook(lambda m, i, o: o * 2)",
                f"{model}[0].register_full_backward_hook("
                "lambda m, gi, go: O.see('backward hook', (gi[0], go[0]), grad=True))",
                f"{model}[-1].register_full_backward_pre_hook("
                "lambda m, go: O.see('backward pre-hook', go[0], grad=True))",
            ])
            if self.attempt(hook):
                self.keep(hook, "module_hook", [])
        if rng.random() < 0.2:
            frozen = f"{model}[0].requires_grad_(False)"
            if self.attempt(frozen):
                self.keep(frozen, "module_freeze", [])
        if rng.random() < 0.3:
            mode = rng.choice([f"{model}.eval()", f"{model}.train()"])
            if self.attempt(mode):
                self.keep(mode, "module_mode", [])
        output = self.fresh()
        if not self.keep_observed(f"{output} = {model}({x})", "module_forward", [output]):
            return
        params = [name for name, p in self.ns[model].named_parameters()]
        observe_grads = [f"O.see({f'{n}.grad'!r}, {model}.get_parameter({n!r}).grad, grad=True)"
                         for n in params]
        if self.ns[output].requires_grad:
            loss = rng.choice([f"{output}.pow(2).mean()", f"{output}.sum()",
                               f"lib.nn.functional.mse_loss({output}, {output}.detach() * 0.5)"])
            statement = f"{loss}.backward()"
            if self.attempt(statement):
                grads = [self.ns[model].get_parameter(n).grad for n in params]
                if any(g is not None and self.cancelled(g) for g in grads):
                    self.replay()  # (a gradient of rounding noise: the backward is dropped)
                else:
                    self.keep(statement, "module_backward", observe_grads)
        if rng.random() < 0.5:
            copy, again = self.fresh(), self.fresh()
            dtype_call = ".double()" if dtype == "float64" else ""
            statement = (f"{copy} = lib.nn.Sequential({', '.join(layers)}){dtype_call}; "
                         f"{copy}.load_state_dict({model}.state_dict()); "
                         f"{again} = {copy}({x})")
            if self.attempt(statement, checks=[again]):
                entries = [f"O.see('state_dict keys', list({model}.state_dict()))"]
                entries += [f"O.see('state_dict {n}', {model}.state_dict()[{n!r}])"
                            for n in params[:2]]
                self.keep(statement, "module_state_dict", [f"O.see({again!r}, {again})"]
                          + entries)
        if any(self.ns[model].get_parameter(n).grad is not None for n in params) \
                and rng.random() < 0.7:
            optimizer, scheduler = self.fresh(), self.fresh()
            statement = (f"{optimizer} = lib.optim.SGD({model}.parameters(), lr=0.1); "
                         f"{scheduler} = lib.optim.lr_scheduler."
                         + rng.choice(_SCHEDULERS).format(opt=optimizer))
            if not self.attempt(statement):
                return
            self.keep(statement, "lr_scheduler", [])
            for step in range(rng.randint(1, 3)):
                statement = f"{optimizer}.step(); {scheduler}.step()"
                if not self.attempt(statement):
                    return
                observe = [f"O.see({f'lr {step}'!r}, {scheduler}.get_last_lr())"]
                observe += [f"O.see({f'{n} step {step}'!r}, {model}.get_parameter({n!r}))"
                            for n in params]
                self.keep(statement, "lr_scheduler_step", observe)
