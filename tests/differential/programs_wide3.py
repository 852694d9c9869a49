"""The third wide set of the program generator (programs.py; seeds from WIDE3_SEED0 on).

What the earlier sets draw rarely and users write: float16 and bfloat16 tensors (leaves and
conversions) through arithmetic with scalars and tensors, activations, reductions, softmax,
layer_norm, matmul and promotion back to float32 (their reprs and gradients); complex64 and
complex128 tensors (literals, ``lib.complex``, conversions) through ``x / x``, products,
quotients, ``conj``, ``abs``, ``angle``, ``real``/``imag``, ``exp``, ``view_as_real`` and
matrix products; and, after the seed's stage, a training loop: an ``nn.Sequential`` with
forward (pre-)hooks, full backward (pre-)hooks, parameter hooks, sometimes a custom
``autograd.Function`` (``save_for_backward``, ``needs_input_grad``, ``once_differentiable``)
or ``utils.checkpoint`` in its forward, trained a few steps by SGD (momentum, nesterov),
Adam, AdamW or RMSprop with ``zero_grad()`` and ``zero_grad(set_to_none=False)`` between
steps; parameters, gradients (None or zeros) and losses observed at every step.

Seeds below WIDE3_SEED0 never draw from this set, so the programs of older seeds stay what
they were.
"""

from __future__ import annotations

import random

import numpy as np

F = "lib.nn.functional"
WIDE3_SEED0 = 30_000_000


def _literal(array: np.ndarray) -> str:
    return f"np.array({array.tolist()!r}, dtype=np.{array.dtype})"


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


_REDUCED_UNARY = [
    "{x}.exp()", "{x}.tanh()", "{x}.sigmoid()", f"{F}.silu({{x}})", f"{F}.softplus({{x}})",
    f"{F}.gelu({{x}})", f"{F}.mish({{x}})", f"{F}.hardswish({{x}})", f"{F}.elu({{x}})",
    f"{F}.logsigmoid({{x}})", "({x}.abs() + 0.5).sqrt()", "({x}.abs() + 0.5).log()",
    "({x}.abs() + 0.5).reciprocal()", "{x}.sin()", "{x}.cos()", "{x} ** 2", f"{F}.selu({{x}})",
    f"{F}.tanhshrink({{x}})", "{x}.relu()", "{x}.clamp(-0.5, 0.75)",
]
_REDUCED_SCALAR = ["{x} * 1.5", "{x} + 0.25", "{x} / 3", "2 - {x}", "{x} * 0.1 + 1",
                   "{x}.mul(-0.3)", "{x}.add({x}, alpha=0.5)", "{x}.lerp({x} * 2, 0.25)"]
_REDUCED_REDUCE = ["{x}.sum()", "{x}.mean()", "{x}.sum(-1)", "{x}.mean(0)", "{x}.softmax(-1)",
                   "{x}.log_softmax(-1)", "{x}.amax(-1)", "{x}.cumsum(-1)", "{x}.prod(-1)",
                   "{x}.norm()", "{x}.var(-1)"]

_COMPLEX_FORMS = [
    "{x} / {x}", "{x} * {y}", "{x} / ({y} + 2)", "{x}.conj()", "{x}.abs()", "{x}.angle()",
    "{x}.real", "{x}.imag", "({x} * 0.5).exp()", "{x}.sum()", "{x} * (1.5 - 0.5j)",
    "lib.view_as_real({x})", "{x}.reciprocal()", "{x} ** 2", "{x}.abs() ** 2",
    "({x} * {y}.conj()).real", "{x} + {y}", "{x}.mean()", "{x}.sgn()", "{x}.tanh()",
    "{x}.conj() * {x}", "{x} - 1j",
]


class Wide3Ops:
    WIDE3_OPS = (
        ("op_wide3_reduced", 10),
        ("op_wide3_complex", 7),
    )

    # -- float16 / bfloat16 ------------------------------------------------------------------

    def reduced_operand(self, dtype: str):
        """(code, var) of a tensor of ``dtype``: one of the program's, a conversion of a float
        tensor, or a new leaf."""
        rng = self.rng
        existing = self.pick(lambda v: str(self.value(v).dtype) == f"torch.{dtype}"
                             and 0 < _numel(self.shape(v)) <= 24)
        if existing is not None and rng.random() < 0.5:
            return existing.name, existing
        source = self.pick(lambda v: self.is_float(v) and 0 < _numel(self.shape(v)) <= 24
                           and str(self.value(v).dtype) in ("torch.float32", "torch.float64"))
        if source is not None and rng.random() < 0.5:
            form = rng.choice([f"{source.name}.to(lib.{dtype})",
                               f"{source.name}.{'half' if dtype == 'float16' else dtype}()",
                               f"{source.name}.to(dtype=lib.{dtype})"])
            var = self.emit(form, "wide3_reduced_convert", inputs=[source])
            return (None, None) if var is None else (var.name, var)
        shape = rng.choice([(3,), (2, 3), (4,), (2, 2, 3), (1, 4), ()])
        var = self.leaf(shape, dtype=dtype, requires_grad=rng.random() < 0.7)
        return var.name, var

    def op_wide3_reduced(self):
        rng = self.rng
        dtype = rng.choice(["float16", "bfloat16"])
        x, var = self.reduced_operand(dtype)
        if var is None:
            return None
        shape = self.shape(var)
        inputs = [var]
        kind = rng.choice(["unary", "unary", "scalar", "binary", "reduce", "layer_norm",
                           "matmul", "promote"])
        if kind == "unary":
            form = rng.choice(_REDUCED_UNARY).format(x=x)
        elif kind == "scalar":
            form = rng.choice(_REDUCED_SCALAR).format(x=x)
        elif kind == "binary":
            partner = self.pick(lambda v: v is not var and str(self.value(v).dtype)
                                == f"torch.{dtype}" and self.shape(v) == shape)
            if partner is None:
                partner = self.leaf(shape, dtype=dtype)
            inputs.append(partner)
            y = partner.name
            form = rng.choice([f"{x} * {y}", f"{x} + {y}", f"{x} - {y} * 0.5",
                               f"{x} / ({y}.abs() + 0.5)", f"lib.maximum({x}, {y})",
                               f"lib.addcmul({x}, {x}, {y}, value=0.5)",
                               f"lib.atan2({x}, {y}.abs() + 0.5)", f"{x}.lerp({y}, 0.3)"])
        elif kind == "reduce":
            if not shape:
                return None
            form = rng.choice(_REDUCED_REDUCE).format(x=x)
        elif kind == "layer_norm":
            if not shape or shape[-1] < 3:
                return None
            n = shape[-1]
            weight = np.round(self.np_rng.uniform(-1.5, 1.5, size=n) * 16) / 16
            extra = rng.choice(["", f", lib.tensor({_literal(weight.astype(np.float32))})"
                                    f".to(lib.{dtype})"])
            form = f"{F}.layer_norm({x}, ({n},){extra})"
        elif kind == "matmul":
            if not shape or len(shape) > 2:
                return None
            k = shape[-1]
            other = np.round(self.np_rng.uniform(-1, 1, size=(k, rng.randint(1, 3))) * 32) / 32
            form = f"{x} @ lib.tensor({_literal(other.astype(np.float32))}).to(lib.{dtype})"
        else:
            form = rng.choice([f"{x}.float() * 1.5", f"{x} + lib.ones({list(shape)})",
                               f"{x} * lib.tensor(0.5, dtype=lib.float64)",
                               f"({x} * 3).to(lib.float32)", f"{x}.double().exp()"])
        return self.emit(form, "wide3_reduced", inputs=inputs)

    # -- complex -----------------------------------------------------------------------------

    def complex_operand(self, dtype: str, shape=None):
        rng = self.rng
        existing = self.pick(lambda v: str(self.value(v).dtype) == f"torch.{dtype}"
                             and (shape is None or self.shape(v) == shape)
                             and _numel(self.shape(v)) <= 24)
        if existing is not None and rng.random() < 0.5:
            return existing
        if shape is None:
            shape = rng.choice([(3,), (2, 3), (2, 2), ()])
        real = self.np_rng.uniform(-2, 2, size=shape)
        imag = self.np_rng.uniform(-2, 2, size=shape)
        roll = rng.random()
        if roll < 0.5:
            array = np.asarray(real + 1j * imag, dtype=dtype)
            grad = ", requires_grad=True" if rng.random() < 0.7 else ""
            form = f"lib.tensor({_literal(array)}{grad})"
        elif roll < 0.8:
            part = "float32" if dtype == "complex64" else "float64"
            form = (f"lib.complex(lib.tensor({_literal(np.asarray(real, part))}), "
                    f"lib.tensor({_literal(np.asarray(imag, part))}))")
        else:
            source = self.pick(lambda v: self.is_float(v) and _numel(self.shape(v)) <= 24
                               and (shape is None or self.shape(v) == shape))
            if source is None:
                return None
            form = f"{source.name}.to(lib.{dtype})"
        return self.emit(form, "wide3_complex_make")

    def op_wide3_complex(self):
        rng = self.rng
        dtype = rng.choice(["complex64", "complex128"])
        var = self.complex_operand(dtype)
        if var is None:
            return None
        form = rng.choice(_COMPLEX_FORMS)
        inputs = [var]
        y = var.name
        if "{y}" in form:
            partner = self.complex_operand(dtype, self.shape(var))
            if partner is None:
                return None
            inputs.append(partner)
            y = partner.name
        if form.startswith("{x}.sum") and rng.random() < 0.5:
            form = "{x}.abs().sum()"
        return self.emit(form.format(x=var.name, y=y), "wide3_complex", inputs=inputs)

    # -- the training-loop stage -------------------------------------------------------------

    OPTIMIZERS3 = [
        "SGD({params}, lr=0.1, momentum=0.9)",
        "SGD({params}, lr=0.05, momentum=0.5, nesterov=True)",
        "SGD({params}, lr=0.1, momentum=0.9, weight_decay=0.01)",
        "Adam({params}, lr=0.05)",
        "Adam({params}, lr=0.05, amsgrad=True, weight_decay=0.1)",
        "AdamW({params}, lr=0.05, weight_decay=0.1)",
        "RMSprop({params}, lr=0.01, momentum=0.5)",
        "RMSprop({params}, lr=0.01, centered=True)",
    ]

    def wide3_stage(self) -> None:
        """A model trained a few steps with hooks (see the module docstring); every statement
        run on torch first, the stage ending where one is refused."""
        rng = random.Random(self.seed * 7_919 + 5)
        np_rng = np.random.default_rng(self.seed * 13 + 1)
        dtype = rng.choice(["float32", "float64"])
        width, hidden, out = rng.randint(2, 4), rng.randint(2, 4), rng.randint(1, 2)
        batch = rng.randint(1, 3)
        activation = rng.choice(["Tanh()", "Sigmoid()", "SiLU()", "Softplus()", "GELU()",
                                 "ELU()"])
        layers = [f"lib.nn.Linear({width}, {hidden})", f"lib.nn.{activation}"]
        if hidden >= 3 and rng.random() < 0.3:
            layers.append(f"lib.nn.LayerNorm({hidden})")
        layers.append(f"lib.nn.Linear({hidden}, {out})")
        model = self.fresh()
        build = f"lib.nn.Sequential({', '.join(layers)})" + (
            ".double()" if dtype == "float64" else "")
        if not self.attempt(f"{model} = {build}"):
            return
        self.keep(f"{model} = {build}", "wide3_model", [])
        sets = []
        names = [name for name, _ in self.ns[model].named_parameters()]
        for name, parameter in self.ns[model].named_parameters():
            array = np.asarray(np_rng.uniform(-1, 1, size=tuple(parameter.shape)), dtype=dtype)
            sets.append(f"{model}.get_parameter({name!r}).copy_(lib.tensor({_literal(array)}))")
        statement = "with lib.no_grad(): " + "; ".join(sets)
        if not self.attempt(statement):
            return
        self.keep(statement, "wide3_model", [])
        x, target = self.fresh(), self.fresh()
        inputs = np.asarray(np_rng.uniform(-2, 2, size=(batch, width)), dtype=dtype)
        goal = np.asarray(np_rng.uniform(-1, 1, size=(batch, out)), dtype=dtype)
        statement = (f"{x} = lib.tensor({_literal(inputs)}); "
                     f"{target} = lib.tensor({_literal(goal)})")
        if not self.attempt(statement):
            return
        self.keep(statement, "wide3_data", [])
        hooks = [
            f"{model}[0].register_forward_hook(lambda m, i, o: o * 0.5)",
            f"{model}[0].register_forward_pre_hook(lambda m, i: (i[0] * 2,))",
            f"{model}[-1].register_forward_hook(lambda m, i, o: O.see('forward hook', o))",
            f"{model}[-1].register_full_backward_hook("
            "lambda m, gi, go: (gi[0] * 0.5,))",
            f"{model}[-1].register_full_backward_hook("
            "lambda m, gi, go: O.see('backward hook', (gi[0], go[0]), grad=True))",
            f"{model}[-1].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))",
            f"{model}[0].weight.register_hook(lambda g: g * 0.5)",
            f"{model}[0].bias.register_post_accumulate_grad_hook("
            "lambda p: O.see('post accumulate', p.grad, grad=True))",
        ]
        for hook in rng.sample(hooks, rng.randint(0, 3)):
            if self.attempt(hook):
                self.keep(hook, "wide3_hook", [])
        through = rng.choice(["plain", "plain", "function", "checkpoint", "once"])
        call = f"{model}({x})"
        if through == "function":
            function = self.fresh()
            statement = (
                f"{function} = type('Scale', (lib.autograd.Function,), {{"
                "'forward': staticmethod(lambda ctx, u, w: (ctx.save_for_backward(u, w), "
                "u * w)[1]), "
                "'backward': staticmethod(lambda ctx, g: ("
                "g * ctx.saved_tensors[1] if ctx.needs_input_grad[0] else None, "
                "(g * ctx.saved_tensors[0]).sum(0) if ctx.needs_input_grad[1] else None))})")
            if not self.attempt(statement):
                return
            self.keep(statement, "wide3_function", [])
            scale = np.asarray(np_rng.uniform(0.5, 1.5, size=(out,)), dtype=dtype)
            weight = self.fresh()
            statement = f"{weight} = lib.tensor({_literal(scale)}, requires_grad=True)"
            if not self.attempt(statement):
                return
            self.keep(statement, "wide3_function", [])
            call = f"{function}.apply({call}, {weight})"
        elif through == "once":
            function = self.fresh()
            statement = (
                f"{function} = type('Cube', (lib.autograd.Function,), {{"
                "'forward': staticmethod(lambda ctx, u: (ctx.save_for_backward(u), u ** 3)[1]), "
                "'backward': staticmethod(lib.autograd.function.once_differentiable("
                "lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2))})")
            if not self.attempt(statement):
                return
            self.keep(statement, "wide3_function", [])
            call = f"{function}.apply({call})"
        elif through == "checkpoint":
            reentrant = rng.choice(["False", "False", "True"])
            call = (f"{model}[-1](lib.utils.checkpoint.checkpoint(lambda u: {model}[1]("
                    f"{model}[0](u)), {x}, use_reentrant={reentrant}))")
            if len(layers) > 3:
                call = (f"{model}[-1]({model}[2](lib.utils.checkpoint.checkpoint("
                        f"lambda u: {model}[1]({model}[0](u)), {x}, "
                        f"use_reentrant={reentrant})))")
        optimizer = self.fresh()
        statement = (f"{optimizer} = lib.optim."
                     + rng.choice(self.OPTIMIZERS3).format(params=f"{model}.parameters()"))
        if not self.attempt(statement):
            return
        self.keep(statement, "wide3_optimizer", [])
        loss_form = rng.choice([f"{F}.mse_loss({{out}}, {target})", "({out} ** 2).mean()",
                                f"({{out}} - {target}).abs().sum()",
                                f"{F}.smooth_l1_loss({{out}}, {target})"])
        for step in range(rng.randint(2, 4)):
            loss = self.fresh()
            result = self.fresh()
            statement = (f"{result} = {call}; {loss} = {loss_form.format(out=result)}; "
                         f"{loss}.backward()")
            if not self.attempt(statement, checks=[result, loss]):
                return
            grads = [self.ns[model].get_parameter(n).grad for n in names]
            if any(g is not None and self.cancelled(g) for g in grads):
                self.replay()
                return
            observe = [f"O.see({f'loss {step}'!r}, {loss})"]
            observe += [f"O.see({f'{n}.grad {step}'!r}, {model}.get_parameter({n!r}).grad, "
                        "grad=True)" for n in names]
            self.keep(statement, "wide3_backward", observe)
            statement = f"{optimizer}.step()"
            if not self.attempt(statement):
                return
            if any(self.cancelled(self.ns[model].get_parameter(n)) for n in names):
                self.replay()
                return
            self.keep(statement, "wide3_step",
                      [f"O.see({f'{n} step {step}'!r}, {model}.get_parameter({n!r}))"
                       for n in names])
            statement = rng.choice([f"{optimizer}.zero_grad()",
                                    f"{optimizer}.zero_grad(set_to_none=False)",
                                    f"{model}.zero_grad()", f"{model}.zero_grad(set_to_none=False)",
                                    ""])
            if statement and self.attempt(statement):
                self.keep(statement, "wide3_zero_grad",
                          [f"O.see({f'{n}.grad zeroed {step}'!r}, "
                           f"{model}.get_parameter({n!r}).grad, grad=True)" for n in names])
