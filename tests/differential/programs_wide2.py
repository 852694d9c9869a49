"""The second wide op set of the program generator (programs.py; seeds from WIDE2_SEED0 on).

What the first wide set (programs_wide.py) leaves out and users write: more ops fed strided,
expanded and empty operands (fmod/remainder/floor_divide with scalars, clamp with tensor
bounds, addcdiv, lerp with a tensor weight, outer/cross/einsum/tensordot/kron, tril/triu,
gather/take_along_dim/index_select/masked_select, sort/topk of distinct values, diff, tile,
repeat_interleave, cumprod, logaddexp/copysign/xlogy, addmm/addmv/baddbmm with beta and alpha,
F.normalize/cosine_similarity/pairwise_distance/glu/softmin); gradients taken in the middle of
the program with create_graph=True and computed on (so the final backward is a double
backward through the backward formulas); in-place ops mixing dtypes, 0-d tensors and Python
scalars on views (the promotion errors too); and indexing with None, Ellipsis, negative
indices, boolean masks and index tensors on strided operands.

Seeds below WIDE2_SEED0 never draw from this set, so the programs of older seeds (the suite's
0-399 and the first wide set's from 10_000_000) stay what they were.
"""

from __future__ import annotations

import numpy as np

F = "lib.nn.functional"
WIDE2_SEED0 = 20_000_000


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


class Wide2Ops:
    WIDE2_OPS = (
        ("op_wide2_more", 20),
        ("op_wide2_inner_grad", 6),
        ("op_wide2_inplace_mixed", 8),
        ("op_wide2_index", 8),
    )

    def operand(self, accept=lambda v: True):
        """(code, var) for a float operand, sometimes seen through a strided view."""
        var = self.pick(lambda v: self.is_float(v) and accept(v))
        if var is None:
            return None, None
        if self.rng.random() < 0.4 and 0 not in self.shape(var):
            code = self.strided_view(var)
            view = self.emit(code, "wide2_view", inputs=[var], view_of=var)
            if view is not None:
                if "expand" in code:
                    view.expanded = True
                return view.name, view
        return var.name, var

    def distinct(self, value) -> bool:
        flat = value.detach().double().flatten()
        return flat.numel() == flat.unique().numel()

    # -- more ops ------------------------------------------------------------------------------

    def op_wide2_more(self):
        rng = self.rng
        w, var = self.operand()
        if var is None:
            return None
        value = self.value(var)
        shape = tuple(value.shape)
        nd = len(shape)
        dtype = self.dtype_name(var)
        dim = rng.randint(-nd, nd - 1) if nd else 0
        kind = rng.choice(["scalar_mod", "clamp_tensor", "addcdiv", "lerp_tensor", "product",
                           "tri", "gather", "sort", "diff", "tile", "cumprod", "binary_special",
                           "addmm", "functional", "masked_select", "where_scalar"])
        inputs = [var]
        if kind == "scalar_mod":
            s = rng.choice(["1.5", "2", "-0.75", "3"])
            op = rng.choice(["fmod", "remainder", "floor_divide", "%", "//"])
            if op in ("%", "//"):
                form = f"{w} {op} {s}"
            else:
                form = rng.choice([f"lib.{op}({w}, {s})", f"{w}.{op}({s})"])
            # away from the jumps: x / s must stay away from integers
            q = value.detach().double() / float(s)
            if not bool(((q - q.round()).abs() > 1e-3).all()):
                return None
        elif kind == "clamp_tensor":
            lo = self.wide_leaf(shape[rng.randint(0, nd):] if nd else (), dtype,
                                requires_grad=rng.random() < 0.5)
            if lo is None:
                return None
            inputs.append(lo)
            form = rng.choice([f"lib.clamp({w}, min={lo.name})", f"{w}.clamp(max={lo.name})",
                               f"lib.clamp({w}, {lo.name}, {lo.name} + 1)",
                               f"{w}.clamp_min({lo.name})"])
            try:
                gap = eval(f"({w} - {lo.name}).detach().double()", dict(self.ns))
            except Exception:  # noqa: BLE001 - torch refused
                return None
            if not (self.far_from(gap, 0.0) and self.far_from(gap, 1.0)) or bool(
                    (gap == 0).any() | (gap == 1).any()):
                return None
        elif kind in ("addcdiv", "lerp_tensor"):
            other = self.pick(lambda o: self.is_float(o) and o is not var
                              and self._broadcast_ok(o, var))
            if other is None:
                return None
            inputs.append(other)
            o = other.name
            if kind == "addcdiv":
                if not bool((self.value(other).abs() >= 0.25).all()):
                    return None
                form = rng.choice([f"lib.addcdiv({w}, {w}, {o}, value=0.5)",
                                   f"{w}.addcdiv({o}, {o}.exp())",
                                   f"lib.addcmul({o}, {w}, {o}, value=-2)"])
            else:
                form = rng.choice([f"lib.lerp({w}, {o}, {o}.sigmoid())",
                                   f"{w}.lerp({o}, 0.3)", f"lib.lerp({o}, {w}, {w}.tanh())"])
        elif kind == "product":
            if nd == 1:
                other = self.wide_leaf((rng.choice([1, 2, 3]),), dtype,
                                       requires_grad=rng.random() < 0.6)
                if other is None:
                    return None
                inputs.append(other)
                form = rng.choice([f"lib.outer({w}, {other.name})",
                                   f"lib.einsum('i,j->ij', {w}, {other.name})",
                                   f"lib.kron({w}, {other.name})",
                                   f"lib.tensordot({w}, {w}, dims=1)"])
            elif nd == 2:
                other = self.wide_leaf((shape[1], rng.choice([1, 2, 3])), dtype,
                                       requires_grad=rng.random() < 0.6)
                if other is None:
                    return None
                inputs.append(other)
                o = other.name
                form = rng.choice([f"lib.einsum('ij,jk->ik', {w}, {o})",
                                   f"lib.einsum('ij->j', {w})", f"lib.einsum('ij,ij->', {w}, {w})",
                                   f"lib.tensordot({w}, {o}, dims=([1], [0]))",
                                   f"lib.kron({w}, {o})", f"{w}.trace()", f"{w} @ {o}"])
                if shape[-1] == 3 and rng.random() < 0.3:
                    form = f"lib.linalg.cross({w}, {w}.flip(-1))"
            elif nd == 3:
                form = rng.choice([f"lib.einsum('bij,bkj->bik', {w}, {w})",
                                   f"lib.einsum('bij->ji', {w})",
                                   f"lib.bmm({w}, {w}.mT)", f"lib.tensordot({w}, {w}, dims=2)"])
            else:
                form = f"lib.einsum(',->', {w}, {w})"
        elif kind == "tri":
            if nd < 2:
                return None
            k = rng.choice([0, 1, -1])
            form = rng.choice([f"{w}.tril({k})", f"lib.triu({w}, {k})",
                               f"lib.diag_embed({w})" if nd == 2 else f"{w}.tril()",
                               f"{w}.diagonal(offset={k}, dim1=-1, dim2=-2)",
                               f"lib.diagonal({w}, 0, -2, -1).sum(-1)"])
        elif kind == "gather":
            if not nd or 0 in shape:
                return None
            size = shape[dim]
            n = rng.randint(1, 3)
            index = self.np_rng.integers(0, size, size=(*shape[:dim % nd], n,
                                                        *shape[dim % nd + 1:]))
            idx = f"lib.tensor({index.tolist()!r})"
            pick1 = self.np_rng.integers(0, size, size=n).tolist()
            form = rng.choice([f"lib.gather({w}, {dim}, {idx})",
                               f"{w}.gather({dim}, {idx})",
                               f"lib.take_along_dim({w}, {idx}, {dim})",
                               f"lib.index_select({w}, {dim}, lib.tensor({pick1}))",
                               f"{w}.index_select({dim}, lib.tensor({pick1}))",
                               f"lib.take({w}, lib.tensor({pick1}))"])
        elif kind == "sort":
            if not nd or 0 in shape or not self.distinct(value):
                return None
            k = rng.randint(1, shape[dim])
            form = rng.choice([f"lib.sort({w}, {dim})[0]", f"{w}.sort({dim}, descending=True)[0]",
                               f"lib.topk({w}, {k}, {dim})[0]",
                               f"{w}.topk({k}, dim={dim}, largest=False)[0]",
                               f"lib.kthvalue({w}, {k}, {dim})[0]", f"{w}.msort()",
                               f"lib.sort({w}, {dim}, stable=True)[1]",
                               f"{w}.argsort({dim})", f"lib.max({w}, {dim}, True)[0]",
                               f"lib.median({w}, {dim})[0]"])
        elif kind == "diff":
            if not nd:
                return None
            form = rng.choice([f"lib.diff({w}, dim={dim})", f"{w}.diff(n=2, dim={dim})",
                               f"lib.diff({w}, dim={dim}, prepend={w})",
                               f"lib.roll({w}, 1, {dim}) - {w}"])
        elif kind == "tile":
            form = rng.choice([f"{w}.tile((2,))", f"lib.tile({w}, (2, 1))",
                               f"{w}.repeat_interleave(2, dim={dim})" if nd else f"{w}.tile(2)",
                               f"lib.repeat_interleave({w}, 2)",
                               f"{w}.repeat_interleave(lib.tensor({[1, 2, 0][:1]}))"
                               if _numel(shape) == 1 else f"{w}.tile((1,))"])
        elif kind == "cumprod":
            if not nd:
                return None
            form = rng.choice([f"lib.cumprod({w}, {dim})", f"{w}.cumprod({dim}, dtype=lib.float64)",
                               f"lib.cumsum({w}, {dim}, dtype=lib.float64)",
                               f"lib.logcumsumexp({w}, {dim})", f"lib.cummin({w}, {dim})[0]"])
            if "cummin" in form and not self.distinct(value):
                return None
            if "cumprod" in form and not self.far_from(value, 0.0):
                return None
        elif kind == "binary_special":
            other = self.pick(lambda o: self.is_float(o) and self._broadcast_ok(o, var))
            if other is None:
                return None
            inputs.append(other)
            o = other.name
            op = rng.choice(["logaddexp", "copysign", "xlogy", "fmax", "fmin", "hypot",
                             "logaddexp2", "float_power", "true_divide", "rsub", "nextafter"])
            if op == "xlogy":
                if not bool((self.value(other) > 0.1).all()):
                    return None
            if op == "copysign" and not self.far_from(self.value(other), 0.0):
                return None
            if op in ("fmax", "fmin"):
                try:
                    diff = eval(f"({w} - {o}).detach().double()", dict(self.ns))
                except Exception:  # noqa: BLE001 - torch refused
                    return None
                if not self.far_from(diff, 0.0) or bool((diff == 0).any()):
                    return None
            if op == "float_power":
                form = f"lib.float_power({w}, 2)"
            elif op == "true_divide":
                if not bool((self.value(other).abs() >= 0.25).all()):
                    return None
                form = f"lib.true_divide({w}, {o})"
            elif op == "rsub":
                form = f"lib.rsub({w}, {o}, alpha=2)"
            elif op == "nextafter":
                form = f"lib.nextafter({w}.detach(), {o}.detach())"
            else:
                form = rng.choice([f"lib.{op}({w}, {o})", f"{w}.{op}({o})"])
        elif kind == "addmm":
            if nd == 2:
                a = self.wide_leaf((shape[0], 2), dtype, requires_grad=rng.random() < 0.6)
                b = self.wide_leaf((2, shape[1]), dtype, requires_grad=rng.random() < 0.6)
                if a is None or b is None:
                    return None
                inputs += [a, b]
                form = rng.choice([f"lib.addmm({w}, {a.name}, {b.name})",
                                   f"{w}.addmm({a.name}, {b.name}, beta=0.5, alpha=2)",
                                   f"lib.addmm({w}, {a.name}, {b.name}, beta=0)",
                                   f"lib.addmm({w}[0], {a.name}, {b.name}, alpha=-1)"])
            elif nd == 1:
                a = self.wide_leaf((shape[0], 2), dtype, requires_grad=rng.random() < 0.6)
                if a is None:
                    return None
                inputs.append(a)
                form = rng.choice([f"lib.addmv({w}, {a.name}, {a.name}[0])",
                                   f"{w}.addmv({a.name}, {a.name}[1], beta=2, alpha=0.5)",
                                   f"lib.addr({w}, {w}, {w}, beta=0.5)",
                                   f"lib.mv({a.name}.mT, {w})"])
            elif nd == 3:
                form = rng.choice([f"lib.baddbmm({w}, {w}, {w}.mT[..., :{shape[2]}]"
                                   f", beta=0.5, alpha=2)" if shape[1] == shape[2]
                                   else f"lib.bmm({w}, {w}.mT)",
                                   f"lib.baddbmm({w} @ {w}.mT, {w}, {w}.mT)",
                                   f"lib.addbmm({w}[0] @ {w}[0].mT, {w}, {w}.mT)"])
            else:
                return None
        elif kind == "functional":
            if not nd:
                return None
            options = [f"{F}.normalize({w}, dim={dim})", f"{F}.softmin({w}, {dim})",
                       f"{F}.log_softmax({w}, {dim}, dtype=lib.float64)",
                       f"{F}.softmax({w}, dim={dim}, dtype=lib.float64)"]
            if nd >= 2:
                options += [f"{F}.cosine_similarity({w}, {w}.flip(0), dim=-1)",
                            f"{F}.pairwise_distance({w}, {w}.flip(0))"]
            if shape[dim] % 2 == 0:
                options.append(f"{F}.glu({w}, {dim})")
            form = rng.choice(options)
            if "pairwise" in form or "cosine" in form:
                try:
                    d = eval(f"({w} - {w}.flip(0)).detach().double()", dict(self.ns))
                except Exception:  # noqa: BLE001
                    return None
                if not bool((d.abs() > 1e-3).all()):
                    return None
        elif kind == "masked_select":
            mask = self.np_rng.random(shape[rng.randint(0, nd):] if nd else ()) < 0.5
            m = f"lib.tensor({np.asarray(mask).tolist()!r})"
            form = rng.choice([f"lib.masked_select({w}, {m})", f"{w}[{m}]" if nd else
                               f"{w}.masked_select({m})", f"{w}.masked_select({m}).sum()"])
        else:
            s = rng.choice(["0.5", "-1", "2", "0"])
            form = rng.choice([f"lib.where({w} > 0, {w}, {s})", f"lib.where({w} < 0, {s}, {w})",
                               f"lib.where({w} > 0, {w} * 2, {w}.detach())",
                               f"lib.where({w} > 0)[0]" if nd else f"{w}.nonzero()",
                               f"{w}.nonzero()",
                               f"lib.nan_to_num({w} / ({w} > 0), 0.0, 5.0, -5.0)"])
            if not self.far_from(value, 0.0) or bool((value == 0).any()):
                return None
        return self.emit(form, "wide2_" + kind, inputs=inputs, saves=True)

    # -- gradients taken in the middle, with create_graph ---------------------------------------

    def op_wide2_inner_grad(self):
        rng = self.rng
        leaves = [v for v in self.vars if self.value(v).is_leaf and self.value(v).requires_grad
                  and self.is_float(v)]
        if not leaves:
            return None
        target = rng.choice(leaves)
        x = target.name
        value = self.value(target)
        fn = rng.choice([f"({x} * {x}).sum()", f"{x}.exp().sum()", f"({x}.sin() * {x}).sum()",
                         f"{x}.tanh().sum()", f"({x} ** 3).mean()", f"{x}.sigmoid().prod()",
                         f"{F}.softplus({x}).sum()", f"({x}.mT @ {x}).sum()"
                         if value.dim() >= 2 else f"({x} * {x}.cos()).sum()",
                         f"{F}.log_softmax({x}, -1).sum()" if value.dim() else f"{x}.exp()",
                         f"{x}.norm()" if self.far_from(value, 0.0) and bool(
                             (value != 0).any()) else f"{x}.square().sum()"])
        # a non-leaf on the way there sometimes: the grad of something computed from it
        late = [v for v in self.vars if not self.value(v).is_leaf and self.value(v).requires_grad
                and self.is_float(v) and self.value(v).dim() and not v.expanded]
        if late and rng.random() < 0.4:
            y = rng.choice(late).name
            fn = rng.choice([f"({y} * {y}).sum()", f"{y}.exp().sum()", f"{y}.tanh().sum()"])
            if float(self.ns[y].detach().abs().max()) > 4:
                return None
        form = rng.choice([f"lib.autograd.grad({fn}, {x}, create_graph=True)[0]",
                           f"lib.autograd.grad({fn}, [{x}], create_graph=True, "
                           f"allow_unused=True, materialize_grads=True)[0]",
                           f"lib.autograd.grad([{fn}], ({x},), create_graph=True, "
                           f"retain_graph=True)[0]"])
        return self.emit(form, "wide2_inner_grad", inputs=[target], saves=True)

    # -- in-place ops mixing dtypes and Python scalars -----------------------------------------

    def op_wide2_inplace_mixed(self):
        rng = self.rng
        dtype = rng.choice(["float32", "float64", "int64", "int32", "float16", "uint8", "bool",
                            "complex64"])
        shape = rng.choice([(3,), (2, 3), (3, 1), (2, 2)])
        base = self.wide_leaf(shape, dtype)
        if base is None:
            return None
        b = base.name
        view_code = rng.choice([f"{b}[0]", f"{b}.t()" if len(shape) == 2 else f"{b}[::2]",
                                f"{b}[..., :1]", f"{b}.view(-1)", f"{b}", f"{b}[1:]"])
        view = self.emit(view_code, "wide2_mixed_view", inputs=[base], view_of=base)
        if view is None:
            return None
        w = view.name
        other = self.pick(lambda o: o is not view and o is not base
                          and o.group != base.group and self._broadcast_ok(o, view)
                          and np.broadcast_shapes(self.shape(o), self.shape(view))
                          == self.shape(view))
        scalar = rng.choice(["2", "0.5", "True", "-3", "1.5", "(1+2j)"])
        op = rng.choice(["add_", "mul_", "sub_", "div_", "copy_", "fill_", "clamp_",
                         "masked_fill_", "pow_", "floor_divide_", "remainder_", "bitwise_and_",
                         "__iadd__", "__imul__", "lerp_", "addcmul_"])
        if op in ("add_", "mul_", "sub_", "div_", "copy_", "__iadd__", "__imul__",
                  "remainder_", "bitwise_and_") and other is not None and rng.random() < 0.6:
            operand = other.name
        else:
            operand = scalar
        if op in ("div_", "remainder_", "floor_divide_") and other is not None \
                and operand == other.name:
            if not bool((self.value(other) != 0).all()):
                return None
        if op == "__iadd__":
            form, call = f"{w} += {operand}", f"{w}.__iadd__({operand})"
        elif op == "__imul__":
            form, call = f"{w} *= {operand}", f"{w}.__imul__({operand})"
        else:
            if op == "clamp_":
                form = f"{w}.clamp_(min={scalar})"
            elif op == "masked_fill_":
                form = f"{w}.masked_fill_({w} != 0, {scalar})"
            elif op == "fill_":
                form = f"{w}.fill_({operand if operand == scalar else operand + '.sum()'})"
            elif op == "pow_":
                form = f"{w}.pow_({rng.choice(['2', '0.5', '3'])})"
            elif op == "lerp_":
                form = f"{w}.lerp_({w} * 2, 0.5)"
            elif op == "addcmul_":
                form = f"{w}.addcmul_({w}, {w}, value={scalar})"
            elif op == "add_" and rng.random() < 0.4:
                form = f"{w}.add_({operand}, alpha={rng.choice(['2', '0.5', 'True'])})"
            else:
                form = f"{w}.{op}({operand})"
            call = form
        if self.attempt(form, checks=[w, b]):
            self.kinds["wide2_inplace_" + op] += 1
            operand_var = other if operand != scalar else None
            if operand_var is not None:
                self.saved_groups.add(operand_var.group)
            observe = [f"O.see({form!r}, {x.name})" for x in self.vars if x.group == view.group]
            self.lines.append((form, observe))
            return view
        if rng.random() < 0.5:
            return None
        # torch refused (a promotion error, a result type the view cannot hold): the program
        # records the error, which leafgrad must raise alike, leaving every tensor unchanged
        statement = f"O.fails({form!r}, lambda: {call})"
        if not self.attempt(statement):
            return None
        observe = [f"O.see({'after ' + form!r}, {x.name})" for x in self.vars
                   if x.group == view.group]
        self.lines.append((statement, observe))
        self.kinds["wide2_inplace_error"] += 1
        return view
        return view

    # -- indexing on strided operands -----------------------------------------------------------

    def op_wide2_index(self):
        rng = self.rng
        w, var = self.operand(lambda v: len(self.shape(v)) >= 1 and 0 not in self.shape(v))
        if var is None:
            return None
        shape = self.shape(var)
        n = shape[0]
        idx = self.np_rng.integers(-n, n, size=rng.randint(1, 4)).tolist()
        forms = [f"{w}[None, ..., -1]", f"{w}[..., None]", f"{w}[lib.tensor({idx})]",
                 f"{w}[{idx}]", f"{w}[-1]", f"{w}[lib.tensor({idx}), ...]",
                 f"{w}[{w} > 0]", f"{w}[lib.tensor({idx})[:, None]]", f"{w}[0:{n}:2]"]
        if len(shape) >= 2:
            m = shape[1]
            j = self.np_rng.integers(-m, m, size=len(idx)).tolist()
            forms += [f"{w}[lib.tensor({idx}), lib.tensor({j})]", f"{w}[:, {j}]",
                      f"{w}[{idx}, 0]", f"{w}[lib.tensor({idx})[:, None], lib.tensor({j})]",
                      f"{w}[:, None, -1]", f"{w}[..., lib.tensor({j}).view(-1, 1)]",
                      f"{w}[lib.tensor(True)]", f"{w}[{w}[:, 0] > 0]"]
        form = rng.choice(forms)
        return self.emit(form, "wide2_index", inputs=[var])
