"""The wide op set of the program generator (programs.py; seeds from WIDE_SEED0 on).

What users write that the other op sets leave thin: non-contiguous operands (transposes,
slices with steps, expands, diagonals) fed straight into elementwise ops, activations,
reductions and matmul; empty tensors through reductions, softmax, cat and matmul; integer,
bool, float16, bfloat16 and complex tensors mixed with Python scalars and with float tensors
that require grad; reductions over dim tuples with keepdim and dtype=; in-place ops on views
of non-leaves and on views of leaves that do not require grad (which become non-leaves through
CopySlices); index writes with broadcasting (setitem with tensor indices and masks, index_put_
with accumulate, index_add_, scatter_/scatter_add_, masked_scatter_, their out-of-place forms);
out= forms with buffers of the wrong size (the resize warning) and non-contiguous buffers; and
hooks that change gradients (tensor hooks, a node's hooks and pre-hooks returning new
gradients, post-accumulate hooks scaling .grad in place).

Seeds below WIDE_SEED0 never draw from this set, so the suite's seeds 0-399 keep their programs.
`WideOps` is a mixin of programs._Generator like the other op sets.
"""

from __future__ import annotations

import numpy as np

F = "lib.nn.functional"
WIDE_SEED0 = 10_000_000

UNARY = ["exp", "expm1", "sin", "atan", "erf", "tanh", "sigmoid", "square", "sinh", "neg",
         "abs", "sign", "floor", "trunc", "frac", "round", "log1p", "rsqrt", "reciprocal", "log2"]
ACTIVATIONS = ["gelu", "silu", "elu", "softplus", "leaky_relu", "hardtanh", "logsigmoid", "mish",
               "relu6", "hardswish", "selu", "celu", "softsign", "tanhshrink"]
# where these ops have a kink, inputs must stay away from it (see programs.KINK)
KINKS = {"abs": 0.0, "sign": 0.0, "floor": None, "trunc": None, "frac": None, "round": None,
         "elu": 0.0, "leaky_relu": 0.0, "hardtanh": (-1.0, 1.0), "relu6": (0.0, 6.0),
         "hardswish": (-3.0, 3.0), "selu": 0.0, "celu": 0.0}
POSITIVE = {"log1p": -0.9, "rsqrt": 0.1, "reciprocal": 0.1, "log2": 0.1}


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


class WideOps:
    # (method, weight): how often each family is tried on wide seeds
    WIDE_OPS = (
        ("op_wide_strided", 4),
        ("op_wide_dtype", 3),
        ("op_wide_empty", 1.5),
        ("op_wide_reduce", 3),
        ("op_wide_view_inplace", 3),
        ("op_wide_index_write", 2.5),
        ("op_wide_out", 1.5),
        ("op_wide_hook", 2),
    )

    # -- helpers ---------------------------------------------------------------------------------

    def wide_leaf(self, shape, dtype: str, requires_grad: bool = False):
        """A leaf of any dtype (int32/int16/uint8/bool/float16/bfloat16/complex64 too)."""
        rng = self.np_rng
        if dtype == "bool":
            array = rng.random(shape) < 0.5
        elif dtype in ("int64", "int32", "int16", "int8"):
            array = rng.integers(-4, 5, size=shape)
        elif dtype == "uint8":
            array = rng.integers(0, 7, size=shape)
        elif dtype.startswith("complex"):
            array = np.round(rng.uniform(-2, 2, size=shape) * 4) / 4 \
                + 1j * np.round(rng.uniform(-2, 2, size=shape) * 4) / 4
        else:
            array = np.round(rng.uniform(-2, 2, size=shape) * 64) / 64
        grad = ", requires_grad=True" if requires_grad else ""
        form = f"lib.tensor({np.asarray(array).tolist()!r}, dtype=lib.{dtype}{grad})"
        var = self.emit(form, "wide_leaf")
        if var is not None and requires_grad:
            self.grad_leaf_groups.add(var.group)
        return var

    def wide_kink_ok(self, name: str, value) -> bool:
        point = KINKS.get(name, "none")
        if point == "none":
            return True
        if point is None:  # piecewise constant: away from every integer and half-integer
            if not value.dtype.is_floating_point:
                return True
            doubled = value.detach().double() * 2
            return bool(((doubled - doubled.round()).abs() > 1e-3).all())
        points = point if isinstance(point, tuple) else (point,)
        return all(self.far_from(value, p) for p in points)

    def strided_view(self, var):
        """(code, is_view) for a non-contiguous view (or expand) of `var`, or None."""
        rng = self.rng
        shape = self.shape(var)
        v = var.name
        choices = []
        if len(shape) >= 2:
            choices += [f"{v}.t()" if len(shape) == 2 else f"{v}.transpose(0, -1)",
                        f"{v}.mT", f"{v}.permute({', '.join(map(str, range(len(shape))[::-1]))})",
                        f"{v}.diagonal(0, -2, -1)" if len(shape) == 3 else f"{v}.diagonal()",
                        f"{v}[:, ::2]"]
        if len(shape) >= 1:
            choices += [f"{v}[::2]", f"{v}[1::2]",
                        f"{v}.unsqueeze(0).expand(2, *{v}.shape)", f"{v}[..., 1:]"]
        else:
            choices += [f"{v}.expand(3)", f"{v}.expand(2, 2)"]
        return rng.choice(choices)

    # -- non-contiguous operands -----------------------------------------------------------------

    def op_wide_strided(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v) and 0 not in self.shape(v))
        if var is None:
            return None
        code = self.strided_view(var)
        view = self.emit(code, "wide_view", inputs=[var], view_of=var)
        if view is None:
            return None
        if "expand" in code:
            view.expanded = True
        value, w = self.value(view), view.name
        is_float = value.dtype.is_floating_point
        kind = rng.choice(["unary", "activation", "binary", "reduce", "matmul", "cum"])
        if kind == "unary":
            name = rng.choice(UNARY)
            if name in POSITIVE:
                if not is_float or not bool((value > POSITIVE[name]).all()):
                    return None
            if not self.wide_kink_ok(name, value):
                return None
            form = rng.choice([f"{w}.{name}()", f"lib.{name}({w})"])
            return self.emit(form, "wide_unary_strided", inputs=[view], saves=True)
        if kind == "activation":
            if not is_float:
                return None
            name = rng.choice(ACTIVATIONS)
            if not self.wide_kink_ok(name, value):
                return None
            return self.emit(f"{F}.{name}({w})", "wide_activation_strided", inputs=[view],
                             saves=True)
        if kind == "binary":
            other = self.pick(lambda o: not self.is_bool(o) and o is not view
                              and self._broadcast_ok(o, view))
            if other is None:
                return None
            ocode = other.name
            if rng.random() < 0.5 and len(self.shape(other)) >= 2:
                ocode = f"{other.name}.transpose(-1, -2)"
                try:
                    joint = np.broadcast_shapes(tuple(self.value(other).mT.shape),
                                                self.shape(view))
                except ValueError:
                    ocode = other.name
                else:
                    if _numel(joint) > 48:
                        ocode = other.name
            op = rng.choice(["+", "-", "*", "atan2", "maximum", "hypot", "sub_alpha"])
            if op in ("atan2", "hypot", "maximum") and not (is_float and self.is_float(other)):
                return None
            if op == "atan2":
                form = f"lib.atan2({w}, {ocode})"
                if not self.far_from(self.value(other), 0.0) or not self.far_from(value, 0.0):
                    return None
            elif op == "hypot":
                form = f"lib.hypot({w}, {ocode})"
                if not self.far_from(value, 0.0):
                    return None
            elif op == "maximum":
                try:
                    difference = eval(f"({w} - {ocode}).detach().double()", dict(self.ns))
                except Exception:  # noqa: BLE001 - torch refused
                    return None
                if not self.far_from(difference, 0.0):
                    return None
                form = f"lib.maximum({w}, {ocode})"
            elif op == "sub_alpha":
                form = f"lib.sub({ocode}, {w}, alpha=2)"
            else:
                form = rng.choice([f"{w} {op} {ocode}", f"{ocode} {op} {w}"])
            return self.emit(form, "wide_binary_strided", inputs=[view, other], saves=True)
        if kind == "reduce":
            dims = len(self.shape(view))
            dim = rng.randint(-dims, dims - 1) if dims else 0
            keep = rng.choice(["", ", keepdim=True"])
            options = [f"{w}.sum({dim}{keep})", f"lib.mean({w}, {dim}{keep})" if is_float
                       else f"{w}.sum()", f"{w}.prod({dim}{keep})", f"{w}.norm()" if is_float
                       and self.far_from(value, 0.0) else f"{w}.sum()"]
            if is_float and _numel(self.shape(view)) >= 2:
                options += [f"{w}.var({dim}{keep})" if self.shape(view)[dim] >= 2
                            else f"{w}.std()", f"lib.logsumexp({w}, {dim}{keep})",
                            f"{F}.softmax({w}, {dim})", f"{F}.log_softmax({w}, {dim})"]
            return self.emit(rng.choice(options), "wide_reduce_strided", inputs=[view],
                             saves=True)
        if kind == "cum":
            dims = len(self.shape(view))
            dim = rng.randint(-dims, dims - 1) if dims else 0
            form = rng.choice([f"{w}.cumsum({dim})", f"lib.cumprod({w}, {dim})",
                               f"lib.cummax({w}, {dim})[0]", f"{w}.logcumsumexp({dim})"
                               if is_float else f"{w}.cumsum({dim})"])
            if "cummax" in form:
                flat = value.detach().double().flatten()
                if flat.numel() != flat.unique().numel():
                    return None
            return self.emit(form, "wide_cum_strided", inputs=[view], saves=True)
        # matmul with a transposed / strided partner
        shape = self.shape(view)
        if not is_float or not 1 <= len(shape) <= 3:
            return None
        other = self.pick(lambda o: self.is_float(o) and len(self.shape(o)) >= 1
                          and self.value(o).dtype == value.dtype
                          and self.shape(o)[-1] == shape[-1])
        if other is None:
            other = self.wide_leaf((rng.choice([1, 2, 3]), shape[-1]), self.dtype_name(view),
                                   requires_grad=rng.random() < 0.6)
            if other is None:
                return None
        o = other.name
        form = rng.choice([f"{w} @ {o}.mT" if len(self.shape(other)) >= 2 else f"{w} @ {o}",
                           f"lib.matmul({w}, {o}.transpose(-1, -2))"
                           if len(self.shape(other)) >= 2 else f"lib.matmul({w}, {o})"])
        return self.emit(form, "wide_matmul_strided", inputs=[view, other], saves=True)

    def _broadcast_ok(self, a, b) -> bool:
        try:
            joint = np.broadcast_shapes(self.shape(a), self.shape(b))
        except ValueError:
            return False
        return _numel(joint) <= 48

    # -- dtypes and Python scalars ---------------------------------------------------------------

    def op_wide_dtype(self):
        rng = self.rng
        dtype = rng.choice(["int32", "int16", "uint8", "int8", "bool", "float16", "bfloat16",
                            "complex64", "complex128", "float16"])
        base = self.pick()
        shape = self.shape(base) if base is not None and rng.random() < 0.6 else \
            rng.choice([(), (3,), (2, 3), (3, 1)])
        floating = dtype in ("float16", "bfloat16")
        leaf = self.wide_leaf(shape, dtype, requires_grad=(floating or dtype.startswith(
            "complex")) and rng.random() < 0.5)
        if leaf is None:
            return None
        x = leaf.name
        scalar = rng.choice(["2", "-1", "0.5", "True", "1.5", "3", "-2.25", "0"])
        kind = rng.choice(["scalar", "scalar", "tensor", "unary", "compare", "where", "cast"])
        if kind == "scalar":
            op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<"])
            form = rng.choice([f"{x} {op} {scalar}", f"{scalar} {op} {x}"])
            if op in ("/", "//", "%") and form.startswith(scalar):
                if not bool((self.value(leaf) != 0).all()):
                    return None
            if op in ("//", "%") and dtype.startswith("complex"):
                return None
            if op in ("**",) and form.startswith(scalar) and scalar in ("0", "-1", "-2.25"):
                return None
            return self.emit(form, "wide_dtype_scalar", inputs=[leaf], saves=True)
        if kind == "tensor":
            other = self.pick(lambda o: o is not leaf and self._broadcast_ok(o, leaf))
            if other is None:
                return None
            op = rng.choice(["+", "-", "*", "/", "maximum", "add_alpha", "mul"])
            if op == "/" and not bool((self.value(leaf) != 0).all()):
                return None
            if op == "maximum":
                form = f"lib.maximum({other.name}, {x})"
                try:
                    diff = eval(f"({other.name}.detach() - {x}.detach()).abs().double()",
                                dict(self.ns))
                    if not bool(((diff == 0) | (diff > 1e-3)).all()) or bool((diff == 0).any()):
                        return None
                except Exception:  # noqa: BLE001 - torch refused
                    return None
            elif op == "add_alpha":
                form = f"lib.add({other.name}, {x}, alpha={rng.choice([2, 0.5, True])})"
            elif op == "mul":
                form = f"{other.name}.mul({x})"
            else:
                form = rng.choice([f"{other.name} {op} {x}", f"{x} {op} {other.name}"])
                if form.startswith(other.name) is False and op == "/" and not bool(
                        (self.value(other) != 0).all()):
                    return None
            return self.emit(form, "wide_dtype_tensor", inputs=[leaf, other], saves=True)
        if kind == "unary":
            name = rng.choice(["abs", "neg", "sign", "square", "exp", "sqrt", "sum", "mean",
                               "prod", "cumsum", "logical_not", "bitwise_not", "clamp",
                               "float", "double", "half", "to_int"])
            form = {"sum": f"{x}.sum()", "mean": f"{x}.mean()", "prod": f"{x}.prod(-1)"
                    if shape else f"{x}.prod()", "cumsum": f"{x}.cumsum(0)",
                    "clamp": f"{x}.clamp(min={scalar})", "to_int": f"{x}.to(lib.int32)",
                    "logical_not": f"lib.logical_not({x})",
                    "bitwise_not": f"~{x}"}.get(name, f"{x}.{name}()")
            if name in ("abs", "sign") and not self.far_from(self.value(leaf), 0.0):
                return None
            return self.emit(form, "wide_dtype_unary", inputs=[leaf], saves=True)
        if kind == "compare":
            op = rng.choice(["<", ">=", "==", "!="])
            form = rng.choice([f"{x} {op} {scalar}", f"lib.eq({x}, {scalar})",
                               f"({x} {op} {scalar}).sum()", f"lib.isclose({x}, {x} * 1)"])
            return self.emit(form, "wide_dtype_compare", inputs=[leaf])
        if kind == "where":
            form = rng.choice([f"lib.where({x} > 0, {x}, {scalar})",
                               f"lib.where({x} != 0, {scalar}, {x})",
                               f"{x}.masked_fill({x} == 0, {scalar})"])
            return self.emit(form, "wide_dtype_where", inputs=[leaf])
        target = rng.choice(["float32", "float64", "int64", "bool", "float16", "complex64"])
        other = self.pick(lambda o: o is not leaf)
        if other is not None and rng.random() < 0.5:
            return self.emit(f"{x}.to({other.name})", "wide_dtype_cast", inputs=[leaf])
        return self.emit(rng.choice([f"{x}.to(lib.{target})", f"{x}.type(lib.{target})",
                                     f"lib.as_tensor({x}, dtype=lib.{target})"]),
                         "wide_dtype_cast", inputs=[leaf])

    # -- empty tensors ---------------------------------------------------------------------------

    def op_wide_empty(self):
        rng = self.rng
        var = self.pick(lambda v: len(self.shape(v)) >= 1 and not self.is_bool(v))
        if var is None:
            return None
        v = var.name
        shape = self.shape(var)
        dim = rng.randint(0, len(shape) - 1)
        code = rng.choice([f"{v}[{':, ' * dim}:0]", f"{v}.narrow({dim}, 0, 0)",
                           f"{v}[{':, ' * dim}1:1]"])
        empty = self.emit(code, "wide_empty_view", inputs=[var], view_of=var)
        if empty is None:
            return None
        e = empty.name
        is_float = self.is_float(empty)
        forms = [f"{e}.sum()", f"{e}.sum({dim})", f"{e}.sum({dim}, keepdim=True)",
                 f"{e}.prod()", f"lib.cat([{e}, {v}], {dim})", f"{e} * 2",
                 f"{e}.reshape(-1)", f"{e}.amax({dim - 1})" if len(shape) > 1 and dim else
                 f"{e}.sum({dim})", f"{e}.cumsum({dim})", f"lib.stack([{e}, {e}])",
                 f"{e}.flip({dim})", f"{e}.mean()" if is_float else f"{e}.sum()"]
        if is_float:
            forms += [f"{F}.softmax({e}, {dim})", f"{e}.exp()", f"lib.logsumexp({e}, {dim})",
                      f"{e}.norm()", f"{e} @ {e}.mT" if len(shape) >= 2 else f"{e} @ {e}",
                      f"{e}.mT @ {e}" if len(shape) >= 2 else f"{e}.dot({e})",
                      f"{e}.std({dim})", f"{e}.max({dim - 1})[0]" if len(shape) > 1 and dim
                      else f"{e}.exp()"]
        form = rng.choice(forms)
        return self.emit(form, "wide_empty", inputs=[empty, var], saves=True)

    # -- reductions with dims, keepdim and dtype -------------------------------------------------

    def op_wide_reduce(self):
        rng = self.rng
        var = self.pick(lambda v: not self.is_bool(v) and len(self.shape(v)) >= 1)
        if var is None:
            return None
        v, shape = var.name, self.shape(var)
        value = self.value(var)
        ndim = len(shape)
        count = rng.randint(1, ndim)
        dims = tuple(rng.sample(range(-ndim, ndim), count))
        if len({d % ndim for d in dims}) != len(dims):
            return None
        d = repr(dims) if len(dims) > 1 or rng.random() < 0.5 else str(dims[0])
        keep = rng.choice(["", ", keepdim=True", ", True"])
        kw_keep = keep.replace(", True", ", keepdim=True")
        is_float = value.dtype.is_floating_point
        dtype = rng.choice(["float64", "float32", "int64", None, None])
        dt = f", dtype=lib.{dtype}" if dtype else ""
        name = rng.choice(["sum", "mean", "nansum", "nanmean", "amax", "amin", "std", "var",
                           "logsumexp", "norm", "vector_norm", "std_mean", "var_mean",
                           "aminmax", "prod", "count_nonzero", "sum_dim_none", "mean_kw"])
        if name in ("sum", "nansum"):
            form = rng.choice([f"{v}.{name}({d}{keep}{dt})", f"lib.{name}({v}, {d}{keep}{dt})",
                               f"lib.{name}({v}, dim={d}{kw_keep}{dt})"])
        elif name in ("mean", "nanmean", "mean_kw"):
            function = "nanmean" if name == "nanmean" else "mean"
            if dtype == "int64":
                dt = ""
            if not is_float and not dt:
                return None
            form = rng.choice([f"{v}.{function}({d}{keep}{dt})",
                               f"lib.{function}({v}, dim={d}{kw_keep}{dt})"])
        elif name in ("amax", "amin", "aminmax"):
            flat = value.detach().double().flatten()
            if flat.numel() != flat.unique().numel():
                return None
            if name == "aminmax":
                form = f"lib.aminmax({v}, dim={dims[0]}{kw_keep})[{rng.randint(0, 1)}]"
            else:
                form = rng.choice([f"{v}.{name}({d}{keep})", f"lib.{name}({v}, dim={d}{kw_keep})"])
        elif name in ("std", "var", "std_mean", "var_mean"):
            if not is_float:
                return None
            correction = rng.choice(["", ", correction=0", ", correction=2", ", unbiased=False"])
            if ", True" == keep and correction:
                keep = ", keepdim=True"
            form = f"lib.{name}({v}, {d}{correction}{kw_keep})"
            if name.endswith("_mean"):
                form += f"[{rng.randint(0, 1)}]"
        elif name == "logsumexp":
            if not is_float:
                return None
            form = f"lib.logsumexp({v}, {d}{keep})"
        elif name in ("norm", "vector_norm"):
            if not is_float or not self.far_from(value, 0.0):
                return None
            p = rng.choice(["2", "1", "3", "float('inf')", "0.5"])
            if name == "norm":
                form = f"lib.norm({v}, p={p}, dim={d}{kw_keep})"
            else:
                vdt = f", dtype=lib.float64" if dtype == "float64" else ""
                form = f"lib.linalg.vector_norm({v}, {p}, dim={d}{kw_keep}{vdt})"
            if "inf" in p:
                flat = value.detach().abs().double().flatten()
                if flat.numel() != flat.unique().numel():
                    return None
        elif name == "prod":
            form = rng.choice([f"{v}.prod({dims[0]}{keep}{dt})", f"lib.prod({v}{dt})"])
        elif name == "count_nonzero":
            form = f"lib.count_nonzero({v}, dim={d})"
        else:
            form = rng.choice([f"{v}.sum(None{dt})", f"lib.sum({v}, (){kw_keep})",
                               f"{v}.sum(dim=None{kw_keep})",
                               f"{v}.mean(())" if is_float else f"{v}.sum(())"])
        return self.emit(form, "wide_reduce", inputs=[var], saves=True)

    # -- in-place ops on views -------------------------------------------------------------------

    def op_wide_view_inplace(self):
        rng = self.rng
        torch = self.torch

        def ok(v):
            value = self.value(v)
            return (self.inplace_target_ok(v) and value.dtype.is_floating_point
                    and len(self.shape(v)) >= 1 and 0 not in self.shape(v))

        if rng.random() < 0.35:
            # a leaf that does not require grad, written through a view with an operand that
            # does: the base becomes a non-leaf (CopySlices)
            shape = rng.choice([(3,), (2, 3), (3, 1), (2, 3, 4)])
            dtype = rng.choice(["float32", "float64"])
            base = self.emit(rng.choice([f"lib.zeros({shape!r}, dtype=lib.{dtype})",
                                         f"lib.ones({shape!r}, dtype=lib.{dtype})",
                                         f"lib.full({shape!r}, 0.5, dtype=lib.{dtype})"]),
                             "wide_buffer")
            if base is None:
                return None
        else:
            base = self.pick(ok)
            if base is None:
                return None
        shape = self.shape(base)
        b = base.name
        view_code = rng.choice(
            [f"{b}[0]", f"{b}[..., ::2]" if shape[-1] > 1 else f"{b}[..., :1]",
             f"{b}.select(-1, {rng.randint(0, shape[-1] - 1)})", f"{b}.t()" if len(shape) == 2
             else f"{b}.unsqueeze(0)", f"{b}.diagonal()" if len(shape) >= 2 else f"{b}[1:]",
             f"{b}.view(-1)", f"{b}.transpose(0, -1)[0]", f"{b}.unbind(0)[-1]",
             f"{b}.narrow(0, 0, 1)", f"{b}[0:{shape[0]}]"])
        view = self.emit(view_code, "wide_inplace_view", inputs=[base], view_of=base)
        if view is None:
            return None
        w = view.name
        value = self.value(view)
        operand = None
        grad_operand = self.pick(lambda o: self.is_float(o) and self.value(o).requires_grad
                                 and self._broadcast_ok(o, view)
                                 and np.broadcast_shapes(self.shape(o), self.shape(view))
                                 == self.shape(view))
        op = rng.choice(["mul_", "add_", "copy_", "exp_", "sigmoid_", "clamp_", "fill_",
                         "masked_fill_", "index_fill_", "addcmul_", "lerp_", "div_", "pow_",
                         "neg_", "tanh_", "relu_", "zero_", "sub_"])
        scalar = rng.choice(["2", "0.5", "-1.5"])
        if op in ("mul_", "add_", "copy_", "addcmul_", "lerp_", "div_", "sub_"):
            if grad_operand is not None and rng.random() < 0.8:
                operand = grad_operand
                ocode = operand.name
                if op == "div_" and not bool((self.value(operand).abs() >= 0.25).all()):
                    return None
            else:
                ocode = scalar
                if op in ("copy_", "addcmul_", "lerp_"):
                    return None
            form = {"addcmul_": f"{w}.addcmul_({ocode}, {ocode}, value=0.5)",
                    "lerp_": f"{w}.lerp_({ocode}, 0.25)",
                    "add_": f"{w}.add_({ocode}, alpha=-2)" if rng.random() < 0.3
                    else f"{w}.add_({ocode})"}.get(op, f"{w}.{op}({ocode})")
        elif op == "clamp_":
            if not (self.far_from(value, -0.5) and self.far_from(value, 0.5)):
                return None
            form = f"{w}.clamp_(-0.5, 0.5)"
        elif op in ("relu_",):
            if not self.far_from(value, 0.0):
                return None
            form = f"{w}.relu_()"
        elif op == "pow_":
            form = f"{w}.pow_(2)"
        elif op == "fill_":
            form = f"{w}.fill_({scalar})" if grad_operand is None or rng.random() < 0.5 else \
                f"{w}.fill_({grad_operand.name}.sum())"
            if "sum()" in form:
                operand = grad_operand
        elif op == "masked_fill_":
            if not self.far_from(value, 0.0):
                return None
            form = f"{w}.masked_fill_({w} > 0, {scalar})"
        elif op == "index_fill_":
            form = f"{w}.index_fill_(-1, lib.tensor([0]), {scalar})"
        elif op in ("exp_",):
            if float(value.detach().abs().max()) > 5:
                return None
            form = f"{w}.exp_()"
        else:
            form = f"{w}.{op}()"
        if not self.attempt(form, checks=[w, b]):
            return None
        self.kinds["wide_inplace_" + op] += 1
        if op in ("mul_", "div_", "exp_", "sigmoid_", "clamp_", "addcmul_", "pow_", "tanh_",
                  "relu_", "lerp_"):
            self.saved_groups.update(x.group for x in (view, *([operand] if operand else [])))
        if operand is not None:
            self.saved_groups.add(operand.group)
        observe = [f"O.see({form!r}, {x.name})" for x in self.vars if x.group == view.group]
        self.lines.append((form, observe))
        return view

    # -- index writes with broadcasting ----------------------------------------------------------

    def op_wide_index_write(self):
        rng = self.rng
        var = self.pick(lambda v: self.inplace_target_ok(v) and len(self.shape(v)) >= 1
                        and 0 not in self.shape(v) and self.is_float(v))
        if var is None:
            return None
        v, shape = var.name, self.shape(var)
        dtype = self.dtype_name(var)
        n = shape[0]
        unique = sorted(rng.sample(range(n), rng.randint(1, n)))
        repeated = [rng.randrange(n) for _ in range(rng.randint(1, 4))]
        rest = shape[1:]
        kind = rng.choice(["setitem_tensor", "setitem_mask", "index_put", "index_add",
                           "scatter", "masked_scatter", "out_of_place", "setitem_list"])
        src_grad = rng.random() < 0.6
        operands = []

        def source(shape_):
            leaf = self.wide_leaf(shape_, dtype, requires_grad=src_grad)
            if leaf is not None:
                operands.append(leaf)
            return leaf

        if kind in ("setitem_tensor", "setitem_list"):
            index = f"lib.tensor({unique})" if kind == "setitem_tensor" else repr(unique)
            target = (len(unique), *rest)
            value_shape = target[rng.randint(0, len(target)):]
            if rng.random() < 0.3 and value_shape:
                value_shape = (1,) * len(value_shape[:1]) + value_shape[1:]
            src = source(value_shape) if rng.random() < 0.7 else None
            code = src.name if src is not None else rng.choice(["1.5", "-2", "0"])
            form = f"{v}[{index}] = {code}"
        elif kind == "setitem_mask":
            mask = self.np_rng.random(shape[: rng.randint(1, len(shape))]) < 0.5
            mask_code = f"lib.tensor({mask.tolist()!r})"
            count = int(mask.sum())
            src = source((1,) * 0 + (count, *shape[mask.ndim:])[-1:]) if rng.random() < 0.5 \
                and count else None
            form = f"{v}[{mask_code}] = {src.name if src is not None else '0.25'}"
        elif kind == "index_put":
            accumulate = rng.random() < 0.6
            idx = repeated if accumulate else unique
            src = source((len(idx), *rest)[rng.randint(0, len(rest) + 1) if rest else 0:]
                         if rng.random() < 0.5 else (len(idx), *rest))
            if src is None:
                return None
            form = f"{v}.index_put_((lib.tensor({idx}),), {src.name}, accumulate={accumulate})"
        elif kind == "index_add":
            src = source((len(repeated), *rest))
            if src is None:
                return None
            alpha = rng.choice(["", ", alpha=2", ", alpha=-0.5"])
            form = rng.choice([f"{v}.index_add_(0, lib.tensor({repeated}), {src.name}{alpha})",
                               f"{v}.index_copy_(0, lib.tensor({unique}), "
                               f"{src.name}[:{len(unique)}])"
                               if len(unique) <= len(repeated) else
                               f"{v}.index_add_(0, lib.tensor({repeated}), {src.name})"])
        elif kind == "scatter":
            index = self.np_rng.integers(0, n, size=(rng.randint(1, n), *rest))
            src = source(index.shape)
            if src is None:
                return None
            idx = f"lib.tensor({index.tolist()!r})"
            function = rng.choice(["scatter_add_", "scatter_add_", "scatter_"])
            if function == "scatter_":  # only one source per place: deterministic
                flat = [tuple([int(i), *rest_i]) for i, rest_i in zip(
                    index.reshape(-1), np.ndindex(*index.shape[1:]) if rest else [()] *
                    index.size)]
                if len(set(flat)) != len(flat):
                    function = "scatter_add_"
            form = f"{v}.{function}(0, {idx}, {src.name})"
        elif kind == "masked_scatter":
            mask = self.np_rng.random(shape[-1:]) < 0.5
            src = source(shape)
            if src is None:
                return None
            form = f"{v}.masked_scatter_(lib.tensor({mask.tolist()!r}), {src.name})"
        else:
            src = source((len(repeated), *rest))
            if src is None:
                return None
            form = rng.choice([f"{v}.index_add(0, lib.tensor({repeated}), {src.name})",
                               f"lib.index_put({v}, (lib.tensor({repeated}),), {src.name}, "
                               f"accumulate=True)",
                               f"{v}.index_add(0, lib.tensor({repeated}), {src.name}, alpha=3)"])
            return self.emit(form, "wide_index_write_functional", inputs=[var, *operands],
                             saves=True)
        if not self.attempt(form, checks=[v]):
            return None
        self.kinds["wide_" + kind] += 1
        self.saved_groups.update(o.group for o in operands)
        observe = [f"O.see({form!r}, {x.name})" for x in self.vars if x.group == var.group]
        self.lines.append((form, observe))
        return var

    # -- out= ------------------------------------------------------------------------------------

    def op_wide_out(self):
        rng = self.rng
        var = self.pick(lambda v: self.is_float(v) and len(self.shape(v)) >= 1)
        if var is None:
            return None
        v = f"{var.name}.detach()"
        shape = self.shape(var)
        calls = [f"lib.mul({v}, 2, out=OUT)", f"lib.exp({v}.tanh(), out=OUT)",
                 f"lib.sum({v}, -1, keepdim=True, out=OUT)", f"lib.amax({v}, 0, out=OUT)",
                 f"lib.cumsum({v}, 0, out=OUT)", f"lib.sigmoid({v}, out=OUT)",
                 f"lib.where({v} > 0, {v}, 0.5, out=OUT)", f"lib.mean({v}, 0, out=OUT)",
                 f"lib.addcmul({v}, {v}, {v}, value=0.5, out=OUT)",
                 f"lib.stack([{v}, {v}], out=OUT)", f"lib.matmul({v}, {v}.mT, out=OUT)"
                 if len(shape) >= 2 else f"lib.dot({v}, {v}, out=OUT)"]
        call = rng.choice(calls)
        try:
            probe = eval(call.replace(", out=OUT", ""), dict(self.ns))
        except Exception:  # noqa: BLE001 - torch refused
            return None
        dtype = self.dtype_name_of(probe)
        pshape = tuple(probe.shape)
        style = rng.choice(["same", "same", "wrong", "empty", "transposed", "strided"])
        if style == "same" or (style == "transposed" and len(pshape) < 2) or \
                (style == "strided" and not pshape):
            buffer_code = f"lib.zeros({pshape!r}, dtype=lib.{dtype})"
        elif style == "wrong":
            buffer_code = f"lib.zeros((5,), dtype=lib.{dtype})"
        elif style == "empty":
            buffer_code = f"lib.empty(0, dtype=lib.{dtype})"
        elif style == "transposed":
            buffer_code = f"lib.zeros({pshape[::-1]!r}, dtype=lib.{dtype}).mT"
        else:
            buffer_code = f"lib.zeros({(*pshape[:-1], pshape[-1] * 2)!r}, dtype=lib.{dtype})" \
                          f"[..., ::2]"
        buffer = self.emit(buffer_code, "wide_out_buffer")
        if buffer is None:
            return None
        result = self.emit(call.replace("OUT", buffer.name), "wide_out", inputs=[var],
                           view_of=buffer)
        if result is not None:
            self.lines[-1][1].append(f"O.see('out buffer stride', {buffer.name}.stride())")
        return result

    def dtype_name_of(self, tensor) -> str:
        return str(tensor.dtype).removeprefix("torch.")

    # -- hooks that change gradients -------------------------------------------------------------

    def op_wide_hook(self):
        rng = self.rng
        # (torch 2.13 segfaults registering a hook on a view written since it was made:
        # x = t.flatten() of a 0-d t; x.detach().sub_(1); x.register_hook(f))
        var = self.pick(lambda v: self.value(v).requires_grad and self.is_float(v)
                        and not (self.value(v)._is_view() and self.value(v)._version))
        if var is None:
            return None
        v = var.name
        value = self.value(var)
        hooks = [f"{v}.register_hook(lambda g: g.clamp(-1, 1))",
                 f"{v}.register_hook(lambda g: g * {v}.detach())",
                 f"{v}.register_hook(lambda g: None)",
                 f"{v}.register_hook(lambda g: g.flip(0) if g.dim() else -g)",
                 f"{v}.register_hook(lambda g: g.mul_(3))" if not value.is_leaf else
                 f"{v}.register_hook(lambda g: g + 0.5)",
                 f"_h1 = {v}.register_hook(lambda g: g * 10); "
                 f"_h2 = {v}.register_hook(lambda g: g - 1); _h1.remove()"]
        if value.is_leaf:
            hooks += [f"{v}.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0.5))",
                      f"{v}.register_post_accumulate_grad_hook("
                      f"lambda p: setattr(p, 'grad', p.grad * 2))"]
        elif value.grad_fn is not None:
            hooks += [f"{v}.grad_fn.register_prehook(lambda go: tuple(None if g is None else "
                      f"g * 2 for g in go))",
                      f"{v}.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else "
                      f"g + 1 for g in gi))",
                      f"{v}.grad_fn.register_hook(lambda gi, go: None)"]
        statement = rng.choice(hooks)
        if not self.attempt(statement):
            return None
        self.keep(statement, "wide_hook", [])
        return var
