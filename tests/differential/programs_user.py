"""The user-code op set of the program generator (programs.py; seeds 2 mod 4).

What users write around the core ops: nn.functional calls (linear, conv1d/conv2d, layer_norm,
group_norm, batch_norm in training and eval with running stats, dropout after manual_seed,
embedding, pad in every mode, interpolate, losses with reduction= and weights), integer, bool
and 0-d tensors and Python numbers mixed with floats (type promotion), out= forms, blocks under
no_grad/enable_grad/set_grad_enabled/inference_mode, detach_() and requires_grad_ toggles,
retain_grad on views, hooks (tensor hooks returning a changed gradient or recording it,
post-accumulate hooks, a node's hooks and pre-hooks, removed handles), and clearing .grad
between two backward passes of a retained graph.

`UserOps` is a mixin of programs._Generator: its methods use the generator's bookkeeping
(`pick`, `leaf`, `emit`, `attempt`, `keep`, ...) and, like the other op families, return the
new variable or None when the choice does not fit (torch judges every statement).
"""

from __future__ import annotations

import numpy as np

F = "lib.nn.functional"


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _tensor_literal(array: np.ndarray, dtype: str | None = None) -> str:
    spelled = f", dtype=lib.{dtype}" if dtype else ""
    return f"lib.tensor({array.tolist()!r}{spelled})"


class UserOps:
    # (method, weight): how often each family is tried on seeds 2 mod 4
    USER_OPS = (
        ("op_nn_linear", 1.5),
        ("op_nn_conv", 1.5),
        ("op_nn_norm", 2),
        ("op_nn_dropout", 1),
        ("op_nn_embedding", 1),
        ("op_nn_pad", 1.5),
        ("op_nn_interpolate", 1.5),
        ("op_nn_loss", 3),
        ("op_promote", 2.5),
        ("op_out", 1.5),
        ("op_grad_mode", 2),
        ("op_toggle", 1.5),
        ("op_view_retain_grad", 1),
        ("op_hook", 2),
    )

    # -- helpers ---------------------------------------------------------------------------------

    def dtype_name(self, var) -> str:
        return str(self.value(var).dtype).removeprefix("torch.")

    def float_var(self, accept=lambda var: True):
        return self.pick(lambda v: self.is_float(v) and accept(v))

    def optional_leaf(self, shape, dtype: str, chance: float = 0.6):
        """A new leaf (weight, bias) of `shape`, or None."""
        return self.leaf(shape, dtype=dtype) if self.rng.random() < chance else None

    def spread(self, var, grouped_shape, axes) -> bool:
        """Whether every group normalised over `axes` (of the values viewed as `grouped_shape`)
        has a standard deviation of at least 0.2 and of a fifth of its mean's magnitude: in
        near-constant groups x - mean cancels, and 1 / std magnifies the kernels' rounding
        (seed 30778: two equal values; seed 31882: std 0.11 around 1.65, a 1e-5 gradient
        difference). Groups of two are refused: normalised, they are +-1 whatever the values,
        so the input's gradient is rounding noise (seed 40646: 3.27e-05 against 3.29e-05)."""
        values = self.value(var).detach().double().numpy().reshape(grouped_shape)
        std = values.std(axis=axes)
        if values.size == 2 * std.size:
            return False
        mean = np.abs(values.mean(axis=axes))
        return bool(((std >= 0.2) & (std >= mean / 5)).all())

    def observe_after(self, statement: str, *variables) -> None:
        """Record `variables` after the last kept statement (an op that also wrote them)."""
        self.lines[-1][1].extend(f"O.see({statement!r}, {v.name})" for v in variables)

    # -- nn.functional ---------------------------------------------------------------------------

    def op_nn_linear(self):
        rng = self.rng
        var = self.float_var(lambda v: 1 <= len(self.shape(v)) <= 3)
        if var is None:
            return None
        dtype = self.dtype_name(var)
        weight = self.leaf((rng.choice([1, 2, 3]), self.shape(var)[-1]), dtype=dtype)
        bias = self.optional_leaf(self.shape(weight)[:1], dtype)
        if bias is None:
            form = f"{F}.linear({var.name}, {weight.name})"
        else:
            form = rng.choice([f"{F}.linear({var.name}, {weight.name}, {bias.name})",
                               f"{F}.linear({var.name}, {weight.name}, bias={bias.name})"])
        inputs = [var, weight] + ([bias] if bias else [])
        return self.emit(form, "nn_linear", inputs=inputs, saves=True)

    def op_nn_conv(self):
        rng = self.rng
        var = self.float_var(lambda v: len(self.shape(v)) in (2, 3) and 0 not in self.shape(v))
        if var is None:
            return None
        shape, dtype = self.shape(var), self.dtype_name(var)
        out_channels = rng.choice([1, 2])
        if len(shape) == 2 or rng.random() < 0.5:  # conv1d: (C, L) or (N, C, L)
            channels, length = shape[-2], shape[-1]
            kernel = (rng.randint(1, min(length, 3)),)
            stride = rng.choice([1, 2])
            padding = rng.choice([0, 1] + (["'same'"] if stride == 1 else []))
            function = "conv1d"
        else:  # conv2d of an unbatched (C, H, W) input
            channels, height, width = shape
            kernel = (rng.randint(1, min(height, 2)), rng.randint(1, min(width, 3)))
            stride = rng.choice([1, (1, 2)])
            padding = rng.choice([0, 1, (0, 1)])
            function = "conv2d"
        weight = self.leaf((out_channels, channels, *kernel), dtype=dtype)
        bias = self.optional_leaf((out_channels,), dtype)
        spelled = f", {bias.name}" if bias else ""
        form = f"{F}.{function}({var.name}, {weight.name}{spelled}, stride={stride}, " \
               f"padding={padding})"
        inputs = [var, weight] + ([bias] if bias else [])
        return self.emit(form, "nn_conv", inputs=inputs, saves=True)

    def op_nn_norm(self):
        rng = self.rng
        var = self.float_var(lambda v: len(self.shape(v)) >= 1 and _numel(self.shape(v)) >= 2)
        if var is None:
            return None
        shape, dtype, v = self.shape(var), self.dtype_name(var), var.name
        kind = rng.choice(["layer_norm", "group_norm", "batch_norm"])
        if kind == "layer_norm" or len(shape) < 2:
            normalized = shape[-rng.randint(1, min(2, len(shape))):]
            count = len(normalized)
            if _numel(normalized) < 2 or not self.spread(
                    var, shape, tuple(range(len(shape) - count, len(shape)))):
                return None
            weight = self.optional_leaf(normalized, dtype)
            bias = self.optional_leaf(normalized, dtype, 0.4)
            extra = (f", {weight.name if weight else None}" + (f", {bias.name}" if bias else "")
                     if weight or bias else "")
            eps = rng.choice(["", ", eps=1e-3"])
            spelled = rng.choice([repr(tuple(normalized)), repr(list(normalized))])
            form = f"{F}.layer_norm({v}, {spelled}{extra}{eps})"
            inputs = [var] + [t for t in (weight, bias) if t]
            return self.emit(form, "nn_norm", inputs=inputs, saves=True)
        channels = shape[1]
        weight = self.optional_leaf((channels,), dtype, 0.5)
        bias = self.optional_leaf((channels,), dtype, 0.5)
        affine = (f", weight={weight.name}" if weight else "") + \
                 (f", bias={bias.name}" if bias else "")
        inputs = [var] + [t for t in (weight, bias) if t]
        if kind == "group_norm":
            groups = rng.choice([g for g in range(1, channels + 1) if channels % g == 0])
            if channels // groups * _numel(shape[2:]) < 2 or not self.spread(
                    var, (shape[0], groups, -1), (2,)):
                return None
            form = f"{F}.group_norm({v}, {groups}{affine})"
            return self.emit(form, "nn_norm", inputs=inputs, saves=True)
        if len(shape) > 3:
            return None
        training = rng.random() < 0.6
        if training and not self.spread(var, shape, (0,) + tuple(range(2, len(shape)))):
            return None
        stats = []
        # Running statistics only in eval mode: a training step writes them, and torch's kernel
        # does so without a version bump where leafgrad's copy_ bumps (an open item: leafgrad.
        # compile's replay of that copy_ bumps too, and its tests hold eager to the same count)
        if not training:
            mean = self.emit(f"lib.zeros({channels}, dtype=lib.{dtype})", "running_stat")
            variance = self.emit(f"lib.ones({channels}, dtype=lib.{dtype}) * 1.5",
                                 "running_stat")
            if mean is None or variance is None:
                return None
            stats = [mean, variance]
        running = ", ".join(s.name for s in stats) if stats else "None, None"
        momentum = rng.choice(["", ", momentum=0.5"])
        form = f"{F}.batch_norm({v}, {running}{affine}, training={training}{momentum})"
        result = self.emit(form, "nn_norm", inputs=inputs, saves=True)
        if result is not None and stats:
            self.observe_after("running stats", *stats)
        return result

    def op_nn_dropout(self):
        rng = self.rng
        var = self.float_var()
        if var is None:
            return None
        statement = f"lib.manual_seed({rng.randint(0, 999)})"
        if not self.attempt(statement):
            return None
        self.keep(statement, "manual_seed", [])
        p = rng.choice([0.2, 0.5, 0.0])
        v = var.name
        form = rng.choice([f"{F}.dropout({v}, p={p})", f"{F}.dropout({v}, {p}, training=False)",
                           f"lib.dropout({v}, {p}, True)", f"{F}.dropout({v}, {p}, True)"])
        return self.emit(form, "nn_dropout", inputs=[var], saves=True)

    def op_nn_embedding(self):
        rng = self.rng
        weight = self.float_var(lambda v: len(self.shape(v)) == 2 and self.shape(v)[0] >= 1)
        if weight is None or rng.random() < 0.4:
            weight = self.leaf((rng.choice([3, 4]), rng.choice([1, 2, 3])),
                               dtype=rng.choice(["float32", "float64"]))
        rows = self.shape(weight)[0]
        indices = self.np_rng.integers(0, rows, size=rng.choice([(), (2,), (2, 3)]))
        padding = rng.choice(["", "", f", padding_idx={rng.randint(-rows, rows - 1)}"])
        scale = rng.choice(["", "", ", scale_grad_by_freq=True"])
        form = f"{F}.embedding({_tensor_literal(indices)}, {weight.name}{padding}{scale})"
        return self.emit(form, "nn_embedding", inputs=[weight])

    def op_nn_pad(self):
        rng = self.rng
        var = self.pick(lambda v: len(self.shape(v)) >= 1 and not self.is_bool(v))
        if var is None:
            return None
        shape, v = self.shape(var), var.name
        mode = rng.choice(["constant", "constant", "reflect", "replicate", "circular"])
        two_dims = len(shape) >= 3 and rng.random() < 0.5
        if mode != "constant" and not (2 <= len(shape) <= 3 or two_dims and len(shape) == 4):
            return None
        if mode != "constant" and not self.is_float(var):
            return None
        pad = []
        for size in (shape[-1], shape[-2]) if two_dims else (shape[-1],):
            limit = {"reflect": size - 1, "circular": size}.get(mode, 2)
            pad += [rng.randint(0, max(limit, 0)), rng.randint(0, max(limit, 0))]
        if mode == "constant" and shape[-1] > 1 and rng.random() < 0.2:
            pad[0] = -1  # a negative pad crops
        if mode == "constant":
            number = rng.choice([None, 0.5, -1.0]) if self.is_float(var) else rng.choice([None, 2])
            value = "" if number is None else f", value={number}"
            form = rng.choice([f"{F}.pad({v}, {tuple(pad)!r}{value})",
                               f"{F}.pad({v}, {pad!r}, mode='constant'{value})"])
        else:
            form = f"{F}.pad({v}, {tuple(pad)!r}, mode={mode!r})"
        return self.emit(form, "nn_pad", inputs=[var])

    def op_nn_interpolate(self):
        rng = self.rng
        var = self.float_var(lambda v: len(self.shape(v)) in (2, 3) and 0 not in self.shape(v))
        if var is None:
            return None
        shape, v = self.shape(var), var.name
        if len(shape) == 2 or rng.random() < 0.5:  # 1-d: (N, C, L)
            x = f"{v}[None]" if len(shape) == 2 else v
            mode = rng.choice(["nearest", "linear", "nearest-exact"])
            length = shape[-1]
            size = rng.choice([f"size={length * 2}", f"size={length + 1}", "scale_factor=2",
                               "scale_factor=1.5"])
        else:  # 2-d: (1, C, H, W)
            x = f"{v}[None]"
            mode = rng.choice(["nearest", "bilinear", "bicubic"])
            size = rng.choice([f"size=({shape[-2] + 1}, {shape[-1] * 2})", "scale_factor=2",
                               "scale_factor=(1.5, 2)"])
        align = ""
        if mode in ("linear", "bilinear", "bicubic"):
            align = rng.choice(["", ", align_corners=True", ", align_corners=False"])
        form = f"{F}.interpolate({x}, {size}, mode={mode!r}{align})"
        return self.emit(form, "nn_interpolate", inputs=[var], saves=True)

    def op_nn_loss(self):
        rng = self.rng
        var = self.float_var(lambda v: _numel(self.shape(v)) >= 1)
        if var is None:
            return None
        shape, dtype, v = self.shape(var), self.dtype_name(var), var.name
        value = self.value(var)
        reduction = rng.choice(["", ", reduction='sum'", ", reduction='none'",
                                ", reduction='mean'"])
        kind = rng.choice(["pointwise", "pointwise", "cross_entropy", "nll", "bce",
                           "bce_logits", "kl_div"])
        if kind == "pointwise":
            name = rng.choice(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
            code, other, number = self.partner(var, grow=False, scalar_ok=False)
            if other is None or not self.is_float(other):
                return None
            difference = value.detach().double() - self.value(other).detach().double()
            extra = {"smooth_l1_loss": rng.choice(["", ", beta=0.5"]),
                     "huber_loss": rng.choice(["", ", delta=0.5"])}.get(name, "")
            kinks = [0.0] if name != "mse_loss" else []
            if extra or name in ("smooth_l1_loss", "huber_loss"):
                edge = 0.5 if extra else 1.0
                kinks += [edge, -edge]
            if not all(self.far_from(difference, k) for k in kinks):
                return None
            form = f"{F}.{name}({v}, {code}{extra}{reduction})"
            return self.emit(form, "nn_loss", inputs=[var, other], saves=True)
        if kind in ("cross_entropy", "nll"):
            if len(shape) > 3:
                return None
            classes = shape[0] if len(shape) == 1 else shape[1]
            batch = () if len(shape) == 1 else (shape[0],) + shape[2:]
            target = _tensor_literal(self.np_rng.integers(0, classes, size=batch))
            extra = ""
            if rng.random() < 0.4:
                weights = np.round(self.np_rng.uniform(0.5, 2, size=classes), 2)
                extra += f", weight={_tensor_literal(weights, dtype)}"
            if rng.random() < 0.2:
                extra += f", ignore_index={rng.randint(0, classes - 1)}"
            x = v
            if kind == "nll":
                x, name = f"{v}.log_softmax({0 if len(shape) == 1 else 1})", "nll_loss"
            else:
                name = "cross_entropy"
                if rng.random() < 0.3:
                    extra += ", label_smoothing=0.1"
                if rng.random() < 0.25 and "ignore_index" not in extra:  # class probabilities
                    probabilities = self.leaf(shape, dtype=dtype)
                    target = f"{probabilities.name}.softmax({0 if len(shape) == 1 else 1})"
            form = f"{F}.{name}({x}, {target}{extra}{reduction})"
            return self.emit(form, "nn_loss", inputs=[var], saves=True)
        if kind == "kl_div":
            other = self.leaf(shape, dtype=dtype)
            log_target = rng.random() < 0.3
            target = f"{other.name}.{'log_softmax' if log_target else 'softmax'}(-1)"
            if rng.random() < 0.3:
                reduction = ", reduction='batchmean'"
            extra = ", log_target=True" if log_target else ""
            form = f"{F}.kl_div({v}.log_softmax(-1), {target}{reduction}{extra})"
            return self.emit(form, "nn_loss", inputs=[var, other], saves=True)
        target = _tensor_literal(np.round(self.np_rng.uniform(0, 1, size=shape), 3), dtype)
        extra = ""
        if kind == "bce":
            if rng.random() < 0.4:
                weights = np.round(self.np_rng.uniform(0.5, 2, size=shape[-1:]), 2)
                extra = f", weight={_tensor_literal(weights, dtype)}"
            form = f"{F}.binary_cross_entropy({v}.sigmoid(), {target}{extra}{reduction})"
        else:
            if rng.random() < 0.4:
                weights = np.round(self.np_rng.uniform(0.5, 2, size=shape[-1:]), 2)
                extra = f", pos_weight={_tensor_literal(weights, dtype)}"
            form = f"{F}.binary_cross_entropy_with_logits({v}, {target}{extra}{reduction})"
        return self.emit(form, "nn_loss", inputs=[var], saves=True)

    # -- type promotion, out=, grad modes ------------------------------------------------------

    def op_promote(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        if var is None:
            return None
        shape, v = self.shape(var), var.name
        kind = rng.choice(["int", "bool", "zero_d", "int_number", "int_int"])
        op = rng.choice(["+", "*", "-"])
        if kind == "int":
            other = self.leaf(self.broadcast_partner_shape(shape, grow=False), dtype="int64")
            form = rng.choice([f"{v} {op} {other.name}", f"{other.name} {op} {v}",
                               f"lib.add({other.name}, {v}, alpha=2)"])
        elif kind == "bool":
            mask = self.np_rng.random(self.broadcast_partner_shape(shape, grow=False)) < 0.5
            other = self.emit(_tensor_literal(mask), "bool_leaf")
            if other is None:
                return None
            form = rng.choice([f"{v} + {other.name}", f"{other.name} * {v}",
                               f"lib.where({other.name}, {v}, 2)"])
        elif kind == "zero_d":
            dtype = rng.choice(["float64", "float32", "int64"])
            other = self.leaf((), dtype=dtype)
            form = rng.choice([f"{v} {op} {other.name}", f"{other.name} {op} {v}",
                               f"lib.mul({v}, {other.name})"])
        else:
            ints = self.pick(lambda c: self.dtype_name(c) == "int64")
            if ints is None:
                ints = self.leaf(shape or (3,), dtype="int64")
            other = None
            if kind == "int_number":
                form = rng.choice([f"{ints.name} * 1.5", f"{ints.name} / 2", f"0.5 - {ints.name}",
                                   f"{ints.name} // 2", f"lib.true_divide({ints.name}, 4)"])
            else:
                partner = self.leaf(self.broadcast_partner_shape(self.shape(ints), grow=False),
                                    dtype="int64")
                form = rng.choice([f"{ints.name} / {partner.name}",
                                   f"{ints.name}.div({partner.name}, rounding_mode='floor')",
                                   f"{ints.name} * {partner.name} + {v}"])
            var = ints
        inputs = [var] + ([other] if other is not None else [])
        return self.emit(form, "promote", inputs=inputs, saves=True)

    def op_out(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        if var is None:
            return None
        v = var.name
        calls = [f"lib.add({v}, 1.5, out=OUT)", f"lib.mul({v}, {v}, out=OUT)",
                 f"lib.sub({v}, 2, alpha=0.5, out=OUT)", f"lib.sum({v}, 0, out=OUT)",
                 f"lib.cat([{v}, {v}], out=OUT)", f"lib.neg({v}, out=OUT)"]
        if self.is_float(var):
            calls += [f"lib.exp({v}.tanh(), out=OUT)", f"lib.tanh({v}, out=OUT)",
                      f"lib.clamp({v}, -0.5, 0.5, out=OUT)"]
        call = rng.choice(calls)
        if "clamp" in call and not (self.far_from(self.value(var), -0.5)
                                    and self.far_from(self.value(var), 0.5)):
            return None
        guard = rng.choice(["with lib.no_grad(): ", "detach"])
        if guard == "detach":
            call, guard = call.replace(v, f"{v}.detach()"), ""
        try:
            probe = eval(call.replace(", out=OUT", ""), dict(self.ns))
        except Exception:  # noqa: BLE001 - torch refused the call itself
            return None
        dtype = str(probe.dtype).removeprefix("torch.")
        shape = rng.choice([tuple(probe.shape), tuple(probe.shape), (0,), (2,)])
        buffer = self.emit(f"lib.zeros({shape!r}, dtype=lib.{dtype})", "out_buffer")
        if buffer is None:
            return None
        return self.emit(call.replace("OUT", buffer.name), "out", inputs=[var],
                         view_of=buffer, prefix=guard)

    def op_grad_mode(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v))
        if var is None:
            return None
        v, ndim = var.name, len(self.shape(var))
        mode = rng.choice(["with lib.no_grad(): ", "with lib.enable_grad(): ",
                           "with lib.no_grad(), lib.enable_grad(): ",
                           "with lib.set_grad_enabled(False): ", "with lib.inference_mode(): ",
                           "with lib.inference_mode(False): "])
        forms = [(f"{v} * 2", False), (f"{v} + {v}", False), (f"{v}.sum()", False),
                 (f"{v}.unsqueeze(0)", True)]
        if self.is_float(var):
            forms.append((f"{v}.sin()", False))
        if ndim:
            forms.append((f"{v}[0]", True))
        if ndim <= 2:
            forms.append((f"{v}.t()", True))
        expr, view = rng.choice(forms)
        return self.emit(expr, "grad_mode", inputs=[var], view_of=var if view else None,
                         saves=True, prefix=mode)

    # -- autograd state: toggles, retain_grad on views, hooks ----------------------------------

    def op_toggle(self):
        rng = self.rng
        kind = rng.choice(["detach_", "requires_grad_off", "requires_grad_on"])
        if kind == "detach_":
            var = self.pick(lambda v: not self.value(v).is_leaf and self.value(v)._base is None)
            statement = f"{var.name}.detach_()" if var else None
        elif kind == "requires_grad_off":
            var = self.pick(lambda v: self.value(v).is_leaf and self.value(v).requires_grad)
            statement = var and rng.choice([f"{var.name}.requires_grad_(False)",
                                            f"{var.name}.requires_grad = False"])
        else:
            var = self.pick(lambda v: self.value(v).is_leaf and self.is_float(v)
                            and not self.value(v).requires_grad and not v.expanded)
            statement = var and rng.choice([f"{var.name}.requires_grad_()",
                                            f"{var.name}.requires_grad = True"])
        if var is None or not self.attempt(statement):
            return None
        if kind == "requires_grad_on":
            self.grad_leaf_groups.add(var.group)
        self.keep(statement, "toggle", [f"O.see({statement!r}, {var.name})"])
        return var

    def op_view_retain_grad(self):
        rng = self.rng
        var = self.pick(lambda v: self.value(v).requires_grad and len(self.shape(v)) >= 1)
        if var is None:
            return None
        v = var.name
        form = rng.choice([f"{v}[0]", f"{v}.view(-1)", f"{v}.unsqueeze(0)",
                           f"{v}.transpose(0, -1)", f"{v}[..., :1]"])
        view = self.emit(form, "view", inputs=[var], view_of=var)
        if view is None:
            return None
        statement = f"{view.name}.retain_grad()"
        if not self.attempt(statement):
            return None
        self.keep(statement, "view_retain_grad", [f"O.see('{view.name} retains grad', "
                                                  f"{view.name})"])
        return view

    def op_hook(self):
        rng = self.rng
        var = self.pick(lambda v: self.value(v).requires_grad)
        if var is None:
            return None
        v = var.name
        value = self.value(var)
        hooks = [f"{v}.register_hook(lambda g: g * 2)",
                 f"{v}.register_hook(lambda g: g + 1)",
                 f"{v}.register_hook(lambda g: O.see('hook on {v}', g, grad=True))",
                 f"_handle = {v}.register_hook(lambda g: g * 0); _handle.remove()"]
        if value.is_leaf:
            hooks.append(f"{v}.register_post_accumulate_grad_hook("
                         f"lambda p: O.see('{v}.grad after accumulating', p.grad, grad=True))")
        elif value.grad_fn is not None:
            hooks.append(f"{v}.grad_fn.register_prehook("
                         f"lambda go: O.see('prehook of {v}.grad_fn', go, grad=True))")
            hooks.append(f"{v}.grad_fn.register_hook("
                         f"lambda gi, go: O.see('hook of {v}.grad_fn', gi, grad=True))")
        statement = rng.choice(hooks)
        if not self.attempt(statement):
            return None
        self.keep(statement, "hook", [])
        return var

    # -- differentiation: clearing .grad between two passes -------------------------------------

    def retain_and_clear_steps(self, scalar: str, leaves) -> list[str]:
        rng = self.rng
        steps = [f"s = {scalar}", "s.backward(retain_graph=True)", "O.grads()"]
        for leaf in leaves:
            steps.append(rng.choice([f"{leaf.name}.grad = None",
                                     f"if {leaf.name}.grad is not None: "
                                     f"{leaf.name}.grad.zero_()"]))
        steps.append("s.backward()")
        return steps
