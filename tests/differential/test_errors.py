"""Misuse of the core op set: same exception type and first message line as torch, and nothing
modified by the failing call (values, `_version`, `.grad`, requires_grad and grad_fn of every
tensor the case made are the same before and after it).

Each case is (setup, failing statement), run once with `lib = torch` and once with
`lib = leafgrad`. Messages are compared after spelling `torch.` as `leafgrad.` (torch prints
dtypes and sizes as `torch.float32`, `torch.Size([2])`, `torch.FloatTensor`).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .programs import to_numpy

torch = require_torch()

X = "x = lib.tensor([1.5, -2.0], requires_grad=True)"
W = "w = lib.tensor([0.5, 3.0], requires_grad=True)"
M = "m = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)"
I = "i = lib.tensor([1, 2, 3])"

CASES = {
    # --- backward and autograd.grad ---
    "backward_nonscalar_without_gradient": (f"{X}\ny = x * 2", "y.backward()"),
    "grad_nonscalar_without_grad_outputs": (f"{X}\ny = x * 2", "lib.autograd.grad(y, [x])"),
    "backward_gradient_wrong_shape": (f"{X}\ny = x * 2", "y.backward(lib.ones(3))"),
    "backward_gradient_wrong_shape_scalar": (f"{X}\ny = (x * 2).sum()", "y.backward(lib.ones(2))"),
    "grad_outputs_wrong_shape": (f"{X}\ny = x * 2", "lib.autograd.grad(y, [x], lib.ones(2, 1))"),
    "backward_twice_without_retain_graph": (
        f"{X}\ny = (x.exp() * x).sum()\ny.backward()",
        "y.backward()",
    ),
    "backward_twice_after_autograd_grad": (
        f"{X}\ny = (x * x).sum()\ng = lib.autograd.grad(y, [x])",
        "y.backward()",
    ),
    "autograd_grad_twice": (
        f"{X}\ny = x.sigmoid().sum()\ng = lib.autograd.grad(y, [x])",
        "lib.autograd.grad(y, [x])",
    ),
    "saved_tensor_after_backward": (
        f"{X}\ny = x.exp()\ny.sum().backward()",
        "y.grad_fn._saved_result",
    ),
    "grad_of_tensor_not_requiring_grad": (f"{X}", "lib.autograd.grad(lib.ones(2).sum(), [x])"),
    "grad_wrt_tensor_not_requiring_grad": (
        f"{X}\ny = (x * 2).sum()",
        "lib.autograd.grad(y, [lib.ones(2)])",
    ),
    "grad_unused_input": (f"{X}\n{W}\ny = (x * 2).sum()", "lib.autograd.grad(y, [x, w])"),
    "grad_materialize_without_allow_unused": (
        f"{X}\n{W}\ny = (x * 2).sum()",
        "lib.autograd.grad(y, [x, w], allow_unused=False, materialize_grads=True)",
    ),
    "backward_without_requires_grad": ("a = lib.ones(2)\ny = (a * 2).sum()", "y.backward()"),
    "backward_on_int_result": (f"{I}\ny = i.sum()", "y.backward()"),
    "backward_empty_inputs": (f"{X}\ny = (x * 2).sum()", "y.backward(inputs=[])"),
    "retain_grad_without_requires_grad": ("a = lib.ones(2)", "a.retain_grad()"),
    "requires_grad_false_on_non_leaf": (f"{X}\ny = x * 2", "y.requires_grad_(False)"),
    # --- in-place on a leaf that requires grad, or a view of one ---
    "leaf_add_": (X, "x.add_(1)"),
    "leaf_mul_": (X, "x.mul_(2)"),
    "leaf_sub_": (X, "x.sub_(lib.ones(2))"),
    "leaf_div_": (X, "x.div_(2)"),
    "leaf_iadd": (X, "x += 1"),
    "leaf_imul": (X, "x *= 2"),
    "leaf_zero_": (X, "x.zero_()"),
    "leaf_fill_": (X, "x.fill_(0.5)"),
    "leaf_copy_": (X, "x.copy_(lib.ones(2))"),
    "leaf_clamp_": (X, "x.clamp_(min=0.0)"),
    "leaf_view_add_": (M, "m.view(6).add_(1)"),
    "leaf_transpose_mul_": (M, "m.t().mul_(2)"),
    "leaf_unsqueeze_zero_": (X, "x.unsqueeze(0).zero_()"),
    "leaf_squeeze_fill_": (M, "m.reshape(1, 2, 3).squeeze(0).fill_(1.0)"),
    "expanded_add_": ("a = lib.ones(1)\ne = a.expand(3)", "e.add_(1)"),
    "expanded_leaf_add_": (X, "x.expand(2, 2).add_(1)"),
    # --- saved tensors modified in place ---
    "modified_exp_output": (f"{X}\ny = x.exp()\ny.add_(1)", "y.sum().backward()"),
    "modified_mul_input": (f"{X}\n{W}\na = x * 1\ny = a * w\na.mul_(2)", "y.sum().backward()"),
    "modified_matmul_input": (
        f"{M}\na = m * 1\nb = lib.ones(3, 2, requires_grad=True)\ny = a @ b\na.zero_()",
        "y.sum().backward()",
    ),
    "modified_sigmoid_output_then_grad": (
        f"{X}\ny = x.sigmoid()\ny.mul_(2)",
        "lib.autograd.grad(y.sum(), [x])",
    ),
    "modified_view_of_saved": (
        f"{X}\na = x * 1\ny = a.pow(2)\na.view(2, 1).add_(1)",
        "y.sum().backward()",
    ),
    "modified_saved_accessor": (f"{X}\ny = x.exp()\ny.add_(1)", "y.grad_fn._saved_result"),
    "modified_leaf_through_detach": (f"{X}\ny = x.sin()\nx.detach().zero_()", "y.sum().backward()"),
    "modified_through_base_of_view": (
        f"{M}\na = m * 1\nv = a.t()\ny = v.cos()\na.fill_(2.0)",
        "y.sum().backward()",
    ),
    # --- broadcasting ---
    "add_shapes": ("a = lib.ones(2)\nb = lib.ones(3)", "a + b"),
    "mul_shapes_2d": ("a = lib.ones(2, 3)\nb = lib.ones(3, 2)", "a * b"),
    "sub_module_form": ("a = lib.ones(2, 3, 4)\nb = lib.ones(3, 3)", "lib.sub(a, b)"),
    "div_requires_grad": (f"{M}\nb = lib.ones(2, 2)", "m / b"),
    "pow_shapes": ("a = lib.ones(2) + 1\nb = lib.ones(3)", "a ** b"),
    "compare_shapes": ("a = lib.ones(2)\nb = lib.ones(3)", "a < b"),
    "inplace_add_grows": ("a = lib.ones(3)\nb = lib.ones(2, 3)", "a.add_(b)"),
    "inplace_mul_grows_non_leaf": (f"{X}\ny = x * 1\nb = lib.ones(3, 2)", "y.mul_(b)"),
    "inplace_iadd_grows": ("a = lib.ones(3, 1)\nb = lib.ones(3, 4)", "a += b"),
    "inplace_sub_mismatch": ("a = lib.ones(3)\nb = lib.ones(2)", "a.sub_(b)"),
    "inplace_copy_mismatch": ("a = lib.ones(2)\nb = lib.ones(3)", "a.copy_(b)"),
    # --- matmul / mm ---
    "matmul_1d_1d": ("a = lib.ones(3)\nb = lib.ones(2)", "a @ b"),
    "matmul_1d_2d": ("a = lib.ones(3)\nb = lib.ones(2, 3)", "a @ b"),
    "matmul_2d_1d": ("a = lib.ones(2, 3)\nb = lib.ones(2)", "a @ b"),
    "matmul_2d_2d": ("a = lib.ones(2, 3)\nb = lib.ones(2, 3)", "a @ b"),
    "matmul_1d_3d": ("a = lib.ones(3)\nb = lib.ones(2, 2, 3)", "a @ b"),
    "matmul_3d_1d": ("a = lib.ones(2, 2, 3)\nb = lib.ones(2)", "a @ b"),
    "matmul_2d_3d": ("a = lib.ones(2, 3)\nb = lib.ones(2, 2, 3)", "lib.matmul(a, b)"),
    "matmul_3d_2d": ("a = lib.ones(2, 2, 3)\nb = lib.ones(2, 3)", "a.matmul(b)"),
    "matmul_3d_3d_inner": ("a = lib.ones(2, 2, 3)\nb = lib.ones(2, 2, 3)", "a @ b"),
    "matmul_3d_3d_batch": ("a = lib.ones(2, 2, 3)\nb = lib.ones(3, 3, 2)", "a @ b"),
    "matmul_0d": ("a = lib.tensor(2.0)\nb = lib.ones(2)", "a @ b"),
    "matmul_dtypes": ("a = lib.ones(2, 3)\nb = lib.ones(3, 2, dtype=lib.float64)", "a @ b"),
    "matmul_int_float": ("a = lib.ones(2, 3, dtype=lib.int64)\nb = lib.ones(3, 2)", "a @ b"),
    "mm_shapes": ("a = lib.ones(2, 3)\nb = lib.ones(2, 3)", "a.mm(b)"),
    "mm_1d": ("a = lib.ones(3)\nb = lib.ones(3, 2)", "lib.mm(a, b)"),
    "mm_3d": ("a = lib.ones(2, 2, 3)\nb = lib.ones(3, 2)", "a.mm(b)"),
    # --- view / reshape / expand ---
    "view_wrong_numel": (M, "m.view(4)"),
    "view_two_inferred": (M, "m.view(-1, -1)"),
    "view_inferred_not_divisible": (M, "m.view(-1, 4)"),
    "view_negative_size": (M, "m.view(-2, 3)"),
    "view_non_contiguous": (M, "m.t().view(6)"),
    "reshape_wrong_numel": (M, "m.reshape(5)"),
    "reshape_module_wrong_numel": (M, "lib.reshape(m, (4, 2))"),
    "expand_non_singleton": (M, "m.expand(3, 3)"),
    "expand_too_few_sizes": (M, "m.expand(3)"),
    "expand_leading_minus_one": (M, "m.expand(-1, 2, 3)"),
    # --- cat / stack ---
    "cat_size_mismatch": ("a = lib.ones(2, 3)\nb = lib.ones(3, 2)", "lib.cat([a, b])"),
    "cat_ndim_mismatch": ("a = lib.ones(2, 3)\nb = lib.ones(3)", "lib.cat([a, b], 1)"),
    "cat_zero_dim": ("a = lib.tensor(1.0)\nb = lib.tensor(2.0)", "lib.cat([a, b])"),
    "cat_empty": ("", "lib.cat([])"),
    "stack_shape_mismatch": ("a = lib.ones(2, 3)\nb = lib.ones(3, 2)", "lib.stack([a, b])"),
    "stack_empty": ("", "lib.stack([])"),
    # --- dimensions out of range ---
    "sum_dim_too_big": (M, "m.sum(2)"),
    "sum_dim_too_negative": (M, "m.sum(-3)"),
    "sum_dim_repeated": (M, "m.sum((0, -2))"),
    "sum_0d_dim": ("a = lib.tensor(1.0)", "a.sum(1)"),
    "mean_dim_too_big": (M, "m.mean(5, keepdim=True)"),
    "mean_int": (I, "i.mean()"),
    "transpose_dim": (M, "m.transpose(0, 2)"),
    "transpose_negative_dim": (M, "lib.transpose(m, -3, 0)"),
    "t_3d": ("a = lib.ones(2, 3, 4)", "a.t()"),
    "unsqueeze_dim": (M, "m.unsqueeze(3)"),
    "unsqueeze_negative_dim": (M, "m.unsqueeze(-4)"),
    "squeeze_dim": (M, "m.squeeze(2)"),
    "squeeze_0d_dim": ("a = lib.tensor(1.0)", "a.squeeze(1)"),
    "cat_dim": ("a = lib.ones(2, 3)\nb = lib.ones(2, 3)", "lib.cat([a, b], dim=2)"),
    "stack_dim": ("a = lib.ones(2, 3)\nb = lib.ones(2, 3)", "lib.stack([a, b], dim=-4)"),
    # --- conversions and dtype rules ---
    "numpy_requires_grad": (X, "x.numpy()"),
    "numpy_non_leaf_requires_grad": (f"{X}\ny = x * 2", "y.numpy()"),
    "int_tensor_requires_grad": ("", "lib.tensor([1, 2], requires_grad=True)"),
    "int_requires_grad_": (I, "i.requires_grad_()"),
    "int_ones_requires_grad": ("", "lib.ones(2, dtype=lib.int64, requires_grad=True)"),
    "bool_requires_grad_": ("b = lib.tensor([True, False])", "b.requires_grad_()"),
    "int_set_requires_grad": (I, "i.requires_grad = True"),
    "item_multi_element": (X, "x.item()"),
    "bool_multi_element": ("a = lib.ones(2)", "bool(a)"),
    "bool_multi_element_comparison": (f"{X}\n{W}", "bool(x > w)"),
    "int_add_float": (I, "i.add_(1.5)"),
    "int_iadd_float": (I, "i += 0.5"),
    "int_mul_float_tensor": (f"{I}\na = lib.ones(3)", "i.mul_(a)"),
    "int_div_": (I, "i.div_(2)"),
    "int_negative_power": (I, "i ** -1"),
    "bool_negation": ("b = lib.tensor([True, False])", "-b"),
    "bool_subtraction": ("b = lib.tensor([True, False])", "b - b"),
    "clamp_without_bounds": ("a = lib.ones(2)", "a.clamp_()"),
    "fill_with_1d_tensor": ("a = lib.ones(2)", "a.fill_(lib.ones(2))"),
}


def _first_line(error: BaseException) -> str:
    text = str(error)
    first = text.splitlines()[0] if text else ""
    first = re.sub(r" \(Triggered internally at [^)]*\)", "", first)
    return first.replace("torch.", "leafgrad.")


def _state(lib, namespace) -> dict:
    """Everything a failing call could have changed in the tensors the case made."""
    state = {}
    for name, value in namespace.items():
        if not isinstance(value, lib.Tensor):
            continue
        grad = value.grad if value.is_leaf or value.retains_grad else None
        state[name] = (
            to_numpy(value),
            value._version,
            None if grad is None else to_numpy(grad),
            value.requires_grad,
            None if value.grad_fn is None else value.grad_fn.name(),
        )
    return state


def _same_state(before: dict, after: dict) -> list[str]:
    changed = []
    for name in sorted(set(before) | set(after)):
        if name not in before or name not in after:
            continue  # a name the failing statement bound (e.g. `x += 1` rebinding) is no change
        for label, old, new in zip(
            ("values", "_version", "grad", "requires_grad", "grad_fn"), before[name], after[name]
        ):
            if isinstance(old, np.ndarray) or isinstance(new, np.ndarray):
                same = (
                    isinstance(old, np.ndarray)
                    and isinstance(new, np.ndarray)
                    and old.shape == new.shape
                    and np.array_equal(old, new, equal_nan=old.dtype.kind == "f")
                )
            else:
                same = old == new
            if not same:
                changed.append(f"{name}.{label}: {old!r} -> {new!r}")
    return changed


def _attempt(lib, setup: str, statement: str):
    namespace = {"lib": lib}
    exec(setup, namespace)
    before = _state(lib, namespace)
    try:
        exec(statement, namespace)
    except Exception as error:  # noqa: BLE001 - the point is to compare whatever is raised
        outcome = (type(error).__name__, _first_line(error))
    else:
        outcome = ("no error", "")
    return outcome, _same_state(before, _state(lib, namespace))


@pytest.mark.parametrize("case", sorted(CASES))
def test_misuse_raises_like_torch_and_changes_nothing(case):
    setup, statement = CASES[case]
    expected, torch_changed = _attempt(torch, setup, statement)
    assert expected[0] != "no error", f"not a misuse for torch: {statement}"
    assert torch_changed == [], "torch itself changed state: the case is badly chosen"
    actual, changed = _attempt(leafgrad, setup, statement)
    assert actual == expected, f"{setup}\n>>> {statement}"
    assert changed == [], f"{setup}\n>>> {statement}\nleafgrad changed: {changed}"
