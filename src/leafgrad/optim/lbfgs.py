"""L-BFGS with torch's iteration, stopping rules, state and optional strong-Wolfe line search.

The same arithmetic in the same order as torch's LBFGS (the two-loop recursion over the last
``history_size`` curvature pairs, the initial step ``min(1, 1/|g|_1) * lr``, the cubic
interpolation of the bracketing and zoom phases), so a seeded problem follows torch's
iterates. All parameters are handled as one flat vector; there is one parameter group.
"""

from __future__ import annotations

from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), kept in ``bounds``
    (default: between the two points); the middle when the cubic has no minimum."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    radicand = d1 ** 2 - g1 * g2
    if radicand < 0:
        return (low + high) / 2.0
    d2 = radicand.sqrt()
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


class _Point:
    """A trial step ``t`` with its loss, flat gradient and directional derivative."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step along ``d`` satisfying the strong Wolfe conditions: bracket, then zoom.
    Returns ``(loss, flat_grad, t, evaluations)``."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)
    f_new, g_new = evaluate(x, t, d)
    evaluations = 1
    current = _Point(t, f_new, g_new, g_new.dot(d))
    previous = start
    done = False
    iterations = 0
    bracket = None
    while iterations < max_ls:
        sufficient = current.f > (f + c1 * current.t * gtd)
        if sufficient or (iterations > 1 and current.f >= previous.f):
            bracket = [previous, _Point(current.t, current.f, current.g.clone(), current.gtd)]
            break
        if abs(current.gtd) <= -c2 * gtd:
            bracket = [current]
            done = True
            break
        if current.gtd >= 0:
            bracket = [previous, _Point(current.t, current.f, current.g.clone(), current.gtd)]
            break
        # extrapolate: the cubic's minimum, at least 1% past t and at most 10 t
        step = _cubic_minimum(previous.t, previous.f, previous.gtd, current.t, current.f,
                              current.gtd,
                              bounds=(current.t + 0.01 * (current.t - previous.t),
                                      current.t * 10))
        previous = _Point(current.t, current.f, current.g.clone(), current.gtd)
        f_new, g_new = evaluate(x, step, d)
        evaluations += 1
        current = _Point(step, f_new, g_new, g_new.dot(d))
        iterations += 1
    if iterations == max_ls:
        bracket = [_Point(0, f, g, None), _Point(current.t, current.f, current.g, None)]
    # zoom: shrink the bracket around a point satisfying the conditions
    stuck = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not done and iterations < max_ls:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        step = _cubic_minimum(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t,
                              bracket[1].f, bracket[1].gtd)
        top = max(bracket[0].t, bracket[1].t)
        bottom = min(bracket[0].t, bracket[1].t)
        margin = 0.1 * (top - bottom)
        if min(top - step, step - bottom) < margin:  # too close to an end of the bracket
            if stuck or step >= top or step <= bottom:
                step = top - margin if abs(step - top) < abs(step - bottom) else bottom + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        f_new, g_new = evaluate(x, step, d)
        evaluations += 1
        iterations += 1
        trial = _Point(step, f_new, g_new.clone(), g_new.dot(d))
        if trial.f > (f + c1 * step * gtd) or trial.f >= bracket[low].f:
            bracket[high] = trial  # no sufficient decrease: the new high end
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(trial.gtd) <= -c2 * gtd:
                done = True
            elif trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]  # the old low becomes the high end
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evaluations


class LBFGS(Optimizer):
    """Limited-memory BFGS; ``step(closure)`` runs up to ``max_iter`` iterations.

    >>> optimizer = optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")
    >>> optimizer.step(closure)  # closure: zero_grad, loss, backward, return loss
    """

    def __init__(self, params, lr=1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # -- the parameters as one flat vector ------------------------------------------------------
    # Note: complex parameters in LBFGS
    # torch flattens a complex parameter as its real view (two numbers per element), so the
    # flat gradient, the directions and the updates are real.
    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel()
                                    for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self) -> Tensor:
        from .. import cat, view_as_real, zeros

        views = []
        for p in self._params:
            view = zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
            if view.is_complex():
                view = view_as_real(view).reshape(-1)
            views.append(view)
        return cat(views, 0)

    def _add_grad(self, step_size, update) -> None:
        from .. import view_as_real

        offset = 0
        for p in self._params:
            if p.is_complex():
                p = view_as_real(p)
            count = p.numel()
            p.add_(update[offset:offset + count].view_as(p), alpha=step_size)
            offset += count

    def _clone_param(self) -> list:
        return [p.clone() for p in self._params]

    def _set_param(self, values) -> None:
        for p, value in zip(self._params, values):
            p.copy_(value)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the iteration ----------------------------------------------------------------------------
    def step(self, closure):
        if len(self.param_groups) != 1:  # (a group added after construction)
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}")
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        def evaluate():  # the closure always runs with grad enabled
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor) and lr.dim() != 0:  # torch's _to_scalar: a tensor lr stays
            lr = lr.squeeze()  # one (0-d), so the step length t is a tensor in the state
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        # the state is global; torch files it under the first parameter
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # steepest descent first
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                d = self._two_loop(state, flat_grad, old_dirs, old_stps, ro, H_diag,
                                   history_size)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction any more
                break
            ls_func_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    lambda x, step, direction: self._directional_evaluate(evaluate, x, step,
                                                                          direction),
                    x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:  # the last iteration's loss is not evaluated
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _two_loop(state, flat_grad, old_dirs, old_stps, ro, H_diag, history_size):
        """The inverse-Hessian approximation times the negative gradient."""
        from .. import mul

        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = mul(q, H_diag)
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r
